//! The random provider's lifecycle, run in-process against its built component with
//! `tfwasm-testing` (no Terraform). `make build` (or `cargo build --release --target
//! wasm32-wasip2 -p tfwasm-sample-random`) builds the component first.

use serde_json::json;
use tfwasm_testing::{Harness, State};

fn harness() -> Harness {
    let path = Harness::built_component("tfwasm_sample_random").unwrap();
    Harness::load(path).unwrap()
}

fn text(state: &State, name: &str) -> String {
    state.attr(name).as_str().unwrap_or_default().to_owned()
}

#[test]
fn password_is_hashed_private_and_never_logged() {
    let h = harness();
    let config = json!({"length": 20, "special": false});
    let state = h.create("random_password", config.clone()).unwrap();
    let password = text(&state, "result");
    assert_eq!(password.chars().count(), 20);
    assert!(password.chars().all(char::is_alphanumeric), "{password}");
    assert!(bcrypt::verify(&password, &text(&state, "bcrypt_hash")).unwrap());
    assert_eq!(text(&state, "id"), "none");
    assert_eq!(state.private_json(), json!({"bcrypt_cost": 10}));
    // A second plan with the same configuration changes nothing and keeps private state.
    let plan = h.plan("random_password", Some(&state), config).unwrap();
    assert!(plan.is_no_op(), "{:?}", plan.planned);
    assert_eq!(plan.private, state.private);
    let logs = h.logs();
    let line = logs
        .iter()
        .find(|l| l.message == "generated random_password")
        .unwrap_or_else(|| panic!("no generation log line: {logs:?}"));
    assert!(
        line.fields
            .contains(&("result".to_owned(), "***".to_owned())),
        "the logged result is masked: {line}"
    );
    assert!(
        logs.iter().all(|l| !l.to_string().contains(&password)),
        "the password leaked into the log: {logs:?}"
    );
}

#[test]
fn password_number_follows_numeric() {
    let h = harness();
    let plan = h
        .plan(
            "random_password",
            None,
            json!({"length": 8, "numeric": false}),
        )
        .unwrap();
    assert_eq!(plan.attr("number").as_bool(), Some(false));
    assert_eq!(plan.attr("numeric").as_bool(), Some(false));
    let plan = h
        .plan(
            "random_password",
            None,
            json!({"length": 8, "number": false}),
        )
        .unwrap();
    assert_eq!(plan.attr("numeric").as_bool(), Some(false));
    assert!(
        plan.warnings
            .iter()
            .any(|d| d.summary.contains("deprecated")),
        "{:?}",
        plan.warnings
    );
    let diags = h
        .validate(
            "random_password",
            json!({"length": 8, "number": false, "numeric": true}),
        )
        .unwrap();
    assert!(
        diags
            .iter()
            .any(|d| d.summary == "Conflicting number and numeric"),
        "{diags:?}"
    );
}

/// A state as hashicorp/random 3.1 wrote it (schema version 0).
fn v0_state() -> serde_json::Value {
    json!({
        "id": "none",
        "keepers": null,
        "length": 12,
        "lower": true,
        "min_lower": 0,
        "min_numeric": 0,
        "min_special": 0,
        "min_upper": 0,
        "number": false,
        "override_special": null,
        "result": "aBcDeFgHiJkL",
        "special": true,
        "upper": true
    })
}

#[test]
fn password_upgrades_from_every_old_version() {
    let h = harness();
    let config = json!({"length": 12, "number": false});
    // v0: no bcrypt_hash, no numeric.
    let v0 = h.upgrade("random_password", 0, v0_state()).unwrap();
    assert_eq!(
        v0.attr("numeric").as_bool(),
        Some(false),
        "numeric copied from number"
    );
    assert!(bcrypt::verify("aBcDeFgHiJkL", &text(&v0, "bcrypt_hash")).unwrap());
    assert!(
        h.plan("random_password", Some(&v0), config.clone())
            .unwrap()
            .is_no_op()
    );

    // v1: a bcrypt_hash of something else is replaced by a real one.
    let mut v1_raw = v0_state();
    v1_raw["bcrypt_hash"] = json!(bcrypt::hash("other", 4).unwrap());
    let v1 = h.upgrade("random_password", 1, v1_raw).unwrap();
    assert!(bcrypt::verify("aBcDeFgHiJkL", &text(&v1, "bcrypt_hash")).unwrap());

    // v2: a correct hash is kept as it is; null minimums become the defaults.
    let good = bcrypt::hash("aBcDeFgHiJkL", 4).unwrap();
    let mut v2_raw = v0_state();
    v2_raw["bcrypt_hash"] = json!(good);
    v2_raw["numeric"] = json!(false);
    v2_raw["min_upper"] = json!(null);
    let v2 = h.upgrade("random_password", 2, v2_raw).unwrap();
    assert_eq!(text(&v2, "bcrypt_hash"), good);
    assert_eq!(v2.attr("min_upper").as_i64(), Some(0));
    assert!(
        h.plan("random_password", Some(&v2), config)
            .unwrap()
            .is_no_op()
    );

    // Newer than the provider: a clear error.
    let err = h.upgrade("random_password", 4, v0_state()).unwrap_err();
    assert!(err.to_string().contains("newer provider"), "{err}");
    // A v0 state with a wrongly typed attribute names it.
    let mut bad = v0_state();
    bad["length"] = json!("twelve");
    let err = h.upgrade("random_password", 0, bad).unwrap_err();
    assert!(err.to_string().contains("length"), "{err}");
}

#[test]
fn password_import_sets_defaults_and_hash() {
    let h = harness();
    let state = h.import("random_password", "s3cr3t-Value").unwrap();
    assert_eq!(state.attr("length").as_i64(), Some(12));
    assert!(bcrypt::verify("s3cr3t-Value", &text(&state, "bcrypt_hash")).unwrap());
    let plan = h
        .plan("random_password", Some(&state), json!({"length": 12}))
        .unwrap();
    assert!(plan.is_no_op(), "import then plan shows no change");
}

#[test]
fn shuffle_is_a_seeded_permutation() {
    let h = harness();
    let input = json!(["a", "b", "c", "d", "e"]);
    let first = h
        .create("random_shuffle", json!({"input": input, "seed": "s"}))
        .unwrap();
    let again = h
        .create("random_shuffle", json!({"input": input, "seed": "s"}))
        .unwrap();
    assert_eq!(
        first.attr("result"),
        again.attr("result"),
        "same seed, same result"
    );
    let mut sorted: Vec<String> = first
        .attr("result")
        .as_elements()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    sorted.sort();
    assert_eq!(sorted, ["a", "b", "c", "d", "e"]);
    let two = h
        .create("random_shuffle", json!({"input": input, "result_count": 2}))
        .unwrap();
    assert_eq!(two.attr("result").as_elements().unwrap().len(), 2);
    let plan = h
        .plan(
            "random_shuffle",
            Some(&two),
            json!({"input": ["x"], "result_count": 2}),
        )
        .unwrap();
    assert_eq!(plan.requires_replace, vec!["input".parse().unwrap()]);
    let diags = h
        .validate("random_shuffle", json!({"input": [], "result_count": -1}))
        .unwrap();
    assert_eq!(diags[0].attribute, Some("result_count".parse().unwrap()));
}

#[test]
fn uuid_create_read_import_destroy() {
    let h = harness();
    let state = h.create("random_uuid", json!({})).unwrap();
    let id = text(&state, "result");
    assert_eq!(id.len(), 36);
    assert_eq!(text(&state, "id"), id);
    assert_eq!(h.read(&state).unwrap().as_ref(), Some(&state));
    let imported = h
        .import("random_uuid", "6C3A7C2E-31B4-4C3F-9E0B-0A1B2C3D4E5F")
        .unwrap();
    assert_eq!(
        text(&imported, "result"),
        "6c3a7c2e-31b4-4c3f-9e0b-0a1b2c3d4e5f"
    );
    let err = h.import("random_uuid", "nope").unwrap_err();
    assert!(err.to_string().contains("Invalid import ID"), "{err}");
    h.destroy(&state).unwrap();
}

#[test]
fn string_length_must_cover_the_minimums() {
    let h = harness();
    let diags = h
        .validate(
            "random_string",
            json!({"length": 3, "min_upper": 2, "min_lower": 2}),
        )
        .unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].attribute, Some("length".parse().unwrap()));
    assert!(diags[0].detail.contains("(4)"), "{}", diags[0].detail);
    // Unknown minimums wait for apply.
    let diags = h
        .validate(
            "random_string",
            json!({"length": 3, "min_upper": {"$unknown": true}}),
        )
        .unwrap();
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn a_negative_length_is_one_error() {
    let diags = harness()
        .validate("random_string", json!({"length": -1}))
        .unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].detail, "length must be at least 1, got -1.");
}

/// hashicorp/random rejects these at plan; they used to pass validation and fail at apply.
#[test]
fn integer_bounds_must_be_whole_numbers_in_range() {
    let h = harness();
    for (min, max, at) in [
        (json!(1.5), json!(3), "min"),
        (json!(1), json!(1e30), "max"),
    ] {
        let diags = h
            .validate("random_integer", json!({"min": min, "max": max}))
            .unwrap();
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].attribute, Some(at.parse().unwrap()), "{diags:?}");
        assert!(diags[0].detail.contains("whole number"), "{diags:?}");
    }
    let diags = h
        .validate(
            "random_integer",
            json!({"min": -5, "max": 9_000_000_000_000_000_000_i64}),
        )
        .unwrap();
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn string_keeper_change_replaces() {
    let h = harness();
    let state = h
        .create("random_string", json!({"length": 6, "keepers": {"k": "1"}}))
        .unwrap();
    let plan = h
        .plan(
            "random_string",
            Some(&state),
            json!({"length": 6, "keepers": {"k": "2"}}),
        )
        .unwrap();
    assert_eq!(plan.requires_replace, vec!["keepers".parse().unwrap()]);
    assert!(plan.attr("result").is_unknown());
}

#[test]
fn ephemeral_password_opens_a_fresh_secret_each_time() {
    let h = harness();
    let config = json!({"length": 16, "special": false, "min_numeric": 3});
    let first = h.open_ephemeral("random_password", config.clone()).unwrap();
    let second = h.open_ephemeral("random_password", config).unwrap();
    let result = first.get("result").and_then(|v| v.as_str()).unwrap();
    assert_eq!(result.chars().count(), 16);
    assert!(
        result.chars().filter(char::is_ascii_digit).count() >= 3,
        "{result}"
    );
    let hash = first.get("bcrypt_hash").and_then(|v| v.as_str()).unwrap();
    assert!(bcrypt::verify(result, hash).unwrap());
    assert_ne!(first.get("result"), second.get("result"), "never reused");
    let logs = format!("{:?}", h.logs());
    assert!(!logs.contains(result), "the secret is never logged: {logs}");
}

#[test]
fn a_string_moves_to_a_password_and_back_keeping_its_value() {
    let h = harness();
    let string = h
        .create("random_string", json!({"length": 12, "special": false}))
        .unwrap();
    let value = text(&string, "result");
    let stored = h.stored(&string).unwrap();
    let password = h
        .move_state("random_string", 0, stored, "random_password")
        .unwrap();
    assert_eq!(text(&password, "result"), value);
    assert!(bcrypt::verify(&value, &text(&password, "bcrypt_hash")).unwrap());
    assert_eq!(password.private_json(), json!({"bcrypt_cost": 10}));
    // A plan of the same settings on the moved state changes nothing.
    let plan = h
        .plan(
            "random_password",
            Some(&password),
            json!({"length": 12, "special": false}),
        )
        .unwrap();
    assert!(plan.is_no_op(), "{:?}", plan.planned);

    // A source this provider does not know is refused, naming it.
    let error = h
        .move_state("other_thing", 0, json!({}), "random_password")
        .unwrap_err();
    assert!(error.to_string().contains("other_thing"), "{error}");
}

/// A length spanning several of the SDK's requests to the host for random bytes (4 KiB each):
/// every byte is filled, and no request's bytes repeat another's.
#[test]
fn bytes_longer_than_one_host_request_are_random_throughout() {
    let h = harness();
    let state = h.create("random_bytes", json!({"length": 10_000})).unwrap();
    let hex = text(&state, "hex");
    assert_eq!(hex.len(), 20_000);
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    for (i, window) in bytes.chunks(64).enumerate() {
        assert!(
            window.iter().any(|&b| b != 0),
            "64 zero bytes at offset {}",
            i * 64
        );
    }
    assert_ne!(bytes[..4096], bytes[4096..8192]);
}
