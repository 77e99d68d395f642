//! The `local` sample (hashicorp/local) through real Terraform with a granted directory:
//! files from text, base64, a source file and sensitive content, their hashes, the data
//! source, drift (a deleted or edited file is written again), file modes set by the host, a path
//! outside the grants refused with the `--allow-dir` to add, and destroy.

use tfwasm_tests::{Since, Workspace, clients, clients_since, flatten, local_dir};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    local = { source = "registry.terraform.io/tfwasm/local" }
  }
}
"#;

fn config(dir: &str) -> String {
    format!(
        r#"{PROVIDER}
resource "local_file" "plain" {{
  filename = "/out/{dir}/notes/plain.txt"
  content  = "hello"
}}

resource "local_file" "binary" {{
  filename        = "/out/{dir}/binary.dat"
  content_base64  = base64encode("bytes")
  file_permission = "0644"
}}

resource "local_sensitive_file" "secret" {{
  filename = "/out/{dir}/secret.txt"
  content  = "s3cret"
}}

resource "local_file" "copy" {{
  filename = "/out/{dir}/copy.txt"
  source   = "/out/{dir}/source.txt"
}}

data "local_file" "plain" {{
  filename = local_file.plain.filename
}}

output "id" {{ value = local_file.plain.id }}
output "sha256" {{ value = local_file.plain.content_sha256 }}
output "read_back" {{ value = data.local_file.plain.content }}
output "copy_md5" {{ value = local_file.copy.content_md5 }}
"#
    )
}

#[test]
fn local_files_live_in_the_granted_directory() {
    for (i, client) in clients().iter().enumerate() {
        let name = &client.name;
        let sub = format!("client{i}");
        let host = local_dir().join(&sub);
        let _ = std::fs::remove_dir_all(&host);
        std::fs::create_dir_all(&host).unwrap();
        std::fs::write(host.join("source.txt"), "copied").unwrap();

        let ws = Workspace::new(client, &config(&sub));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        // Issue 36: modes are set by the host (WIT 0.3.0 `files`), no longer dropped with a
        // warning: the secret is 0700 as hashicorp/local makes it, a directory the provider
        // created gets directory_permission, an explicit file_permission is applied.
        let mode = |path: &str| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(host.join(path))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        // Terraform runs the provider with the test's umask (022 here, read rather than
        // assumed), which narrows created modes as Go's os.WriteFile's are.
        let umask = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("Umask:"))?.to_owned();
                u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
            })
            .unwrap_or(0o022);
        assert_eq!(mode("secret.txt"), 0o700 & !umask, "{name}");
        assert_eq!(mode("binary.dat"), 0o644 & !umask, "{name}");
        assert_eq!(mode("notes/plain.txt"), 0o777 & !umask, "{name}");
        assert_eq!(mode("notes"), 0o777 & !umask, "{name}");
        assert_eq!(
            std::fs::read_to_string(host.join("notes/plain.txt")).unwrap(),
            "hello"
        );
        assert_eq!(std::fs::read(host.join("binary.dat")).unwrap(), b"bytes");
        assert_eq!(
            std::fs::read_to_string(host.join("secret.txt")).unwrap(),
            "s3cret"
        );
        assert_eq!(
            std::fs::read_to_string(host.join("copy.txt")).unwrap(),
            "copied"
        );
        let out: serde_json::Value =
            serde_json::from_str(&ws.ok(&["output", "-json", "-no-color"]).stdout).unwrap();
        assert_eq!(
            out["id"]["value"], "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d",
            "{name}"
        );
        assert_eq!(
            out["sha256"]["value"],
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(out["read_back"]["value"], "hello");
        // md5sum of "copied".
        assert_eq!(out["copy_md5"]["value"], "ac9f7584d3fd6d49faa7bcf5e1ebec1f");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());

        // Drift: a deleted file and an edited one are written again.
        std::fs::remove_file(host.join("notes/plain.txt")).unwrap();
        std::fs::write(host.join("secret.txt"), "tampered").unwrap();
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        let text = flatten(&plan.stdout);
        assert_eq!(plan.code, 2, "{name}: {}", plan.all());
        assert!(text.contains("local_file.plain will be created"), "{text}");
        assert!(
            text.contains("local_sensitive_file.secret will be created"),
            "{text}"
        );
        assert!(
            text.contains("2 to add, 0 to change, 0 to destroy"),
            "{text}"
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(
            std::fs::read_to_string(host.join("secret.txt")).unwrap(),
            "s3cret"
        );

        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        for file in ["notes/plain.txt", "binary.dat", "secret.txt", "copy.txt"] {
            assert!(!host.join(file).exists(), "{name}: {file} deleted");
        }
        assert!(
            host.join("source.txt").exists(),
            "the source is not Terraform's"
        );
    }
}

#[test]
fn a_path_outside_the_grants_is_refused_with_the_grant_to_add() {
    for client in clients() {
        let ws = Workspace::new(
            client,
            &format!(
                "{PROVIDER}\nresource \"local_file\" \"escape\" {{\n  filename = \"/out/../etc/passwd\"\n  content  = \"x\"\n}}\n"
            ),
        );
        ws.ok(&["init", "-no-color"]);
        let apply = ws.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(apply.code, 0);
        let text = flatten(&apply.all());
        for needle in [
            "Path outside the granted directories",
            "granted: /out",
            "--allow-dir HOST_DIR:/etc:rw",
        ] {
            assert!(text.contains(needle), "{}: {needle}: {text}", client.name);
        }
    }
}

#[test]
fn direxists_in_an_output_and_a_resource_argument() {
    for (i, client) in clients_since(Since::Functions).iter().enumerate() {
        let name = &client.name;
        if !client.has_functions() {
            println!(
                "skipped for {name}: provider functions need Terraform >= 1.8 or OpenTofu >= 1.7"
            );
            continue;
        }
        let sub = format!("functions{i}");
        let host = local_dir().join(&sub);
        let _ = std::fs::remove_dir_all(&host);
        std::fs::create_dir_all(host.join("present")).unwrap();
        let ws = Workspace::new(
            client,
            &format!(
                r#"{PROVIDER}
output "present" {{ value = provider::local::direxists("/out/{sub}/present") }}
output "absent" {{ value = provider::local::direxists("/out/{sub}/absent") }}

resource "local_file" "marker" {{
  filename = "/out/{sub}/marker.txt"
  content  = provider::local::direxists("/out/{sub}/present") ? "yes" : "no"
}}
"#
            ),
        );
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let out: serde_json::Value =
            serde_json::from_str(&ws.ok(&["output", "-json", "-no-color"]).stdout).unwrap();
        assert_eq!(out["present"]["value"], true, "{name}");
        assert_eq!(out["absent"]["value"], false, "{name}");
        assert_eq!(
            std::fs::read_to_string(host.join("marker.txt")).unwrap(),
            "yes"
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());

        // A path outside the grants: the error names the grant to add, at the argument.
        ws.write_config(&format!(
            "{PROVIDER}\noutput \"x\" {{ value = provider::local::direxists(\"/etc\") }}\n"
        ));
        let plan = ws.run(&["plan", "-no-color"]);
        let text = flatten(&plan.all());
        assert_ne!(plan.code, 0, "{name}: {text}");
        assert!(text.contains("--allow-dir"), "{name}: {text}");
        assert!(text.contains("Invalid function argument"), "{name}: {text}");

        ws.write_config(&format!(
            r#"{PROVIDER}
resource "local_file" "marker" {{
  filename = "/out/{sub}/marker.txt"
  content  = "yes"
}}
"#
        ));
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(!host.join("marker.txt").exists(), "{name}");
    }
}
