//! Go providers (terraform-plugin-framework, built by `tfwasm build-go`) through real
//! clients: the go-pets sample's lifecycle (nested blocks, plan modifiers, import, a data
//! source, a function), their terraform-plugin-log lines in the provider log at their level,
//! and the sandbox's limits ending a misbehaving Go call (go-fixture); through Terraform >=
//! 1.14, the framework's list resources, generated configuration, import by identity and
//! actions passed through by the Go adapter. hashicorp/random itself is in `random.rs`.

use serde_json::Value;
use tfwasm_tests::{Workspace, clients, flatten};

const PETS: &str = r#"
terraform {
  required_providers {
    gopets = { source = "registry.terraform.io/tfwasm/gopets" }
  }
}
provider "gopets" {
  owner = "ada"
}
data "gopets_species" "all" {}
"#;

fn pets(name: &str, color: &str) -> String {
    format!(
        r#"{PETS}
resource "gopets_pet" "p" {{
  name = "{name}"
  tag {{
    key   = "color"
    value = "{color}"
  }}
}}
output "species" {{
  value = data.gopets_species.all.names
}}
"#
    )
}

fn actions(plan: &Value, address: &str) -> Vec<String> {
    plan["resource_changes"]
        .as_array()
        .expect("resource_changes")
        .iter()
        .find(|c| c["address"] == address)
        .unwrap_or_else(|| panic!("no change for {address} in {plan}"))["change"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn go_pets_lifecycle_create_update_replace_import_destroy() {
    for client in clients() {
        let ws = Workspace::new(client, &pets("Tom", "grey"));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let res = ws.resources();
        let pet = &res["gopets_pet.p"];
        let id = pet["id"].as_str().expect("id").to_owned();
        assert!(id.starts_with("cat-tom-"), "{}: {pet}", client.name);
        assert_eq!(pet["species"], "cat", "the default is planned");
        assert_eq!(
            pet["owner"], "ada",
            "the provider's configuration reached the resource"
        );
        assert_eq!(pet["tag"][0]["value"], "grey");
        assert_eq!(
            res["data.gopets_species.all"]["legs"]["parrot"], 2,
            "{}: the data source's map",
            client.name
        );

        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: no changes:\n{}", client.name, plan.all());

        // A tag changes in place; UseStateForUnknown keeps the id.
        ws.write_config(&pets("Tom", "black"));
        ws.ok(&["plan", "-out=tag.tfplan", "-no-color"]);
        assert_eq!(
            actions(&ws.show_json(Some("tag.tfplan")), "gopets_pet.p"),
            ["update"]
        );
        ws.ok(&["apply", "-auto-approve", "-no-color", "tag.tfplan"]);
        let pet = &ws.resources()["gopets_pet.p"];
        assert_eq!(pet["tag"][0]["value"], "black");
        assert_eq!(pet["id"], id.as_str(), "{}: updated in place", client.name);

        // A new name requires replacement (RequiresReplace).
        ws.write_config(&pets("Felix", "black"));
        ws.ok(&["plan", "-out=rename.tfplan", "-no-color"]);
        assert_eq!(
            actions(&ws.show_json(Some("rename.tfplan")), "gopets_pet.p"),
            ["delete", "create"]
        );
        ws.ok(&["apply", "-auto-approve", "-no-color", "rename.tfplan"]);
        assert!(
            ws.resources()["gopets_pet.p"]["id"]
                .as_str()
                .unwrap()
                .starts_with("cat-felix-")
        );

        // Import by SPECIES/NAME, and a clear error for anything else.
        let with_rex = format!(
            "{}\nresource \"gopets_pet\" \"rex\" {{\n  name    = \"Rex\"\n  species = \"dog\"\n}}\n",
            pets("Felix", "black")
        );
        ws.write_config(&with_rex);
        ws.ok(&["import", "-no-color", "gopets_pet.rex", "dog/Rex"]);
        let rex = &ws.resources()["gopets_pet.rex"];
        assert!(rex["id"].as_str().unwrap().starts_with("dog-rex-"), "{rex}");
        assert_eq!(rex["owner"], "imported");
        let bad = ws.run(&["import", "-no-color", "gopets_pet.p", "no-slash"]);
        assert_ne!(bad.code, 0);
        assert!(
            flatten(&bad.all()).contains("Expected SPECIES/NAME, got \"no-slash\""),
            "{}: {}",
            client.name,
            bad.all()
        );

        // The function, where the client has provider-defined functions.
        if client.has_functions() {
            let with_slug = format!(
                "{with_rex}\noutput \"slug\" {{\n  value = provider::gopets::slug(\"Mister  Whiskers\")\n}}\n"
            );
            ws.write_config(&with_slug);
            ws.ok(&["apply", "-auto-approve", "-no-color"]);
            let out = ws.ok(&["output", "-raw", "slug"]);
            assert_eq!(out.stdout.trim(), "mister-whiskers", "{}", client.name);
            ws.write_config(&format!(
                "{with_rex}\noutput \"slug\" {{\n  value = provider::gopets::slug(\" \")\n}}\n"
            ));
            let err = ws.run(&["plan", "-no-color"]);
            assert_ne!(err.code, 0);
            assert!(
                flatten(&err.all()).contains("a pet needs a name"),
                "{}: the function's error reaches the user: {}",
                client.name,
                err.all()
            );
            ws.write_config(&with_rex);
        }

        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(ws.resources().is_empty(), "{}", client.name);
    }
}

/// `terraform query` of go-pets' `list "gopets_pet"` (terraform-plugin-framework's
/// `list.ListResource`), over more pets than a page holds so the adapter resumes the listing;
/// the found pets generated into import blocks by identity and resource blocks, imported
/// with no change to plan; and the `gopets_feed` action (the framework's `action.Action`)
/// run from a trigger and with `-invoke`, its progress shown, its validation refusing.
#[test]
fn go_pets_lists_generates_imports_by_identity_and_runs_actions() {
    for client in tfwasm_tests::clients_of_terraform_1_14() {
        let ws = Workspace::new(client, PETS);
        ws.ok(&["init", "-no-color"]);
        std::fs::write(
            ws.path().join("shelter.tfquery.hcl"),
            r#"
list "gopets_pet" "many" {
  provider = gopets
  limit    = 2500
  config {
    species = "dog"
    strays  = 2345
  }
}
"#,
        )
        .unwrap();
        let query = ws.ok(&["query", "-no-color"]);
        let shown = query.all();
        // Every pet once, across three pages.
        for i in 1..=2345 {
            let name = format!("stray-{i} (dog)");
            assert!(shown.contains(&name), "{}: {name}: {shown}", client.name);
        }
        assert_eq!(
            shown.matches(" (dog)").count(),
            2345,
            "{}: a pet listed twice: {shown}",
            client.name
        );

        std::fs::write(
            ws.path().join("shelter.tfquery.hcl"),
            r#"
list "gopets_pet" "few" {
  provider         = gopets
  include_resource = true
  config {
    species = "parrot"
    strays  = 2
  }
}
"#,
        )
        .unwrap();
        ws.ok(&["query", "-no-color", "-generate-config-out=found.tf"]);
        let generated = std::fs::read_to_string(ws.path().join("found.tf")).unwrap();
        assert_eq!(
            generated.matches("import {").count(),
            2,
            "{}: {generated}",
            client.name
        );
        assert!(
            generated.contains("identity") && generated.contains("\"stray-2\""),
            "{}: {generated}",
            client.name
        );
        assert!(
            !generated.contains("shelter") && !generated.contains("owner"),
            "{}: a computed-only attribute is no configuration: {generated}",
            client.name
        );
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let res = ws.resources();
        let imported: Vec<_> = (res.values())
            .filter(|r| r["name"].as_str().is_some_and(|n| n.starts_with("stray-")))
            .collect();
        assert_eq!(imported.len(), 2, "{}: {res:?}", client.name);
        assert!(
            imported
                .iter()
                .all(|r| r["owner"] == "imported" && r["species"] == "parrot"),
            "{}: {imported:?}",
            client.name
        );
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());

        // The action, from a resource's trigger and invoked.
        let fed = format!(
            r#"{PETS}
action "gopets_feed" "dinner" {{
  config {{
    pet_id   = "cat-tom-0badcafe"
    portions = 3
  }}
}}
resource "gopets_pet" "p" {{
  name = "Tom"
  lifecycle {{
    action_trigger {{
      events  = [after_create]
      actions = [action.gopets_feed.dinner]
    }}
  }}
}}
"#
        );
        ws.write_config(&fed);
        let _ = std::fs::remove_file(ws.path().join("found.tf"));
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let shown = flatten(&apply.all());
        assert!(
            shown.contains("portion 1 of 3") && shown.contains("portion 3 of 3"),
            "{}: {shown}",
            client.name
        );
        let invoked = ws.ok(&[
            "apply",
            "-auto-approve",
            "-no-color",
            "-invoke=action.gopets_feed.dinner",
        ]);
        assert!(
            flatten(&invoked.all()).contains("portion 2 of 3"),
            "{}: {}",
            client.name,
            invoked.all()
        );
        ws.write_config(&fed.replace("portions = 3", "portions = 30"));
        let refused = ws.run(&["plan", "-no-color"]);
        assert_ne!(refused.code, 0, "{}: {}", client.name, refused.all());
        assert!(
            flatten(&refused.all()).contains("A pet eats 1 to 10 portions, not 30"),
            "{}: {}",
            client.name,
            refused.all()
        );
    }
}

const FIXTURE: &str = r#"
terraform {
  required_providers {
    gofixture = { source = "registry.terraform.io/tfwasm/gofixture" }
  }
}
"#;

fn act(behavior: &str) -> String {
    format!("{FIXTURE}\nresource \"gofixture_act\" \"a\" {{\n  behavior = \"{behavior}\"\n}}\n")
}

fn act_on(behavior: &str, target: &str) -> String {
    format!(
        "{FIXTURE}\nresource \"gofixture_act\" \"a\" {{\n  behavior = \"{behavior}\"\n  target   = \"{target}\"\n}}\n"
    )
}

/// net/http in a Go provider goes out through wasi:http: http.DefaultClient, a clone of
/// http.DefaultTransport (as hashicorp/terraform-provider-http makes) and go-cleanhttp's
/// Transport with its own dialer (as most hashicorp providers make) reach a granted host;
/// an ungranted one is refused with the same diagnostic as for a Rust provider, naming the
/// grant to add.
#[test]
fn go_net_http_goes_through_the_grants() {
    let (allowed, forbidden) = tfwasm_tests::http_fixture();
    let hello = format!("http://127.0.0.1:{allowed}/hello");
    let denied = format!("http://127.0.0.1:{forbidden}/secret");
    let denied_entry = format!("add \"http://127.0.0.1:{forbidden}\" to http under [grants]");
    for client in clients() {
        // A clone of http.DefaultTransport, http.DefaultClient, and go-cleanhttp's pooled client
        // (a Transport with a net.Dialer of its own): all of them through the host's grants.
        for behavior in ["http_get", "default_client", "cleanhttp"] {
            let ws = Workspace::new(client, &act_on(behavior, &hello));
            ws.ok(&["init", "-no-color"]);
            ws.ok(&["apply", "-auto-approve", "-no-color"]);
            assert_eq!(
                ws.resources()["gofixture_act.a"]["result"],
                "hello over http",
                "{}: {behavior}",
                client.name
            );
            ws.write_config(&act_on(behavior, &denied));
            let run = ws.run(&["apply", "-auto-approve", "-no-color"]);
            assert_ne!(run.code, 0);
            let text = flatten(&run.all());
            assert!(
                text.contains("Outgoing HTTP request denied") && text.contains(&denied_entry),
                "{}: {behavior}: {}",
                client.name,
                run.all()
            );
            assert!(!text.contains("should not be reached"), "{}", run.all());
            // One error, the host's: the provider's own restated it.
            assert_eq!(
                run.all().matches("Error: ").count(),
                1,
                "{}: {behavior}: {}",
                client.name,
                run.all()
            );
        }
    }
}

/// net/http's body-less DELETE goes out with a stated zero length, not chunked, so a service
/// on Python's `http.server` reads both requests on the pooled connection.
#[test]
fn go_net_http_deletes_reach_a_plain_server_unchunked() {
    let server = crate::restapi::PlainServer::start();
    let client = &clients()[clients().len() - 1];
    let target = format!("http://localhost:{}/items/1", server.port);
    let ws = Workspace::new(client, &act_on("http_delete", &target));
    ws.ok(&["init", "-no-color"]);
    ws.ok(&["apply", "-auto-approve", "-no-color"]);
    assert_eq!(ws.resources()["gofixture_act.a"]["result"], "404 Not Found");
    let heads = server.heads();
    assert_eq!(heads.len(), 2, "{heads:?}");
    for (method, chunked, length) in &heads {
        assert_eq!(method, "DELETE");
        assert_eq!(chunked, &None, "{heads:?}");
        assert_eq!(length.as_deref(), Some("0"), "{heads:?}");
    }
}

/// A request body net/http cannot size (a wrapped reader), which its Transport would have
/// chunked, goes out with its real length: wasi:http holds a body to the length stated.
#[test]
fn go_net_http_sends_an_unsized_body_with_its_length() {
    let server = crate::restapi::PlainServer::start();
    let client = &clients()[clients().len() - 1];
    let target = format!("http://localhost:{}/items", server.port);
    let ws = Workspace::new(client, &act_on("http_post_unsized", &target));
    ws.ok(&["init", "-no-color"]);
    ws.ok(&["apply", "-auto-approve", "-no-color"]);
    let heads = server.heads();
    assert_eq!(
        heads,
        [("POST".to_owned(), None, Some("18".to_owned()))],
        "{}",
        ws.resources()["gofixture_act.a"]
    );
}

/// tflog lines reach the provider log at their own level with their fields, as a native
/// provider's do; below the level Terraform asks for, they are not written.
#[test]
fn go_provider_logs_reach_the_provider_log_at_their_level() {
    for client in clients() {
        let ws = Workspace::new(client, &act("log"));
        ws.ok(&["init", "-no-color"]);
        let run = ws.run_with_env(
            &["apply", "-auto-approve", "-no-color"],
            &[("TF_LOG_PROVIDER", "info")],
        );
        assert_eq!(run.code, 0, "{}", run.all());
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains("fixture says hello"))
            .unwrap_or_else(|| panic!("{}: tflog line missing:\n{}", client.name, run.stderr));
        assert!(
            line.contains("answer=42"),
            "{}: its field: {line}",
            client.name
        );
        assert!(
            line.contains("[INFO]"),
            "{}: at its own level: {line}",
            client.name
        );
        assert!(
            !run.stderr.contains("fixture debug line"),
            "{}: a debug line is below TF_LOG_PROVIDER=info",
            client.name
        );
    }
}

/// A Go call that panics, spins or allocates without end is ended by the sandbox with a
/// diagnostic naming what happened, and the provider keeps serving.
#[test]
fn go_calls_end_under_the_sandbox_limits() {
    let cases: &[(&str, &[&str])] = &[
        (
            "panic",
            &[
                "Provider panicked",
                "assignment to entry in nil map",
                "goroutine",
            ],
        ),
        (
            "spin",
            &[
                "Provider exceeded its time limit",
                "time limit of 5s",
                "raise `timeout`",
            ],
        ),
        (
            "allocate",
            &[
                "Provider exceeded its memory limit",
                "memory limit of 134217728 bytes",
            ],
        ),
    ];
    let client = &clients()[0];
    for (behavior, expected) in cases {
        // Beside it, a resource that behaves, served by the same provider process.
        let config = format!(
            "{}\nresource \"gofixture_act\" \"ok\" {{\n  behavior = \"log\"\n}}\n",
            act(behavior)
        );
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let run = ws.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(run.code, 0, "{behavior}: {}", run.all());
        let text = flatten(&run.all());
        for want in *expected {
            assert!(
                text.contains(want),
                "{behavior}: missing {want:?} in:\n{}",
                run.all()
            );
        }
        let res = ws.resources();
        assert!(
            res.contains_key("gofixture_act.ok") && !res.contains_key("gofixture_act.a"),
            "{behavior}: the provider kept serving: {:?}",
            res.keys()
        );
    }
}
