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
        for needle in [
            "Outgoing HTTP request denied",
            "--allow-http http://localhost:9",
            "HTTP request failed",
        ] {
            assert!(text.contains(needle), "{}: {needle}: {text}", client.name);
        }
    }
}
