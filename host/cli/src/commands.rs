//! One module per subcommand.

#[cfg(feature = "compiler")]
pub mod build_go;
pub mod check;
pub mod docs;
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
/// settings, the default cache, and its log discarded.
pub(crate) fn load_to_read(
    component: &Path,
) -> anyhow::Result<(WasmProvider, LoadReport, crate::config::Resolved)> {
    let settings = crate::config::load(component)?;
    let options = LoadOptions {
        limits: settings.limits.clone(),
        grants: settings.grants.clone(),
        cache_dir: cache::default_dir(),
        precompiled: crate::packaged_code(component),
        log_sink: Arc::new(DiscardLog),
        settings_hint: settings.source.clone(),
        display_name: None,
        http: settings.http.clone(),
        journal: None,
    };
    let (provider, report) = WasmProvider::load(component, options)
        .with_context(|| format!("loading {}", component.display()))?;
    Ok((provider, report, settings))
}
