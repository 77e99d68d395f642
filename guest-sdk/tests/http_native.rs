//! The SDK's HTTP client over its native transport, against a real loopback server: what
//! provider authors' unit tests and the native benchmark baseline run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tfwasm_sdk::http::{Client, ErrorKind, Retry};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Item {
    id: u32,
    name: String,
}

/// A keep-alive HTTP/1.1 server answering by request line; records requests with bodies.
fn serve(
    answer: impl Fn(&str, &str, usize) -> (u16, &'static str, String) + Send + Sync + 'static,
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let answer = Arc::new(answer);
    let count = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (record, answer, count) = (record.clone(), answer.clone(), count.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0;
                    let mut auth = String::new();
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        if header.trim().is_empty() {
                            break;
                        }
                        let lower = header.to_ascii_lowercase();
                        if let Some(v) = lower.strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap();
                        }
                        if let Some(v) = lower.strip_prefix("authorization:") {
                            // Header names are case-insensitive; keep the value as sent.
                            auth = format!(
                                "authorization: {}",
                                header.trim()[header.trim().len() - v.trim().len()..].to_owned()
                            );
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let body = String::from_utf8(body).unwrap();
                    let request = line
                        .split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" ");
                    record
                        .lock()
                        .unwrap()
                        .push(format!("{request} {body} {auth}").trim().to_owned());
                    let n = count.fetch_add(1, Ordering::SeqCst);
                    let (status, extra, reply) = answer(&request, &body, n);
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}\r\n",
                        reply.len()
                    );
                    stream.write_all(head.as_bytes()).unwrap();
                    stream.write_all(reply.as_bytes()).unwrap();
                }
            });
        }
    });
    (base, seen)
}

#[test]
fn json_round_trips_with_base_url_headers_and_query() {
    let (base, seen) = serve(|request, body, _| match request {
        "GET /v1/items/7?expand=all" => (200, "", r#"{"id":7,"name":"seven"}"#.into()),
        "POST /v1/items" => (201, "", body.replace("\"id\":0", "\"id\":8")),
        _ => (404, "", "{}".into()),
    });
    let api = Client::new(&format!("{base}/v1"))
        .unwrap()
        .bearer_auth("t0k");
    let item: Item = api
        .get("/items/7")
        .query("expand", "all")
        .send()
        .unwrap()
        .error_for_status()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        item,
        Item {
            id: 7,
            name: "seven".into()
        }
    );
    let created: Item = api
        .post("/items")
        .json(&Item {
            id: 0,
            name: "new".into(),
        })
        .unwrap()
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(created.id, 8);
    let seen = seen.lock().unwrap();
    assert!(seen[0].ends_with("authorization: Bearer t0k"), "{seen:?}");
    assert!(seen[1].contains(r#"{"id":0,"name":"new"}"#), "{seen:?}");
}

#[test]
fn errors_name_method_url_and_status_and_5xx_is_retried() {
    let (base, seen) = serve(|request, _, n| match (request, n) {
        ("GET /flaky", 0) => (503, "retry-after: 0\r\n", "{}".into()),
        ("GET /flaky", _) => (200, "", r#"{"ok":true}"#.into()),
        _ => (409, "", r#"{"error":"name taken"}"#.into()),
    });
    let api = Client::new(&base).unwrap().retry(Retry {
        attempts: 3,
        min_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
    });
    assert_eq!(api.get("/flaky").send().unwrap().status(), 200);
    let err = api
        .post("/items")
        .body("{}")
        .send()
        .unwrap()
        .error_for_status()
        .unwrap_err();
    assert_eq!(err.status(), Some(409));
    let text = err.to_string();
    assert!(
        text.contains(&format!("POST {base}/items answered HTTP 409")),
        "{text}"
    );
    assert!(text.contains("name taken"), "{text}");
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "one retry of the 503, POST sent once"
    );

    let refused = Client::new("http://127.0.0.1:1")
        .unwrap()
        .retry(Retry::none());
    let err = refused.get("/").send().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Transport(_)), "{err:?}");
    assert!(
        err.to_diagnostic()
            .detail
            .contains("GET http://127.0.0.1:1/"),
        "{err}"
    );
}
