//! The sandbox through real Terraform: every attack of `hostile_act` ends in a diagnostic
//! that says what happened, granted capabilities work, and a correct resource in the same
//! run is still applied. Limits come from the package flags in `tfwasm_tests::package_flags`.

use tfwasm_tests::{HOSTILE_GRANTED_ENV, HOSTILE_SECRET_ENV, Workspace, clients, flatten};

const PROVIDER: &str = r#"
terraform {
  required_providers {
    hostile = { source = "registry.terraform.io/tfwasm/hostile" }
  }
}
"#;

fn act(label: &str, behavior: &str, target: &str) -> String {
    format!(
        "\nresource \"hostile_act\" \"{label}\" {{\n  behavior = \"{behavior}\"\n  target   = \"{target}\"\n}}\n"
    )
}

#[test]
fn every_attack_is_stopped_and_grants_work() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "spin",
            "spin",
            "",
            &[
                "Provider exceeded its fuel budget",
                "fuel budget of 3000000000 during ApplyResourceChange",
                "raise `fuel` under [limits]",
            ],
        ),
        (
            "recurse",
            "recurse",
            "",
            &[
                "Provider crashed",
                "stack overflow from unbounded recursion",
            ],
        ),
        (
            "grow_memory",
            "grow_memory",
            "",
            &[
                "Provider exceeded its memory limit",
                "memory limit of 134217728 bytes",
                "raise `memory`",
            ],
        ),
        (
            "panic",
            "panic",
            "boom",
            &[
                "Provider crashed",
                "guest panicked",
                // The message, then where, as the operator reads it.
                "hostile provider panicked on purpose (target \"boom\") (at sample-providers/hostile/src/lib.rs:",
            ],
        ),
        (
            "huge_output",
            "huge_output",
            "20",
            &[
                "Provider returned a value that is too large",
                "at most 16777216 bytes are accepted",
            ],
        ),
        (
            "bad_msgpack",
            "bad_msgpack",
            "",
            &[
                "Provider produced inconsistent result after apply",
                "does not conform to the schema",
            ],
        ),
        (
            "sleep",
            "sleep",
            "10000",
            &[
                "Provider exceeded its time limit",
                "time limit of 3s during ApplyResourceChange",
                "raise `timeout`",
            ],
        ),
        (
            "outside_file",
            "read_file",
            "/etc/hostname",
            &["Cannot read file", "reading \"/etc/hostname\" failed"],
        ),
        (
            "readonly_write",
            "write_file",
            "/data/new.txt",
            &["Cannot write file", "writing \"/data/new.txt\" failed"],
        ),
        (
            "symlink_file",
            "read_file",
            "/data/escape",
            &["Cannot read file", "reading \"/data/escape\" failed"],
        ),
        (
            "escape_file",
            "read_file",
            "/data/../secret.txt",
            &["Cannot read file", "reading \"/data/../secret.txt\" failed"],
        ),
        (
            // A special file in the grant: the open blocks forever; the deadline ends it.
            "special_file",
            "read_file",
            "/data/pipe",
            &[
                "Provider exceeded its time limit",
                "time limit of 3s during ApplyResourceChange",
            ],
        ),
        (
            "hardlink_out",
            "link_file",
            "/data/../secret.txt",
            &[
                "Cannot link file",
                "linking /out/link to \"/data/../secret.txt\" failed",
            ],
        ),
        (
            // A writable name for a file of a read-only grant.
            "hardlink_readonly",
            "link_file",
            "/data/hello.txt",
            &[
                "Cannot link file",
                "linking /out/link to \"/data/hello.txt\" failed",
            ],
        ),
        (
            // 32 MiB of detail: cut to the diagnostic budget, the error kept.
            "huge_diagnostic",
            "huge_diagnostic",
            "32",
            &["Huge diagnostic", "[truncated by tfwasm]"],
        ),
        (
            // Private state is held to the value limit like the state.
            "huge_private",
            "huge_private",
            "20",
            &[
                "Provider returned a value that is too large",
                "at most 16777216 bytes are accepted",
            ],
        ),
        (
            // 6000 header blocks of 16 KiB: host memory, stopped by the handle limit.
            "fields_hoard",
            "fields_hoard",
            "6000",
            &["Provider crashed", "resource table has no free keys"],
        ),
        (
            // An unsent request's authority and method live in host memory: held to 1 KiB
            // and 64 bytes.
            "long_request_parts",
            "long_request_parts",
            "1048576",
            &[
                "Request parts refused",
                "an authority of 1048584 bytes was refused, a method of 1048576 bytes was refused",
            ],
        ),
        (
            // The stderr capture is full before the panic; its message still arrives.
            "stderr_then_panic",
            "stderr_then_panic",
            "",
            &[
                "Provider crashed",
                "hostile provider panicked after filling stderr",
            ],
        ),
        (
            "secret_env",
            "read_env",
            HOSTILE_SECRET_ENV,
            &[
                "Environment variable not available",
                "is not set for this provider",
            ],
        ),
    ];
    let (allowed, forbidden) = tfwasm_tests::http_fixture();
    let denied_entry = format!("add \"http://127.0.0.1:{forbidden}\" to http under [grants]");
    let denied_direct = format!("http://127.0.0.1:{forbidden}/");
    let redirect_out = format!("http://127.0.0.1:{allowed}/redirect-out");
    let big = format!("http://127.0.0.1:{allowed}/big");
    // Grants match the URL's host as written: another spelling of an allowed address, or
    // the allowed address smuggled in as userinfo, is a different destination.
    let by_name = format!("http://localhost:{allowed}/");
    let by_name_entry = format!("add \"http://localhost:{allowed}\" to http under [grants]");
    let ipv6 = format!("http://[::1]:{allowed}/");
    let ipv6_entry = format!("add \"http://[::1]:{allowed}\" to http under [grants]");
    let userinfo = format!("http://127.0.0.1:{allowed}@127.0.0.1:{forbidden}/");
    // The allowed host after the `@`: the userinfo would reach the server in `Host`.
    let userinfo_allowed = format!("http://127.0.0.1:{forbidden}@127.0.0.1:{allowed}/");
    let userinfo_denied = "with user information in its URL (user:password@127.0.0.1)";
    let http_cases: Vec<(&str, &str, &str, Vec<&str>)> = vec![
        (
            "http_denied",
            "http_get",
            &denied_direct,
            vec!["Outgoing HTTP request denied", &denied_entry],
        ),
        (
            "http_redirect_out",
            "http_get",
            &redirect_out,
            vec!["Outgoing HTTP request denied", &denied_entry],
        ),
        (
            "http_by_name",
            "http_get",
            &by_name,
            vec!["Outgoing HTTP request denied", &by_name_entry],
        ),
        (
            "http_ipv6",
            "http_get",
            &ipv6,
            vec!["Outgoing HTTP request denied", &ipv6_entry],
        ),
        (
            "http_userinfo",
            "http_get",
            &userinfo,
            vec!["Outgoing HTTP request denied", userinfo_denied],
        ),
        (
            "http_userinfo_allowed_host",
            "http_get",
            &userinfo_allowed,
            vec!["Outgoing HTTP request denied", userinfo_denied],
        ),
        (
            "http_big",
            "http_get",
            &big,
            vec![
                "HTTP request failed",
                "HTTP response body size exceeds limit",
            ],
        ),
    ];
    for client in clients() {
        let mut config = PROVIDER.to_owned();
        config.push_str(&act("ok", "ok", ""));
        config.push_str(&act("granted_file", "read_file", "/data/hello.txt"));
        config.push_str(&act("granted_env", "read_env", HOSTILE_GRANTED_ENV));
        config.push_str(&act(
            "granted_http",
            "http_get",
            &format!("http://127.0.0.1:{allowed}/redirect-in"),
        ));
        config.push_str(&act("partial", "create_then_panic", ""));
        config.push_str(&act("granted_write", "write_file", "/out/written.txt"));
        for (label, behavior, target, _) in cases {
            config.push_str(&act(label, behavior, target));
        }
        for (label, behavior, target, _) in &http_cases {
            config.push_str(&act(label, behavior, target));
        }
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let env = [
            (HOSTILE_GRANTED_ENV, "granted-value"),
            (HOSTILE_SECRET_ENV, "secret-value"),
        ];
        let apply = ws.run_with_env(
            &["apply", "-auto-approve", "-no-color", "-parallelism=4"],
            &env,
        );
        assert_eq!(
            apply.code,
            1,
            "{}: the attacks fail the apply:\n{}",
            client.name,
            apply.all()
        );
        let flat = flatten(&apply.all());
        if std::env::var_os("TFWASM_SHOW").is_some() {
            eprintln!("{}", apply.all());
        }
        let expectations = cases
            .iter()
            .map(|(label, _, _, expected)| (*label, expected.to_vec()))
            .chain(
                http_cases
                    .iter()
                    .map(|(label, _, _, expected)| (*label, expected.clone())),
            );
        for (label, expected) in expectations {
            for want in expected {
                assert!(
                    flat.contains(want),
                    "{}: {label}: expected {want:?} in:\n{}",
                    client.name,
                    apply.all()
                );
            }
        }
        // The panic hook's advice does not apply to a guest.
        assert!(!flat.contains("RUST_BACKTRACE"), "{}", client.name);
        // The 32 MiB diagnostic reached Terraform cut to the 1 MiB budget.
        assert!(
            apply.all().len() < 4 << 20,
            "{}: {} bytes of output",
            client.name,
            apply.all().len()
        );
        for secret in [
            "must not be readable",
            "secret-value",
            "should not be reached",
        ] {
            assert!(!flat.contains(secret), "{}: {secret:?} leaked", client.name);
        }

        let state = ws.resources();
        assert_eq!(
            state["hostile_act.ok"]["result"], "ok",
            "{}: the correct resource applied",
            client.name
        );
        assert_eq!(
            state["hostile_act.granted_file"]["result"],
            "hello from the host"
        );
        assert_eq!(state["hostile_act.granted_env"]["result"], "granted-value");
        assert_eq!(
            state["hostile_act.granted_http"]["result"], "hello over http",
            "an allowed redirect is followed"
        );
        assert_eq!(
            state["hostile_act.granted_write"]["result"],
            "wrote /out/written.txt"
        );
        let written = tfwasm_tests::fixtures()
            .join("writable")
            .join("written.txt");
        assert_eq!(
            std::fs::read_to_string(&written).unwrap(),
            "written by the provider",
            "the write reached the host dir"
        );
        assert!(
            !tfwasm_tests::fixtures()
                .join("granted")
                .join("new.txt")
                .exists(),
            "nothing written into a read-only grant"
        );
        assert!(
            !tfwasm_tests::fixtures()
                .join("writable")
                .join("link")
                .exists(),
            "no hard link made"
        );
        // Created, reported, then crashed: the object is in the state, tainted, nothing lost.
        assert!(
            flat.contains("hostile provider crashed after creating its object"),
            "{}",
            apply.all()
        );
        assert_eq!(
            state["hostile_act.partial"]["result"], "created",
            "{}: the reported state was kept",
            client.name
        );
        let shown = ws.show_json(None);
        let partial = shown["values"]["root_module"]["resources"]
            .as_array()
            .and_then(|list| list.iter().find(|r| r["address"] == "hostile_act.partial"))
            .expect("partial in state");
        assert_eq!(
            partial["tainted"], true,
            "{}: recorded as tainted: {partial}",
            client.name
        );
        for label in cases
            .iter()
            .map(|c| c.0)
            .chain(http_cases.iter().map(|c| c.0))
        {
            assert!(
                !state.contains_key(&format!("hostile_act.{label}")),
                "{}: {label} left no state",
                client.name
            );
        }
    }
}

/// What the host does for a guest besides running it is bounded: a guest writing 64 MiB of
/// log lines gets its call's 64 KiB into Terraform's log and one "log capped" line; a guest
/// reporting its state a thousand times during an apply gets a hundred journal writes and a
/// warning, and the apply still succeeds with its state.
#[test]
fn host_work_for_a_guest_is_capped() {
    for client in clients() {
        let mut config = PROVIDER.to_owned();
        config.push_str(&act("log_flood", "log_flood", "64"));
        config.push_str(&act("report_flood", "report_flood", "1000"));
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let log = ws.path().join("terraform.log");
        let log_path = log.display().to_string();
        let apply = ws.run_with_env(
            &["apply", "-auto-approve", "-no-color"],
            &[("TF_LOG", "trace"), ("TF_LOG_PATH", &log_path)],
        );
        assert_eq!(apply.code, 0, "{}: {}", client.name, apply.all());
        let flat = flatten(&apply.all());
        assert!(
            flat.contains("Provider state reports not journaled")
                && flat.contains("the last 900 were kept in memory only"),
            "{}: {}",
            client.name,
            apply.all()
        );
        let state = ws.resources();
        assert_eq!(state["hostile_act.log_flood"]["result"], "logged 64 MiB");
        assert_eq!(
            state["hostile_act.report_flood"]["result"],
            "reported 1000 times"
        );
        let text = std::fs::read_to_string(&log).expect("terraform.log");
        let flood_lines = text.lines().filter(|l| l.contains("flood flood")).count();
        assert!(
            (1..=64).contains(&flood_lines),
            "{}: {flood_lines} flood lines reached the log (64 KiB per call allows 63)",
            client.name
        );
        assert_eq!(
            text.matches("log capped: the guest wrote more than 64KiB per call")
                .count(),
            1,
            "{}: one notice",
            client.name
        );
    }
}

/// A request the guest leaves in flight when its call answers is cancelled then, not left
/// running (up to twice the deadline) while the provider serves other calls: the server
/// sees the connection closed well before the next resource's two-second call ends.
#[test]
fn requests_left_in_flight_end_with_their_call() {
    let (allowed, _) = tfwasm_tests::http_fixture();
    for client in clients() {
        let config = format!(
            r#"{PROVIDER}
resource "hostile_act" "leave" {{
  behavior = "http_leave"
  target   = "http://127.0.0.1:{allowed}/hang"
}}
resource "hostile_act" "after" {{
  behavior   = "sleep"
  target     = "2000"
  depends_on = [hostile_act.leave]
}}
"#
        );
        let before = tfwasm_tests::hang_held().len();
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        ws.ok(&["apply", "-auto-approve", "-no-color"]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let held = loop {
            let held = tfwasm_tests::hang_held();
            if held.len() > before || std::time::Instant::now() > deadline {
                break held;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let this = held.get(before).expect("the request reached the server");
        // The guest waits 0.5 s after sending; the next call sleeps 2 s.
        assert!(
            *this < std::time::Duration::from_millis(1500),
            "{}: the request stayed open {this:?}, past the call that sent it",
            client.name
        );
    }
}

/// The provider process killed (SIGKILL) in the middle of an apply, after the guest reported
/// creating its object: Terraform reports the crash and its state lacks the object, so the
/// next plan would create it again. The apply journal stops that plan with an error naming
/// the object and the import that brings it back; after the import, plans go on.
#[test]
fn a_provider_killed_mid_apply_is_remembered_by_the_next_plan() {
    for client in clients() {
        let mut config = PROVIDER.to_owned();
        config.push_str(&act("slow", "create_then_hang", "remote-1"));
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let apply = ws.start(&["apply", "-auto-approve", "-no-color"], &[]);
        let entry = wait_for_journal_entry(&ws.journal_dir());
        assert!(
            entry.contains("remote-1"),
            "{}: the reported object is journaled: {entry}",
            client.name
        );
        let providers = tfwasm_tests::providers_of(apply.pid());
        assert!(
            !providers.is_empty(),
            "{}: a provider is running",
            client.name
        );
        for pid in providers {
            // SAFETY: kill has no memory preconditions; the pid is the client's child.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        let apply = apply.wait();
        assert_eq!(apply.code, 1, "{}: {}", client.name, apply.all());
        // As the connection breaks: "Plugin did not respond ... failed to respond to the
        // plugin6.(*GRPCProvider).ApplyResourceChange call", or "Request cancelled: The
        // plugin6.(*GRPCProvider).ApplyResourceChange request was cancelled".
        let flat = flatten(&apply.all());
        assert!(
            flat.contains("(*GRPCProvider).ApplyResourceChange")
                && (flat.contains("failed to respond to the plugin")
                    || flat.contains("request was cancelled")),
            "{}: Terraform reports the crash:\n{}",
            client.name,
            apply.all()
        );
        assert!(
            !ws.resources().contains_key("hostile_act.slow"),
            "{}: the object never reached Terraform's state",
            client.name
        );

        let plan = ws.run(&["plan", "-no-color"]);
        let flat = flatten(&plan.all());
        if std::env::var_os("TFWASM_SHOW").is_some() {
            eprintln!("{}\n{}", apply.all(), plan.all());
        }
        assert_eq!(plan.code, 1, "{}: {}", client.name, plan.all());
        for want in [
            "An interrupted apply left an object behind",
            "An earlier apply of hostile_act with this same configuration stopped",
            "with id \"remote-1\"",
            "terraform import ADDRESS remote-1",
        ] {
            assert!(
                flat.contains(want),
                "{}: {want:?} in:\n{}",
                client.name,
                plan.all()
            );
        }

        ws.ok(&["import", "-no-color", "hostile_act.slow", "remote-1"]);
        assert!(
            !ws.journal_dir().exists() || journal_entries(&ws.journal_dir()).is_empty(),
            "{}: the import settled the entry",
            client.name
        );
        let plan = ws.run(&["plan", "-no-color"]);
        assert_eq!(plan.code, 0, "{}: {}", client.name, plan.all());
        assert!(
            !plan.all().contains("interrupted apply"),
            "{}: {}",
            client.name,
            plan.all()
        );
    }
}

/// The client itself (Terraform, OpenTofu) killed (SIGKILL) in the middle of an apply, after
/// the guest reported creating its object: the orphaned provider stops on its own (the call
/// ends at its deadline; nothing keeps running for a client that is gone), nothing reached
/// the state, and the next run's plan names the object the journal remembers.
#[test]
fn a_client_killed_mid_apply_leaves_no_provider_behind_and_the_object_remembered() {
    for client in clients() {
        let name = &client.name;
        let mut config = PROVIDER.to_owned();
        config.push_str(&act("slow", "create_then_hang", "remote-2"));
        let ws = Workspace::new(client, &config);
        ws.ok(&["init", "-no-color"]);
        let apply = ws.start(&["apply", "-auto-approve", "-no-color"], &[]);
        let entry = wait_for_journal_entry(&ws.journal_dir());
        assert!(entry.contains("remote-2"), "{name}: {entry}");
        let providers = tfwasm_tests::providers_of(apply.pid());
        assert!(!providers.is_empty(), "{name}: a provider is running");
        // The client's own processes (Terraform 1.0 runs itself under a panic-catching
        // parent), not the providers.
        let mut client_pids = vec![apply.pid()];
        client_pids.extend(
            tfwasm_tests::descendants(apply.pid())
                .into_iter()
                .filter(|pid| !providers.contains(pid)),
        );
        for pid in client_pids {
            // SAFETY: kill has no memory preconditions; the pids are the client's.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        let _ = apply.wait();
        let started = std::time::Instant::now();
        let alive = |pid: &u32| {
            std::path::Path::new(&format!("/proc/{pid}")).exists()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                    s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('Z'))
                })
        };
        while providers.iter().any(alive) && started.elapsed() < std::time::Duration::from_secs(30)
        {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(
            !providers.iter().any(alive),
            "{name}: the orphaned provider is still running after 30 s"
        );
        assert!(!ws.resources().contains_key("hostile_act.slow"), "{name}");
        let plan = ws.run(&["plan", "-no-color"]);
        let flat = flatten(&plan.all());
        assert_eq!(plan.code, 1, "{name}: {}", plan.all());
        assert!(
            flat.contains("An interrupted apply left an object behind")
                && flat.contains("with id \"remote-2\""),
            "{name}: {}",
            plan.all()
        );
        ws.ok(&["import", "-no-color", "hostile_act.slow", "remote-2"]);
        let plan = ws.run(&["plan", "-no-color"]);
        assert_eq!(plan.code, 0, "{name}: {}", plan.all());
    }
}

/// The entry files under a journal directory (one level of per-working-directory folders).
fn journal_entries(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(dirs) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    dirs.flatten()
        .filter_map(|d| std::fs::read_dir(d.path()).ok())
        .flat_map(|files| files.flatten().map(|f| f.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

/// Waits (at most two minutes: init and plan come first) for an entry; returns its text.
fn wait_for_journal_entry(root: &std::path::Path) -> String {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(120) {
        if let Some(text) = journal_entries(root)
            .first()
            .and_then(|p| std::fs::read_to_string(p).ok())
        {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("no apply journal entry appeared under {}", root.display());
}
