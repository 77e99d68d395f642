//! `tfwasm docs` on the samples: the pages committed in `sample-providers/*/docs` are what the
//! command writes today, so a schema change without regenerated docs fails here. To refresh
//! them: `tfwasm docs target/wasm32-wasip2/release/tfwasm_sample_NAME.wasm --examples
//! sample-providers/NAME/examples --out sample-providers/NAME/docs` (or `make docs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn pages(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(here) = stack.pop() {
        for entry in std::fs::read_dir(&here).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(relative, std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    out
}

#[test]
fn the_samples_docs_are_current() {
    for sample in ["random", "policy", "local", "restapi"] {
        let root = tfwasm_tests::workspace_root()
            .join("sample-providers")
            .join(sample);
        let out = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(tfwasm_tests::tfwasm_bin());
        cmd.arg("docs")
            .arg(tfwasm_tests::component(sample))
            .arg("--out")
            .arg(out.path())
            .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir());
        if root.join("examples").is_dir() {
            cmd.arg("--examples").arg(root.join("examples"));
        }
        let run = cmd.output().unwrap();
        assert!(
            run.status.success(),
            "{sample}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let written = pages(out.path());
        let committed = pages(&root.join("docs"));
        assert!(written.contains_key("index.md"), "{sample}: {written:?}");
        assert_eq!(
            written.keys().collect::<Vec<_>>(),
            committed.keys().collect::<Vec<_>>(),
            "{sample}: pages differ; regenerate sample-providers/{sample}/docs (make docs)"
        );
        for (page, text) in &written {
            assert_eq!(
                text, &committed[page],
                "{sample}/{page} is stale; regenerate sample-providers/{sample}/docs (make docs)"
            );
        }
    }
    // Examples land on their pages.
    let random = pages(&tfwasm_tests::workspace_root().join("sample-providers/random/docs"));
    assert!(random["resources/string.md"].contains("## Example Usage"));
    assert!(random["resources/string.md"].contains("## Import"));
}

#[test]
fn docs_explains_a_bad_examples_folder() {
    let run = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["docs", "--examples", "/nonexistent/examples"])
        .arg(tfwasm_tests::component("random"))
        .output()
        .unwrap();
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("--examples /nonexistent/examples: not a directory"),
        "{err}"
    );
}
