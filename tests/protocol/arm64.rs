//! linux_arm64 packages made on this amd64 machine: `tfwasm package --platform linux_arm64`
//! with the cross-compiled runner (`scripts/build-runner-arm64.sh`, which `make build` runs),
//! then the package's own executable run under Debian's qemu-user through the go-plugin
//! handshake with AutoMTLS, and a plan and an apply from our gRPC client. One `--archive`
//! folder lists both platforms.

use std::process::{Command, Stdio};

use serde_json::Value;
use tfwasm_tests::plugin::{Server, TlsClient};
use tfwasm_wire::proto::tfplugin6 as pb;

/// The ELF machine of an executable: 62 x86-64, 183 AArch64.
fn elf_machine(path: &std::path::Path) -> u16 {
    let bytes = std::fs::read(path).expect("read the executable");
    assert_eq!(&bytes[..4], b"\x7fELF", "{} is not ELF", path.display());
    u16::from_le_bytes([bytes[18], bytes[19]])
}

/// `tfwasm package` of the random sample into `out` with `extra` flags (also `cpu_features.rs`).
pub(crate) fn package_run(
    out: &std::path::Path,
    extra: &[&std::ffi::OsStr],
) -> std::process::Output {
    Command::new(tfwasm_tests::tfwasm_bin())
        .arg("package")
        .arg(tfwasm_tests::component("random"))
        .args([
            "--source",
            "registry.terraform.io/tfwasm/random",
            "--version",
            "0.1.0",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .expect("run tfwasm package")
}

fn package(out: &std::path::Path, dist: &std::path::Path, extra: &[&std::ffi::OsStr]) {
    let mut flags: Vec<&std::ffi::OsStr> = vec!["--archive".as_ref(), dist.as_os_str()];
    flags.extend_from_slice(extra);
    let run = package_run(out, &flags);
    assert!(
        run.status.success(),
        "tfwasm package {extra:?} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[tokio::test]
async fn an_arm64_package_made_on_amd64_serves_a_plan_and_apply_under_qemu() {
    let runner = tfwasm_tests::arm64_runner_bin();
    let (qemu, sysroot) = tfwasm_tests::qemu_aarch64();
    let out = tempfile::tempdir().expect("temp dir");
    let dist = tempfile::tempdir().expect("temp dir");
    package(
        out.path(),
        dist.path(),
        &[
            "--platform".as_ref(),
            "linux_arm64".as_ref(),
            "--runner".as_ref(),
            runner.as_os_str(),
        ],
    );
    package(out.path(), dist.path(), &[]);

    // One folder, both platforms, as a network mirror or a registry serves them.
    let version: Value = serde_json::from_slice(
        &std::fs::read(
            dist.path()
                .join("registry.terraform.io/tfwasm/random/0.1.0.json"),
        )
        .expect("VERSION.json"),
    )
    .expect("JSON");
    for platform in ["linux_amd64", "linux_arm64"] {
        assert!(
            version["archives"][platform].is_object(),
            "{platform}: {version}"
        );
    }

    let dir = out.path().join("registry.terraform.io/tfwasm/random/0.1.0");
    let exe = dir.join("linux_arm64/terraform-provider-random_v0.1.0");
    assert_eq!(
        elf_machine(&exe),
        183,
        "the arm64 package carries an AArch64 runner"
    );
    assert_eq!(
        elf_machine(&dir.join("linux_amd64/terraform-provider-random_v0.1.0")),
        62
    );
    let packed = std::fs::read(dir.join("linux_arm64/component.cwasm")).expect("arm64 code");
    let arm64_code = zstd::decode_all(&packed[..]).expect("the package's code is compressed");
    assert_eq!(&arm64_code[..4], b"\x7fELF");
    assert_eq!(u16::from_le_bytes([arm64_code[18], arm64_code[19]]), 183);

    let tls = TlsClient::generate();
    let child = Command::new(&qemu)
        .arg("-L")
        .arg(&sysroot)
        .arg(&exe)
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", &tls.pem)
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the arm64 package under qemu-aarch64");
    let server = Server::from_child(child);
    assert!(
        server.handshake.starts_with("1|6|unix|"),
        "{}",
        server.handshake
    );
    let mut client = pb::provider_client::ProviderClient::new(server.channel(Some(&tls)).await);
    let result = crate::versions::create_random_string(&mut client).await;
    assert_eq!(result.chars().count(), 12, "{result:?}");
}

#[test]
fn another_platform_needs_its_runner_and_refuses_a_wrong_one() {
    let out = tempfile::tempdir().expect("temp dir");
    let run = |extra: &[&std::ffi::OsStr]| {
        let run = package_run(out.path(), extra);
        assert!(!run.status.success());
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    let missing = run(&["--platform".as_ref(), "linux_arm64".as_ref()]);
    assert!(missing.contains("--runner"), "{missing}");
    let amd64 = tfwasm_tests::runner_bin();
    let wrong = run(&[
        "--platform".as_ref(),
        "linux_arm64".as_ref(),
        "--runner".as_ref(),
        amd64.as_os_str(),
    ]);
    assert!(
        wrong.contains("not an arm64 executable") || wrong.contains("x86-64"),
        "{wrong}"
    );
    let unknown = run(&["--platform".as_ref(), "windows_amd64".as_ref()]);
    assert!(
        unknown.contains("linux_arm64"),
        "the error lists what can be made: {unknown}"
    );
}
