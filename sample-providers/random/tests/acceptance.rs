//! The random provider through real Terraform, with `tfwasm-testing`'s acceptance steps:
//! create, an unchanged plan, a replacement, and import. Needs the built component and
//! `tfwasm` (`make build`) and Terraform (`TF_ACC_TERRAFORM_PATH` or `terraform` on PATH).

use serde_json::json;
use tfwasm_testing::Harness;
use tfwasm_testing::acceptance::{Acceptance, Step};

const STRING: &str = r#"
resource "random_string" "s" {
  length  = 12
  special = false
}
"#;

#[test]
fn random_string_through_terraform() {
    let component = Harness::built_component("tfwasm_sample_random").unwrap();
    Acceptance::new(component, "registry.terraform.io/tfwasm/random")
        .step(
            Step::config(STRING)
                .check("random_string.s", "length", json!(12))
                .check_with("random_string.s", "result", |v| {
                    let ok = v
                        .as_str()
                        .is_some_and(|s| s.len() == 12 && s.chars().all(char::is_alphanumeric));
                    ok.then_some(()).ok_or("12 letters and digits")
                }),
        )
        .step(Step::config(STRING).expect_no_changes())
        .step(
            Step::config(&STRING.replace("12", "13"))
                .expect_replace("random_string.s")
                .check("random_string.s", "length", json!(13)),
        )
        // Import knows only the string: the character-class settings take their defaults.
        .step(Step::import_verify("random_string.s", &["special"]))
        .step(
            Step::config(r#"resource "random_string" "s" { length = 0 }"#)
                .expect_error("length must be at least 1, got 0"),
        )
        .run()
        .unwrap();
}

#[test]
fn a_failing_check_names_its_step_and_what_it_saw() {
    let component = Harness::built_component("tfwasm_sample_random").unwrap();
    let err = Acceptance::new(component, "registry.terraform.io/tfwasm/random")
        .step(Step::config(STRING).check("random_string.s", "length", json!(99)))
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("step 1: random_string.s.length == 99: got 12"),
        "{err}"
    );
}
