//! Saved plans and tfplugin6.11's planned private state (Terraform >= 1.16): a value chosen at
//! plan time (misbehave's `plan_choice`, a nonce kept in private state) is planned the same
//! way again when `terraform apply PLANFILE` plans during apply, because Terraform sends the
//! saved plan's private state back. Without that, the second plan would choose another value
//! and Terraform would refuse the apply ("inconsistent final plan").

use tfwasm_tests::Workspace;

const CONFIG: &str = r#"
terraform {
  required_providers {
    misbehave = { source = "registry.terraform.io/tfwasm/misbehave" }
  }
}
resource "misbehave_thing" "x" {
  rule = "plan_choice"
}
"#;

#[test]
fn a_choice_made_at_plan_time_survives_the_plan_during_apply() {
    let clients: Vec<_> = (tfwasm_tests::clients_of_terraform_1_14().into_iter())
        .filter(|c| c.has_saved_plan_private())
        .collect();
    assert!(!clients.is_empty(), "no client of Terraform >= 1.16");
    for client in clients {
        let ws = Workspace::new(client, CONFIG);
        ws.ok(&["init", "-no-color"]);
        let plan = ws.ok(&["plan", "-no-color", "-out=saved.tfplan"]).all();
        let chosen = plan
            .split('"')
            .find(|part| part.starts_with("chosen-"))
            .unwrap_or_else(|| panic!("{}: no planned choice: {plan}", client.name))
            .to_owned();
        ws.ok(&["apply", "-no-color", "saved.tfplan"]);
        let shown = ws
            .ok(&["state", "show", "-no-color", "misbehave_thing.x"])
            .all();
        assert!(
            shown.contains(&chosen),
            "{}: {chosen} not kept: {shown}",
            client.name
        );
    }
}
