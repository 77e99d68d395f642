//! State upgrades through Terraform: a state file written by hashicorp/random at schema
//! version 0 of `random_password` is upgraded by the sample's upgrader to version 3, and
//! `terraform plan` then reports no changes.

use serde_json::{Value, json};
use tfwasm_tests::{Workspace, clients};

const CONFIG: &str = r#"
terraform {
  required_providers {
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}
resource "random_password" "p" {
  length = 12
  number = false
}
"#;

/// A state file as Terraform 1.0 with hashicorp/random 3.1 (schema version 0) wrote it:
/// no `bcrypt_hash`, no `numeric`.
fn old_state() -> Value {
    json!({
        "version": 4,
        "terraform_version": "1.0.0",
        "serial": 3,
        "lineage": "2f6a0b5e-58a1-4b0c-9d55-tfwasm000001",
        "outputs": {},
        "resources": [{
            "mode": "managed",
            "type": "random_password",
            "name": "p",
            "provider": "provider[\"registry.terraform.io/tfwasm/random\"]",
            "instances": [{
                "schema_version": 0,
                "attributes": {
                    "id": "none",
                    "keepers": null,
                    "length": 12,
                    "lower": true,
                    "min_lower": 0,
                    "min_numeric": 0,
                    "min_special": 0,
                    "min_upper": 0,
                    "number": false,
                    "override_special": null,
                    "result": "aBcDeFgHiJkL",
                    "special": true,
                    "upper": true
                },
                "sensitive_attributes": []
            }]
        }]
    })
}

#[test]
fn password_state_from_schema_version_0_upgrades_without_changes() {
    for client in clients() {
        let ws = Workspace::new(client, CONFIG);
        std::fs::write(
            ws.path().join("terraform.tfstate"),
            serde_json::to_vec_pretty(&old_state()).unwrap(),
        )
        .unwrap();
        ws.ok(&["init", "-no-color"]);

        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            plan.code,
            0,
            "{}: plan after the upgrade must show no changes:\n{}",
            client.name,
            plan.all()
        );
        assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);

        // Persist the upgraded state and look at it.
        ws.ok(&["apply", "-refresh-only", "-auto-approve", "-no-color"]);
        let state: Value =
            serde_json::from_slice(&std::fs::read(ws.path().join("terraform.tfstate")).unwrap())
                .unwrap();
        let instance = &state["resources"][0]["instances"][0];
        assert_eq!(instance["schema_version"], 3, "{}: {instance}", client.name);
        let attrs = &instance["attributes"];
        assert_eq!(attrs["result"], "aBcDeFgHiJkL", "the password is kept");
        assert_eq!(attrs["numeric"], false, "numeric follows the old number");
        let hash = attrs["bcrypt_hash"].as_str().unwrap_or_default();
        assert!(hash.starts_with("$2"), "a bcrypt hash was added: {attrs}");

        // Still nothing to do afterwards.
        let again = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(again.code, 0, "{}: {}", client.name, again.all());

        // A new password next to it: created at version 3 with its hash and private
        // state, and stable on the next plan.
        ws.write_config(&format!(
            "{CONFIG}\nresource \"random_password\" \"q\" {{\n  length = 16\n  numeric = false\n}}\n"
        ));
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let state: Value =
            serde_json::from_slice(&std::fs::read(ws.path().join("terraform.tfstate")).unwrap())
                .unwrap();
        let q = state["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "q")
            .unwrap_or_else(|| panic!("no random_password.q in {state}"));
        let instance = &q["instances"][0];
        assert_eq!(instance["schema_version"], 3);
        assert_eq!(
            instance["attributes"]["number"], false,
            "number follows numeric"
        );
        let result = instance["attributes"]["result"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(result.chars().count(), 16);
        assert!(!result.chars().any(|c| c.is_ascii_digit()), "{result}");
        assert!(
            instance.get("private").is_some_and(|p| !p.is_null()),
            "{}: private state stored: {instance}",
            client.name
        );
        let again = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(again.code, 0, "{}: {}", client.name, again.all());
    }
}
