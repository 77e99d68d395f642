//! The `tfwasm` command's library: what the `tfwasm` binary and the runner in provider
//! packages (`host/runner`, built without the `compiler` feature) share. The runner only
//! serves; packaging needs the compiler.

#[cfg(feature = "compiler")]
pub mod archive;
pub mod commands;
pub mod config;
pub mod docs;
pub mod hclog;
pub mod record;

use std::path::{Path, PathBuf};

/// The component shipped beside the runner in a provider package.
pub const PACKAGED_COMPONENT: &str = "component.wasm";

/// The component's code, precompiled by `tfwasm package` for the platform's baseline CPU.
pub const PACKAGED_CODE: &str = "component.cwasm";

/// `component.wasm` next to the running executable (symlinks resolved), if any.
pub fn packaged_component() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let candidate = exe.parent()?.join(PACKAGED_COMPONENT);
    candidate.is_file().then_some(candidate)
}

/// The precompiled code beside a package's `component.wasm`, if `component` is one.
pub fn packaged_code(component: &Path) -> Option<PathBuf> {
    if component.file_name()? != PACKAGED_COMPONENT {
        return None;
    }
    let code = component.with_file_name(PACKAGED_CODE);
    code.is_file().then_some(code)
}
