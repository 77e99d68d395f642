//! The packaged provider binary behaves like a go-plugin server when run by hand.

use std::process::Command;

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
        .arg(platform.join("component.wasm"))
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
