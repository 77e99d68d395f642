//! restapi_object in-process against its built component (`tfwasm-testing`), with a small
//! in-memory REST API on loopback granted to it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tfwasm_testing::{Grants, Harness};

type Store = Arc<Mutex<BTreeMap<u64, Value>>>;

/// `/items` as a REST collection: POST creates (the API picks the id), GET/PUT/DELETE
/// `/items/{id}`; keep-alive HTTP/1.1.
fn api() -> (String, Store) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let store: Store = Arc::default();
    let items = store.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let items = items.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0;
                    let mut header = String::new();
                    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:")
                        {
                            length = v.trim().parse().unwrap();
                        }
                        header.clear();
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let mut parts = line.split_whitespace();
                    let (method, path) = (parts.next().unwrap(), parts.next().unwrap());
                    let id = path
                        .strip_prefix("/items/")
                        .and_then(|i| i.parse::<u64>().ok());
                    let mut items = items.lock().unwrap();
                    let (status, reply) = match (method, id) {
                        ("POST", None) => {
                            let next = items.keys().last().map_or(1, |k| k + 1);
                            let mut object: Value = serde_json::from_slice(&body).unwrap();
                            object["id"] = json!(next);
                            items.insert(next, object.clone());
                            (201, object)
                        }
                        ("GET", Some(id)) => items
                            .get(&id)
                            .map_or((404, json!({})), |o| (200, o.clone())),
                        ("PUT", Some(id)) if items.contains_key(&id) => {
                            let mut object: Value = serde_json::from_slice(&body).unwrap();
                            object["id"] = json!(id);
                            items.insert(id, object.clone());
                            (200, object)
                        }
                        ("DELETE", Some(id)) => items
                            .remove(&id)
                            .map_or((404, json!({})), |_| (200, json!({}))),
                        _ => (404, json!({})),
                    };
                    let reply = reply.to_string();
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{reply}",
                        reply.len()
                    );
                }
            });
        }
    });
    (base, store)
}

#[test]
fn objects_are_created_kept_in_sync_and_imported() {
    let (base, store) = api();
    let grants = Grants {
        http: vec![base.clone()],
        ..Grants::default()
    };
    let h = Harness::load_with(
        Harness::built_component("tfwasm_sample_restapi").unwrap(),
        &grants,
    )
    .unwrap();
    h.configure(json!({ "uri": base, "create_returns_object": true }))
        .unwrap();

    let config = json!({ "path": "/items", "data": r#"{"name":"a","size":1}"# });
    let state = h.create("restapi_object", config).unwrap();
    assert_eq!(state.attr("id").as_str(), Some("1"));
    assert_eq!(store.lock().unwrap()[&1]["name"], "a");

    // The same object written differently plans nothing.
    let same = json!({ "path": "/items", "data": "{ \"size\": 1, \"name\": \"a\" }" });
    assert!(
        h.plan("restapi_object", Some(&state), same)
            .unwrap()
            .is_no_op()
    );

    // A change on the server shows up in `data`, so Terraform plans to put it back.
    store.lock().unwrap().get_mut(&1).unwrap()["size"] = json!(5);
    let read = h.read(&state).unwrap().unwrap();
    let data: Value = serde_json::from_str(read.attr("data").as_str().unwrap()).unwrap();
    assert_eq!(data, json!({ "name": "a", "size": 5 }));

    // Gone on the server: read says so.
    store.lock().unwrap().remove(&1);
    assert!(h.read(&state).unwrap().is_none());

    // Import an object made elsewhere.
    store
        .lock()
        .unwrap()
        .insert(7, json!({ "id": 7, "name": "seven" }));
    let imported = h.import("restapi_object", "/items/7").unwrap();
    assert_eq!(imported.attr("path").as_str(), Some("/items"));
    assert_eq!(imported.attr("data").as_str(), Some(r#"{"name":"seven"}"#));
    let err = h.import("restapi_object", "items").unwrap_err().to_string();
    assert!(err.contains("/path/{id}"), "{err}");
}

/// `uri` left out of the provider block comes from `REST_API_URI` when the operator grants
/// it, in `configure` and in every call after (`Attr::env_fallback`); the API client is
/// built from it once per instance (`ProviderData`). Ungranted, the variable reads as unset
/// and the provider says what to set.
#[test]
fn the_api_address_falls_back_to_a_granted_environment_variable() {
    let (base, store) = api();
    // SAFETY: set before any harness starts; Rust's own environment access is locked, and
    // no other test in this binary reads REST_API_URI.
    unsafe { std::env::set_var("REST_API_URI", &base) };
    let component = Harness::built_component("tfwasm_sample_restapi").unwrap();
    let granted = Grants {
        http: vec![base.clone()],
        env: vec!["REST_API_URI".into()],
        ..Grants::default()
    };
    let h = Harness::load_with(&component, &granted).unwrap();
    h.configure(json!({ "create_returns_object": true }))
        .unwrap();
    let state = h
        .create(
            "restapi_object",
            json!({ "path": "/items", "data": r#"{"name":"env"}"# }),
        )
        .unwrap();
    assert_eq!(state.attr("id").as_str(), Some("1"));
    assert_eq!(store.lock().unwrap()[&1]["name"], json!("env"));

    let ungranted = Grants {
        http: vec![base],
        ..Grants::default()
    };
    let h = Harness::load_with(&component, &ungranted).unwrap();
    let error = h.configure(json!({})).unwrap_err().to_string();
    assert!(
        error.contains("No API address") && error.contains("--allow-env REST_API_URI"),
        "{error}"
    );
}
