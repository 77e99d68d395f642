//! The scripts that fetch the tests' clients: a cached client is recognised by what it prints,
//! however its output is written, and offline.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory holding only the programs `fetch-opentofu.sh` runs before it would reach for
/// Go (and the fake tofu's `sleep`), so a run that misses the cache fails saying so instead of
/// building from the network.
fn path_without_go(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["bash", "sh", "grep", "sleep"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{tool} is not in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
    }
    bin
}

/// A cached `tofu` of `version` that writes `version`'s output as OpenTofu does, a line at a
/// time, with a pause after the first line: the pause is what a loaded machine adds.
fn cached_tofu(tools: &Path, version: &str, prints: &str) -> PathBuf {
    let dir = tools.join(format!("opentofu-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let tofu = dir.join("tofu");
    std::fs::write(
        &tofu,
        format!(
            "#!/bin/sh\n[ \"$1\" = version ] || exit 64\necho 'OpenTofu {prints}'\nsleep 0.3\necho 'on linux_amd64'\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&tofu, std::fs::Permissions::from_mode(0o755)).unwrap();
    tofu
}

fn fetch_opentofu(tools: &Path, path: &Path, version: &str) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/fetch-opentofu.sh");
    Command::new(path.join("bash"))
        .arg(script)
        .arg(version)
        .env_clear()
        .env("PATH", path)
        .env("HOME", tools)
        .env("TFWASM_TOOLS_DIR", tools)
        .output()
        .unwrap()
}

/// CI once failed right after building OpenTofu: the check piped `tofu version` into
/// `grep -q`, which exits at the first match, so tofu's next line died of SIGPIPE and pipefail
/// failed the check. With the pause after the first line, that check fails every time.
#[test]
fn fetch_opentofu_takes_a_cached_build_whose_version_comes_a_line_at_a_time() {
    let tools = tempfile::tempdir().unwrap();
    let path = path_without_go(tools.path());
    let tofu = cached_tofu(tools.path(), "1.10.10", "v1.10.10");

    let out = fetch_opentofu(tools.path(), &path, "1.10.10");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the cached build was not taken: {}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().next_back(), Some(tofu.to_str().unwrap()));
}

#[test]
fn fetch_opentofu_refuses_a_cached_binary_of_another_version_and_says_go_is_missing() {
    let tools = tempfile::tempdir().unwrap();
    let path = path_without_go(tools.path());
    cached_tofu(tools.path(), "1.10.10", "v1.10.9");

    let out = fetch_opentofu(tools.path(), &path, "1.10.10");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a binary of v1.10.9 was taken for v1.10.10"
    );
    assert!(stderr.contains("Go is not installed"), "{stderr}");
}
