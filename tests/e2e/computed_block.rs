//! tfplugin6.11's computed blocks (Terraform >= 1.16): a block the configuration leaves out is
//! planned unknown by the SDK on create and filled at apply (misbehave's `misbehave_status`),
//! through the host's plan and apply checks, which let it pass only for a client that
//! announced `computed_blocks_allowed`; after that it keeps its value. An older client is
//! never sent such a plan: the block stays null and everything else works as before.

use tfwasm_tests::Workspace;

const CONFIG: &str = r#"
terraform {
  required_providers {
    misbehave = { source = "registry.terraform.io/tfwasm/misbehave" }
  }
}
resource "misbehave_status" "x" {
  name = "one"
}
"#;

#[test]
fn a_computed_block_left_out_is_filled_by_the_provider() {
    let mut newest = 0;
    for client in tfwasm_tests::clients() {
        let ws = Workspace::new(client, CONFIG);
        ws.ok(&["init", "-no-color"]);
        let plan = ws.ok(&["plan", "-no-color"]).all();
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let shown = ws
            .ok(&["state", "show", "-no-color", "misbehave_status.x"])
            .all();
        if client.has_computed_blocks() {
            newest += 1;
            assert!(
                plan.contains("status") && plan.contains("(known after apply)"),
                "{}: the block is not planned unknown:\n{plan}",
                client.name
            );
            assert!(
                shown.contains("phase") && shown.contains("\"ready\""),
                "{}: the block was not filled at apply:\n{shown}",
                client.name
            );
        } else {
            assert!(
                !shown.contains("phase"),
                "{}: a client without computed blocks got one:\n{shown}",
                client.name
            );
        }
        // Filled once, the block stays: the next plan has nothing to do.
        let again = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            again.code,
            0,
            "{}: a second plan wants changes:\n{}",
            client.name,
            again.all()
        );
    }
    assert!(newest > 0, "no client of Terraform >= 1.16");
}
