//! `terraform plan -generate-config-out` (Terraform >= 1.14 asks the provider through
//! GenerateResourceConfig): restapi's generated configuration for an object on a real
//! json-server imports with no change to plan, and a configuration that sets computed-only
//! attributes is refused by the contract check before Terraform writes it.

use serde_json::json;
use tfwasm_tests::{JsonServer, Workspace, flatten};

#[test]
fn an_imported_object_gets_a_configuration_that_plans_no_change() {
    let server = JsonServer::start(
        &json!({ "items": [{ "id": "7", "name": "made elsewhere", "size": 9 }] }),
        0,
    );
    for client in tfwasm_tests::clients_of_terraform_1_14() {
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
  uri = "http://127.0.0.1:{}"
}}
import {{
  to = restapi_object.found
  id = "/items/7"
}}
"#,
                server.port
            ),
        );
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["plan", "-no-color", "-generate-config-out=generated.tf"]);
        let generated = std::fs::read_to_string(ws.path().join("generated.tf")).unwrap();
        assert!(
            generated.contains("path ") && generated.contains("made elsewhere"),
            "{}: {generated}",
            client.name
        );
        // Computed-only attributes are left out (written as null at most).
        for computed in ["api_data", "api_response"] {
            assert!(
                (generated.lines())
                    .filter(|l| l.trim_start().starts_with(computed))
                    .all(|l| l.contains("null")),
                "{}: {computed}: {generated}",
                client.name
            );
        }
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());
    }
}

#[test]
fn a_configuration_setting_computed_only_attributes_is_refused() {
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let ws = Workspace::new(
            client,
            r#"
terraform {
  required_providers {
    misbehave = { source = "registry.terraform.io/tfwasm/misbehave" }
  }
}
import {
  to = misbehave_thing.x
  id = "generate_computed"
}
"#,
        );
        ws.ok(&["init", "-no-color"]);
        let plan = ws.run(&["plan", "-no-color", "-generate-config-out=generated.tf"]);
        assert_ne!(plan.code, 0, "{}: {}", client.name, plan.all());
        let text = flatten(&plan.all());
        for needle in [
            "Provider produced invalid configuration",
            "tfwasm checked the GenerateResourceConfig result",
            "a computed-only attribute is set in the generated configuration",
        ] {
            assert!(text.contains(needle), "{}: {needle}: {text}", client.name);
        }
    }
}
