//! The `policy` sample through real Terraform: a set of `statement` blocks matched by `sid`,
//! with JSON compared by meaning inside the set and a list of tags matched by key. An
//! unchanged set plans no change, reformatted JSON plans no change, reordered tags keep their
//! computed etags, and one changed statement plans exactly that statement (its fingerprint
//! unknown, every other fingerprint kept).
//!
//! 200 statements, not 1,000: Terraform core itself is superlinear in the number of set
//! blocks (measured with this sample on 1.11.4: apply of 100 statements 2.0 s, of 300 9.8 s,
//! of which the provider used 0.06 s), so 1,000 would take minutes per command. The
//! provider's side at 1,000 and 10,000 is measured by `make bench`.

use serde_json::Value;
use tfwasm_tests::{Workspace, clients};

const STATEMENTS: usize = 200;

fn config() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    policy = {{ source = "registry.terraform.io/tfwasm/policy" }}
  }}
}}

variable "changed" {{
  type    = number
  default = -1
}}
variable "pretty" {{
  type    = bool
  default = false
}}
variable "reverse_tags" {{
  type    = bool
  default = false
}}
variable "env" {{
  type    = string
  default = null
}}
variable "statements" {{
  type    = number
  default = {STATEMENTS}
}}

locals {{
  tags = [{{ key = "team", value = "infra" }}, {{ key = "env", value = var.env }}]
}}

resource "policy_document" "big" {{
  name = "big"
  tag  = var.reverse_tags ? reverse(local.tags) : local.tags

  dynamic "statement" {{
    for_each = range(var.statements)
    content {{
      sid       = "s${{statement.value}}"
      actions   = statement.value == var.changed ? ["s3:PutObject"] : ["s3:GetObject", "s3:ListBucket"]
      condition = var.pretty ? "{{ \"n\" : ${{statement.value}} }}" : "{{\"n\":${{statement.value}}}}"
    }}
  }}
}}
"#
    )
}

/// Fingerprints by sid from a resource's values.
fn fingerprints(values: &Value) -> std::collections::BTreeMap<String, Value> {
    values["statement"]
        .as_array()
        .expect("statements")
        .iter()
        .map(|s| {
            (
                s["sid"].as_str().unwrap().to_owned(),
                s["fingerprint"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_set_of_statements_plans_only_what_changed() {
    for client in clients() {
        let name = &client.name;
        let ws = Workspace::new(client, &config());
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let before = ws.resources()["policy_document.big"].clone();
        let prints = fingerprints(&before);
        assert_eq!(prints.len(), STATEMENTS, "{name}");
        assert!(prints.values().all(Value::is_string), "{name}");
        assert_eq!(
            before["tag"][1]["value"], "",
            "{name}: the default inside the list"
        );

        // Nothing changed; reformatted JSON inside the set means the same.
        for vars in [&[][..], &["-var", "pretty=true"][..]] {
            let mut args = vec!["plan", "-detailed-exitcode", "-no-color"];
            args.extend_from_slice(vars);
            let plan = ws.run(&args);
            assert_eq!(plan.code, 0, "{name} {vars:?}: {}", plan.all());
        }

        // Reordered tags: an update of the list, each tag keeping its etag.
        ws.ok(&[
            "plan",
            "-no-color",
            "-var",
            "reverse_tags=true",
            "-out",
            "tags.plan",
        ]);
        let change = &ws.show_json(Some("tags.plan"))["resource_changes"][0]["change"];
        assert_eq!(change["after"]["tag"][0]["key"], "env", "{name}");
        assert_eq!(
            change["after"]["tag"][0]["etag"], before["tag"][1]["etag"],
            "{name}: env keeps its etag in its new position"
        );
        assert_eq!(
            change["after"]["tag"][1]["etag"], before["tag"][0]["etag"],
            "{name}"
        );

        // A changed tag value: its etag is planned (modify_plan with a path expression),
        // not left unknown, and apply keeps it.
        ws.ok(&["plan", "-no-color", "-var", "env=prod", "-out", "env.plan"]);
        let change = &ws.show_json(Some("env.plan"))["resource_changes"][0]["change"];
        assert_eq!(change["after"]["tag"][1]["value"], "prod", "{name}");
        let planned_etag = &change["after"]["tag"][1]["etag"];
        assert!(planned_etag.is_string(), "{name}: {change}");
        assert_ne!(planned_etag, &before["tag"][1]["etag"], "{name}");
        assert_eq!(
            change["after"]["tag"][0]["etag"], before["tag"][0]["etag"],
            "{name}"
        );

        // A policy without statements: the resource validator's `statement[*].sid`.
        let empty = ws.run(&["plan", "-no-color", "-var", "statements=0"]);
        assert_ne!(empty.code, 0, "{name}");
        assert!(
            empty
                .all()
                .contains("At least one of statement[*].sid must be set"),
            "{name}: {}",
            empty.all()
        );

        // One statement changes: only it plans an unknown fingerprint.
        ws.ok(&[
            "plan",
            "-no-color",
            "-var",
            "changed=150",
            "-out",
            "one.plan",
        ]);
        let change = &ws.show_json(Some("one.plan"))["resource_changes"][0]["change"];
        let unknown: Vec<usize> = change["after_unknown"]["statement"]
            .as_array()
            .map(|list| {
                list.iter()
                    .enumerate()
                    .filter(|(_, s)| s["fingerprint"] == Value::Bool(true))
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(unknown.len(), 1, "{name}: {unknown:?}");
        let changed = &change["after"]["statement"][unknown[0]];
        assert_eq!(changed["sid"], "s150", "{name}");
        let kept = change["after"]["statement"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["sid"] != "s150")
            .all(|s| s["fingerprint"] == prints[s["sid"].as_str().unwrap()]);
        assert!(kept, "{name}: every other statement keeps its fingerprint");

        ws.ok(&["apply", "-auto-approve", "-no-color", "-var", "changed=150"]);
        let after = fingerprints(&ws.resources()["policy_document.big"]);
        let differing: Vec<&String> = after
            .iter()
            .filter(|(sid, print)| prints[*sid] != **print)
            .map(|(sid, _)| sid)
            .collect();
        assert_eq!(differing, ["s150"], "{name}");
        ws.ok(&[
            "destroy",
            "-auto-approve",
            "-no-color",
            "-var",
            "changed=150",
        ]);
    }
}

/// Two statements whose `sid`s come from resources not yet created (issue 30's
/// configuration): each holds an unknown, so neither Terraform's set nor the provider's may
/// merge them. Merged, the plan showed one statement (`n = 1`) and the apply stopped with
/// "block set length changed from 1 to 2". (`tests/e2e/unknowns.rs` has lists, maps and
/// nested sets of values not yet known in every sample.)
#[test]
fn statements_whose_sids_are_not_yet_known_stay_apart() {
    const CONFIG: &str = r#"
terraform {
  required_providers {
    policy = { source = "registry.terraform.io/tfwasm/policy" }
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}

resource "random_string" "a" { length = 8 }
resource "random_string" "b" { length = 8 }
resource "policy_document" "p" {
  name = "p"
  statement {
    sid     = random_string.a.result
    actions = ["s3:GetObject"]
  }
  statement {
    sid     = random_string.b.result
    actions = ["s3:GetObject"]
  }
}
output "n" { value = length(policy_document.p.statement) }
"#;
    for client in clients() {
        let name = &client.name;
        let ws = Workspace::new(client, CONFIG);
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["plan", "-no-color", "-out", "p.plan"]);
        let plan = ws.show_json(Some("p.plan"));
        let change = plan["resource_changes"]
            .as_array()
            .and_then(|list| list.iter().find(|r| r["address"] == "policy_document.p"))
            .map(|r| r["change"].clone())
            .unwrap_or_else(|| panic!("{name}: no change for policy_document.p: {plan}"));
        let planned = change["after"]["statement"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(planned.len(), 2, "{name}: two statements planned: {change}");
        let unknown_sids = change["after_unknown"]["statement"].as_array().map(|list| {
            list.iter()
                .filter(|s| s["sid"] == Value::Bool(true))
                .count()
        });
        assert_eq!(unknown_sids, Some(2), "{name}: {change}");
        // The length of a set whose elements hold unknowns is not known until they are
        // (they might yet coalesce), so `n` is not planned as 1 any more.
        let n = &plan["planned_values"]["outputs"]["n"];
        assert_ne!(n["value"], 1, "{name}: {n}");

        ws.ok(&["apply", "-no-color", "p.plan"]);
        let out = ws.ok(&["output", "-json", "n"]);
        assert_eq!(out.stdout.trim(), "2", "{name}");
        let resources = ws.resources();
        let sids: std::collections::BTreeSet<&str> = resources["policy_document.p"]["statement"]
            .as_array()
            .expect("statements")
            .iter()
            .filter_map(|s| s["sid"].as_str())
            .collect();
        let a = resources["random_string.a"]["result"].as_str().unwrap();
        let b = resources["random_string.b"]["result"].as_str().unwrap();
        assert_eq!(sids, [a, b].into_iter().collect(), "{name}");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: nothing to change: {}", plan.all());
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
