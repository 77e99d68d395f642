//! `tfwasm new` as an author meets it: the generated crate builds its component and passes
//! its own tests as generated, and `tfwasm docs` documents it from its examples.
//! Builds go to `target/scaffold`, kept between runs, so only the first run compiles the
//! harness's dependencies.

use std::process::Command;

fn cargo(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            tfwasm_tests::target_dir().join("scaffold"),
        )
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("TFWASM_COMPONENT")
        .output()
        .expect("run cargo")
}

#[test]
fn a_new_provider_builds_and_passes_its_own_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("terraform-provider-demo");
    let new = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["new", "demo", "--dir"])
        .arg(&dir)
        .arg("--tfwasm")
        .arg(tfwasm_tests::workspace_root())
        .output()
        .unwrap();
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );
    assert!(
        String::from_utf8_lossy(&new.stdout)
            .contains("cargo build --release --target wasm32-wasip2")
    );
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "src/lib.rs",
        "tests/lifecycle.rs",
        "README.md",
        "examples/resources/demo_note/resource.tf",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }

    let build = cargo(&dir, &["build", "--release", "--target", "wasm32-wasip2"]);
    assert!(
        build.status.success(),
        "build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let test = cargo(&dir, &["test"]);
    let out = String::from_utf8_lossy(&test.stdout);
    assert!(
        test.status.success(),
        "test:\n{out}\n{}",
        String::from_utf8_lossy(&test.stderr)
    );
    assert!(out.contains("test result: ok. 2 passed"), "{out}");

    // The generated examples document the generated provider.
    let component = tfwasm_tests::target_dir()
        .join("scaffold/wasm32-wasip2/release/terraform_provider_demo.wasm");
    let docs = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("docs")
        .arg(&component)
        .arg("--examples")
        .arg(dir.join("examples"))
        .arg("--out")
        .arg(dir.join("docs"))
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .unwrap();
    assert!(
        docs.status.success(),
        "{}",
        String::from_utf8_lossy(&docs.stderr)
    );
    let page = std::fs::read_to_string(dir.join("docs/resources/note.md")).unwrap();
    assert!(
        page.contains("# demo_note (Resource)") && page.contains("## Example Usage"),
        "{page}"
    );
}

#[test]
fn new_refuses_bad_names_and_occupied_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(tfwasm_tests::tfwasm_bin())
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap()
    };
    let bad = run(&["new", "My-Thing"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid provider name \"My-Thing\""));
    std::fs::create_dir_all(tmp.path().join("taken")).unwrap();
    std::fs::write(tmp.path().join("taken/file"), "x").unwrap();
    let taken = run(&["new", "thing", "--dir", "taken"]);
    assert!(!taken.status.success());
    assert!(
        String::from_utf8_lossy(&taken.stderr).contains("taken already exists and is not empty")
    );
}
