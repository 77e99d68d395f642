//! The http data source in-process against its built component (`tfwasm-testing`), with a
//! loopback server granted as an operator would grant it.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use serde_json::json;
use tfwasm_testing::{Grants, Harness};

/// A server answering every request with its own request line, as JSON.
fn echo_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let body = json!({ "request": line.trim() }).to_string();
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-trace: a\r\nx-trace: b\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn component() -> std::path::PathBuf {
    Harness::built_component("tfwasm_sample_http").unwrap()
}

#[test]
fn reads_status_headers_and_body_of_a_granted_server() {
    let port = echo_server();
    let grants = Grants {
        http: vec![format!("http://127.0.0.1:{port}")],
        ..Grants::default()
    };
    let h = Harness::load_with(component(), &grants).unwrap();
    let read = h
        .read_data(
            "http",
            json!({ "url": format!("http://127.0.0.1:{port}/status?x=1") }),
        )
        .unwrap();
    assert_eq!(read.get("status_code").and_then(|v| v.as_i64()), Some(200));
    assert_eq!(
        read.get("response_body").and_then(|v| v.as_str()),
        Some(r#"{"request":"GET /status?x=1 HTTP/1.1"}"#)
    );
    let headers = read
        .get("response_headers")
        .and_then(|v| v.as_entries())
        .unwrap();
    assert_eq!(headers["Content-Type"].as_str(), Some("application/json"));
    assert_eq!(
        headers["X-Trace"].as_str(),
        Some("a, b"),
        "repeated headers are joined"
    );
}

#[test]
fn a_server_not_granted_is_refused_naming_the_grant() {
    let port = echo_server();
    let h = Harness::load(component()).unwrap();
    let err = h
        .read_data(
            "http",
            json!({ "url": format!("http://127.0.0.1:{port}/") }),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("Outgoing HTTP request denied"), "{err}");
    assert!(
        err.contains(&format!("--allow-http http://127.0.0.1:{port}")),
        "{err}"
    );
}
