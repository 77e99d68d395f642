//! Record and replay as an operator and an author use them: `TFWASM_RECORD` during a real
//! `terraform apply` writes a bug-report directory that only its user can read. By default it
//! keeps no value at all (only their shape), and `tfwasm replay` says which setting to turn
//! on; with `TFWASM_RECORD_VALUES=non-sensitive` it keeps all but the secrets, and replay
//! re-runs it against the component, passing when nothing changed and naming the field when
//! something did. A recording directory the guest could reach is refused.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tfwasm_tests::{Workspace, cache_dir, clients, component, flatten, tfwasm_bin};

const CONFIG: &str = r#"
terraform {
  required_providers {
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}
resource "random_integer" "i" {
  min  = 10
  max  = 20
  seed = "fixed"
}
resource "random_password" "p" {
  length  = 24
  special = false
}
"#;

/// A filesystem mirror holding only the random sample, packaged with `flags`.
fn random_mirror(flags: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    tfwasm_tests::package_into(dir.path(), "random", flags);
    dir
}

/// Every recorded call of every session under `root`, with the file it is in; checks on the
/// way that the recording is private: directories `0700`, files `0600`.
fn entries(root: &Path) -> Vec<(PathBuf, Value)> {
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(root), 0o700, "{}", root.display());
    let mut out = Vec::new();
    for item in std::fs::read_dir(root).expect("recording directory") {
        let session = item.expect("recording entry").path();
        if !session.is_dir() {
            // The secrets every process marked, and the lock they write under.
            assert_eq!(mode(&session), 0o600, "{}", session.display());
            continue;
        }
        assert_eq!(mode(&session), 0o700, "{}", session.display());
        assert!(
            session.join("session.json").is_file(),
            "{} has no session.json",
            session.display()
        );
        for file in std::fs::read_dir(&session).expect("session directory") {
            let file = file.expect("file").path();
            assert_eq!(mode(&file), 0o600, "{}", file.display());
            if file.file_name().is_some_and(|n| n != "session.json") {
                let text = std::fs::read_to_string(&file).expect("read entry");
                let json: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{} is not JSON: {e}", file.display()));
                out.push((file, json));
            }
        }
    }
    out
}

fn replay(dir: &Path) -> std::process::Output {
    Command::new(tfwasm_bin())
        .arg("replay")
        .arg(dir)
        .arg("--component")
        .arg(component("random"))
        .env("TFWASM_CACHE_DIR", cache_dir())
        .output()
        .expect("run tfwasm replay")
}

/// The recorded call of `rpc` about `subject`.
fn call(entries: &[(PathBuf, Value)], rpc: &str, subject: &str) -> (PathBuf, Value) {
    entries
        .iter()
        .find(|(_, e)| e["rpc"] == rpc && e["subject"] == subject)
        .unwrap_or_else(|| panic!("no {rpc} of {subject} recorded"))
        .clone()
}

/// An apply recorded into a fresh directory with `env`: the workspace, the recording and
/// the password Terraform stored.
fn recorded_apply(
    client: &tfwasm_tests::Client,
    mirror: &Path,
    env: &[(&str, &str)],
) -> (Workspace, tempfile::TempDir, String) {
    let recording = tempfile::tempdir().expect("temp dir");
    let record = recording.path().join("recording");
    let record = record.to_str().expect("utf-8 temp path");
    let ws = Workspace::with_mirror(client, CONFIG, mirror);
    ws.ok(&["init", "-no-color"]);
    let mut env = env.to_vec();
    env.push(("TFWASM_RECORD", record));
    let run = ws.run_with_env(&["apply", "-auto-approve", "-no-color"], &env);
    assert_eq!(run.code, 0, "{}: apply failed:\n{}", client.name, run.all());
    let password = ws.resources()["random_password.p"]["result"]
        .as_str()
        .expect("password in state")
        .to_owned();
    assert_eq!(password.len(), 24);
    (ws, recording, password)
}

#[test]
fn by_default_a_recording_keeps_no_value_and_replay_names_the_setting_that_does() {
    let mirror = random_mirror(&[]);
    for client in clients() {
        let (ws, recording, password) = recorded_apply(client, mirror.path(), &[]);
        let root = recording.path().join("recording");
        let entries = entries(&root);
        for (file, _) in &entries {
            let text = std::fs::read_to_string(file).expect("read entry");
            assert!(
                !text.contains(&password),
                "{}: {} holds the password",
                client.name,
                file.display()
            );
        }
        let integer = ws.resources()["random_integer.i"]["result"].clone();
        let (_, password_apply) = call(&entries, "ApplyResourceChange", "random_password");
        let (_, integer_apply) = call(&entries, "ApplyResourceChange", "random_integer");
        let redacted = json!({"$redacted": true});
        for (apply, attr) in [
            (&password_apply, "result"),
            (&password_apply, "length"),
            (&integer_apply, "result"),
            (&integer_apply, "seed"),
        ] {
            assert_eq!(
                apply["response"]["new_state"]["value"][attr], redacted,
                "{}: no value is kept, not even {attr} ({integer}):\n{apply:#}",
                client.name
            );
        }
        assert_eq!(
            integer_apply["request"]["config"]["value"]["keepers"],
            Value::Null,
            "nulls stay: the shape is what the recording is for"
        );

        let out = replay(&root);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}: {stdout}\n{stderr}",
            client.name
        );
        assert!(
            stderr.contains("TFWASM_RECORD_VALUES=non-sensitive") && !stdout.contains(" 0 skipped"),
            "{}: replay says the values were not recorded and how to record them:\n{stdout}\n{stderr}",
            client.name
        );
    }
}

#[test]
fn non_sensitive_values_are_recorded_with_secrets_redacted_and_replay_until_a_response_changes() {
    let mirror = random_mirror(&[]);
    for client in clients() {
        let (_ws, recording, password) = recorded_apply(
            client,
            mirror.path(),
            &[("TFWASM_RECORD_VALUES", "non-sensitive")],
        );
        let root = recording.path().join("recording");
        let entries = entries(&root);
        let rpcs: Vec<&str> = entries
            .iter()
            .filter_map(|(_, e)| e["rpc"].as_str())
            .collect();
        for rpc in [
            "GetProviderSchema",
            "PlanResourceChange",
            "ApplyResourceChange",
        ] {
            assert!(rpcs.contains(&rpc), "{}: no {rpc} in {rpcs:?}", client.name);
        }

        // The secret never reaches the disk; its place says it was redacted.
        for (file, _) in &entries {
            let text = std::fs::read_to_string(file).expect("read entry");
            assert!(
                !text.contains(&password),
                "{}: {} holds the password",
                client.name,
                file.display()
            );
        }
        let (_, password_apply) = call(&entries, "ApplyResourceChange", "random_password");
        assert_eq!(
            password_apply["response"]["new_state"]["value"]["result"],
            json!({"$redacted": true}),
            "{}: {password_apply:#}",
            client.name
        );
        assert_eq!(
            password_apply["response"]["new_state"]["value"]["length"],
            Value::from(24),
            "non-secret attributes stay readable"
        );

        // Unchanged component: every response matches.
        let out = replay(&root);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: replay of an unchanged component:\n{stdout}\n{}",
            client.name,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(" 0 differ"), "{stdout}");

        // A recorded response that no longer matches is reported at its path.
        let (file, mut integer_apply) = call(&entries, "ApplyResourceChange", "random_integer");
        let result = &mut integer_apply["response"]["new_state"]["value"]["result"];
        let actual = result.as_i64().expect("integer result");
        *result = Value::from(actual + 100);
        std::fs::write(&file, serde_json::to_vec_pretty(&integer_apply).unwrap())
            .expect("tamper with the recording");
        let out = replay(&root);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{}: {stdout}", client.name);
        assert!(
            stdout.contains(".new_state.value.result")
                && stdout.contains(&(actual + 100).to_string())
                && stdout.contains(&actual.to_string()),
            "{}: the difference names the field and both values:\n{stdout}",
            client.name
        );
        assert!(stdout.contains(" 1 differ"), "{stdout}");
    }
}

#[test]
fn a_recording_directory_inside_a_grant_stops_the_provider_naming_both() {
    let granted = tempfile::tempdir().expect("temp dir");
    let grant = format!("{}:/data:rw", granted.path().display());
    let mirror = random_mirror(&["--allow-dir", &grant]);
    let inside = granted.path().join("recording");
    for client in clients() {
        let ws = Workspace::with_mirror(client, CONFIG, mirror.path());
        ws.ok(&["init", "-no-color"]);
        let run = ws.run_with_env(
            &["plan", "-no-color"],
            &[
                ("TFWASM_RECORD", inside.to_str().expect("utf-8 temp path")),
                // The provider's reason reaches Terraform's output through its log.
                ("TF_LOG_PROVIDER", "ERROR"),
            ],
        );
        let output = flatten(&run.all());
        assert_ne!(run.code, 0, "{}: the plan ran:\n{output}", client.name);
        assert!(
            output.contains("recording refused")
                && output.contains(&inside.display().to_string())
                && output.contains("/data"),
            "{}: the error names the recording directory and the grant:\n{output}",
            client.name
        );
        assert!(
            !inside.exists(),
            "{}: nothing was written in the grant",
            client.name
        );
    }
}

#[test]
fn replay_explains_a_directory_that_is_not_a_recording() {
    let empty = tempfile::tempdir().expect("temp dir");
    let out = replay(empty.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&empty.path().display().to_string()) && stderr.contains("TFWASM_RECORD"),
        "the error names the directory and how recordings are made: {stderr}"
    );
}

/// The eighteenth hostile pass: a recording is someone else's file (a bug report), and replay
/// printed its text as it was, so terminal escapes in it retitled the terminal, cleared it and
/// forged result lines.
#[test]
fn replay_prints_a_recordings_text_with_its_control_characters_escaped() {
    let root = tempfile::tempdir().expect("temp dir");
    let session = root.path().join("s1");
    std::fs::create_dir(&session).unwrap();
    let write = |name: &str, value: Value| {
        std::fs::write(session.join(name), serde_json::to_vec(&value).unwrap()).unwrap();
    };
    write(
        "session.json",
        serde_json::json!({
            "format": 2,
            "tfwasm": "0.1.0\u{1b}[2J",
            "provider": "p\u{1b}]0;PWNED\u{7}",
            "component": component("random"),
            "component_sha256": "0",
            "started": "2026-01-01T00:00:00Z",
            "pid": 1,
            "values": "non-sensitive",
        }),
    );
    write(
        "000001-GetProviderSchema.json",
        serde_json::json!({
            "seq": 1,
            "rpc": "GetProviderSchema",
            "subject": "\u{1b}[31mFORGED\n  same     000002 ApplyResourceChange all good",
            "elapsed_ms": 1.0,
            "request": {},
            "response": { "diagnostics": [] },
        }),
    );
    let out = replay(root.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "{stdout:?}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("  same     000002")),
        "no line is forged: {stdout}"
    );
    assert!(
        stdout.contains("PWNED"),
        "the text is shown, escaped: {stdout}"
    );
}

/// Issue 36: a recording is often someone else's bug report, and replaying an API
/// provider's calls with its grants would change the real API. Replay runs with no grants
/// and says which it left out; `--with-grants` runs against them and says so first.
#[test]
fn replay_touches_nothing_granted_unless_asked_and_says_what_it_will_touch() {
    let server = tfwasm_tests::JsonServer::start(&json!({ "items": [] }), 0);
    let client = &clients()[0];
    let config = format!(
        r#"
terraform {{
  required_providers {{
    http = {{ source = "registry.terraform.io/tfwasm/http" }}
  }}
}}
data "http" "create" {{
  url             = "{}/items"
  method          = "POST"
  request_headers = {{ "Content-Type" = "application/json" }}
  request_body    = jsonencode({{ name = "posted" }})
}}
"#,
        server.url()
    );
    let ws = Workspace::new(client, &config);
    ws.ok(&["init", "-no-color"]);
    let recording = tempfile::tempdir().expect("temp dir");
    let root = recording.path().join("recording");
    let run = ws.run_with_env(
        &["apply", "-auto-approve", "-no-color"],
        &[
            ("TFWASM_RECORD", root.to_str().expect("utf-8 temp path")),
            ("TFWASM_RECORD_VALUES", "non-sensitive"),
        ],
    );
    assert_eq!(run.code, 0, "{}: {}", client.name, run.all());
    let posted = || server.db()["items"].as_array().map_or(0, Vec::len);
    let recorded = posted();
    assert!(recorded >= 1, "the apply posted: {}", server.db());

    // The recorded session ran the installed package's native component.cwasm: replay never
    // runs native code from a recording (the twenty-third hostile pass shipped its own).
    let run_replay = |extra: &[&str], env: &[(&str, &str)]| {
        Command::new(tfwasm_bin())
            .arg("replay")
            .arg(&root)
            .args(extra)
            .env("TFWASM_CACHE_DIR", cache_dir())
            .env_remove("TFWASM_CONFIG")
            .envs(env.iter().copied())
            .output()
            .expect("run tfwasm replay")
    };
    let out = run_replay(&[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("never runs native code from a recording"),
        "{stderr}"
    );

    // The operator's own build, with the operator's settings (TFWASM_CONFIG) granting HTTP.
    let settings = recording.path().join("operator.toml");
    std::fs::write(&settings, "[grants]\nhttp = [\"http://127.0.0.1:*\"]\n").unwrap();
    let settings = settings.to_str().expect("utf-8 temp path").to_owned();
    let http_wasm = tfwasm_tests::component("http");
    let http_wasm = http_wasm.to_str().expect("utf-8 path").to_owned();
    let replay = |extra: &[&str]| {
        let mut args = vec!["--component", http_wasm.as_str()];
        args.extend_from_slice(extra);
        let out = run_replay(&args, &[("TFWASM_CONFIG", settings.as_str())]);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_ne!(
            out.status.code(),
            Some(2),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let stdout = replay(&[]);
    assert!(
        stdout.contains("grants: none (its settings grant HTTP to http://127.0.0.1:*"),
        "{stdout}"
    );
    assert_eq!(
        posted(),
        recorded,
        "a plain replay reached the API:\n{stdout}"
    );

    let stdout = replay(&["--with-grants"]);
    assert!(
        stdout.contains(
            "grants (--with-grants): the calls run for real against HTTP to http://127.0.0.1:*"
        ),
        "{stdout}"
    );
    // json-server writes its database file a moment after it answers.
    let started = std::time::Instant::now();
    while posted() <= recorded && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        posted() > recorded,
        "--with-grants replayed the POST:\n{stdout}"
    );
}

/// `--pack` puts the component a session recorded into it, as WebAssembly only, checked, and
/// replay then compiles that copy in the sandbox with no settings of the recording's; a
/// packed `component.cwasm` (native code, as a hostile recording would ship) is never run.
#[test]
fn a_packed_recording_carries_its_component_as_webassembly_only() {
    let mirror = random_mirror(&[]);
    let client = &clients()[0];
    let (_ws, recording, _) = recorded_apply(
        client,
        mirror.path(),
        &[("TFWASM_RECORD_VALUES", "non-sensitive")],
    );
    let root = recording.path().join("recording");
    let sessions: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("recording")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    assert!(!sessions.is_empty());
    let run = |extra: &[&str]| {
        Command::new(tfwasm_bin())
            .arg("replay")
            .arg(&root)
            .args(extra)
            .env("TFWASM_CACHE_DIR", cache_dir())
            .env_remove("TFWASM_CONFIG")
            .output()
            .expect("run tfwasm replay")
    };
    // The session ran a package's native code: --pack refuses to carry it.
    let out = run(&["--pack"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not WebAssembly"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // As if recorded from `tfwasm serve --component random.wasm`: that .wasm is packed.
    let wasm = component("random");
    let bytes = std::fs::read(&wasm).unwrap();
    for session in &sessions {
        let file = session.join("session.json");
        let mut json: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        json["component"] = Value::from(wasm.to_str().unwrap());
        json["component_sha256"] = Value::from(sha256_hex(&bytes));
        std::fs::write(&file, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    }
    let session = &sessions[0];
    let out = run(&["--pack"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("SHA-256 as recorded"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let packed = session.join("component.wasm");
    let mode = std::fs::metadata(&packed)
        .expect("packed")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    // A native component.cwasm beside it and settings granting everything are ignored.
    std::fs::write(session.join("component.cwasm"), b"\x7fELF native code").unwrap();
    std::fs::write(
        session.join("tfwasm.toml"),
        "[grants]\nhttp = [\"https://*\"]\nenv = [\"HOME\"]\n",
    )
    .unwrap();
    let out = run(&["--with-grants"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("grants: none in its settings"), "{stdout}");
    assert!(!stdout.contains("not the component recorded"), "{stdout}");

    let mut changed = bytes;
    changed.push(0);
    std::fs::write(&packed, changed).unwrap();
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("changed after it was packed"), "{stderr}");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}
