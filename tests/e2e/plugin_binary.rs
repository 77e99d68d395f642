//! The packaged provider binary behaves like a go-plugin server when run by hand.

use std::process::Command;

#[test]
fn without_the_magic_cookie_it_explains_itself_and_exits_1() {
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("serve")
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .expect("run tfwasm serve");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("This binary is a plugin. These are not meant to be executed directly."),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout");
}

#[test]
fn help_explains_every_subcommand() {
    for sub in [
        &["--help"][..],
        &["serve", "--help"],
        &["package", "--help"],
        &["inspect", "--help"],
    ] {
        let out = Command::new(tfwasm_tests::tfwasm_bin())
            .args(sub)
            .output()
            .expect("run tfwasm");
        assert!(out.status.success(), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{sub:?}: {text}");
    }
}

#[test]
fn package_rejects_a_file_that_is_not_a_component() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.wasm");
    std::fs::write(&fake, b"not wasm").unwrap();
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["package"])
        .arg(&fake)
        .args([
            "--source",
            "registry.terraform.io/x/y",
            "--version",
            "1.0.0",
            "--out",
        ])
        .arg(dir.path().join("mirror"))
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a valid WebAssembly component"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("mirror").exists(),
        "nothing written for a bad component"
    );
}
