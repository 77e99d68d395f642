//! Values not known until apply, in every sample: sets, lists and maps (of nested blocks and
//! attributes where the sample has them) filled from resources not yet created, planned and
//! applied through every client, then planned again with nothing to change. Before sets kept
//! their elements holding unknowns apart (issue 30), such plans merged elements and the
//! apply failed.

use serde_json::Value;
use tfwasm_tests::{JsonServer, Workspace, clients, local_dir};

/// Runs `config` (which declares its providers) through plan, apply of that plan, and a
/// second plan with nothing to change, in every client; `check` sees the saved plan's JSON,
/// then `after` the state's resources.
fn plan_apply_replan(
    config: &str,
    check: impl Fn(&str, &Value),
    after: impl Fn(&str, &std::collections::BTreeMap<String, Value>),
) {
    for client in clients() {
        let name = &client.name;
        let ws = Workspace::new(client, config);
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["plan", "-no-color", "-out", "u.plan"]);
        check(name, &ws.show_json(Some("u.plan")));
        ws.ok(&["apply", "-no-color", "u.plan"]);
        after(name, &ws.resources());
        let again = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            again.code,
            0,
            "{name}: nothing left to change:\n{}",
            again.all()
        );
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// The planned values of `address` in a saved plan's JSON, and which are unknown.
fn planned<'a>(plan: &'a Value, address: &str) -> (&'a Value, &'a Value) {
    let change = plan["resource_changes"]
        .as_array()
        .and_then(|list| list.iter().find(|r| r["address"] == address))
        .map(|r| &r["change"])
        .unwrap_or_else(|| panic!("no change for {address}: {plan}"));
    (&change["after"], &change["after_unknown"])
}

/// The terraform block requiring `random` and the samples named, and two pets whose names
/// are not known until apply.
fn with_pets(samples: &[&str]) -> String {
    let mut out = String::from("terraform {\n  required_providers {\n");
    for sample in std::iter::once(&"random").chain(samples) {
        out.push_str(&format!(
            "    {sample} = {{ source = \"registry.terraform.io/tfwasm/{sample}\" }}\n"
        ));
    }
    out.push_str("  }\n}\nresource \"random_pet\" \"a\" {}\nresource \"random_pet\" \"b\" {}\n");
    out
}

#[test]
fn random_keepers_and_shuffle_input_from_pets_not_yet_named() {
    let pets = with_pets(&[]);
    let config = format!(
        r#"{pets}
resource "random_string" "kept" {{
  length  = 12
  keepers = {{ a = random_pet.a.id, b = random_pet.b.id, fixed = "x" }}
}}
resource "random_shuffle" "order" {{
  input = [random_pet.a.id, random_pet.b.id, "fixed"]
}}
"#
    );
    plan_apply_replan(
        &config,
        |name, plan| {
            let (after, unknown) = planned(plan, "random_string.kept");
            assert_eq!(after["keepers"]["fixed"], "x", "{name}");
            assert_eq!(unknown["keepers"]["a"], true, "{name}: {unknown}");
            let (after, unknown) = planned(plan, "random_shuffle.order");
            assert_eq!(after["input"].as_array().map(Vec::len), Some(3), "{name}");
            assert_eq!(unknown["input"][0], true, "{name}");
        },
        |name, resources| {
            let a = resources["random_pet.a"]["id"].as_str().unwrap();
            assert_eq!(resources["random_string.kept"]["keepers"]["a"], a, "{name}");
            let result = resources["random_shuffle.order"]["result"]
                .as_array()
                .unwrap();
            assert_eq!(result.len(), 3, "{name}");
            assert!(result.iter().any(|r| r == a), "{name}: {result:?}");
        },
    );
}

#[test]
fn policy_set_list_and_map_of_nested_values_not_yet_known() {
    let pets = with_pets(&["policy"]);
    let config = format!(
        r#"{pets}
resource "policy_document" "p" {{
  name = "p"
  statement {{
    sid     = random_pet.a.id
    actions = ["s3:GetObject", random_pet.b.id]
    principals = {{
      AWS     = {{ identifiers = [random_pet.a.id, random_pet.b.id] }}
      Service = {{ identifiers = ["logs.amazonaws.com"] }}
    }}
  }}
  statement {{
    sid     = random_pet.b.id
    actions = ["s3:GetObject"]
  }}
  tag = [{{ key = "owner", value = random_pet.a.id }}, {{ key = "env", value = "test" }}]
}}
"#
    );
    plan_apply_replan(
        &config,
        |name, plan| {
            let (after, unknown) = planned(plan, "policy_document.p");
            assert_eq!(
                after["statement"].as_array().map(Vec::len),
                Some(2),
                "{name}: {after}"
            );
            assert_eq!(after["tag"].as_array().map(Vec::len), Some(2), "{name}");
            assert_eq!(unknown["tag"][0]["value"], true, "{name}: {unknown}");
            let principals = unknown["statement"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|s| s.get("principals").filter(|p| p.is_object()))
                .unwrap_or_else(|| panic!("{name}: no principals unknown: {unknown}"));
            // A set of two values not yet known: two elements, each unknown.
            assert_eq!(
                principals["AWS"]["identifiers"],
                serde_json::json!([true, true]),
                "{name}: {principals}"
            );
        },
        |name, resources| {
            let (a, b) = (
                resources["random_pet.a"]["id"].as_str().unwrap(),
                resources["random_pet.b"]["id"].as_str().unwrap(),
            );
            let p = &resources["policy_document.p"];
            let statements = p["statement"].as_array().unwrap();
            assert_eq!(statements.len(), 2, "{name}");
            let first = statements
                .iter()
                .find(|s| s["sid"] == a)
                .expect("statement a");
            let ids = first["principals"]["AWS"]["identifiers"]
                .as_array()
                .unwrap();
            assert_eq!(ids.len(), 2, "{name}: {first}");
            let json: Value = serde_json::from_str(p["json"].as_str().unwrap()).unwrap();
            assert!(json.to_string().contains(b), "{name}: {json}");
        },
    );
}

/// The provider block holds a value not yet known too (a header): restapi asks to defer such
/// plans where the client allows deferral; Terraform 1.0.3 does not, and OpenTofu never
/// does (it sends no `deferral_allowed`), so tfwasm drops the deferral and the plan goes on
/// with what is known.
#[test]
fn restapi_object_data_not_yet_known() {
    let pets = with_pets(&["restapi"]);
    let server = JsonServer::start(&serde_json::json!({"items": []}), 0);
    let config = format!(
        r#"{pets}
provider "restapi" {{
  uri                   = "{}"
  create_returns_object = true
  headers               = {{ X-Owner = random_pet.a.id }}
}}
resource "restapi_object" "o" {{
  path = "/items"
  data = jsonencode({{ name = random_pet.a.id, members = [random_pet.a.id, random_pet.b.id] }})
}}
"#,
        server.url()
    );
    plan_apply_replan(
        &config,
        |name, plan| {
            let (_, unknown) = planned(plan, "restapi_object.o");
            assert_eq!(unknown["data"], true, "{name}: {unknown}");
            assert!(
                plan.get("deferred_changes")
                    .is_none_or(|d| d.as_array().is_none_or(Vec::is_empty)),
                "{name}: nothing deferred: {plan}"
            );
        },
        |name, resources| {
            let a = resources["random_pet.a"]["id"].as_str().unwrap();
            let data: Value =
                serde_json::from_str(resources["restapi_object.o"]["data"].as_str().unwrap())
                    .unwrap();
            assert_eq!(data["name"], a, "{name}");
        },
    );
}

#[test]
fn local_file_content_and_name_not_yet_known() {
    let pets = with_pets(&["local"]);
    let dir = format!("unknowns-{}", std::process::id());
    std::fs::create_dir_all(local_dir().join(&dir)).unwrap();
    let config = format!(
        r#"{pets}
resource "local_file" "f" {{
  filename = "/out/{dir}/${{random_pet.a.id}}.txt"
  content  = join("\n", [random_pet.a.id, random_pet.b.id])
}}
"#
    );
    plan_apply_replan(
        &config,
        |name, plan| {
            let (_, unknown) = planned(plan, "local_file.f");
            assert_eq!(unknown["content"], true, "{name}: {unknown}");
            assert_eq!(unknown["filename"], true, "{name}");
        },
        |name, resources| {
            let a = resources["random_pet.a"]["id"].as_str().unwrap();
            let written = std::fs::read_to_string(local_dir().join(&dir).join(format!("{a}.txt")))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(written.starts_with(a), "{name}: {written}");
        },
    );
}

#[test]
fn python_set_list_and_map_of_objects_not_yet_known() {
    let pets = with_pets(&["pyfixture"]);
    let config = format!(
        r#"{pets}
resource "pyfixture_bag" "b" {{
  members = [
    {{ name = random_pet.a.id, role = "admin" }},
    {{ name = random_pet.b.id, role = "admin" }},
    {{ name = "fixed", role = "reader" }},
  ]
  order  = [{{ name = random_pet.a.id }}, {{ name = random_pet.b.id }}]
  labels = {{ a = {{ value = random_pet.a.id }}, b = {{ value = "b" }} }}
}}
"#
    );
    plan_apply_replan(
        &config,
        |name, plan| {
            let (after, unknown) = planned(plan, "pyfixture_bag.b");
            assert_eq!(
                after["members"].as_array().map(Vec::len),
                Some(3),
                "{name}: two members not yet named are two members: {after}"
            );
            assert_eq!(unknown["labels"]["a"]["value"], true, "{name}: {unknown}");
        },
        |name, resources| {
            let bag = &resources["pyfixture_bag.b"];
            assert_eq!(bag["member_count"], 3, "{name}: {bag}");
            assert_eq!(bag["members"].as_array().map(Vec::len), Some(3), "{name}");
            assert_eq!(
                bag["labels"]["a"]["value"], resources["random_pet.a"]["id"],
                "{name}"
            );
        },
    );
}
