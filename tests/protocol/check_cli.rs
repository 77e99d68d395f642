//! `tfwasm check`, the offline contract checker, on Terraform core's own case "set block two
//! unknowns become two knowns" (objchange's compatible_test.go): two planned blocks
//! `{foo: unknown}` completed as "hello" and "world". It reported "block set length changed
//! from 1 to 2" while the two unknowns were merged (issue 30).

use std::process::Command;

use tfwasm_tests::tfwasm_bin;

const SCHEMA: &str = r#"{"block_types": {"block": {"nesting_mode": "set", "block": {"attributes": {"foo": {"type": "string", "optional": true}}}}}}"#;

fn check_apply(new: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("apply.json");
    let planned = r#"{"block": [{"foo": {"$unknown": true}}, {"foo": {"$unknown": true}}]}"#;
    std::fs::write(
        &file,
        format!(r#"{{"schema": {SCHEMA}, "planned": {planned}, "new": {new}}}"#),
    )
    .unwrap();
    let out = Command::new(tfwasm_bin())
        .args(["check", "apply"])
        .arg(&file)
        .output()
        .expect("run tfwasm check");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn two_unknown_blocks_may_become_two_known_ones() {
    let (code, out) = check_apply(r#"{"block": [{"foo": "hello"}, {"foo": "world"}]}"#);
    assert_eq!(code, 0, "{out}");
    let (code, out) = check_apply(r#"{"block": [{"foo": "hello"}]}"#);
    assert_eq!(code, 0, "they may also coalesce: {out}");
    let (code, out) = check_apply(r#"{"block": [{"foo": "a"}, {"foo": "b"}, {"foo": "c"}]}"#);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(".block: block set length changed from 2 to 3"),
        "{out}"
    );
}

/// The twentieth hostile pass: `tfwasm check` printed an input's map keys and strings raw,
/// so a plan file could drive the terminal or forge a violation line. Every line is escaped.
#[test]
fn an_input_cannot_drive_the_terminal_or_forge_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("apply.json");
    let key = "\u{9b}2J\u{202e}K\u{1b}[31m\n.forged: all good";
    let schema = r#"{"attributes": {"tags": {"type": ["map", "string"], "optional": true}}}"#;
    let planned = serde_json::json!({ "tags": { key: "a" } });
    let new = serde_json::json!({ "tags": { key: "b\u{85}\u{2028}" } });
    std::fs::write(
        &file,
        format!(r#"{{"schema": {schema}, "planned": {planned}, "new": {new}}}"#),
    )
    .unwrap();
    let out = Command::new(tfwasm_bin())
        .args(["check", "apply"])
        .arg(&file)
        .output()
        .expect("run tfwasm check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        !stdout
            .chars()
            .any(|c| c != '\n' && tfwasm_model::quote::is_hidden_char(c)),
        "{stdout:?}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with(".forged")),
        "no forged line: {stdout}"
    );
}
