//! `terraform query` (Terraform >= 1.14): restapi's `list "restapi_object"` finds the
//! objects of a real json-server collection, a page at a time, through ListResource; and the
//! found objects become import and resource blocks (`-generate-config-out`) that import with
//! no change to plan.

use serde_json::json;
use tfwasm_tests::{JsonServer, Workspace};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    restapi = { source = "registry.terraform.io/tfwasm/restapi" }
  }
}
provider "restapi" {
  uri = "http://127.0.0.1:PORT"
}
"#;

fn items(n: usize) -> serde_json::Value {
    let items: Vec<_> = (1..=n)
        .map(|i| json!({ "id": i.to_string(), "name": format!("made elsewhere {i}") }))
        .collect();
    json!({ "items": items })
}

/// An initialized workspace of `client` with restapi on `server` and `list` as its query file.
fn query_workspace(client: &tfwasm_tests::Client, server: &JsonServer, list: &str) -> Workspace {
    let ws = Workspace::new(client, &PROVIDER.replace("PORT", &server.port.to_string()));
    std::fs::write(ws.path().join("found.tfquery.hcl"), list).unwrap();
    ws.ok(&["init", "-no-color"]);
    ws
}

#[test]
fn a_list_block_finds_every_object_page_by_page_and_generates_their_imports() {
    let server = JsonServer::start(&items(5), 0);
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let ws = query_workspace(
            client,
            &server,
            r#"
list "restapi_object" "items" {
  provider         = restapi
  include_resource = true
  config {
    path      = "/items"
    page_size = 2
  }
}
"#,
        );
        let query = ws.ok(&["query", "-no-color"]);
        let shown = query.all();
        for i in 1..=5 {
            assert!(
                shown.contains(&format!("/items/{i}")),
                "{}: {i}: {shown}",
                client.name
            );
        }

        ws.ok(&["query", "-no-color", "-generate-config-out=found.tf"]);
        let generated = std::fs::read_to_string(ws.path().join("found.tf")).unwrap();
        assert_eq!(
            generated.matches("import {").count(),
            5,
            "{}: {generated}",
            client.name
        );
        assert!(
            generated.contains("identity") && generated.contains("made elsewhere 3"),
            "{}: {generated}",
            client.name
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());
    }
}

#[test]
fn a_limit_stops_the_listing() {
    let server = JsonServer::start(&items(7), 0);
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let ws = query_workspace(
            client,
            &server,
            r#"
list "restapi_object" "items" {
  provider = restapi
  limit    = 3
  config {
    path      = "/items"
    page_size = 2
  }
}
"#,
        );
        let shown = ws.ok(&["query", "-no-color"]).all();
        let found = (1..=7)
            .filter(|i| {
                shown.contains(&format!("/items/{i} ")) || shown.contains(&format!("/items/{i}\n"))
            })
            .count();
        assert_eq!(found, 3, "{}: {shown}", client.name);
    }
}
