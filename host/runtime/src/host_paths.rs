//! What no read-write grant may hold: the files the host loads or reads on its own behalf
//! (the component's directory with its precompiled code and `tfwasm.toml`, the compile
//! cache, the settings), and those Terraform runs (the working directory's `*.tf`,
//! `.terraform` and lock file; the CLI configuration and plugin directories). A guest
//! granted any of them could replace code that later runs outside the sandbox: native code
//! the host loads, or a `local-exec` provisioner and a provider binary Terraform runs.
//!
//! Every load checks them ([`WasmProvider::load`](crate::WasmProvider::load)), so `serve`,
//! the test harness and every command that runs a guest refuse the same grants.

use std::path::{Path, PathBuf};

use crate::DirGrant;
use crate::grants::{resolved, writable_grant_holding};

/// One path no read-write grant may hold.
#[derive(Debug, Clone)]
pub struct HostPath {
    /// What it is, for the operator (`the compile cache`).
    pub what: &'static str,
    /// Where it is.
    pub path: PathBuf,
    /// What a guest writing there could do.
    pub risk: &'static str,
    /// What the operator changes instead.
    pub fix: &'static str,
}

/// A read-write grant holds one of the [`HostPath`]s.
#[derive(Debug, thiserror::Error)]
#[error(
    "{what} {path} lies inside {grant}, granted read-write to the guest as {guest}: {risk}; {fix}, or grant a narrower directory"
)]
pub struct HostPathGranted {
    what: &'static str,
    path: String,
    grant: String,
    guest: String,
    risk: &'static str,
    fix: &'static str,
}

/// The risk of a path the host loads code or settings from.
pub const HOST_CODE: &str = "the guest could replace code or settings the host loads";
const TERRAFORM_RUNS: &str =
    "the guest could write what Terraform runs (a provisioner in a .tf file, a provider binary)";

/// The paths every start protects for `component`, with the compile cache in `cache_dir`:
/// the component's directory (as named, and with symlinks followed), the cache, the working
/// directory, and Terraform's own files named by its environment (`TF_DATA_DIR`,
/// `TF_CLI_CONFIG_FILE`, `TF_PLUGIN_CACHE_DIR`) or found in `$HOME` (`.terraformrc`,
/// `.tofurc`, `.terraform.d`).
pub fn host_paths(component: &Path, cache_dir: &Path) -> Vec<HostPath> {
    let package = |path: PathBuf| HostPath {
        what: "the component's directory (with its precompiled code and tfwasm.toml)",
        path,
        risk: HOST_CODE,
        fix: "keep the component outside every read-write grant",
    };
    let terraform = |what, path| HostPath {
        what,
        path,
        risk: TERRAFORM_RUNS,
        fix: "grant a directory of its own instead",
    };
    let mut paths = vec![
        package(
            resolved(component)
                .parent()
                .unwrap_or(Path::new("/"))
                .to_owned(),
        ),
        package(
            (component.parent())
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_owned(),
        ),
        HostPath {
            what: "the compile cache",
            path: cache_dir.to_owned(),
            risk: HOST_CODE,
            fix: "set TFWASM_CACHE_DIR (or --cache-dir) outside every read-write grant",
        },
        terraform(
            "the working directory (Terraform's configuration, .terraform and lock file)",
            PathBuf::from("."),
        ),
    ];
    for (name, what) in [
        ("TF_DATA_DIR", "Terraform's data directory (TF_DATA_DIR)"),
        (
            "TF_CLI_CONFIG_FILE",
            "Terraform's CLI configuration (TF_CLI_CONFIG_FILE)",
        ),
        (
            "TF_PLUGIN_CACHE_DIR",
            "Terraform's plugin cache (TF_PLUGIN_CACHE_DIR)",
        ),
    ] {
        if let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            paths.push(terraform(what, PathBuf::from(value)));
        }
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        for (name, what) in [
            (
                ".terraformrc",
                "Terraform's CLI configuration (~/.terraformrc)",
            ),
            (".tofurc", "OpenTofu's CLI configuration (~/.tofurc)"),
            (
                ".terraform.d",
                "Terraform's plugin directory (~/.terraform.d)",
            ),
        ] {
            paths.push(terraform(what, home.join(name)));
        }
    }
    paths
}

/// Refuses `dirs` when a read-write grant holds any of `paths` (or a directory on the way to
/// one: see [`writable_grant_holding`]).
///
/// # Errors
/// The first such path, the grant and what to change.
pub fn refuse_granted(dirs: &[DirGrant], paths: &[HostPath]) -> Result<(), HostPathGranted> {
    for host in paths {
        if let Some(grant) = writable_grant_holding(dirs, &host.path) {
            return Err(HostPathGranted {
                what: host.what,
                path: host.path.display().to_string(),
                grant: grant.host.display().to_string(),
                guest: grant.guest.clone(),
                risk: host.risk,
                fix: host.fix,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(host: &Path, writable: bool) -> DirGrant {
        DirGrant {
            host: host.to_owned(),
            guest: "/home".into(),
            writable,
            modes: writable,
        }
    }

    #[test]
    fn a_read_write_grant_may_not_hold_the_component_or_the_cache() {
        let home = tempfile::tempdir().unwrap();
        let package = home.path().join("pkg");
        let cache = home.path().join("cache");
        std::fs::create_dir_all(&package).unwrap();
        let component = package.join("component.wasm");
        let outside = tempfile::tempdir().unwrap();
        let refused = |dirs: &[DirGrant], cache: &Path| {
            refuse_granted(dirs, &host_paths(&component, cache))
                .err()
                .map(|e| e.to_string())
        };
        let error = refused(&[grant(home.path(), true)], outside.path()).expect("refused");
        assert!(
            error.contains("component's directory") && error.contains("/home"),
            "{error}"
        );
        let error = refused(&[grant(&cache, true)], &cache).expect("refused");
        assert!(
            error.contains("compile cache") && error.contains("TFWASM_CACHE_DIR"),
            "{error}"
        );
        assert_eq!(
            refused(&[grant(home.path(), false)], &cache),
            None,
            "read-only"
        );
        assert_eq!(
            refused(&[grant(outside.path(), true)], &cache),
            None,
            "elsewhere"
        );
    }

    /// The twenty-sixth hostile pass: a read-write grant of Terraform's working directory
    /// was accepted, and a guest wrote a `.tf` file whose `local-exec` provisioner the next
    /// apply ran (as the operator).
    #[test]
    fn a_read_write_grant_may_not_hold_the_working_directory_or_terraforms_files() {
        let elsewhere = tempfile::tempdir().unwrap();
        let component = elsewhere.path().join("pkg").join("component.wasm");
        let cache = elsewhere.path().join("cache");
        let working = std::env::current_dir().unwrap();
        let error = refuse_granted(&[grant(&working, true)], &host_paths(&component, &cache))
            .expect_err("the working directory");
        assert!(
            error.to_string().contains("working directory")
                && error.to_string().contains("Terraform runs"),
            "{error}"
        );
        let parent = working.parent().unwrap_or(&working);
        assert!(
            refuse_granted(&[grant(parent, true)], &host_paths(&component, &cache)).is_err(),
            "a directory holding it"
        );
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            assert!(
                refuse_granted(
                    &[grant(Path::new(&home), true)],
                    &host_paths(&component, &cache)
                )
                .is_err(),
                "the home directory holds ~/.terraformrc and ~/.terraform.d"
            );
        }
        let inside = tempfile::tempdir_in(elsewhere.path()).unwrap();
        assert!(
            refuse_granted(
                &[grant(inside.path(), true)],
                &host_paths(&component, &cache)
            )
            .is_ok(),
            "a directory of its own"
        );
    }
}
