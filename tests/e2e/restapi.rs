//! The `restapi` sample (Mastercard/restapi) through real Terraform against a real
//! json-server: create, no-change plan, update in place, `force_new` replacement, drift made
//! on the server behind Terraform's back (changed, added and deleted), import, both data
//! sources (with `Link` pagination), destroy, and an API the operator did not grant.

use serde_json::{Value, json};
use tfwasm_tests::{JsonServer, Run, Since, Workspace, clients, clients_since, flatten};

const CONFIG: &str = r#"
terraform {
  required_providers {
    restapi = { source = "registry.terraform.io/tfwasm/restapi" }
  }
}

provider "restapi" {
  uri                   = "API"
  create_returns_object = true
  headers               = { X-Team = "platform" }
}

resource "restapi_object" "a" {
  path = "/items"
  data = jsonencode({ name = "a", size = SIZE_A, team = "core" })
}

resource "restapi_object" "b" {
  path      = "/items"
  data      = jsonencode({ name = "b", size = 1, team = "TEAM_B" })
  force_new = ["team"]
}

resource "restapi_object" "c" {
  path = "/items"
  data = "{\"name\": \"c\",   \"size\": 3, \"team\": \"core\"}"
}

resource "restapi_object" "quiet" {
  path                    = "/items"
  data                    = jsonencode({ name = "quiet", size = 4, team = "ops" })
  ignore_server_additions = true
}

IMPORTED

data "restapi_object" "by_name" {
  path         = "/items"
  search_key   = "name"
  search_value = "b"
  depends_on   = [restapi_object.b]
}

data "restapi_objects" "core" {
  path         = "/items"
  query_string = "_page=1&_limit=2"
  search_key   = "team"
  search_value = "core"
  depends_on   = [restapi_object.a, restapi_object.b, restapi_object.c, restapi_object.quiet]
}

output "ids" {
  value = { a = restapi_object.a.id, b = restapi_object.b.id, c = restapi_object.c.id }
}
output "a_size" { value = restapi_object.a.api_data.size }
output "found_b" { value = data.restapi_object.by_name.id }
output "core_ids" { value = data.restapi_objects.core.ids }
"#;

const IMPORTED: &str = r#"
resource "restapi_object" "imported" {
  path = "/items"
  data = jsonencode({ name = "made elsewhere", size = 9, team = "ext" })
}
"#;

fn config(api: &str, size_a: u32, team_b: &str, imported: bool) -> String {
    CONFIG
        .replace("API", api)
        .replace("SIZE_A", &size_a.to_string())
        .replace("TEAM_B", team_b)
        .replace("IMPORTED", if imported { IMPORTED } else { "" })
}

fn outputs(ws: &Workspace) -> Value {
    let out = ws.ok(&["output", "-json", "-no-color"]);
    serde_json::from_str(&out.stdout).expect("outputs are JSON")
}

fn item(server: &JsonServer, id: &str) -> Option<Value> {
    server.db()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| match &i["id"] {
            Value::Number(n) => n.to_string() == id,
            Value::String(s) => s == id,
            _ => false,
        })
        .cloned()
}

fn plan(ws: &Workspace) -> Run {
    ws.run(&["plan", "-detailed-exitcode", "-no-color"])
}

#[test]
fn restapi_objects_follow_a_real_api_through_their_lifecycle() {
    for client in clients() {
        let name = &client.name;
        let server = JsonServer::start(&json!({ "items": [] }), 0);
        let api = server.url();
        let ws = Workspace::new(client, &config(&api, 1, "core", false));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let out = outputs(&ws);
        let id = |k: &str| out["ids"]["value"][k].as_str().unwrap().to_owned();
        let (a, b, c) = (id("a"), id("b"), id("c"));
        assert_eq!(server.db()["items"].as_array().unwrap().len(), 4, "{name}");
        assert_eq!(item(&server, &a).unwrap()["size"], 1);
        assert_eq!(out["found_b"]["value"], json!(b), "{name}");
        let mut core: Vec<String> =
            serde_json::from_value(out["core_ids"]["value"].clone()).unwrap();
        core.sort();
        let mut expected = vec![a.clone(), b.clone(), c.clone()];
        expected.sort();
        assert_eq!(core, expected, "{name}: every page was followed");

        // Reformatted JSON and the id the server added are no change.
        let p = plan(&ws);
        assert_eq!(p.code, 0, "{name}: {}", p.all());

        // Update in place.
        ws.write_config(&config(&api, 2, "core", false));
        let p = plan(&ws);
        assert_eq!(p.code, 2, "{name}: {}", p.all());
        assert!(
            flatten(&p.stdout).contains("1 to change, 0 to destroy"),
            "{}",
            p.stdout
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(item(&server, &a).unwrap()["size"], 2, "{name}");
        assert_eq!(outputs(&ws)["a_size"]["value"], json!("2"));

        // A force_new key replaces.
        ws.write_config(&config(&api, 2, "edge", false));
        let p = plan(&ws);
        assert!(
            flatten(&p.stdout).contains("restapi_object.b must be replaced"),
            "{name}: {}",
            p.all()
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        // Destroy-then-create: json-server may hand out the freed ID again, so count.
        let new_b = outputs(&ws)["ids"]["value"]["b"]
            .as_str()
            .unwrap()
            .to_owned();
        let bs: Vec<Value> = server.db()["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["name"] == "b")
            .cloned()
            .collect();
        assert_eq!(bs.len(), 1, "{name}: the old b was deleted: {bs:?}");
        assert_eq!(bs[0]["team"], "edge");
        assert_eq!(item(&server, &new_b).unwrap()["team"], "edge");

        // Drift: a value changed on the server shows and is put back.
        let (status, _) = server.send(
            "PATCH",
            &format!("/items/{c}"),
            Some(&json!({ "size": 30 })),
        );
        assert_eq!(status, 200);
        let p = plan(&ws);
        assert_eq!(p.code, 2, "{name}: {}", p.all());
        assert!(
            flatten(&p.stdout).contains("restapi_object.c will be updated in-place"),
            "{}",
            p.stdout
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(item(&server, &c).unwrap()["size"], 3, "{name}");

        // A key the server adds is drift, unless ignore_server_additions.
        let quiet = server.db()["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "quiet")
            .unwrap()["id"]
            .to_string();
        server.send(
            "PATCH",
            &format!("/items/{quiet}"),
            Some(&json!({ "updated_at": "now" })),
        );
        assert_eq!(plan(&ws).code, 0, "{name}: ignore_server_additions");
        server.send(
            "PATCH",
            &format!("/items/{c}"),
            Some(&json!({ "updated_at": "now" })),
        );
        let p = plan(&ws);
        assert_eq!(p.code, 2, "{name}: {}", p.all());
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert!(
            item(&server, &c).unwrap().get("updated_at").is_none(),
            "{name}: PUT restored c"
        );

        // Deleted behind Terraform's back: planned for creation again.
        let (status, _) = server.send("DELETE", &format!("/items/{a}"), None);
        assert_eq!(status, 200);
        let p = plan(&ws);
        assert!(
            flatten(&p.stdout).contains("restapi_object.a will be created"),
            "{name}: {}",
            p.all()
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);

        // Import an object made elsewhere; its configuration then plans no change.
        let (status, body) = server.send(
            "POST",
            "/items",
            Some(&json!({ "name": "made elsewhere", "size": 9, "team": "ext" })),
        );
        assert_eq!(status, 201);
        let made: Value = serde_json::from_str(&body).unwrap();
        ws.write_config(&config(&api, 2, "edge", true));
        ws.ok(&[
            "import",
            "-no-color",
            "restapi_object.imported",
            &format!("/items/{}", made["id"]),
        ]);
        let p = plan(&ws);
        assert_eq!(p.code, 0, "{name}: {}", p.all());
        let bad = ws.run(&["import", "-no-color", "restapi_object.a", "items"]);
        assert!(flatten(&bad.all()).contains("/path/{id}"), "{}", bad.all());

        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert_eq!(
            server.db()["items"],
            json!([]),
            "{name}: destroy deleted everything"
        );
    }
}

#[test]
fn an_api_the_operator_did_not_grant_is_refused_with_the_flag_to_add() {
    let server = JsonServer::start(&json!({ "items": [] }), 0);
    for client in clients() {
        let ws = Workspace::new(
            client,
            &format!(
                r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri = "http://localhost:{}"
}}
resource "restapi_object" "x" {{
  path = "/items"
  data = jsonencode({{ id = "x1", name = "x" }})
}}
"#,
                server.port
            ),
        );
        ws.ok(&["init", "-no-color"]);
        let apply = ws.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(apply.code, 0);
        let text = flatten(&apply.all());
        assert!(
            text.contains(&format!("--allow-http http://localhost:{}", server.port)),
            "{}: {text}",
            client.name
        );
        // One error, the host's: the SDK's own (which once quoted the closed body stream
        // it saw first) only restated it.
        assert_eq!(
            text.matches("Outgoing HTTP request denied").count(),
            1,
            "{}: {text}",
            client.name
        );
        assert!(
            !text.contains("HTTP request not sent") && !text.contains("StreamError"),
            "{}: {text}",
            client.name
        );
        assert_eq!(server.db()["items"], json!([]));
    }
}

const WRITE_ONLY: &str = r#"
terraform {
  required_providers {
    restapi = { source = "registry.terraform.io/tfwasm/restapi" }
    random  = { source = "registry.terraform.io/tfwasm/random" }
  }
}

provider "restapi" {
  uri                   = "API"
  create_returns_object = true
}

ephemeral "random_password" "db" {
  length  = 24
  special = false
}

resource "restapi_object" "user" {
  path            = "/items"
  data            = jsonencode({ name = "app" })
  data_wo         = jsonencode({ password = ephemeral.random_password.db.result })
  data_wo_version = VERSION
}
"#;

#[test]
fn an_ephemeral_password_reaches_the_api_through_data_wo_and_is_never_stored() {
    for client in &clients_since(Since::Ephemeral) {
        let name = &client.name;
        let server = JsonServer::start(&json!({ "items": [] }), 0);
        let api = server.url();
        if !client.has_write_only() {
            // No ephemeral blocks here, and a write-only value would be stored: refused.
            let ws = Workspace::new(
                client,
                &format!(
                    "{}\nprovider \"restapi\" {{\n  uri = \"{api}\"\n}}\nresource \"restapi_object\" \"user\" {{\n  path    = \"/items\"\n  data    = jsonencode({{ name = \"app\" }})\n  data_wo = jsonencode({{ password = \"literal\" }})\n}}\n",
                    "terraform {\n  required_providers {\n    restapi = { source = \"registry.terraform.io/tfwasm/restapi\" }\n  }\n}"
                ),
            );
            ws.ok(&["init", "-no-color"]);
            let plan = ws.run(&["plan", "-no-color"]);
            let text = flatten(&plan.all());
            assert_ne!(plan.code, 0, "{name}: {text}");
            assert!(
                text.contains("Write-only attribute not supported by this client"),
                "{name}: {text}"
            );
            assert!(text.contains("data_wo"), "{name}: {text}");
            println!("{name}: no ephemeral resources; a write-only value is refused");
            continue;
        }
        let config = |version: u32| {
            WRITE_ONLY
                .replace("API", &api)
                .replace("VERSION", &version.to_string())
        };
        let ws = Workspace::new(client, &config(1));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["plan", "-out=tfplan", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color", "tfplan"]);
        let items = server.db()["items"].as_array().unwrap().clone();
        assert_eq!(items.len(), 1, "{name}: {items:?}");
        assert_eq!(items[0]["name"], "app");
        let secret = items[0]["password"].as_str().unwrap().to_owned();
        assert_eq!(
            secret.chars().count(),
            24,
            "{name}: the API got the password"
        );
        let state = std::fs::read_to_string(ws.path().join("terraform.tfstate")).unwrap();
        assert!(
            !state.contains(&secret),
            "{name}: the state holds the secret"
        );
        assert!(state.contains("data_wo_version"), "{name}");
        let plan_json = ws.ok(&["show", "-json", "-no-color", "tfplan"]).stdout;
        assert!(
            !plan_json.contains(&secret),
            "{name}: the plan holds the secret"
        );

        // The server echoes the secret back; it is not drift and not stored.
        let p = plan(&ws);
        assert_eq!(p.code, 0, "{name}: {}", p.all());

        // A new version sends a new password (the ephemeral one of this run).
        ws.write_config(&config(2));
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let items = server.db()["items"].as_array().unwrap().clone();
        let rotated = items[0]["password"].as_str().unwrap().to_owned();
        assert_eq!(rotated.chars().count(), 24);
        assert_ne!(rotated, secret, "{name}: rotated");
        let state = std::fs::read_to_string(ws.path().join("terraform.tfstate")).unwrap();
        assert!(
            !state.contains(&rotated) && !state.contains(&secret),
            "{name}"
        );

        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            server.db()["items"].as_array().unwrap().is_empty(),
            "{name}"
        );
    }
}

/// A service on Python's `http.server`, which reads a body only by its `content-length`.
pub(crate) struct PlainServer {
    child: std::process::Child,
    pub(crate) port: u16,
    heads: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl PlainServer {
    pub(crate) fn start() -> PlainServer {
        let dir = tempfile::tempdir().unwrap();
        let (port_file, heads) = (dir.path().join("port"), dir.path().join("heads"));
        let child = std::process::Command::new("python3")
            .arg(tfwasm_tests::workspace_root().join("tests/fixtures/plain_rest_server.py"))
            .args([&port_file, &heads])
            .spawn()
            .expect("python3 runs tests/fixtures/plain_rest_server.py");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                break text.trim().parse().unwrap();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the plain server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        PlainServer {
            child,
            port,
            heads,
            _dir: dir,
        }
    }

    /// `(method, transfer-encoding, content-length)` of every request received.
    pub(crate) fn heads(&self) -> Vec<(String, Option<String>, Option<String>)> {
        std::fs::read_to_string(&self.heads)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let text = |k: &str| v[k].as_str().map(str::to_owned);
                (
                    text("method").unwrap(),
                    text("transfer-encoding"),
                    text("content-length"),
                )
            })
            .collect()
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Body-less requests (GET, DELETE) go out with no chunked encoding: a chunked DELETE leaves
/// its terminator on the pooled connection, and a service on `http.server` then fails the
/// next request ("Connection reset by peer" on the POST after a destroy).
#[test]
fn a_plain_http_server_reads_every_request_including_body_less_deletes() {
    let server = PlainServer::start();
    let client = &clients()[clients().len() - 1];
    let objects = |n: usize| {
        let mut text = format!(
            r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri                   = "http://127.0.0.1:{}"
  create_returns_object = true
}}
"#,
            server.port
        );
        for i in 0..n {
            text.push_str(&format!(
                "resource \"restapi_object\" \"o{i}\" {{\n  path = \"/items\"\n  data = jsonencode({{ name = \"o{i}\" }})\n}}\n"
            ));
        }
        text
    };
    let ws = Workspace::new(client, &objects(3));
    ws.ok(&["init", "-no-color"]);
    ws.ok(&["apply", "-auto-approve", "-no-color", "-parallelism=1"]);
    // Two deletes, then two creates, on the connections the deletes used.
    ws.write_config(&objects(1));
    ws.ok(&["apply", "-auto-approve", "-no-color", "-parallelism=1"]);
    ws.write_config(&objects(3));
    ws.ok(&["apply", "-auto-approve", "-no-color", "-parallelism=1"]);
    ws.ok(&["destroy", "-auto-approve", "-no-color", "-parallelism=1"]);

    let heads = server.heads();
    let deletes = heads.iter().filter(|(m, _, _)| m == "DELETE").count();
    assert_eq!(deletes, 5, "{heads:?}");
    for (method, chunked, length) in &heads {
        assert_eq!(chunked, &None, "{method} went out chunked: {heads:?}");
        if method == "DELETE" {
            assert_eq!(length.as_deref(), Some("0"), "{heads:?}");
        }
    }
}

/// An endpoint with nothing listening: the diagnostic says no answer came and why, in words.
#[test]
fn an_endpoint_with_nothing_listening_is_named_in_words() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let client = &clients()[clients().len() - 1];
    let ws = Workspace::new(
        client,
        &format!(
            r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri = "http://127.0.0.1:{port}"
}}
resource "restapi_object" "x" {{
  path = "/items"
  data = jsonencode({{ name = "x" }})
}}
"#
        ),
    );
    ws.ok(&["init", "-no-color"]);
    let apply = ws.run(&["apply", "-auto-approve", "-no-color"]);
    assert_ne!(apply.code, 0);
    let text = flatten(&apply.all());
    assert!(
        text.contains("No HTTP response")
            && text.contains("the connection was refused")
            && !text.contains("ErrorCode"),
        "{}: {text}",
        client.name
    );
}

/// restapi reports the new object the moment the API answers its POST (`report_created`),
/// before reading it back. A provider killed then (SIGKILL, here during a slow read-back)
/// leaves the next plan an error naming the object and the import that brings it back,
/// instead of a second POST; with `TFWASM_JOURNAL_BESIDE_STATE=1` the journal lives in the
/// working directory's `.tfwasm-journal`, beside the local state, and nowhere else.
#[test]
fn a_provider_killed_after_the_api_created_the_object_leaves_the_next_plan_an_import() {
    for client in clients() {
        let name = &client.name;
        // Every answer takes 1.5 s: the POST, then the read-back the kill lands in.
        let server = JsonServer::start(&json!({ "items": [] }), 1500);
        let ws = Workspace::new(
            client,
            &format!(
                r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri = "{}"
}}
resource "restapi_object" "x" {{
  path = "/items"
  data = jsonencode({{ name = "x", size = 1 }})
}}
"#,
                server.url()
            ),
        );
        let beside = [("TFWASM_JOURNAL_BESIDE_STATE", "1")];
        ws.ok(&["init", "-no-color"]);
        let apply = ws.start(&["apply", "-auto-approve", "-no-color"], &beside);
        let journal = ws.path().join(".tfwasm-journal");
        let started = std::time::Instant::now();
        let entry = loop {
            let entry = std::fs::read_dir(&journal)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|d| std::fs::read_dir(d.path()).ok())
                .flat_map(|files| files.flatten().map(|f| f.path()))
                .find(|p| p.extension().is_some_and(|e| e == "json"))
                .and_then(|p| std::fs::read_to_string(p).ok());
            if let Some(entry) = entry {
                break entry;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "{name}: no journal entry under {}",
                journal.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let providers = tfwasm_tests::providers_of(apply.pid());
        assert!(!providers.is_empty(), "{name}: a provider is running");
        for pid in providers {
            // SAFETY: kill has no memory preconditions; the pid is the client's child.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        let apply = apply.wait();
        assert_eq!(apply.code, 1, "{name}: {}", apply.all());
        let items = server.db()["items"].as_array().unwrap().clone();
        assert_eq!(
            items.len(),
            1,
            "{name}: the API holds the object: {items:?}"
        );
        let id = items[0]["id"].to_string();
        assert!(
            entry.contains(&format!("\"id\":\"{id}\"")),
            "{name}: {entry}"
        );
        assert!(
            !ws.resources().contains_key("restapi_object.x"),
            "{name}: the object never reached Terraform's state"
        );
        assert!(
            !ws.journal_dir().exists(),
            "{name}: beside the state, the account's journal is not used"
        );

        let plan = ws.run_with_env(&["plan", "-no-color"], &beside);
        let flat = flatten(&plan.all());
        assert_eq!(plan.code, 1, "{name}: {}", plan.all());
        for want in [
            "An interrupted apply left an object behind".to_owned(),
            format!("with id \"{id}\""),
            format!("identity = {{ path = \"/items\", id = \"{id}\" }}"),
        ] {
            assert!(flat.contains(&want), "{name}: {want:?} in:\n{}", plan.all());
        }
        let import = ws.run_with_env(
            &[
                "import",
                "-no-color",
                "restapi_object.x",
                &format!("/items/{id}"),
            ],
            &beside,
        );
        assert_eq!(import.code, 0, "{name}: {}", import.all());
        let plan = ws.run_with_env(&["plan", "-no-color"], &beside);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());
        assert!(
            !plan.all().contains("interrupted apply"),
            "{name}: {}",
            plan.all()
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(
            server.db()["items"].as_array().unwrap().len(),
            1,
            "{name}: no second object was created"
        );
    }
}
