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

/// `tfwasm new demo` with `args` into `dir`, against this checkout's SDKs; it must succeed.
/// Returns what it printed.
fn new_demo(dir: &std::path::Path, args: &[&str]) -> String {
    let new = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["new", "demo"])
        .args(args)
        .arg("--dir")
        .arg(dir)
        .arg("--tfwasm")
        .arg(tfwasm_tests::workspace_root())
        .output()
        .unwrap();
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );
    String::from_utf8_lossy(&new.stdout).into_owned()
}

#[test]
fn a_new_provider_builds_and_passes_its_own_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("terraform-provider-demo");
    assert!(new_demo(&dir, &[]).contains("cargo build --release --target wasm32-wasip2"));
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

/// `tfwasm new --lang go`: the generated framework module passes its own Go test, builds into
/// a component with `tfwasm build-go`, and that component declares the generated resource.
#[test]
fn a_new_go_provider_passes_its_tests_and_builds_a_component() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("terraform-provider-demo");
    assert!(new_demo(&dir, &["--lang", "go"]).contains("tfwasm build-go . -o demo.wasm"));
    let go = |args: &[&str]| {
        let out = Command::new("go")
            .args(args)
            .current_dir(&dir)
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .expect("run go (Go 1.24 or newer must be installed)");
        assert!(
            out.status.success(),
            "go {args:?}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    go(&["mod", "tidy"]);
    let tested = go(&["test", "./..."]);
    assert!(
        tested.contains("ok  \tterraform-provider-demo/internal/provider"),
        "{tested}"
    );
    let component = dir.join("demo.wasm");
    let build = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["build-go", ".", "-o"])
        .arg(&component)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let inspect = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("inspect")
        .arg(&component)
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        inspect.status.success()
            && shown.contains("resource demo_note")
            && shown.contains("text string (required)"),
        "{shown}\n{}",
        String::from_utf8_lossy(&inspect.stderr)
    );
}

/// `tfwasm build-go` outside a module that uses the SDK says what to add.
#[test]
fn build_go_outside_an_sdk_module_says_what_to_add() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("go.mod"),
        "module example.com/plain\n\ngo 1.24\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("main.go"),
        "package main\n\nfunc main() {}\n",
    )
    .unwrap();
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["build-go", ".", "-o", "x.wasm"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not use tfwasm.dev/go") && err.contains("replace tfwasm.dev/go =>"),
        "{err}"
    );
}

/// `tfwasm harness`, which `tfwasm new` crates test through: a bad line, an unknown op and a
/// handle it never gave are answered with errors and it goes on serving; a create answers
/// with a handle and the value, which a later plan takes back.
#[test]
fn the_harness_protocol_answers_every_line_and_keeps_serving() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let mut child = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("harness")
        .arg(tfwasm_tests::component("random"))
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> serde_json::Value {
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let error = |answer: &serde_json::Value| answer["error"].as_str().unwrap_or("").to_owned();
    assert!(error(&ask("not json")).contains("not a JSON request"));
    assert!(error(&ask(r#"{"op": "fly"}"#)).contains("unknown op"));
    assert!(error(&ask(r#"{"op": "apply", "plan": 99}"#)).contains("no plan with handle 99"));
    let created = ask(r#"{"op": "create", "type": "random_string", "config": {"length": 7}}"#);
    let state = &created["ok"];
    assert_eq!(
        state["value"]["result"].as_str().map(str::len),
        Some(7),
        "{created}"
    );
    let plan = ask(&format!(
        r#"{{"op": "plan", "type": "random_string", "prior": {}, "config": {{"length": 7}}}}"#,
        state["handle"]
    ));
    assert_eq!(plan["ok"]["no_op"], true, "{plan}");
    let invalid = ask(r#"{"op": "create", "type": "random_string", "config": {"length": "x"}}"#);
    assert!(!error(&invalid).is_empty(), "{invalid}");
    drop(stdin);
    assert!(
        child.wait().unwrap().success(),
        "it ends when its input does"
    );
}
