//! The Python SDK's own unit tests (guest-sdk/python/tests), run with the system's Python 3
//! so `cargo test` (and so CI) covers them.

#[test]
fn the_python_sdk_unit_tests_pass() {
    let root = tfwasm_tests::workspace_root();
    let out = std::process::Command::new("python3")
        .args(["-m", "unittest", "discover", "-s"])
        .arg(root.join("guest-sdk/python/tests"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run python3 (Debian: apt-get install python3)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("OK"), "{stderr}");
}
