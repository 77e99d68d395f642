//! A state store in the sandbox (Terraform >= 1.15's `state_store` block, experiments on):
//! the local sample's `local_state` keeps Terraform's state as files in its granted
//! directory. Apply writes the state there (mode 0600), the next plan reads it back, a lock
//! someone else holds stops a run naming the holder, and workspaces are listed from the
//! store.

use std::os::unix::fs::PermissionsExt as _;

use tfwasm_tests::{Workspace, local_dir};

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
    for client in tfwasm_tests::clients_of_terraform_1_14()
        .into_iter()
        .filter(|c| c.has_state_stores())
    {
        let name = format!("states-{}", std::process::id());
        let states = local_dir().join(&name);
        std::fs::create_dir_all(&states).unwrap();
        let ws = Workspace::new(client, &config(&name));
        ws.ok(&[
            "init",
            "-no-color",
            "-input=false",
            "-enable-pluggable-state-storage-experiment",
        ]);
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

        std::fs::write(
            states.join("default.tflock"),
            "id=held-by-someone\noperation=OperationTypeApply\ncreated=1\n",
        )
        .unwrap();
        let locked = ws.run(&["plan", "-no-color"]);
        assert_ne!(locked.code, 0, "{}: {}", client.name, locked.all());
        let text = tfwasm_tests::flatten(&locked.all());
        assert!(
            text.contains("State locked") && text.contains("held-by-someone"),
            "{}: {text}",
            client.name
        );
        std::fs::remove_file(states.join("default.tflock")).unwrap();

        ws.ok(&["workspace", "new", "-no-color", "dev"]);
        let listed = ws.ok(&["workspace", "list", "-no-color"]).all();
        assert!(
            listed.contains("default") && listed.contains("dev"),
            "{}: {listed}",
            client.name
        );
        let _ = std::fs::remove_dir_all(&states);
    }
}
