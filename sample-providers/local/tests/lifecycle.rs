//! local_file in-process against its built component (`tfwasm-testing`), with a temporary
//! directory granted as `/out`.

use serde_json::json;
use tfwasm_testing::{Grants, Harness};

fn harness(dir: &std::path::Path) -> Harness {
    let grants = Grants {
        dirs: vec![format!("{}:/out:rw", dir.display())],
        ..Grants::default()
    };
    Harness::load_with(
        Harness::built_component("tfwasm_sample_local").unwrap(),
        &grants,
    )
    .unwrap()
}

#[test]
fn writes_reads_back_notices_drift_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let h = harness(dir.path());
    let state = h
        .create(
            "local_file",
            json!({ "filename": "/out/nested/hello.txt", "content": "hello" }),
        )
        .unwrap();
    let on_host = dir.path().join("nested/hello.txt");
    assert_eq!(std::fs::read_to_string(&on_host).unwrap(), "hello");
    assert_eq!(
        state.attr("id").as_str(),
        Some("aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d")
    );
    assert_eq!(state.attr("file_permission").as_str(), Some("0777"));
    assert!(
        h.read(&state).unwrap().is_some(),
        "unchanged file: still there"
    );

    let data = h
        .read_data(
            "local_sensitive_file",
            json!({ "filename": "/out/nested/hello.txt" }),
        )
        .unwrap();
    assert_eq!(
        data.get("content_base64").and_then(|v| v.as_str()),
        Some("aGVsbG8=")
    );

    std::fs::write(&on_host, "edited").unwrap();
    assert!(h.read(&state).unwrap().is_none(), "edited: planned again");
    h.destroy(&state).unwrap();
    assert!(!on_host.exists());
}

#[test]
fn paths_outside_the_grant_and_two_contents_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = harness(dir.path());
    let err = h
        .create(
            "local_file",
            json!({ "filename": "/etc/motd", "content": "x" }),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("--allow-dir HOST_DIR:/etc:rw"), "{err}");
    let err = h
        .validate(
            "local_file",
            json!({ "filename": "/out/a", "content": "x", "source": "/out/b" }),
        )
        .unwrap();
    assert!(!err.is_empty(), "exactly one content attribute");
}

#[test]
fn direxists_answers_inside_the_grant_and_refuses_outside() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let h = harness(dir.path());
    let call = |path: &str| h.call_function("direxists", &[json!(path)]);
    assert_eq!(call("/out/sub").unwrap(), tfwasm_sdk::Value::Bool(true));
    assert_eq!(
        call("/out/missing").unwrap(),
        tfwasm_sdk::Value::Bool(false)
    );
    let error = call("/out/file").unwrap_err().to_string();
    assert!(
        error.contains("at argument 0") && error.contains("not a directory"),
        "{error}"
    );
    let error = call("/etc").unwrap_err().to_string();
    assert!(error.contains("--allow-dir"), "{error}");
}
