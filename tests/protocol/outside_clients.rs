//! Clients other than Terraform's grpc-go, and process signals other than go-plugin's
//! Shutdown: what a provider meets outside the happy path.

use std::process::Command;
use std::time::Duration;

use tfwasm_tests::plugin::Server;

/// gRPC C-core (Python grpcio) sends the percent-encoded socket path as `:authority`; the
/// server must answer it as grpc-go's `localhost`, not reset the stream.
#[test]
fn a_python_grpcio_client_calls_the_plaintext_server_with_its_default_authority() {
    let server = Server::start(None);
    let out = Command::new(tfwasm_tests::grpcio_python())
        .arg(tfwasm_tests::workspace_root().join("tests/fixtures/grpcio_client.py"))
        .arg(server.socket_path())
        .output()
        .expect("run the grpcio client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "grpcio client failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON result");
    assert_eq!(result.get("error"), None, "{result}");
    assert_eq!(
        result["health"], "0801",
        "health check answers SERVING: {result}"
    );
    assert_eq!(result["has_random_string"], true, "{result}");
    assert!(result["schema_bytes"].as_u64().unwrap() > 1000, "{result}");
}

/// SIGTERM (a service manager, `kill`, a container stop) stops the server as Shutdown does,
/// removing its socket; SIGINT is Terraform's to handle and is ignored.
#[test]
fn sigterm_stops_the_server_and_removes_its_socket_sigint_does_not() {
    let mut server = Server::start(None);
    let socket = server.socket_path();
    assert!(socket.exists(), "{} exists while serving", socket.display());

    server.signal(libc::SIGINT);
    assert_eq!(
        server.wait(Duration::from_millis(500)),
        None,
        "SIGINT is ignored"
    );
    assert!(socket.exists());

    server.signal(libc::SIGTERM);
    let status = server
        .wait(Duration::from_secs(10))
        .expect("the server exits on SIGTERM");
    assert!(status.success(), "clean exit: {status:?}");
    assert!(!socket.exists(), "{} is removed", socket.display());
}
