//! A provider written in Python (sample-providers/python-hello, built with componentize-py
//! against the Python SDK in guest-sdk/python) through real Terraform: the whole lifecycle,
//! matched step for step by its Rust twin (sample-providers/hello), an exception shown with
//! its traceback, and the host's limits applied to it.

use tfwasm_tests::{Client, Since, Workspace, clients, clients_since, flatten};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    pyhello = { source = "registry.terraform.io/tfwasm/pyhello" }
  }
}
"#;

fn greeting(name: &str, template: Option<&str>) -> String {
    greeting_of("pyhello", name, template)
}

/// A `TYPE_greeting` of the greeting provider `provider` (`pyhello` or `hello`).
fn greeting_of(provider: &str, name: &str, template: Option<&str>) -> String {
    let template = template.map_or(String::new(), |t| format!("\n  template = {t:?}"));
    format!(
        "terraform {{\n  required_providers {{\n    {provider} = {{ source = \"registry.terraform.io/tfwasm/{provider}\" }}\n  }}\n}}\n\
         resource \"{provider}_greeting\" \"g\" {{\n  name = {name:?}{template}\n}}\n"
    )
}

/// Create, no-change plan, update in place, replace and import, identical for both
/// languages; returns the workspace holding `greeting-moon`.
fn lifecycle(client: &Client, provider: &str) -> Workspace {
    let address = format!("{provider}_greeting.g");
    let who = format!("{} {provider}", client.name);
    let ws = Workspace::new(client, &greeting_of(provider, "world", None));
    ws.ok(&["init", "-no-color"]);

    // Create.
    ws.ok(&["apply", "-auto-approve", "-no-color"]);
    let state = ws.resources();
    let g = &state[&address];
    assert_eq!(g["message"], "Hello, world!", "{who}");
    assert_eq!(g["id"], "greeting-world", "{who}");
    assert_eq!(g["template"], "Hello, {name}!", "{who}: the default");

    // No changes.
    let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
    assert_eq!(plan.code, 0, "{who}: {}", plan.all());

    // Update in place: the id is kept (use_state_for_unknown), the message follows.
    ws.write_config(&greeting_of(provider, "world", Some("Hi {name}")));
    let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
    assert!(
        apply.stdout.contains("0 added, 1 changed, 0 destroyed"),
        "{who}: {}",
        apply.stdout
    );
    let g = &ws.resources()[&address];
    assert_eq!(g["message"], "Hi world", "{who}");
    assert_eq!(g["id"], "greeting-world", "{who}");

    // Replace: the name requires it.
    ws.write_config(&greeting_of(provider, "moon", Some("Hi {name}")));
    let apply = ws.ok(&["apply", "-auto-approve", "-no-color"]);
    assert!(
        apply.stdout.contains("1 added, 0 changed, 1 destroyed"),
        "{who}: {}",
        apply.stdout
    );
    assert_eq!(ws.resources()[&address]["id"], "greeting-moon", "{who}");

    // Import: forget the object, bring it back by its ID.
    ws.ok(&["state", "rm", "-no-color", &address]);
    ws.write_config(&greeting_of(provider, "moon", None));
    ws.ok(&["import", "-no-color", &address, "greeting-moon"]);
    let g = &ws.resources()[&address];
    assert_eq!(g["message"], "Hello, moon!", "{who}: read after import");
    let plan = ws.run(&["plan", "-detailed-exitcode", "-no-color"]);
    assert_eq!(plan.code, 0, "{who}: imported = configured: {}", plan.all());
    ws
}

#[test]
fn a_python_provider_goes_through_the_whole_lifecycle() {
    for client in clients() {
        let ws = lifecycle(client, "pyhello");

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

/// The Rust twin behaves as the Python provider does, step for step.
#[test]
fn its_rust_twin_goes_through_the_same_lifecycle() {
    for client in clients() {
        let ws = lifecycle(client, "hello");
        ws.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(ws.resources().is_empty(), "{}", client.name);
    }
}

#[test]
fn a_python_data_source_and_function() {
    for client in &clients_since(Since::Functions) {
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
    // more than 4 MiB). The time limit needs a call that runs long: the next test.
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

/// The time limit ends a Python call still running bytecode (tests/fixtures/python-fixture spins
/// for the seconds it is given), long before the call would end, and the provider serves
/// the next call.
#[test]
fn the_time_limit_ends_a_running_python_call() {
    let spin = |seconds: &str| {
        format!(
            "terraform {{\n  required_providers {{\n    pyfixture = {{ source = \"registry.terraform.io/tfwasm/pyfixture\" }}\n  }}\n}}\n\
             data \"pyfixture_spin\" \"s\" {{ seconds = {seconds} }}\noutput \"spins\" {{ value = data.pyfixture_spin.s.spins }}\n"
        )
    };
    for client in clients() {
        let ws = Workspace::new(client, &spin("60"));
        ws.ok(&["init", "-no-color"]);
        let settings = ws.path().join("limits.toml");
        // Fuel enough for a minute of spinning, so the clock is what ends the call.
        std::fs::write(
            &settings,
            "[limits]\nfuel = 100000000000000\n[limits.rpc.ReadDataSource]\ntimeout = \"2s\"\n",
        )
        .unwrap();
        let env = [("TFWASM_CONFIG", settings.to_str().unwrap())];
        let started = std::time::Instant::now();
        let plan = ws.run_with_env(&["plan", "-no-color"], &env);
        let took = started.elapsed();
        assert_ne!(plan.code, 0, "{}: {}", client.name, plan.all());
        assert!(
            flatten(&plan.all()).contains("Provider exceeded its time limit"),
            "{}: {}",
            client.name,
            plan.all()
        );
        assert!(
            took < std::time::Duration::from_secs(30),
            "{}: the 2 s limit ended a 60 s call (plan took {took:?})",
            client.name
        );
        // A short spin under the same limit completes.
        ws.write_config(&spin("0.05"));
        let apply = ws.run_with_env(&["apply", "-auto-approve", "-no-color"], &env);
        assert_eq!(apply.code, 0, "{}: {}", client.name, apply.all());
        let spins = ws.ok(&["output", "-raw", "-no-color", "spins"]);
        assert!(
            spins.stdout.parse::<u64>().is_ok_and(|n| n > 0),
            "{}: {}",
            client.name,
            spins.stdout
        );
    }
}

/// The private state of the one instance in the workspace's state file, as JSON.
fn private_state(ws: &Workspace) -> serde_json::Value {
    use base64::Engine as _;
    let text = std::fs::read_to_string(ws.path().join("terraform.tfstate")).expect("state file");
    let state: serde_json::Value = serde_json::from_str(&text).expect("state JSON");
    let encoded = state
        .pointer("/resources/0/instances/0/private")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_else(|| panic!("no private state in {text}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .expect("base64");
    serde_json::from_slice(&bytes).expect("private state is JSON")
}

/// Private state from Python: set while planning it reaches the create, which adds to it;
/// a refresh reads and updates it; an import starts it. Terraform stores it with the state.
#[test]
fn python_private_state_travels_from_plan_to_apply_to_read() {
    let config = |name: &str| {
        format!(
            "terraform {{\n  required_providers {{\n    pyfixture = {{ source = \"registry.terraform.io/tfwasm/pyfixture\" }}\n  }}\n}}\n\
             resource \"pyfixture_reads\" \"r\" {{ name = {name:?} }}\n"
        )
    };
    for client in clients() {
        let ws = Workspace::new(client, &config("one"));
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(
            private_state(&ws),
            serde_json::json!({"planned_for": "one", "reads": 0}),
            "{}: the plan's entry reached the create",
            client.name
        );
        ws.ok(&["apply", "-refresh-only", "-auto-approve", "-no-color"]);
        assert_eq!(
            private_state(&ws)["reads"],
            1,
            "{}: the refresh counted itself",
            client.name
        );
        ws.ok(&["state", "rm", "-no-color", "pyfixture_reads.r"]);
        ws.ok(&["import", "-no-color", "pyfixture_reads.r", "one"]);
        let imported = private_state(&ws);
        assert_eq!(imported["imported"], true, "{}: {imported}", client.name);
    }
}
