//! The `tfwasm` command's library: what the `tfwasm` binary and the runner in provider
//! packages (`host/runner`, built without the `compiler` feature) share. The runner only
//! serves; packaging needs the compiler.

#[cfg(feature = "compiler")]
pub mod archive;
pub mod commands;
pub mod config;
pub mod docs;
pub mod files;
pub mod hclog;
pub mod record;
#[cfg(feature = "compiler")]
pub mod registry;

use std::path::{Path, PathBuf};

/// The component's code in a provider package, precompiled by `tfwasm package` for the
/// platform's baseline CPU. `tfwasm inspect`, `docs` and `serve --component` take it as the
/// component.
pub const PACKAGED_CODE: &str = "component.cwasm";

/// The component itself, shipped beside its code only when the package's executable is a
/// full tfwasm, which can compile it when the code cannot be used. The runner cannot, and
/// Terraform hashes every byte of a package at every command, so its packages leave it out.
pub const PACKAGED_SOURCE: &str = "component.wasm";

/// Bytes every runner carries (`tfwasm-runner`'s `main.rs` keeps them in its data), so
/// `tfwasm package` can tell a runner's version without running it: another platform's
/// runner does not run here.
pub const RUNNER_VERSION_MARK: &str =
    concat!("\ntfwasm-runner-version ", env!("CARGO_PKG_VERSION"), "\n");

/// The package's component next to the running executable (symlinks resolved), if any: its
/// `component.wasm` when there is one (so its code has a fallback), else its `component.cwasm`.
pub fn packaged_component() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let dir = exe.parent()?;
    [PACKAGED_SOURCE, PACKAGED_CODE]
        .into_iter()
        .map(|name| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A package's precompiled code for `component`: the file itself when it is a
/// `component.cwasm`, the `component.cwasm` beside it when it is a package's `component.wasm`.
pub fn packaged_code(component: &Path) -> Option<PathBuf> {
    let name = component.file_name()?;
    let code = if name == PACKAGED_CODE {
        component.to_owned()
    } else if name == PACKAGED_SOURCE {
        component.with_file_name(PACKAGED_CODE)
    } else {
        return None;
    };
    code.is_file().then_some(code)
}
