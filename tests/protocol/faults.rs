//! Faults of the process and its files: a component that is missing or is not one, settings
//! with mistakes, a compile cache that cannot be used. Each is a clear message (or one
//! warning, and the provider serves), never a panic.

use std::path::Path;
use std::process::Command;

use crate::pb;
use tfwasm_tests::plugin::Server;

/// Runs `tfwasm serve` as Terraform would start it; returns (exit code, stderr).
fn serve(component: &Path, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["serve", "--component"])
        .arg(component)
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .envs(env.iter().copied())
        .output()
        .expect("run tfwasm serve");
    assert!(out.stdout.is_empty(), "no handshake line on failure");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The plain-text line tfwasm prints for the operator (the log lines are JSON).
fn message(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with('{')).collect();
    assert!(!stderr.contains("panicked"), "{stderr}");
    lines.join("\n")
}

#[test]
fn a_missing_or_foreign_component_is_a_clear_error_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("provider.wasm");
    std::fs::write(&text, "[limits]\nfuel = 1\n").unwrap();
    let module = dir.path().join("module.wasm");
    std::fs::write(&module, b"\0asm\x01\0\0\0").unwrap();
    let missing = dir.path().join("missing.wasm");
    let cases = [
        (
            missing.as_path(),
            "cannot read component".to_owned(),
            "No such file or directory",
        ),
        (
            text.as_path(),
            format!("{} is not a valid WebAssembly component", text.display()),
            "it is not WebAssembly at all",
        ),
        (
            module.as_path(),
            "is not a valid WebAssembly component".to_owned(),
            "a core WebAssembly module, not a component: build the provider for wasm32-wasip2",
        ),
    ];
    for (component, what, why) in cases {
        let (code, stderr) = serve(component, &[]);
        let message = message(&stderr);
        assert_eq!(code, Some(1), "{message}");
        assert!(
            message.contains(&what) && message.contains(why),
            "{}: {message}",
            component.display()
        );
        assert_eq!(
            message.matches(why).count(),
            1,
            "the cause is said once: {message}"
        );
    }
}

#[test]
fn settings_with_mistakes_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[limits]\nfuel = 1000\nmemory = \"lots\"\n",
            "line 3",
            "limits.memory: \"lots\" is not a valid size",
        ),
        (
            "[limits]\nfuel = 1000\n\n[contracts]\nviolation = \"warn\"\n",
            "line 5",
            "unknown field `violation`",
        ),
        (
            "# grants\n[grants]\nenv = [\"TOKEN\"]\nhttp = [\"api.example.com\"]\n",
            "line 4",
            "grants.http: invalid grant \"api.example.com\"",
        ),
    ];
    for (i, (text, line, key)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("tfwasm-{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let config = file.to_str().unwrap();
        let (code, stderr) = serve(
            &tfwasm_tests::component("random"),
            &[("TFWASM_CONFIG", config)],
        );
        let message = message(&stderr);
        assert_eq!(code, Some(1), "{message}");
        assert!(
            message.contains(config) && message.contains(line) && message.contains(key),
            "{config}, {line}, {key}: {message}"
        );
    }
}

async fn schema_types(server: &Server) -> usize {
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .expect("schema")
        .into_inner()
        .resource_schemas
        .len()
}

#[tokio::test]
async fn an_unusable_compile_cache_costs_one_warning_and_the_provider_serves() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // A path under a regular file cannot be created; a directory others may write is not
    // trusted with code.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    for (cache, why) in [
        (file.join("cache"), "cannot be created"),
        (shared.clone(), "is writable by other users"),
    ] {
        let log = dir.path().join("server.log");
        let server = Server::start_logged(&[("TFWASM_CACHE_DIR", cache.to_str().unwrap())], &log);
        assert_eq!(schema_types(&server).await, 8);
        assert_eq!(schema_types(&server).await, 8);
        drop(server);
        let log = std::fs::read_to_string(&log).unwrap();
        let warnings: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("\"warn\"") && l.contains("compile cache"))
            .collect();
        assert_eq!(warnings.len(), 1, "{why}: exactly one warning:\n{log}");
        assert!(warnings[0].contains(why), "{warnings:?}");
    }
    assert_eq!(
        std::fs::read_dir(&shared).unwrap().count(),
        0,
        "nothing is written to a cache others can write"
    );
}

async fn configure_warnings(server: &Server) -> Vec<String> {
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let config = tfwasm_model::rpc::DynamicValue::null();
    client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.11.4".into(),
            config: Some(pb::DynamicValue {
                msgpack: config.msgpack,
                json: Vec::new(),
            }),
            client_capabilities: None,
        })
        .await
        .expect("configure")
        .into_inner()
        .diagnostics
        .into_iter()
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

/// A start that must compile a large component (the Python sample: CPython inside) logs that
/// it is compiling before it does, and says so once in Terraform's output (a warning with
/// ConfigureProvider) naming the cache; the next start loads the cache and says nothing.
#[tokio::test]
async fn a_compile_at_start_is_announced_and_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let env = [("TFWASM_CACHE_DIR", cache.to_str().unwrap())];
    let component = tfwasm_tests::component("pyhello");
    let log = dir.path().join("first.log");
    let server = Server::start_logged_component(&component, &env, &log);
    let warnings = configure_warnings(&server).await;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("Provider component compiled at start:")
            && warnings[0].contains(cache.to_str().unwrap())
            && warnings[0].contains("tfwasm package"),
        "{warnings:?}"
    );
    assert!(
        configure_warnings(&server).await.is_empty(),
        "told once per process"
    );
    drop(server);
    let first = std::fs::read_to_string(&log).unwrap();
    assert!(
        first.contains("compiling the provider component") && first.contains("size_mib"),
        "{first}"
    );

    let log = dir.path().join("second.log");
    let server = Server::start_logged_component(&component, &env, &log);
    assert!(configure_warnings(&server).await.is_empty(), "cached start");
    drop(server);
    assert!(
        !std::fs::read_to_string(&log)
            .unwrap()
            .contains("compiling the provider component")
    );
}

/// A compile cache on a disk that fills up mid-write: the process may write at most 1.5 MiB
/// per file (RLIMIT_FSIZE; writes past it fail as on a full disk, with SIGXFSZ ignored), so
/// storing the compiled component (about 3 MiB) fails partway, while wasmtime's in-memory
/// images of the instance's memory (smaller) still fit. The provider is compiled in
/// memory and served, the log says so once, and no partial entry is left behind.
#[tokio::test]
async fn a_cache_disk_that_fills_up_mid_write_costs_one_warning_and_leaves_nothing() {
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let log = dir.path().join("server.log");
    let mut cmd = Command::new(tfwasm_tests::tfwasm_bin());
    cmd.args(["serve", "--component"])
        .arg(tfwasm_tests::component("random"))
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("TFWASM_CACHE_DIR", &cache)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap());
    // SAFETY: between fork and exec only async-signal-safe calls (setrlimit, signal).
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 1536 << 10,
                rlim_max: 1536 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let server = Server::from_child(cmd.spawn().expect("start tfwasm serve"));
    assert_eq!(schema_types(&server).await, 8, "served from memory");
    assert_eq!(schema_types(&server).await, 8);
    drop(server);
    let log = std::fs::read_to_string(&log).unwrap();
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("cannot write the compile cache"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning:\n{log}");
    assert!(warnings[0].contains("File too large"), "{warnings:?}");
    let left: Vec<_> = std::fs::read_dir(&cache)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|name| !name.to_string_lossy().ends_with(".cwasm")
                && !name.to_string_lossy().contains("tmp")),
        "no entry, no partial file: {left:?}"
    );
}

/// The nineteenth hostile pass: a read-write grant holding the compile cache (or the
/// component's own directory) let a guest replace code a later start loads natively. Such a
/// provider does not start; the error names both directories and the setting to change.
#[test]
fn a_read_write_grant_holding_the_compile_cache_stops_the_start() {
    let home = tempfile::tempdir().unwrap();
    let package = tempfile::tempdir().unwrap();
    let component = package.path().join("random.wasm");
    std::fs::copy(tfwasm_tests::component("random"), &component).unwrap();
    std::fs::write(
        package.path().join("tfwasm.toml"),
        format!(
            "[grants]\ndirs = [\"{}:/home:rw\"]\n",
            home.path().display()
        ),
    )
    .unwrap();
    let cache = home.path().join(".cache/tfwasm");
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["serve", "--component"])
        .arg(&component)
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("TFWASM_CACHE_DIR", &cache)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tfwasm serve");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "no handshake line");
    assert!(
        stderr.contains("the compile cache")
            && stderr.contains("granted read-write to the guest as /home")
            && stderr.contains("TFWASM_CACHE_DIR"),
        "{stderr}"
    );
}

/// The twenty-sixth hostile pass: `tfwasm harness` (what `tfwasm new` crates test through)
/// loaded a component with a read-write grant holding the compile cache, and a guest
/// replaced another provider's cached code; and `serve` accepted a read-write grant of the
/// working directory, where a guest wrote a `.tf` file whose `local-exec` the next apply ran.
/// Every load refuses both.
#[test]
fn no_load_accepts_a_read_write_grant_of_the_cache_or_the_working_directory() {
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join(".cache/tfwasm");
    std::fs::create_dir_all(&cache).unwrap();
    let harness = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("harness")
        .arg(tfwasm_tests::component("random"))
        .arg("--allow-dir")
        .arg(format!("{}:/home:rw", home.path().display()))
        .env("TFWASM_CACHE_DIR", &cache)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tfwasm harness");
    let stderr = String::from_utf8_lossy(&harness.stderr);
    assert!(!harness.status.success(), "{stderr}");
    assert!(
        stderr.contains("the compile cache") && stderr.contains("as /home"),
        "{stderr}"
    );

    let working = tempfile::tempdir().unwrap();
    let package = tempfile::tempdir().unwrap();
    let component = package.path().join("random.wasm");
    std::fs::copy(tfwasm_tests::component("random"), &component).unwrap();
    std::fs::write(
        package.path().join("tfwasm.toml"),
        format!(
            "[grants]\ndirs = [\"{}:/work:rw\"]\n",
            working.path().display()
        ),
    )
    .unwrap();
    let serve = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["serve", "--component"])
        .arg(&component)
        .current_dir(working.path())
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tfwasm serve");
    let stderr = String::from_utf8_lossy(&serve.stderr);
    assert_eq!(serve.status.code(), Some(1), "{stderr}");
    assert!(serve.stdout.is_empty(), "no handshake line");
    assert!(
        stderr.contains("the working directory") && stderr.contains("Terraform runs"),
        "{stderr}"
    );
}
