//! A provider written in Python (sample-providers/python-hello, built with componentize-py
//! against the Python SDK in guest-sdk/python) through real Terraform: the whole lifecycle,
//! an exception shown with its traceback, and the host's limits applied to it.

use tfwasm_tests::{Workspace, clients, flatten};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    pyhello = { source = "registry.terraform.io/tfwasm/pyhello" }
  }
}
"#;

fn greeting(name: &str, template: Option<&str>) -> String {
    let template = template.map_or(String::new(), |t| format!("\n  template = {t:?}"));
    format!("{PROVIDER}\nresource \"pyhello_greeting\" \"g\" {{\n  name = {name:?}{template}\n}}\n")
}

#[test]
fn a_python_provider_goes_through_the_whole_lifecycle() {
    for client in clients() {
        let ws = Workspace::new(client, &greeting("world", None));
        ws.ok(&["init", "-no-color"]);

        // Create.
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let state = ws.resources();
        let g = &state["pyhello_greeting.g"];
        assert_eq!(g["message"], "Hello, world!", "{}", client.name);
        assert_eq!(g["id"], "greeting-world");
        assert_eq!(g["template"], "Hello, {name}!", "the default");

        // No changes.
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());

        // Update in place: the id is kept (use_state_for_unknown), the message follows.
        ws.write_config(&greeting("world", Some("Hi {name}")));
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert!(
            apply.stdout.contains("0 added, 1 changed, 0 destroyed"),
            "{}: {}",
            client.name,
            apply.stdout
        );
        let g = &ws.resources()["pyhello_greeting.g"];
        assert_eq!(g["message"], "Hi world");
        assert_eq!(g["id"], "greeting-world");

        // Replace: the name requires it.
        ws.write_config(&greeting("moon", Some("Hi {name}")));
        let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert!(
            apply.stdout.contains("1 added, 0 changed, 1 destroyed"),
            "{}: {}",
            client.name,
            apply.stdout
        );
        assert_eq!(ws.resources()["pyhello_greeting.g"]["id"], "greeting-moon");

        // Import: forget the object, bring it back by its ID.
        ws.ok(&["state", "rm", "-no-color", "pyhello_greeting.g"]);
        ws.write_config(&greeting("moon", None));
        ws.ok(&["import", "-no-color", "pyhello_greeting.g", "greeting-moon"]);
        let g = &ws.resources()["pyhello_greeting.g"];
        assert_eq!(g["message"], "Hello, moon!", "read after import");
        let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            plan.code,
            0,
            "{}: imported = configured: {}",
            client.name,
            plan.all()
        );

        // A bug in the provider: the exception, with its Python traceback.
        ws.write_config(&greeting("moon", Some("{oops}")));
        let apply = ws.run(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(apply.code, 1, "{}: {}", client.name, apply.all());
        let flat = flatten(&apply.all());
        for want in [
            "Unexpected error in pyhello_greeting apply",
            "The provider raised KeyError: 'oops'",
            "Traceback (most recent call last)",
            "in render",
        ] {
            assert!(
                flat.contains(want),
                "{}: {want:?} in:\n{}",
                client.name,
                apply.all()
            );
        }
        assert_eq!(
            ws.resources()["pyhello_greeting.g"]["message"],
            "Hello, moon!",
            "a failed update keeps the prior state"
        );

        // Destroy.
        ws.write_config(&greeting("moon", None));
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(ws.resources().is_empty(), "{}", client.name);
    }
}

#[test]
fn a_python_data_source_and_function() {
    for client in clients() {
        let mut config = format!(
            "{PROVIDER}\ndata \"pyhello_shout\" \"s\" {{ text = \"quiet\" }}\noutput \"data\" {{ value = data.pyhello_shout.s.result }}\n"
        );
        if client.has_functions() {
            config.push_str("output \"function\" { value = provider::pyhello::shout(\"hush\") }\n");
        }
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let out = ws.ok(&["output", "-raw", "-no-color", "data"]);
        assert_eq!(out.stdout, "QUIET", "{}", client.name);
        if client.has_functions() {
            let out = ws.ok(&["output", "-raw", "-no-color", "function"]);
            assert_eq!(out.stdout, "HUSH", "{}", client.name);
        }
    }
}

/// The sandbox's limits hold for a Python provider as for a Rust one: each limit, set below
/// what CPython needs (in a replacement `tfwasm.toml` named by `TFWASM_CONFIG`), ends the
/// call with the diagnostic naming it.
#[test]
fn the_host_limits_apply_to_a_python_provider() {
    // Fuel for planning alone; memory for every call (a fresh CPython instance alone needs
    // more than 4 MiB). Not the deadline: it is checked every 10 ms epoch tick, and this
    // provider's calls are shorter than that (tested on the hostile sample's `sleep`).
    let cases: &[(&str, &str, &str)] = &[
        (
            "fuel",
            "[limits.rpc.PlanResourceChange]\nfuel = 10000\n",
            "Provider exceeded its fuel budget",
        ),
        (
            "memory",
            "[limits]\nmemory = \"4MiB\"\n",
            "Provider exceeded its memory limit",
        ),
    ];
    for client in clients() {
        let ws = Workspace::new(client, &greeting("world", None));
        ws.ok(&["init", "-no-color"]);
        for (label, limit, want) in cases {
            let settings = ws.path().join(format!("{label}.toml"));
            std::fs::write(&settings, limit).unwrap();
            let plan = ws.run_with_env(
                &["plan", "-no-color"],
                &[("TFWASM_CONFIG", settings.to_str().unwrap())],
            );
            assert_ne!(plan.code, 0, "{}: {label}: {}", client.name, plan.all());
            assert!(
                flatten(&plan.all()).contains(want),
                "{}: {label}: {want:?} in:\n{}",
                client.name,
                plan.all()
            );
        }
        // The same provider, under its packaged settings again, plans.
        ws.ok(&["plan", "-no-color"]);
    }
}
