//! The `http` sample (hashicorp/http's data source) through real Terraform against a real
//! json-server: GET with headers, POST with a body, a 404 read as a status (as hashicorp/http
//! 3.x does), and a destination the operator did not grant refused with the flag to add.

use serde_json::{Value, json};
use tfwasm_tests::{JsonServer, Workspace, clients, flatten};

fn config(api: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    http = {{ source = "registry.terraform.io/tfwasm/http" }}
  }}
}}

data "http" "item" {{
  url             = "{api}/items/1"
  request_headers = {{ Accept = "application/json" }}
}}

data "http" "create" {{
  url             = "{api}/items"
  method          = "POST"
  request_headers = {{ "Content-Type" = "application/json" }}
  request_body    = jsonencode({{ name = "posted" }})
}}

data "http" "missing" {{
  url = "{api}/items/999"
  retry {{
    attempts     = 2
    min_delay_ms = 10
  }}
}}

output "name" {{ value = jsondecode(data.http.item.response_body).name }}
output "status" {{ value = data.http.item.status_code }}
output "content_type" {{ value = data.http.item.response_headers["Content-Type"] }}
output "base64" {{ value = data.http.item.response_body_base64 }}
output "created" {{ value = data.http.create.status_code }}
output "missing" {{ value = data.http.missing.status_code }}
"#
    )
}

#[test]
fn http_data_source_reads_a_real_server() {
    let server = JsonServer::start(&json!({ "items": [{ "id": 1, "name": "first" }] }), 0);
    for client in clients() {
        let ws = Workspace::new(client, &config(&server.url()));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let out = ws.ok(&["output", "-json", "-no-color"]);
        let outputs: Value = serde_json::from_str(&out.stdout).expect("outputs are JSON");
        let value = |name: &str| outputs[name]["value"].clone();
        assert_eq!(value("name"), json!("first"), "{}", client.name);
        assert_eq!(value("status"), json!(200));
        assert!(
            value("content_type")
                .as_str()
                .is_some_and(|t| t.starts_with("application/json")),
            "{outputs}"
        );
        assert!(value("base64").as_str().is_some_and(|b| !b.is_empty()));
        assert_eq!(value("created"), json!(201));
        assert_eq!(
            value("missing"),
            json!(404),
            "a 404 is a status, not an error"
        );
        let posted = server.db()["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["name"] == "posted")
            .count();
        assert!(posted >= 1, "the POST reached the server: {}", server.db());
    }
}

#[test]
fn a_destination_not_granted_is_refused_with_the_flag_to_add() {
    for client in clients() {
        let ws = Workspace::new(
            client,
            r#"
terraform {
  required_providers {
    http = { source = "registry.terraform.io/tfwasm/http" }
  }
}
data "http" "elsewhere" { url = "http://localhost:9/secret" }
"#,
        );
        ws.ok(&["init", "-no-color"]);
        let plan = ws.run(&["plan", "-no-color"]);
        assert_ne!(plan.code, 0);
        let text = flatten(&plan.all());
        assert!(
            text.contains("--allow-http http://localhost:9"),
            "{}: {text}",
            client.name
        );
        // One error, the host's, which names the flag: the SDK's own restated it.
        assert_eq!(
            text.matches("Outgoing HTTP request denied").count(),
            1,
            "{}: {text}",
            client.name
        );
        assert!(
            !text.contains("HTTP request not sent")
                && !text.contains("GET http://localhost:9/secret"),
            "{}: {text}",
            client.name
        );
    }
}

/// An HTTPS server on loopback with a certificate from a private CA: (CA PEM, port). Each
/// connection answers one request with `hello over tls`.
fn private_tls_server() -> (String, u16) {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::sync::Arc;

    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "tfwasm e2e CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap(),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let mut reader = BufReader::new(&mut tls);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let body = "hello over tls";
                let _ = write!(
                    tls,
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    (AsRef::<rcgen::Certificate>::as_ref(&ca).pem(), port)
}

/// `tfwasm package --ca-file` makes a private CA's server trusted; the same package without
/// it fails with the diagnostic that names the host and the flag.
#[test]
fn a_private_ca_from_the_package_is_trusted() {
    let (ca_pem, port) = private_tls_server();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("private-ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let package = |mirror: &str, extra: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(tfwasm_tests::tfwasm_bin())
            .arg("package")
            .arg(tfwasm_tests::component("http"))
            .args([
                "--source",
                "registry.terraform.io/tfwasm/http",
                "--version",
                "0.1.0",
            ])
            .args(["--allow-http", &format!("https://localhost:{port}")])
            .arg("--out")
            .arg(dir.path().join(mirror))
            .args(extra)
            .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir.path().join(mirror)
    };
    let trusting = package("trusting", &["--ca-file".as_ref(), ca.as_os_str()]);
    let plain = package("plain", &[]);
    let config = format!(
        r#"
terraform {{
  required_providers {{
    http = {{ source = "registry.terraform.io/tfwasm/http" }}
  }}
}}
data "http" "tls" {{ url = "https://localhost:{port}/" }}
output "body" {{ value = data.http.tls.response_body }}
"#
    );
    for client in clients() {
        let ws = Workspace::with_mirror(client, &config, &trusting);
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let out = ws.ok(&["output", "-raw", "-no-color", "body"]);
        assert_eq!(out.stdout, "hello over tls", "{}", client.name);

        let ws = Workspace::with_mirror(client, &config, &plain);
        ws.ok(&["init", "-no-color"]);
        let plan = ws.run(&["plan", "-no-color"]);
        assert_ne!(plan.code, 0);
        let text = flatten(&plan.all());
        for needle in [
            "Outgoing HTTPS request to an untrusted server",
            &format!("certificate of localhost:{port}"),
            "--ca-file",
        ] {
            assert!(text.contains(needle), "{}: {needle}: {text}", client.name);
        }
    }
}
