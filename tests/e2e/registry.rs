//! A private registry as organisations run one: `tfwasm package --archive DIR --signing-key
//! KEY` makes DIR a provider registry (the protocol's documents, the mirror's zips and a
//! detached OpenPGP signature of `SHA256SUMS`), served here over loopback HTTPS and found
//! through a CLI configuration `host` block, with the test CA given by `SSL_CERT_FILE`. Every
//! client installs from it after checking the signature, and refuses the provider once the
//! sums no longer match their signature.

use std::process::Command;

use tfwasm_tests::{Workspace, cache_dir, clients, component, tfwasm_bin, workspace_root};

use crate::network_mirror::Https;

const HOST: &str = "registry.tfwasm.test";
/// The key id of `tests/fixtures/registry/signing-key.asc`.
const KEY_ID: &str = "414B17380435698C";

fn config() -> String {
    format!(
        "terraform {{\n  required_providers {{\n    random = {{ source = \"{HOST}/tfwasm/random\" }}\n  }}\n}}\nresource \"random_pet\" \"p\" {{}}\n"
    )
}

#[test]
fn terraform_and_opentofu_install_from_a_signed_private_registry_and_refuse_tampered_sums() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    let out = Command::new(tfwasm_bin())
        .arg("package")
        .arg(component("random"))
        .args([
            "--source",
            &format!("{HOST}/tfwasm/random"),
            "--version",
            "0.1.0",
        ])
        .arg("--out")
        .arg(tmp.path().join("unpacked"))
        .arg("--archive")
        .arg(&dist)
        .arg("--signing-key")
        .arg(workspace_root().join("tests/fixtures/registry/signing-key.asc"))
        .env("TFWASM_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("registry:") && report.contains("signed by key"),
        "{report}"
    );
    for file in [
        ".well-known/terraform.json",
        "v1/providers/tfwasm/random/versions",
        "v1/providers/tfwasm/random/0.1.0/download/linux/amd64",
    ] {
        assert!(dist.join(file).is_file(), "{file}");
    }

    let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let (cert, key_file) = (tmp.path().join("cert.pem"), tmp.path().join("key.pem"));
    std::fs::write(&cert, key.cert.pem()).unwrap();
    std::fs::write(&key_file, key.signing_key.serialize_pem()).unwrap();
    let server = Https::serve(&dist, &cert, &key_file);
    let cert_env = cert.display().to_string();
    let env = [("SSL_CERT_FILE", cert_env.as_str())];
    let cli_config = format!(
        "host \"{HOST}\" {{\n  services = {{\n    \"providers.v1\" = \"https://127.0.0.1:{}/v1/providers/\"\n  }}\n}}\n",
        server.port
    );

    for client in clients() {
        let name = &client.name;
        let ws = Workspace::new(client, &config());
        std::fs::write(ws.path().join("cli.tfrc"), &cli_config).unwrap();
        let init = ws.run_with_env(&["init", "-no-color"], &env);
        assert_eq!(init.code, 0, "{name}: {}", init.all());
        let text = init.all();
        // The client checked the signature with the published key: "(self-signed, key ID …)".
        assert!(text.to_uppercase().contains(KEY_ID), "{name}: {text}");
        let apply = ws.run_with_env(&["apply", "-auto-approve", "-no-color"], &env);
        assert_eq!(apply.code, 0, "{name}: {}", apply.all());
        ws.run_with_env(&["destroy", "-auto-approve", "-no-color"], &env);
    }

    // Sums that no longer match their signature, though the archive's own line still does:
    // a line added for another platform. Only the signature check can refuse this.
    let sums = dist.join(format!(
        "{HOST}/tfwasm/random/terraform-provider-random_0.1.0_SHA256SUMS"
    ));
    let mut text = std::fs::read_to_string(&sums).unwrap();
    text.push_str(&format!(
        "{}  terraform-provider-random_0.1.0_darwin_arm64.zip\n",
        "0".repeat(64)
    ));
    std::fs::write(&sums, text).unwrap();
    for client in clients() {
        let name = &client.name;
        let ws = Workspace::new(client, &config());
        std::fs::write(ws.path().join("cli.tfrc"), &cli_config).unwrap();
        let init = ws.run_with_env(&["init", "-no-color"], &env);
        assert_ne!(
            init.code,
            0,
            "{name} installed from tampered sums: {}",
            init.all()
        );
        let text = init.all().to_lowercase();
        assert!(text.contains("signature"), "{name}: {text}");
    }
}
