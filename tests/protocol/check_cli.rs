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
