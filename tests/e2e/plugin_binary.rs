//! The packaged provider binary behaves like a go-plugin server when run by hand.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[test]
fn without_the_magic_cookie_it_explains_itself_and_exits_1() {
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("serve")
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .expect("run tfwasm serve");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("This binary is a plugin. These are not meant to be executed directly."),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout");
}

#[test]
fn help_explains_every_subcommand() {
    for sub in [
        &["--help"][..],
        &["serve", "--help"],
        &["package", "--help"],
        &["inspect", "--help"],
    ] {
        let out = Command::new(tfwasm_tests::tfwasm_bin())
            .args(sub)
            .output()
            .expect("run tfwasm");
        assert!(out.status.success(), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{sub:?}: {text}");
    }
}

#[test]
fn package_rejects_a_file_that_is_not_a_component() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.wasm");
    std::fs::write(&fake, b"not wasm").unwrap();
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .args(["package"])
        .arg(&fake)
        .args([
            "--source",
            "registry.terraform.io/x/y",
            "--version",
            "1.0.0",
            "--out",
        ])
        .arg(dir.path().join("mirror"))
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a valid WebAssembly component"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("mirror").exists(),
        "nothing written for a bad component"
    );
}

/// `--ca-file` copies the CA into the package (so the mirror can move) and names it
/// relative to tfwasm.toml; a missing or empty CA file fails packaging, naming the file.
#[test]
fn package_carries_its_ca_files_and_refuses_unusable_ones() {
    let dir = tempfile::tempdir().unwrap();
    let package = |ca: &std::path::Path| {
        Command::new(tfwasm_tests::tfwasm_bin())
            .arg("package")
            .arg(tfwasm_tests::component("hostile"))
            .args([
                "--source",
                "registry.terraform.io/example/hostile",
                "--version",
                "1.0.0",
                "--allow-http",
                "https://localhost:8443",
                "--https-proxy",
                "http://127.0.0.1:3128",
                "--out",
            ])
            .arg(dir.path().join("mirror"))
            .arg("--ca-file")
            .arg(ca)
            .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
            .output()
            .unwrap()
    };
    let missing = dir.path().join("missing-ca.pem");
    let out = package(&missing);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing-ca.pem"), "{stderr}");

    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "no certificates here\n").unwrap();
    let out = package(&empty);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("empty.pem") && stderr.contains("no certificates"),
        "{stderr}"
    );

    let ca = dir.path().join("corp-root.pem");
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    std::fs::write(&ca, params.self_signed(&key).unwrap().pem()).unwrap();
    let out = package(&ca);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let platform = dir
        .path()
        .join("mirror/registry.terraform.io/example/hostile/1.0.0/linux_amd64");
    let settings = std::fs::read_to_string(platform.join("tfwasm.toml")).unwrap();
    assert!(
        settings.contains("ca_files = [\"ca/1-corp-root.pem\"]"),
        "{settings}"
    );
    assert!(
        settings.contains("https_proxy = \"http://127.0.0.1:3128\""),
        "{settings}"
    );
    assert_eq!(
        std::fs::read(platform.join("ca/1-corp-root.pem")).unwrap(),
        std::fs::read(&ca).unwrap()
    );
    // `tfwasm inspect` on the packaged component reads the package's settings.
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("inspect")
        .arg(platform.join("component.cwasm"))
        .env("TFWASM_CACHE_DIR", tfwasm_tests::cache_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "http:    https://localhost:8443",
        "ca/1-corp-root.pem",
        "https http://127.0.0.1:3128",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
}

/// Runs `tfwasm package` on the random sample into `mirror` with extra flags.
fn run_package(mirror: &Path, cache: &Path, flags: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(tfwasm_tests::tfwasm_bin())
        .arg("package")
        .arg(tfwasm_tests::component("random"))
        .args([
            "--source",
            "registry.terraform.io/example/random",
            "--version",
            "1.0.0",
            "--out",
        ])
        .arg(mirror)
        .args(flags)
        .env("TFWASM_CACHE_DIR", cache)
        .output()
        .unwrap()
}

/// Packages the random sample into `mirror` with extra flags; returns the package directory.
fn package_random(mirror: &Path, cache: &Path, flags: &[&std::ffi::OsStr]) -> PathBuf {
    let out = run_package(mirror, cache, flags);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let binary = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    binary.parent().unwrap().to_owned()
}

/// Starts a package's provider executable as Terraform does; returns its handshake line, or
/// its exit code and stderr when it does not get that far.
fn start_package(package: &Path, cache: &Path) -> Result<String, (Option<i32>, String)> {
    let mut child = Command::new(package.join("terraform-provider-random_v1.0.0"))
        .env(
            "TF_PLUGIN_MAGIC_COOKIE",
            tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("TFWASM_CACHE_DIR", cache)
        .env_remove("PLUGIN_CLIENT_CERT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.is_empty() {
        let out = child.wait_with_output().unwrap();
        return Err((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    Ok(line)
}

/// A package ships the compiler-less runner and the component's code precompiled for the
/// platform's baseline CPU, so it starts on a machine whose compile cache is empty without
/// compiling. When that code cannot be used, the runner says what to do; a package that ships
/// the full tfwasm (`--runner`) compiles instead.
#[test]
fn a_package_serves_its_precompiled_code_without_a_compiler() {
    let dir = tempfile::tempdir().unwrap();
    let package = package_random(&dir.path().join("mirror"), &tfwasm_tests::cache_dir(), &[]);
    let binary = package.join("terraform-provider-random_v1.0.0");
    assert_eq!(
        std::fs::read(&binary).unwrap(),
        std::fs::read(tfwasm_tests::runner_bin()).unwrap(),
        "the package's executable is the runner"
    );
    assert!(
        !package.join("component.wasm").exists(),
        "a runner package carries only the precompiled code, not the component it cannot compile"
    );
    let runner_size = std::fs::metadata(&binary).unwrap().len();
    let tfwasm_size = std::fs::metadata(tfwasm_tests::tfwasm_bin()).unwrap().len();
    assert!(
        runner_size < tfwasm_size,
        "the runner ({runner_size} bytes) leaves the compiler out of tfwasm ({tfwasm_size} bytes)"
    );

    // A machine that never compiled anything: the package still starts, and compiles nothing:
    // the cache holds only the code unpacked from the package (its code is compressed).
    let empty_cache = dir.path().join("empty-cache");
    let line = start_package(&package, &empty_cache).expect("the package starts");
    assert!(line.starts_with("1|6|unix|"), "{line}");
    assert_eq!(
        (cache_code(&empty_cache).iter())
            .filter(|name| name.ends_with("-unpacked.cwasm"))
            .count(),
        1,
        "the package's code unpacked once"
    );
    assert!(compiled_code(&empty_cache).is_empty(), "nothing compiled");
    let code = std::fs::metadata(package.join("component.cwasm"))
        .unwrap()
        .len() as usize;
    let unpacked = std::fs::metadata(empty_cache.join(&cache_code(&empty_cache)[0]))
        .unwrap()
        .len() as usize;
    assert!(
        code * 2 < unpacked,
        "the package carries its code compressed: {code} bytes for {unpacked}"
    );
    let out = Command::new(tfwasm_tests::tfwasm_bin())
        .arg("inspect")
        .arg(package.join("component.cwasm"))
        .env("TFWASM_CACHE_DIR", &empty_cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("loaded:    from the package's precompiled code"),
        "{stdout}"
    );

    // Compressed code cut short is refused, saying so.
    let packed = std::fs::read(package.join("component.cwasm")).unwrap();
    std::fs::write(package.join("component.cwasm"), &packed[..packed.len() / 2]).unwrap();
    let (code, stderr) =
        start_package(&package, &dir.path().join("cut-cache")).expect_err("refuses to start");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("compressed code is damaged"), "{stderr}");

    // Code this runner cannot use (damaged here; a CPU older than the baseline is told what
    // it lacks: tests/protocol/cpu_features.rs).
    std::fs::write(package.join("component.cwasm"), b"not machine code").unwrap();
    let (code, stderr) = start_package(&package, &empty_cache).expect_err("refuses to start");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot use the precompiled provider code")
            && stderr.contains("component.cwasm")
            && stderr.contains("Package the provider again with this tfwasm release")
            && stderr.contains("--fallback-compiler"),
        "{stderr}"
    );

    // `--uncompressed` ships the code as it is, mapped at each start: nothing is unpacked.
    let plain = package_random(
        &dir.path().join("mirror-plain"),
        &tfwasm_tests::cache_dir(),
        &["--uncompressed".as_ref()],
    );
    let code = std::fs::read(plain.join("component.cwasm")).unwrap();
    assert_eq!(&code[..4], b"\x7fELF", "the code as it is");
    let plain_cache = dir.path().join("plain-cache");
    let line = start_package(&plain, &plain_cache).expect("the package starts");
    assert!(line.starts_with("1|6|unix|"), "{line}");
    assert!(
        cache_code(&plain_cache).is_empty(),
        "nothing unpacked or compiled"
    );

    // The full tfwasm as the package's executable falls back to compiling.
    let tfwasm = tfwasm_tests::tfwasm_bin();
    let package = package_random(
        &dir.path().join("mirror-full"),
        &tfwasm_tests::cache_dir(),
        &["--runner".as_ref(), tfwasm.as_os_str()],
    );
    assert!(
        package.join("component.wasm").is_file(),
        "a full tfwasm's package carries the component to compile"
    );
    std::fs::write(package.join("component.cwasm"), b"not machine code").unwrap();
    let line = start_package(&package, &empty_cache).expect("compiles instead");
    assert!(line.starts_with("1|6|unix|"), "{line}");
    assert!(
        !compiled_code(&empty_cache).is_empty(),
        "compiled into the cache"
    );
}

/// The code files in a compile cache (`*.cwasm`; the index aside).
fn cache_code(cache: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".cwasm"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The code in a compile cache that was compiled, not unpacked from a package.
fn compiled_code(cache: &std::path::Path) -> Vec<String> {
    (cache_code(cache).into_iter())
        .filter(|n| !n.ends_with("-unpacked.cwasm"))
        .collect()
}

#[test]
fn package_refuses_another_platform_and_a_runner_of_another_version() {
    let dir = tempfile::tempdir().unwrap();
    let package = |flags: &[&str]| {
        let flags: Vec<&std::ffi::OsStr> = flags.iter().map(|f| f.as_ref()).collect();
        run_package(
            &dir.path().join("mirror"),
            &tfwasm_tests::cache_dir(),
            &flags,
        )
    };
    let out = package(&["--platform", "windows_sparc"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("windows_sparc") && stderr.contains("linux_amd64, linux_arm64"),
        "{stderr}"
    );
    let impostor = dir.path().join("old-runner");
    std::fs::write(&impostor, "#!/bin/sh\necho tfwasm-runner 0.0.1\n").unwrap();
    std::fs::set_permissions(
        &impostor,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = package(&["--runner", impostor.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a tfwasm runner of this version") && stderr.contains("0.0.1"),
        "{stderr}"
    );
    assert!(!dir.path().join("mirror").exists(), "nothing written");
}

#[test]
fn the_runner_explains_itself() {
    let out = Command::new(tfwasm_tests::runner_bin())
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("tfwasm serve --component"));
    let out = Command::new(tfwasm_tests::runner_bin())
        .env_remove("TF_PLUGIN_MAGIC_COOKIE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("This binary is a plugin."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The development loop: a package rebuilt under the same version (here with another
/// setting, so its hashes change as a rebuilt component's would) breaks the lock file of a
/// filesystem-mirror install, and `init -upgrade` does not help; with the configuration
/// `tfwasm dev-overrides` prints, the newest package runs at every plan with no lock-file
/// check and no `init`.
#[test]
fn dev_overrides_run_a_rebuilt_package_without_touching_the_lock_file() {
    let cache = tfwasm_tests::cache_dir();
    for client in tfwasm_tests::clients() {
        let name = &client.name;
        let mirror = tempfile::tempdir().unwrap();
        package_random(mirror.path(), &cache, &[]);
        let config = r#"
terraform {
  required_providers {
    random = { source = "registry.terraform.io/example/random" }
  }
}
resource "random_string" "s" {
  length = 8
}
"#;
        // As a mirror install: locked, then refused once rebuilt.
        let locked = tfwasm_tests::Workspace::with_mirror(client, config, mirror.path());
        locked.ok(&["init", "-no-color"]);
        package_random(
            mirror.path(),
            &cache,
            &["--fuel".as_ref(), "20000000000".as_ref()],
        );
        let refused = locked.run(&["init", "-upgrade", "-no-color"]);
        assert_ne!(refused.code, 0, "{name}: {}", refused.all());
        assert!(
            tfwasm_tests::flatten(&refused.all()).contains("checksum"),
            "{name}: the lock file refuses the rebuilt package:\n{}",
            refused.all()
        );

        // With dev_overrides: no init, and every rebuild runs.
        let out = Command::new(tfwasm_tests::tfwasm_bin())
            .arg("dev-overrides")
            .arg(mirror.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rc = String::from_utf8(out.stdout).unwrap();
        assert!(rc.contains("dev_overrides"), "{rc}");
        let dev = tfwasm_tests::Workspace::with_mirror(client, config, mirror.path());
        std::fs::write(dev.path().join("cli.tfrc"), &rc).unwrap();
        let apply = dev.ok(&["apply", "-auto-approve", "-no-color"]);
        assert!(
            tfwasm_tests::flatten(&apply.all()).contains("development overrides"),
            "{name}: {}",
            apply.all()
        );
        package_random(
            mirror.path(),
            &cache,
            &["--fuel".as_ref(), "30000000000".as_ref()],
        );
        let plan = dev.run(&["plan", "-detailed-exitcode", "-no-color"]);
        assert_eq!(
            plan.code,
            0,
            "{name}: the rebuilt package runs: {}",
            plan.all()
        );
        assert!(
            !dev.path().join(".terraform.lock.hcl").exists(),
            "{name}: nothing was locked"
        );
    }
}
