//! Record and replay as an operator and an author use them: `TFWASM_RECORD` during a real
//! `terraform apply` writes a bug-report directory with secrets redacted, and `tfwasm replay`
//! re-runs it against the component, passing when nothing changed and naming the field when
//! something did.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tfwasm_tests::{Workspace, cache_dir, clients, component, tfwasm_bin};

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

/// Every recorded call of every session under `root`, with the file it is in.
fn entries(root: &Path) -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for session in std::fs::read_dir(root).expect("recording directory") {
        let session = session.expect("session entry").path();
        assert!(
            session.join("session.json").is_file(),
            "{} has no session.json",
            session.display()
        );
        for file in std::fs::read_dir(&session).expect("session directory") {
            let file = file.expect("file").path();
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

#[test]
fn an_apply_is_recorded_with_secrets_redacted_and_replays_until_a_response_changes() {
    for client in clients() {
        let recording = tempfile::tempdir().expect("temp dir");
        let record = recording.path().to_str().expect("utf-8 temp path");
        let ws = Workspace::new(client, CONFIG);
        ws.ok(&["init", "-no-color"]);
        let run = ws.run_with_env(
            &["apply", "-auto-approve", "-no-color"],
            &[("TFWASM_RECORD", record)],
        );
        assert_eq!(run.code, 0, "{}: apply failed:\n{}", client.name, run.all());

        let password = ws.resources()["random_password.p"]["result"]
            .as_str()
            .expect("password in state")
            .to_owned();
        assert_eq!(password.len(), 24);

        let entries = entries(recording.path());
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
        let apply_of = |subject: &str| {
            entries
                .iter()
                .find(|(_, e)| e["rpc"] == "ApplyResourceChange" && e["subject"] == subject)
                .unwrap_or_else(|| panic!("{}: no apply of {subject} recorded", client.name))
                .clone()
        };
        let (_, password_apply) = apply_of("random_password");
        assert_eq!(
            password_apply["response"]["new_state"]["value"]["result"],
            serde_json::json!({"$redacted": true}),
            "{}: {password_apply:#}",
            client.name
        );
        assert_eq!(
            password_apply["response"]["new_state"]["value"]["length"],
            Value::from(24),
            "non-secret attributes stay readable"
        );

        // Unchanged component: every response matches.
        let out = replay(recording.path());
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
        let (file, mut integer_apply) = apply_of("random_integer");
        let result = &mut integer_apply["response"]["new_state"]["value"]["result"];
        let actual = result.as_i64().expect("integer result");
        *result = Value::from(actual + 100);
        std::fs::write(&file, serde_json::to_vec_pretty(&integer_apply).unwrap())
            .expect("tamper with the recording");
        let out = replay(recording.path());
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
