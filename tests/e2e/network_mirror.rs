//! Distribution as operators run it: `tfwasm package --archive` writes zip archives in the
//! network-mirror layout; each client installs the provider from that mirror served over
//! loopback HTTPS (OpenTofu under its own registry host, `registry.opentofu.org`), records
//! the printed `h1:` hash in its lock file, and `providers lock -net-mirror` agrees.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use tfwasm_tests::{Workspace, cache_dir, clients, component, tfwasm_bin};

const SOURCE: &str = "registry.terraform.io/tfwasm/random";

/// A static HTTPS server (Python's http.server behind TLS) for `root`, with a certificate
/// for 127.0.0.1 in `cert`; stopped when dropped.
pub(crate) struct Https {
    child: std::process::Child,
    pub(crate) port: u16,
}

impl Https {
    pub(crate) fn serve(
        root: &std::path::Path,
        cert: &std::path::Path,
        key: &std::path::Path,
    ) -> Https {
        let script = r#"
import functools, http.server, ssl, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_port, flush=True)
server.serve_forever()
"#;
        let mut child = Command::new("python3")
            .args(["-c", script])
            .arg(root)
            .arg(cert)
            .arg(key)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 serves the mirror");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server's port");
        Https { child, port }
    }
}

impl Drop for Https {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The source address a client's users write: OpenTofu's own registry host for OpenTofu
/// (whose default registry it is), Terraform's for Terraform.
fn source_for(client: &tfwasm_tests::Client) -> &'static str {
    if client.name.starts_with("OpenTofu") {
        OPENTOFU_SOURCE
    } else {
        SOURCE
    }
}

const OPENTOFU_SOURCE: &str = "registry.opentofu.org/tfwasm/random";

/// Packages the random component under `source` into `dist` (`--archive`) and returns the
/// `h1:` hash it printed.
fn archive(tmp: &std::path::Path, dist: &std::path::Path, source: &str) -> String {
    let out = Command::new(tfwasm_bin())
        .arg("package")
        .arg(component("random"))
        .args(["--source", source, "--version", "0.1.0", "--out"])
        .arg(tmp.join("unpacked").join(source.replace('/', "_")))
        .arg("--archive")
        .arg(dist)
        .env("TFWASM_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{report}");
    let listed = dist.join(source);
    for file in [
        "index.json",
        "0.1.0.json",
        "terraform-provider-random_0.1.0_linux_amd64.zip",
        "terraform-provider-random_0.1.0_SHA256SUMS",
    ] {
        assert!(
            listed.join(file).is_file(),
            "{file} in {}",
            listed.display()
        );
    }
    report
        .split('"')
        .find(|s| s.starts_with("h1:"))
        .unwrap_or_else(|| panic!("no h1 hash printed: {report}"))
        .to_owned()
}

#[test]
fn terraform_installs_from_a_network_mirror_of_archives_and_locks_its_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    let hashes: std::collections::BTreeMap<&str, String> = [SOURCE, OPENTOFU_SOURCE]
        .into_iter()
        .map(|source| (source, archive(tmp.path(), &dist, source)))
        .collect();

    let key = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let (cert, key_file) = (tmp.path().join("cert.pem"), tmp.path().join("key.pem"));
    std::fs::write(&cert, key.cert.pem()).unwrap();
    std::fs::write(&key_file, key.signing_key.serialize_pem()).unwrap();
    let server = Https::serve(&dist, &cert, &key_file);
    let url = format!("https://127.0.0.1:{}/", server.port);
    let cert_env = cert.display().to_string();
    let env = [("SSL_CERT_FILE", cert_env.as_str())];

    for client in clients() {
        let name = &client.name;
        let source = source_for(client);
        let h1 = &hashes[source];
        let ws = Workspace::new(
            client,
            &format!(
                "terraform {{\n  required_providers {{\n    random = {{ source = \"{source}\" }}\n  }}\n}}\nresource \"random_pet\" \"p\" {{}}\n"
            ),
        );
        std::fs::write(
            ws.path().join("cli.tfrc"),
            format!(
                "provider_installation {{\n  network_mirror {{\n    url = \"{url}\"\n  }}\n}}\n"
            ),
        )
        .unwrap();
        let init = ws.run_with_env(&["init", "-no-color"], &env);
        assert_eq!(init.code, 0, "{name}: {}", init.all());
        let lock = std::fs::read_to_string(ws.path().join(".terraform.lock.hcl")).unwrap();
        assert!(
            lock.contains(h1.as_str()),
            "{name}: {h1} not in the lock file:\n{lock}"
        );
        let apply = ws.run_with_env(&["apply", "-auto-approve", "-no-color"], &env);
        assert_eq!(apply.code, 0, "{name}: {}", apply.all());

        std::fs::remove_file(ws.path().join(".terraform.lock.hcl")).unwrap();
        let mirror_flag = format!("-net-mirror={url}");
        let lock_run = ws.run_with_env(
            &[
                "providers",
                "lock",
                "-platform=linux_amd64",
                &mirror_flag,
                source,
            ],
            &env,
        );
        assert_eq!(lock_run.code, 0, "{name}: {}", lock_run.all());
        let lock = std::fs::read_to_string(ws.path().join(".terraform.lock.hcl")).unwrap();
        assert!(
            lock.contains(h1.as_str()),
            "{name}: providers lock:\n{lock}"
        );
        ws.run_with_env(&["destroy", "-auto-approve", "-no-color"], &env);
    }
}
