//! The `random` sample through Terraform: create with count, no-op plan, keeper replacement,
//! import in every hashicorp/random ID format, validation diagnostics, destroy. The same
//! lifecycle runs against hashicorp/terraform-provider-random itself, built into a component
//! by `tfwasm build-go` (`gorandom`).

use serde_json::Value;
use tfwasm_tests::{Since, Workspace, clients, clients_since, flatten};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}
"#;

/// The lifecycle's configuration for the provider packaged as `sample`.
fn config_for(sample: &str, keeper: &str) -> String {
    let provider = PROVIDER.replace(
        "registry.terraform.io/tfwasm/random",
        &tfwasm_tests::source(sample),
    );
    format!(
        r#"{provider}
resource "random_string" "s" {{
  count   = 3
  length  = 16
  special = false
  min_numeric = 2
  keepers = {{ generation = "{keeper}" }}
}}
resource "random_integer" "i" {{
  min  = 10
  max  = 20
  seed = "fixed"
}}
resource "random_integer" "i2" {{
  min  = 10
  max  = 20
  seed = "fixed"
}}
resource "random_id" "id" {{
  byte_length = 8
  prefix      = "app-"
}}
resource "random_pet" "pet" {{
  length    = 3
  separator = "_"
}}
"#
    )
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string in {v}"))
}

#[test]
fn random_lifecycle_create_keep_replace_import_destroy() {
    lifecycle("random");
}

/// hashicorp/random's own provider package, compiled to Wasm and run by tfwasm, passes the
/// lifecycle the Rust sample passes.
#[test]
fn hashicorp_random_itself_in_the_sandbox_create_keep_replace_import_destroy() {
    lifecycle("gorandom");
}

fn lifecycle(sample: &str) {
    let config = |keeper: &str| config_for(sample, keeper);
    for client in clients() {
        let ws = Workspace::new(client, &config("one"));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);

        let res = ws.resources();
        assert_eq!(res.len(), 7, "{}: {:?}", client.name, res.keys());
        let mut before = Vec::new();
        for i in 0..3 {
            let s = &res[&format!("random_string.s[{i}]")];
            let result = str_of(s, "result");
            assert_eq!(result.chars().count(), 16, "{result}");
            assert!(
                result.chars().all(|c| c.is_ascii_alphanumeric()),
                "special = false: {result}"
            );
            assert!(
                result.chars().filter(char::is_ascii_digit).count() >= 2,
                "min_numeric = 2: {result}"
            );
            assert_eq!(s["id"], s["result"]);
            assert_eq!(s["upper"], Value::Bool(true), "default planned for upper");
            before.push(result.to_owned());
        }
        assert_ne!(
            before[0], before[1],
            "each count instance is generated separately"
        );

        let int = &res["random_integer.i"];
        let n = int["result"].as_i64().expect("integer result");
        assert!((10..=20).contains(&n), "{n}");
        assert_eq!(str_of(int, "id"), n.to_string());
        assert_eq!(
            res["random_integer.i2"]["result"], int["result"],
            "same seed, same result"
        );

        let id = &res["random_id.id"];
        let hex = str_of(id, "hex");
        assert!(hex.starts_with("app-") && hex.len() == 4 + 16, "{hex}");
        assert_eq!(str_of(id, "b64_url"), format!("app-{}", str_of(id, "id")));
        assert!(str_of(id, "b64_std").starts_with("app-") && str_of(id, "b64_std").ends_with('='));
        assert!(str_of(id, "dec")[4..].chars().all(|c| c.is_ascii_digit()));

        let pet = str_of(&res["random_pet.pet"], "id");
        assert_eq!(pet.split('_').count(), 3, "{pet}");

        // A second plan finds nothing to do (-detailed-exitcode: 0 = no changes, 2 = changes).
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            plan.code,
            0,
            "{}: expected no changes:\n{}",
            client.name,
            plan.all()
        );

        // Changing a keeper replaces exactly the random_string instances.
        ws.write_config(&config("two"));
        ws.ok(&["plan", "-out=replace.tfplan", "-no-color"]);
        let plan = ws.show_json(Some("replace.tfplan"));
        let changes = plan["resource_changes"]
            .as_array()
            .expect("resource_changes");
        for change in changes {
            let actions: Vec<&str> = change["change"]["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let address = str_of(change, "address");
            if address.starts_with("random_string.s") {
                assert_eq!(actions, ["delete", "create"], "{address} replaced");
            } else {
                assert_eq!(actions, ["no-op"], "{address} untouched");
            }
        }
        ws.ok(&["apply", "-auto-approve", "-no-color", "replace.tfplan"]);
        let res = ws.resources();
        for (i, old) in before.iter().enumerate() {
            let new = str_of(&res[&format!("random_string.s[{i}]")], "result");
            assert_ne!(
                new, old,
                "random_string.s[{i}] has a new value after replacement"
            );
            assert_eq!(
                res[&format!("random_string.s[{i}]")]["keepers"]["generation"],
                "two"
            );
        }
        assert_eq!(
            res["random_integer.i"]["result"], int["result"],
            "untouched by the keeper change"
        );

        // Import, in hashicorp/random's ID formats.
        let imports = format!(
            r#"{}
resource "random_integer" "imported" {{
  min  = 1
  max  = 50
  seed = "s"
}}
resource "random_id" "imported" {{
  byte_length = 4
  prefix      = "p-"
}}
resource "random_string" "imported" {{
  length = 6
}}
"#,
            config("two")
        );
        ws.write_config(&imports);
        ws.ok(&[
            "import",
            "-no-color",
            "random_integer.imported",
            "42,1,50,s",
        ]);
        ws.ok(&["import", "-no-color", "random_id.imported", "p-,3q2-7w"]);
        ws.ok(&["import", "-no-color", "random_string.imported", "abcdef"]);
        let res = ws.resources();
        assert_eq!(res["random_integer.imported"]["result"], 42);
        assert_eq!(res["random_integer.imported"]["seed"], "s");
        assert_eq!(res["random_id.imported"]["hex"], "p-deadbeef");
        assert_eq!(res["random_id.imported"]["dec"], "p-3735928559");
        assert_eq!(res["random_string.imported"]["result"], "abcdef");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            plan.code,
            0,
            "{}: imported objects match their config:\n{}",
            client.name,
            plan.all()
        );

        let bad = ws.run(&["import", "-no-color", "random_integer.i", "not-a-number"]);
        assert_ne!(bad.code, 0);
        // "Invalid import ID" (the Rust sample), "Invalid import usage" (hashicorp/random).
        assert!(bad.all().contains("Invalid import"), "{}", bad.all());

        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            ws.resources().is_empty(),
            "{}: state is empty after destroy",
            client.name
        );
    }
}

#[test]
fn validation_errors_point_at_the_attribute() {
    for client in clients() {
        let ws = Workspace::new(
            client,
            &format!(
                r#"{PROVIDER}
resource "random_string" "bad" {{
  length = 0
}}
resource "random_integer" "bad" {{
  min = 5
  max = 1
}}
"#
            ),
        );
        ws.ok(&["init", "-no-color"]);
        let plan = ws.run(&["plan", "-no-color"]);
        assert_eq!(
            plan.code,
            1,
            "{}: invalid config fails:\n{}",
            client.name,
            plan.all()
        );
        let text = plan.all();
        assert!(
            text.contains("Invalid length") && text.contains("length must be at least 1, got 0"),
            "{text}"
        );
        assert!(
            text.contains("Invalid range")
                && text.contains("min (5) must not be greater than max (1)"),
            "{text}"
        );
        // Terraform renders the diagnostic's attribute path as a pointer into the config.
        assert!(
            text.contains("length = 0"),
            "diagnostic points at the attribute: {text}"
        );
    }
}

#[test]
fn guest_logs_reach_the_provider_log_with_their_fields() {
    for client in clients() {
        let ws = Workspace::new(
            client,
            &format!("{PROVIDER}\nresource \"random_string\" \"s\" {{\n  length = 7\n}}\n"),
        );
        ws.ok(&["init", "-no-color"]);
        let run = ws.run_with_env(
            &["apply", "-auto-approve", "-no-color"],
            &[("TF_LOG_PROVIDER", "debug")],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains("generated random_string"))
            .unwrap_or_else(|| {
                panic!(
                    "{}: guest log line missing from the provider log:\n{}",
                    client.name, run.stderr
                )
            });
        assert!(
            line.contains("length=7"),
            "{}: the field is shown: {line}",
            client.name
        );
        // One line per guest call, saying what ran, for which type, in what instance.
        let call = run
            .stderr
            .lines()
            .find(|l| l.contains("guest call") && l.contains("rpc=ApplyResourceChange"))
            .unwrap_or_else(|| panic!("{}: no guest call line:\n{}", client.name, run.stderr));
        for field in [
            "type_name=random_string",
            "elapsed_ms=",
            "fuel=",
            "instance=",
            "result=ok",
        ] {
            assert!(
                call.contains(field),
                "{}: {field} missing: {call}",
                client.name
            );
        }
        // go-plugin parsed every line (a line it cannot parse shows as raw JSON) and took its
        // timestamp (a missing one shows as year 1).
        assert!(
            !run.stderr.contains("{\"@level\""),
            "{}: unparsed:\n{}",
            client.name,
            run.stderr
        );
        assert!(
            !run.stderr.contains("timestamp=0001-"),
            "{}:\n{}",
            client.name,
            run.stderr
        );
        // Dependency internals (HTTP/2 frame dumps) stay out unless TFWASM_LOG asks.
        let frames = run.stderr.lines().filter(|l| l.contains("frame=")).count();
        assert_eq!(
            frames, 0,
            "{}: h2 frames in the log:\n{}",
            client.name, run.stderr
        );
        let state = ws.resources();
        let secret = state["random_string.s"]["result"].as_str().unwrap();
        assert!(
            !run.stderr.contains(secret),
            "the generated value never reaches the log"
        );
        // TF_LOG=debug, as operators set it: the client's log and the provider's together.
        let run = ws.run_with_env(
            &[
                "apply",
                "-auto-approve",
                "-no-color",
                "-replace=random_string.s",
            ],
            &[("TF_LOG", "debug")],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        assert!(
            run.stderr
                .lines()
                .any(|l| l.contains("generated random_string") && l.contains("length=7")),
            "{}: the guest's line under TF_LOG=debug:\n{}",
            client.name,
            run.stderr
        );
        let secret = ws.resources()["random_string.s"]["result"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            !run.stderr.contains(&secret),
            "{}: no secret in the log",
            client.name
        );
    }
}

#[test]
fn moved_blocks_turn_a_random_string_into_a_random_password_and_back_keeping_the_value() {
    for client in &clients_since(Since::Functions) {
        let name = &client.name;
        if !client.has_cross_type_moves() {
            println!(
                "skipped for {name}: moved blocks across resource types need Terraform >= 1.8 or OpenTofu >= 1.8"
            );
            continue;
        }
        let string = r#"resource "random_string" "s" {
  length  = 20
  special = false
}
"#;
        let password = r#"resource "random_password" "s" {
  length  = 20
  special = false
}
"#;
        let ws = Workspace::new(client, &format!("{PROVIDER}{string}"));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let original = ws.resources()["random_string.s"]["result"].clone();
        assert_eq!(original.as_str().map(str::len), Some(20), "{name}");

        ws.write_config(&format!(
            "{PROVIDER}{password}moved {{\n  from = random_string.s\n  to   = random_password.s\n}}\n"
        ));
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let text = flatten(&apply.stdout);
        assert!(
            text.contains("has moved to random_password.s"),
            "{name}: {text}"
        );
        assert!(
            text.contains("0 added, 0 changed, 0 destroyed"),
            "{name}: {text}"
        );
        let moved = &ws.resources()["random_password.s"];
        assert_eq!(moved["result"], original, "{name}: the value is kept");
        assert_eq!(moved["id"], "none");
        let hash = moved["bcrypt_hash"].as_str().unwrap();
        assert!(hash.starts_with("$2"), "{name}: a bcrypt hash: {hash}");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());

        // And back, which hashicorp/random cannot do (terraform-provider-random#770).
        ws.write_config(&format!(
            "{PROVIDER}{string}moved {{\n  from = random_password.s\n  to   = random_string.s\n}}\n"
        ));
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let text = flatten(&apply.stdout);
        // `result` is sensitive in random_password and not in random_string: OpenTofu shows
        // dropping the marking as an in-place update of the same value, Terraform as nothing.
        if name.starts_with("OpenTofu") {
            assert!(
                text.contains("will no longer be marked as sensitive")
                    && text.contains("0 added, 1 changed, 0 destroyed"),
                "{name}: {text}"
            );
        } else {
            assert!(
                text.contains("0 added, 0 changed, 0 destroyed"),
                "{name}: {text}"
            );
        }
        let back = &ws.resources()["random_string.s"];
        assert_eq!(back["result"], original, "{name}");
        assert_eq!(back["id"], original, "{name}");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

#[test]
fn random_bytes_lifecycle_create_keep_replace_import_destroy() {
    for client in clients() {
        let name = &client.name;
        let config = |keeper: &str| {
            format!(
                "{PROVIDER}resource \"random_bytes\" \"key\" {{\n  length  = 32\n  keepers = {{ k = \"{keeper}\" }}\n}}\noutput \"hex\" {{\n  value     = random_bytes.key.hex\n  sensitive = true\n}}\n"
            )
        };
        let ws = Workspace::new(client, &config("a"));
        ws.ok(&["init", "-no-color"]);
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert!(
            flatten(&apply.stdout).contains("1 added"),
            "{name}: {}",
            apply.stdout
        );
        let first = ws.resources()["random_bytes.key"].clone();
        let hex = first["hex"].as_str().unwrap().to_owned();
        assert_eq!(hex.len(), 64, "{name}: 32 bytes as hex");
        assert_eq!(first["base64"].as_str().unwrap().len(), 44, "{name}");
        let shown = ws.ok(&["plan", "-no-color"]).stdout;
        assert!(
            !shown.contains(&hex),
            "{name}: sensitive values stay hidden"
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());

        ws.write_config(&config("b"));
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let second = ws.resources()["random_bytes.key"]["hex"].clone();
        assert_ne!(
            second,
            Value::from(hex.clone()),
            "{name}: a new keeper, new bytes"
        );

        ws.ok(&["state", "rm", "-no-color", "random_bytes.key"]);
        ws.ok(&["import", "-no-color", "random_bytes.key", "hv8J6g=="]);
        let imported = ws.resources()["random_bytes.key"].clone();
        assert_eq!(imported["hex"], "86ff09ea", "{name}");
        assert_eq!(imported["length"], 4, "{name}");
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
