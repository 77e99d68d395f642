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
    /// Whether what lies *inside* it is run or loaded too (a plugin directory, `.terraform`
    /// with its module copies, the compile cache): a grant of any directory within it is
    /// refused as well as one holding it.
    pub contents_run: bool,
}

/// A read-write grant holds one of the [`HostPath`]s.
#[derive(Debug, thiserror::Error)]
#[error(
    "{what} {path} overlaps {grant}, granted read-write to the guest as {guest}: {risk}; {fix}, or grant another directory"
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
    // A grant inside the component's directory is one of its own (`./data` beside a
    // component served with `--debug`): what the host loads from there (the executable,
    // `component.cwasm`, `tfwasm.toml`) lies in the directory itself, out of its reach.
    let package = |path: PathBuf| HostPath {
        what: "the component's directory (with its precompiled code and tfwasm.toml)",
        path,
        risk: HOST_CODE,
        fix: "keep the component outside every read-write grant",
        contents_run: false,
    };
    let terraform = |what, path| HostPath {
        what,
        path,
        risk: TERRAFORM_RUNS,
        fix: "grant a directory of its own instead",
        contents_run: false,
    };
    let runs_inside = |what, path| HostPath {
        contents_run: true,
        ..terraform(what, path)
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
            contents_run: true,
        },
        terraform(
            "the working directory (Terraform's configuration, .terraform and lock file)",
            PathBuf::from("."),
        ),
        runs_inside(
            "Terraform's data directory (.terraform: modules, providers)",
            PathBuf::from(".terraform"),
        ),
        runs_inside(
            "the working directory's plugin directory (terraform.d)",
            PathBuf::from("terraform.d"),
        ),
    ];
    // A relative path in Terraform's environment is read from where Terraform started,
    // before `-chdir` (which moves the provider's working directory, not `PWD`): both.
    let started = std::env::var_os("PWD").map(PathBuf::from);
    let from_environment = |value: std::ffi::OsString| {
        let path = PathBuf::from(value);
        let mut both = vec![path.clone()];
        if let Some(started) = started.as_ref().filter(|_| path.is_relative()) {
            both.push(started.join(&path));
        }
        both
    };
    for (name, what, inside) in [
        (
            "TF_DATA_DIR",
            "Terraform's data directory (TF_DATA_DIR)",
            true,
        ),
        (
            "TF_CLI_CONFIG_FILE",
            "Terraform's CLI configuration (TF_CLI_CONFIG_FILE)",
            false,
        ),
        (
            "TERRAFORM_CONFIG",
            "Terraform's CLI configuration (TERRAFORM_CONFIG)",
            false,
        ),
        (
            "TF_PLUGIN_CACHE_DIR",
            "Terraform's plugin cache (TF_PLUGIN_CACHE_DIR)",
            true,
        ),
    ] {
        if let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            for path in from_environment(value) {
                paths.push(match inside {
                    true => runs_inside(what, path),
                    false => terraform(what, path),
                });
            }
        }
    }
    // Terraform and OpenTofu find the home directory in the account database when `HOME`
    // is unset; both count.
    let homes = (std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from))
    .into_iter()
    .chain(crate::cache::account_home());
    for home in homes {
        for (name, what, inside) in [
            (
                ".terraformrc",
                "Terraform's CLI configuration (~/.terraformrc)",
                false,
            ),
            (".tofurc", "OpenTofu's CLI configuration (~/.tofurc)", false),
            (
                ".terraform.d",
                "Terraform's plugin directory (~/.terraform.d)",
                true,
            ),
            (
                ".config/opentofu",
                "OpenTofu's configuration (~/.config/opentofu)",
                true,
            ),
            (
                ".local/share/opentofu",
                "OpenTofu's plugin directory (~/.local/share/opentofu)",
                true,
            ),
            (
                ".local/share/terraform",
                "Terraform's plugin directory (~/.local/share/terraform)",
                true,
            ),
        ] {
            let path = home.join(name);
            paths.push(match inside {
                true => runs_inside(what, path),
                false => terraform(what, path),
            });
        }
    }
    // The system plugin directories both search (`XDG_DATA_DIRS`, by default
    // /usr/local/share and /usr/share).
    let data_dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".to_owned());
    for base in data_dirs.split(':').filter(|b| !b.is_empty()) {
        for sub in ["terraform/plugins", "opentofu/plugins"] {
            let what = "a system plugin directory ($XDG_DATA_DIRS/terraform or opentofu/plugins)";
            paths.push(runs_inside(what, Path::new(base).join(sub)));
        }
    }
    // The XDG base directories OpenTofu (configuration, plugins) and Terraform (plugins)
    // read when set.
    for (name, sub, what) in [
        (
            "XDG_CONFIG_HOME",
            "opentofu",
            "OpenTofu's configuration ($XDG_CONFIG_HOME/opentofu)",
        ),
        (
            "XDG_DATA_HOME",
            "opentofu",
            "OpenTofu's plugin directory ($XDG_DATA_HOME/opentofu)",
        ),
        (
            "XDG_DATA_HOME",
            "terraform",
            "Terraform's plugin directory ($XDG_DATA_HOME/terraform)",
        ),
    ] {
        if let Some(base) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            paths.push(runs_inside(what, PathBuf::from(base).join(sub)));
        }
    }
    paths
}

/// Refuses `dirs` when a read-write grant holds any of `paths` (or a directory on the way to
/// one: see [`writable_grant_holding`]), or lies inside one whose contents are run.
///
/// # Errors
/// The first such path, the grant and what to change.
pub fn refuse_granted(dirs: &[DirGrant], paths: &[HostPath]) -> Result<(), HostPathGranted> {
    for host in paths {
        let inside = || {
            let path = resolved(&host.path);
            (dirs.iter()).find(|g| g.writable && resolved(&g.host).starts_with(&path))
        };
        let holding = writable_grant_holding(dirs, &host.path);
        if let Some(grant) = holding.or_else(|| host.contents_run.then(inside).flatten()) {
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
        // The twenty-seventh pass: a grant *inside* `.terraform` let a guest point a module
        // at its own `.tf` files; inside the compile cache, rewrite which code an entry names.
        let dot_terraform = working.join(".terraform");
        assert!(
            refuse_granted(
                &[grant(&dot_terraform.join("modules"), true)],
                &host_paths(&component, &cache)
            )
            .is_err(),
            "a directory inside .terraform"
        );
        let error = refuse_granted(
            &[grant(&cache.join("index"), true)],
            &host_paths(&component, &cache),
        )
        .expect_err("a directory inside the compile cache");
        assert!(error.to_string().contains("compile cache"), "{error}");
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
