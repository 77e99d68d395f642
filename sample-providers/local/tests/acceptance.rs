//! The local provider through real Terraform, with `tfwasm-testing`'s acceptance steps: a
//! file written through a granted directory, replaced when its content changes, and a
//! configuration error caught at plan. Needs `make build` and Terraform.

use serde_json::json;
use tfwasm_testing::Harness;
use tfwasm_testing::acceptance::{Acceptance, Step, attribute};

fn file(content: &str) -> String {
    format!(
        "resource \"local_file\" \"f\" {{\n  filename = \"/out/hello.txt\"\n  content  = \"{content}\"\n}}\n"
    )
}

#[test]
fn local_file_through_terraform() {
    let out = tempfile::tempdir().unwrap();
    let grant = format!("{}:/out:rw", out.path().display());
    let on_disk = out.path().join("hello.txt");
    let written = move |want: &'static str| {
        let path = on_disk.clone();
        move |_: &serde_json::Value| {
            (std::fs::read_to_string(&path).ok().as_deref() == Some(want))
                .then_some(())
                .ok_or("the file on disk to hold the content")
        }
    };
    let component = Harness::built_component("tfwasm_sample_local").unwrap();
    Acceptance::new(component, "registry.terraform.io/tfwasm/local")
        .package_flags(&["--allow-dir", &grant])
        .step(
            Step::config(&file("hello"))
                .check("local_file.f", "content", json!("hello"))
                .check_with("local_file.f", "filename", written("hello")),
        )
        .step(Step::config(&file("hello")).expect_no_changes())
        .step(
            Step::config(&file("hello, again"))
                .expect_replace("local_file.f")
                .check_with("local_file.f", "filename", written("hello, again")),
        )
        // Drift: the file deleted behind Terraform's back is planned again and rewritten.
        .step({
            let dir = out.path().to_owned();
            Step::config(&file("hello, again"))
                .pre_config(move |state| {
                    let name = attribute(state, "local_file.f", "filename")
                        .and_then(|f| f.as_str().map(str::to_owned))
                        .ok_or("local_file.f has no filename in the state")?;
                    let on_host = dir.join(name.trim_start_matches("/out/"));
                    std::fs::remove_file(&on_host)
                        .map_err(|e| format!("{}: {e}", on_host.display()))
                })
                .expect_create("local_file.f")
                .check_with("local_file.f", "filename", written("hello, again"))
        })
        .step(
            Step::config(&file("x").replace(
                "content  = \"x\"",
                "content  = \"x\"\n  file_permission = \"999\"",
            ))
            .expect_error("an octal mode such as 0644"),
        )
        .run()
        .unwrap();
    assert!(
        !out.path().join("hello.txt").exists(),
        "destroyed at the end"
    );
}
