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
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("server.log");
        let mut child = Command::new(tfwasm_bin())
            .args(["serve", "--debug", "--source", SOURCE, "--component"])
            .arg(component("random"))
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
