//! A package on a CPU older than its precompiled code's baseline (x86-64-v2): the package's
//! executable run under Debian's qemu-user as a Core 2 of 2008 (`-cpu Penryn`: no SSE4.2,
//! no POPCNT), a CPU level this machine lacks. The compiler-less runner refuses to start,
//! naming every missing feature and the flag that helps; a package made with
//! `--fallback-compiler` compiles the provider for that CPU and serves a plan and an apply.

use std::process::{Command, Stdio};

use tfwasm_tests::plugin::{Server, TlsClient};
use tfwasm_wire::proto::tfplugin6 as pb;

/// `tfwasm package` of the random sample into `out` with `extra` flags; its executable.
fn package(out: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let extra: Vec<&std::ffi::OsStr> = extra.iter().map(std::ffi::OsStr::new).collect();
    let run = crate::arm64::package_run(out, &extra);
    assert!(
        run.status.success(),
        "tfwasm package {extra:?} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out.join(
        "registry.terraform.io/tfwasm/random/0.1.0/linux_amd64/terraform-provider-random_v0.1.0",
    )
}

/// The package's executable as Terraform starts it, on a Penryn.
fn on_penryn(exe: &std::path::Path, tls: &TlsClient, cache: &std::path::Path) -> Command {
    let mut cmd = Command::new(tfwasm_tests::qemu_x86_64());
    cmd.args(["-cpu", "Penryn"])
        .arg(exe)
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", &tls.pem)
        .env("TFWASM_CACHE_DIR", cache)
        .stdin(Stdio::null());
    cmd
}

#[tokio::test]
async fn an_older_cpu_is_told_what_it_lacks_and_a_fallback_package_compiles_for_it() {
    let tls = TlsClient::generate();
    // A cache of its own: entries compiled for this machine's CPU are not the Penryn's.
    let cache = tempfile::tempdir().expect("temp dir");

    let lean = tempfile::tempdir().expect("temp dir");
    let exe = package(lean.path(), &[]);
    let refused = on_penryn(&exe, &tls, cache.path())
        .output()
        .expect("run the package under qemu-x86_64");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    for want in [
        "compiled for x86-64-v2 CPUs",
        "this CPU lacks sse4.2, popcnt",
        "--fallback-compiler",
    ] {
        assert!(stderr.contains(want), "{want:?} in:\n{stderr}");
    }
    assert!(
        !stderr.contains("has_sse42"),
        "in words, not Cranelift's flags: {stderr}"
    );
    let kept: Vec<_> = std::fs::read_dir(cache.path())
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        kept.iter()
            .all(|n| !n.to_string_lossy().ends_with(".cwasm")),
        "code this CPU cannot run is not kept (it would be remade at every start): {kept:?}"
    );

    let fallback = tempfile::tempdir().expect("temp dir");
    let exe = package(fallback.path(), &["--fallback-compiler"]);
    assert!(
        exe.with_file_name("component.wasm").is_file(),
        "the fallback package carries the component to compile"
    );
    let child = on_penryn(&exe, &tls, cache.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the fallback package under qemu-x86_64");
    let server = Server::from_child(child);
    assert!(
        server.handshake.starts_with("1|6|unix|"),
        "{}",
        server.handshake
    );
    let mut client = pb::provider_client::ProviderClient::new(server.channel(Some(&tls)).await);
    let result = crate::versions::create_random_string(&mut client).await;
    assert_eq!(result.chars().count(), 12, "{result:?}");
    let compiled = std::fs::read_dir(cache.path())
        .expect("the compile cache was written")
        .flatten()
        .any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            // Compiled here, not the package's code unpacked (which this CPU cannot run).
            name.ends_with(".cwasm") && !name.ends_with("-unpacked.cwasm")
        });
    assert!(compiled, "the Penryn's code is kept in its compile cache");
}

#[test]
fn the_fallback_compiler_is_for_this_machines_platform() {
    let out = tempfile::tempdir().expect("temp dir");
    let run = crate::arm64::package_run(
        out.path(),
        &[
            "--platform".as_ref(),
            "linux_arm64".as_ref(),
            "--fallback-compiler".as_ref(),
        ],
    );
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("--fallback-compiler ships this tfwasm, which runs on linux_amd64"),
        "{stderr}"
    );
}
