//! Resource identity through the clients that have it (OpenTofu 1.12; Terraform >= 1.12 when
//! one is on PATH): an object made outside the configuration is imported by its identity
//! (`import { identity = {...} }`) rather than by an ID string, then plans no change, and a
//! new object is created and destroyed with its identity known only after apply.

use serde_json::json;
use tfwasm_tests::{JsonServer, Workspace, clients};

#[test]
fn an_object_made_elsewhere_is_imported_by_its_identity() {
    let server = JsonServer::start(
        &json!({ "items": [{ "id": "made-1", "name": "made elsewhere", "size": 9 }] }),
        0,
    );
    let mut ran = 0;
    for client in clients().iter().filter(|c| c.has_identity()) {
        ran += 1;
        let name = &client.name;
        let config = format!(
            r#"
terraform {{
  required_providers {{
    restapi = {{ source = "registry.terraform.io/tfwasm/restapi" }}
  }}
}}
provider "restapi" {{
  uri = "{}"
}}
import {{
  to       = restapi_object.made
  identity = {{ path = "/items", id = "made-1" }}
}}
resource "restapi_object" "made" {{
  path = "/items"
  data = jsonencode({{ name = "made elsewhere", size = 9 }})
}}
resource "restapi_object" "new" {{
  path = "/items"
  data = jsonencode({{ name = "new", size = 1 }})
}}
"#,
            server.url()
        );
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let plan = ws.ok(&["plan", "-no-color"]);
        let text = tfwasm_tests::flatten(&plan.stdout);
        assert!(
            text.contains("1 to import, 1 to add, 0 to change, 0 to destroy"),
            "{name}: {text}"
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let resources = ws.resources();
        assert_eq!(resources["restapi_object.made"]["id"], "made-1", "{name}");
        let again = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(again.code, 0, "{name}: {}", again.all());
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert_eq!(server.db()["items"], json!([]), "{name}");
        // Back for the next client.
        server.send(
            "POST",
            "/items",
            Some(&json!({ "id": "made-1", "name": "made elsewhere", "size": 9 })),
        );
    }
    assert!(
        ran > 0,
        "no client with resource identity (OpenTofu 1.12 is always one)"
    );
}
