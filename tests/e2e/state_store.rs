//! A state store in the sandbox (Terraform >= 1.15's `state_store` block, experiments on):
//! the local sample's `local_state` keeps Terraform's state as files in its granted
//! directory. Apply writes the state there (mode 0600), the next plan reads it back, a lock
//! someone else holds stops a run naming the holder, and workspaces are listed from the
//! store. And restapi's `restapi_state` keeps it on a real REST API (json-server), with
//! locks as objects the API refuses to create twice. And a terraform-plugin-framework state
//! store (go-fixture's `gofixture_dir`) passed through by the Go adapter does the same.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;
use tfwasm_tests::{JsonServer, Workspace, go_states_dir, local_dir};

/// The clients with state stores (Terraform >= 1.15): never none, so a test cannot pass
/// having run nothing.
fn clients_with_state_stores() -> Vec<&'static tfwasm_tests::Client> {
    let found: Vec<_> = tfwasm_tests::clients_of_terraform_1_14()
        .into_iter()
        .filter(|c| c.has_state_stores())
        .collect();
    assert!(!found.is_empty(), "no client of Terraform >= 1.15");
    found
}

/// `terraform init` of a configuration whose state lives in a provider's state store
/// (still behind Terraform's experiments).
fn init_with_state_store(ws: &Workspace) {
    ws.ok(&[
        "init",
        "-no-color",
        "-input=false",
        "-enable-pluggable-state-storage-experiment",
    ]);
}

/// With `lock` (a store's lock file) holding `body`, a plan stops, its error showing each of
/// `holder`; without it, a new workspace is made and listed beside `default`.
fn a_held_lock_stops_a_run_and_workspaces_list(
    ws: &Workspace,
    client: &tfwasm_tests::Client,
    lock: &std::path::Path,
    body: &str,
    holder: &[&str],
) {
    std::fs::write(lock, body).unwrap();
    let locked = ws.run(&["plan", "-no-color"]);
    assert_ne!(locked.code, 0, "{}: {}", client.name, locked.all());
    let text = tfwasm_tests::flatten(&locked.all());
    for shown in holder {
        assert!(text.contains(shown), "{}: {shown}: {text}", client.name);
    }
    std::fs::remove_file(lock).unwrap();

    ws.ok(&["workspace", "new", "-no-color", "dev"]);
    let listed = ws.ok(&["workspace", "list", "-no-color"]).all();
    assert!(
        listed.contains("default") && listed.contains("dev"),
        "{}: {listed}",
        client.name
    );
}

fn config(states: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    local = {{ source = "registry.terraform.io/tfwasm/local" }}
  }}
  state_store "local_state" {{
    provider "local" {{}}
    path = "/out/{states}"
  }}
}}
resource "local_file" "x" {{
  filename = "/out/{states}.txt"
  content  = "kept in a sandboxed state store"
}}
"#
    )
}

#[test]
fn terraform_keeps_its_state_in_a_sandboxed_store_with_locks() {
    for client in clients_with_state_stores() {
        let name = format!("states-{}", std::process::id());
        let states = local_dir().join(&name);
        std::fs::create_dir_all(&states).unwrap();
        let ws = Workspace::new(client, &config(&name));
        init_with_state_store(&ws);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let file = states.join("default.tfstate");
        let state = std::fs::read_to_string(&file).expect("the state in the granted directory");
        assert!(state.contains("local_file"), "{}: {state}", client.name);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode & 0o077,
            0,
            "{}: a state holds secrets: {mode:o}",
            client.name
        );
        assert!(
            !ws.path().join("terraform.tfstate").exists(),
            "no local state"
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());

        a_held_lock_stops_a_run_and_workspaces_list(
            &ws,
            client,
            &states.join("default.tflock"),
            "id=held-by-someone\noperation=OperationTypeApply\ncreated=1\n",
            &["State locked", "held-by-someone"],
        );
        let _ = std::fs::remove_dir_all(&states);
    }
}

fn restapi_config(port: u16) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
  state_store "restapi_state" {{
    provider "restapi" {{
      uri = "http://127.0.0.1:{port}"
    }}
    path = "/states"
  }}
}}
provider "restapi" {{
  uri = "http://127.0.0.1:{port}"
}}
resource "restapi_object" "x" {{
  path = "/items"
  data = jsonencode({{ name = "kept on the API" }})
}}
"#
    )
}

#[test]
fn terraform_keeps_its_state_on_a_rest_api_with_locks() {
    for client in clients_with_state_stores() {
        let server = JsonServer::start(
            &json!({ "items": [], "states": [], "states_data": [], "states_locks": [] }),
            0,
        );
        let ws = Workspace::new(client, &restapi_config(server.port));
        init_with_state_store(&ws);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let db = server.db();
        assert_eq!(
            db["states"],
            json!([{ "id": "default" }]),
            "{}: {db}",
            client.name
        );
        let data = db["states_data"].as_array().unwrap();
        assert_eq!(data.len(), 1, "{}: {db}", client.name);
        assert_eq!(data[0]["id"], "default");
        let state: serde_json::Value = serde_json::from_str(data[0]["state"].as_str().unwrap())
            .expect("the state, as JSON text");
        assert_eq!(state["resources"][0]["type"], "restapi_object", "{state}");
        assert_eq!(db["items"].as_array().unwrap().len(), 1, "{db}");
        assert_eq!(db["states_locks"], json!([]), "every lock released: {db}");
        assert!(
            !ws.path().join("terraform.tfstate").exists(),
            "no local state"
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());

        // Another run holds the lock: this one stops, naming the holder.
        let held = json!({ "id": "default", "lock_id": "held-elsewhere", "operation": "OperationTypeApply", "created": 1 });
        assert_eq!(server.send("POST", "/states_locks", Some(&held)).0, 201);
        let locked = ws.run(&["plan", "-no-color"]);
        assert_ne!(locked.code, 0, "{}: {}", client.name, locked.all());
        let text = tfwasm_tests::flatten(&locked.all());
        assert!(
            text.contains("State locked") && text.contains("held-elsewhere"),
            "{}: {text}",
            client.name
        );
        // Only the holder's ID releases it.
        let wrong = ws.run(&["force-unlock", "-force", "-no-color", "someone-else"]);
        assert_ne!(wrong.code, 0, "{}: {}", client.name, wrong.all());
        assert!(
            tfwasm_tests::flatten(&wrong.all()).contains("Lock ID does not match"),
            "{}: {}",
            client.name,
            wrong.all()
        );
        ws.ok(&["force-unlock", "-force", "-no-color", "held-elsewhere"]);
        assert_eq!(server.db()["states_locks"], json!([]));

        ws.ok(&["workspace", "new", "-no-color", "dev"]);
        let listed = ws.ok(&["workspace", "list", "-no-color"]).all();
        assert!(
            listed.contains("default") && listed.contains("dev"),
            "{}: {listed}",
            client.name
        );
        ws.ok(&["workspace", "select", "-no-color", "default"]);
        ws.ok(&["workspace", "delete", "-no-color", "dev"]);
        let db = server.db();
        for collection in ["states", "states_data"] {
            let ids: Vec<_> = db[collection]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["id"].clone())
                .collect();
            assert_eq!(
                ids,
                [json!("default")],
                "{}: dev deleted: {db}",
                client.name
            );
        }
    }
}

/// go-fixture's `gofixture_dir`, a terraform-plugin-framework `statestore.StateStore` keeping
/// states as files: through the Go adapter (states cut into the framework's chunks and
/// joined again, ConfigureStateStore made in whichever instance serves a call), Terraform
/// keeps its state there, reads it back, is stopped by a lock the framework's way names,
/// and lists workspaces.
#[test]
fn a_go_framework_state_store_keeps_the_state_with_locks() {
    for client in clients_with_state_stores() {
        let name = format!("go-states-{}", std::process::id());
        let states = go_states_dir().join(&name);
        std::fs::create_dir_all(&states).unwrap();
        let ws = Workspace::new(
            client,
            &format!(
                r#"
terraform {{
  required_providers {{
    gofixture = {{ source = "registry.terraform.io/tfwasm/gofixture" }}
  }}
  state_store "gofixture_dir" {{
    provider "gofixture" {{}}
    path = "/states/{name}"
  }}
}}
resource "terraform_data" "x" {{
  input = "kept by a Go state store"
}}
"#
            ),
        );
        init_with_state_store(&ws);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let state = std::fs::read_to_string(states.join("default.tfstate"))
            .expect("the state in the granted directory");
        assert!(
            state.contains("kept by a Go state store"),
            "{}: {state}",
            client.name
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());

        a_held_lock_stops_a_run_and_workspaces_list(
            &ws,
            client,
            &states.join("default.tflock"),
            r#"{"id":"held-by-someone","operation":"OperationTypeApply","who":"ada@elsewhere","created":"2026-11-27T12:00:00Z"}"#,
            &["held-by-someone", "ada@elsewhere"],
        );
        assert!(
            !states.join("default.tflock").exists(),
            "{}: every lock taken was released",
            client.name
        );
        let _ = std::fs::remove_dir_all(&states);
    }
}
