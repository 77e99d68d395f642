//! One module per subcommand.

#[cfg(feature = "compiler")]
pub mod build_go;
pub mod check;
pub mod dev_overrides;
pub mod docs;
pub mod grant_flags;
#[cfg(feature = "compiler")]
pub mod harness;
pub mod inspect;
pub mod new;
#[cfg(feature = "compiler")]
pub mod package;
pub mod replay;
pub mod serve;

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use tfwasm_runtime::{DiscardLog, LoadOptions, LoadReport, WasmProvider, cache};

/// Loads a component to read what it declares (`inspect`, `docs`): with its operator
/// settings' limits, the default cache, and its log discarded, but none of its grants: a
/// schema needs no files, variables or hosts, and a guest given a read-write grant while an
/// author reads its schema could plant symlinks where these commands write, or replace the
/// compile cache's code.
pub(crate) fn load_to_read(
    component: &Path,
) -> anyhow::Result<(WasmProvider, LoadReport, crate::config::Resolved)> {
    let settings = crate::config::load(component)?;
    let options = LoadOptions {
        limits: settings.limits.clone(),
        grants: tfwasm_runtime::Grants::default(),
        cache_dir: cache::default_dir(),
        precompiled: crate::packaged_code(component),
        log_sink: Arc::new(DiscardLog),
        settings_hint: settings.source.clone(),
        display_name: None,
        http: settings.http.clone(),
        journal: None,
        protected: Vec::new(),
    };
    let (provider, report) = WasmProvider::load(component, options)
        .with_context(|| format!("loading {}", component.display()))?;
    Ok((provider, report, settings))
}

/// Refuses to write a command's output (`docs --out`, `package --out`/`--archive`) into a
/// directory granted read-write to the provider: it could have planted symlinks or files
/// there while it ran, and what is written there is read later as the operator's.
pub(crate) fn refuse_output_in_writable_grants(
    out: &Path,
    dirs: &[tfwasm_runtime::DirGrant],
) -> anyhow::Result<()> {
    if let Some(grant) = tfwasm_runtime::grants::writable_grant_holding(dirs, out) {
        anyhow::bail!(
            "{} lies inside {}, which the provider is granted read-write as {}: write the output outside every read-write grant",
            out.display(),
            grant.host.display(),
            grant.guest
        );
    }
    Ok(())
}
