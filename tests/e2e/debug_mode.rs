//! `tfwasm serve --debug` as an author uses it: start it in one shell, export the printed
//! `TF_REATTACH_PROVIDERS` in another, and run Terraform several times against the same
//! process; Ctrl-C stops it and removes its socket.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tfwasm_tests::{Workspace, cache_dir, clients, component, tfwasm_bin};

const SOURCE: &str = "registry.terraform.io/tfwasm/random";

/// The debug server, stopped (SIGINT) when dropped.
struct DebugServer {
    child: std::process::Child,
    reattach: String,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl DebugServer {
    fn start() -> DebugServer {
        DebugServer::start_with("random", SOURCE, &[])
    }

    fn start_with(sample: &str, source: &str, flags: &[&str]) -> DebugServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("server.log");
        let mut child = Command::new(tfwasm_bin())
            .args(["serve", "--debug", "--source", source, "--component"])
            .arg(component(sample))
            .args(flags)
            .env("TFWASM_CACHE_DIR", cache_dir())
            .env_remove("TF_LOG")
            .env_remove("TF_LOG_PROVIDER")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start tfwasm serve --debug");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(value) = line.trim().strip_prefix("export TF_REATTACH_PROVIDERS=") {
                    let _ = tx.send(value.trim_matches('\'').to_owned());
                }
            }
        });
        let reattach = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the debug server prints TF_REATTACH_PROVIDERS");
        DebugServer {
            child,
            reattach,
            log,
            _dir: dir,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Ctrl-C; returns the exit status.
    fn interrupt(&mut self) -> Option<std::process::ExitStatus> {
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for DebugServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn terraform_attaches_to_a_debug_server_across_commands() {
    for client in clients() {
        let name = &client.name;
        let mut server = DebugServer::start();
        let value: serde_json::Value =
            serde_json::from_str(&server.reattach).expect("the value is JSON");
        let entry = &value[SOURCE];
        assert_eq!(entry["ProtocolVersion"], 6, "{name}: {value}");
        assert_eq!(entry["Pid"], server.child.id(), "{name}: {value}");
        let socket = entry["Addr"]["String"].as_str().unwrap().to_owned();
        assert!(std::path::Path::new(&socket).exists(), "{name}: {socket}");

        let ws = Workspace::new(
            client,
            &format!(
                "terraform {{\n  required_providers {{\n    random = {{ source = \"{SOURCE}\" }}\n  }}\n}}\nresource \"random_string\" \"s\" {{\n  length = 12\n}}\n"
            ),
        );
        let env = [("TF_REATTACH_PROVIDERS", server.reattach.as_str())];
        for args in [
            &["init", "-no-color"][..],
            &["apply", "-auto-approve", "-no-color"],
            &["plan", "-detailed-exitcode", "-no-color"],
            &["destroy", "-auto-approve", "-no-color"],
        ] {
            let run = ws.run_with_env(args, &env);
            assert_eq!(
                run.code,
                0,
                "{name} {args:?}:\n{}\nserver:\n{}",
                run.all(),
                server.log()
            );
        }
        // Every command talked to this one process, whose log is on its terminal.
        let log = server.log();
        assert!(
            log.contains("guest call") && log.contains("rpc=ApplyResourceChange"),
            "{name}: {log}"
        );
        assert!(
            !log.contains("\"@level\""),
            "{name}: readable lines, not JSON: {log}"
        );

        let status = server.interrupt().expect("Ctrl-C stops the debug server");
        assert!(status.success(), "{name}: {status:?}\n{}", server.log());
        assert!(
            !std::path::Path::new(&socket).exists(),
            "{name}: the socket is removed"
        );
    }
}

/// Issue 36: an author debugging an API provider grants it what its package will, with the
/// same flags `tfwasm package` takes; without `--debug` they are refused, since a package
/// takes its grants from its tfwasm.toml.
#[test]
fn a_debug_server_takes_the_package_grant_flags() {
    const HTTP: &str = "registry.terraform.io/tfwasm/http";
    let api = tfwasm_tests::JsonServer::start(
        &serde_json::json!({ "items": [{ "id": 1, "name": "granted" }] }),
        0,
    );
    let client = &clients()[0];
    let config = format!(
        "terraform {{\n  required_providers {{\n    http = {{ source = \"{HTTP}\" }}\n  }}\n}}\ndata \"http\" \"item\" {{ url = \"{}/items/1\" }}\noutput \"body\" {{ value = data.http.item.response_body }}\n",
        api.url()
    );
    for (flags, granted) in [
        (vec!["--allow-http", api.url().as_str()], true),
        (vec![], false),
    ] {
        let server = DebugServer::start_with("http", HTTP, &flags);
        let ws = Workspace::new(client, &config);
        let env = [("TF_REATTACH_PROVIDERS", server.reattach.as_str())];
        ws.run_with_env(&["init", "-no-color"], &env);
        let run = ws.run_with_env(&["apply", "-auto-approve", "-no-color"], &env);
        if granted {
            assert_eq!(run.code, 0, "{}\nserver:\n{}", run.all(), server.log());
            assert!(run.all().contains("granted"), "{}", run.all());
        } else {
            assert_ne!(run.code, 0);
            assert!(
                run.all().contains("Outgoing HTTP request denied"),
                "{}",
                run.all()
            );
        }
    }

    let plain = Command::new(tfwasm_bin())
        .args(["serve", "--allow-http", "http://127.0.0.1:1"])
        .output()
        .expect("run tfwasm serve");
    assert_eq!(plain.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&plain.stderr).contains("are for --debug"),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
}
