//! Actions (Terraform >= 1.14): restapi's `restapi_call` sends its request to a real
//! json-server when a resource's `action_trigger` fires and when invoked with
//! `terraform apply -invoke`, Terraform showing the action's progress as it runs; an answer
//! of 404 fails the action.

use serde_json::json;
use tfwasm_tests::{JsonServer, Workspace, flatten};

fn config(port: u16, path: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri = "http://127.0.0.1:{port}"
}}
action "restapi_call" "ping" {{
  config {{
    path = "{path}"
    body = jsonencode({{ from = "terraform" }})
  }}
}}
resource "terraform_data" "x" {{
  input = "a"
  lifecycle {{
    action_trigger {{
      events  = [after_create]
      actions = [action.restapi_call.ping]
    }}
  }}
}}
"#
    )
}

fn pings(server: &JsonServer) -> usize {
    let url = format!("http://127.0.0.1:{}/pings", server.port);
    let body = std::process::Command::new("curl")
        .args(["-sf", &url])
        .output()
        .expect("curl");
    let list: serde_json::Value = serde_json::from_slice(&body.stdout).unwrap_or_default();
    list.as_array().map_or(0, Vec::len)
}

#[test]
fn an_action_runs_when_triggered_and_when_invoked_showing_its_progress() {
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let server = JsonServer::start(&json!({ "pings": [] }), 0);
        let ws = Workspace::new(client, &config(server.port, "/pings"));
        ws.ok(&["init", "-no-color"]);
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let shown = flatten(&apply.all());
        assert!(
            shown.contains("sending POST /pings") && shown.contains("/pings answered 201"),
            "{}: {shown}",
            client.name
        );
        assert_eq!(pings(&server), 1, "{}: the trigger sent it", client.name);

        ws.ok(&[
            "apply",
            "-auto-approve",
            "-no-color",
            "-invoke=action.restapi_call.ping",
        ]);
        assert_eq!(pings(&server), 2, "{}: -invoke sent it again", client.name);
    }
}

#[test]
fn an_action_the_api_refuses_fails_the_apply() {
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let server = JsonServer::start(&json!({ "pings": [] }), 0);
        let ws = Workspace::new(client, &config(server.port, "/nowhere/1"));
        ws.ok(&["init", "-no-color"]);
        let apply = ws.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(apply.code, 0, "{}: {}", client.name, apply.all());
        let shown = flatten(&apply.all());
        assert!(shown.contains("404"), "{}: {shown}", client.name);
    }
}
