//! Where a component's machine code comes from.
//!
//! A provider package carries its code precompiled by `tfwasm package` (`component.cwasm`,
//! built for the architecture's baseline CPU by [`precompile_portable`]), so the runner in
//! the package needs no compiler: Cranelift is about 40 % of a binary that Terraform hashes at
//! every command. Without a package artifact, a build with the `compiler` feature compiles
//! through the on-disk [`cache`](crate::cache); a build without it cannot load the component.

use std::path::Path;

use wasmtime::Engine;
use wasmtime::component::Component;

use crate::LoadError;
pub use crate::cache::Origin;

impl Origin {
    /// A word for logs: `package`, `cache` or `compiled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Packaged => "package",
            Origin::Cached => "cache",
            Origin::Compiled => "compiled",
        }
    }
}

/// Loads the component at `path`: from `precompiled` when given and usable, else through the
/// compile cache in `cache_dir` (with the `compiler` feature).
pub(crate) fn load(
    engine: &Engine,
    path: &Path,
    precompiled: Option<&Path>,
    cache_dir: &Path,
) -> Result<(Component, Origin), LoadError> {
    let unusable = match precompiled {
        Some(artifact) => match load_precompiled(engine, artifact) {
            Ok(component) => return Ok((component, Origin::Packaged)),
            // Packages carry no `.wasm` to fall back to.
            Err(reason) if artifact == path => return Err(unusable_code(artifact, reason)),
            Err(reason) => Some((artifact, reason)),
        },
        None => None,
    };
    compile(engine, path, cache_dir, unusable)
}

/// Why the package's code cannot be used: the CPU features it needs and this CPU lacks, all
/// of them (wasmtime names the first), else wasmtime's reason (another tfwasm release, a
/// damaged file).
fn unusable_code(artifact: &Path, reason: String) -> LoadError {
    let platform = crate::Platform::host();
    let missing = platform.map(|p| p.missing_here()).unwrap_or_default();
    match platform {
        Some(platform) if !missing.is_empty() => LoadError::CpuLacks {
            path: artifact.to_owned(),
            baseline: platform.baseline_name(),
            missing,
        },
        _ => LoadError::Precompiled {
            path: artifact.to_owned(),
            reason,
        },
    }
}

/// Maps the package's artifact without reading it all (the pages are shared by every provider
/// process of a Terraform run).
fn load_precompiled(engine: &Engine, artifact: &Path) -> Result<Component, String> {
    if !artifact.is_file() {
        return Err("the file is missing".into());
    }
    // SAFETY: the artifact was written by `tfwasm package` from `Engine::precompile_component`,
    // next to the executable it was made for; it is installed and verified (Terraform's
    // lock-file hashes) as one unit with that executable, so it is trusted as much as the
    // running code itself. wasmtime checks its version, settings and CPU features before use.
    unsafe { Component::deserialize_file(engine, artifact) }.map_err(|e| format!("{e:#}"))
}

#[cfg(feature = "compiler")]
fn compile(
    engine: &Engine,
    path: &Path,
    cache_dir: &Path,
    unusable: Option<(&Path, String)>,
) -> Result<(Component, Origin), LoadError> {
    if let Some((artifact, reason)) = unusable {
        let why = match unusable_code(artifact, reason) {
            LoadError::CpuLacks {
                baseline, missing, ..
            } => format!(
                "it is compiled for {baseline} CPUs, and this CPU lacks {}",
                missing.join(", ")
            ),
            LoadError::Precompiled { reason, .. } => reason,
            other => other.to_string(),
        };
        tracing::warn!(
            artifact = %artifact.display(),
            "the package's precompiled code cannot be used here ({why}); compiling the component for this CPU instead, into the compile cache"
        );
    }
    crate::cache::load_file(engine, cache_dir, path).map_err(|e| match e {
        crate::cache::FileError::Read(source) => LoadError::Read {
            path: path.to_owned(),
            source,
        },
        crate::cache::FileError::Invalid(e) => LoadError::Invalid {
            path: path.to_owned(),
            message: not_a_component(path).map_or_else(|| format!("{e:#}"), str::to_owned),
        },
    })
}

/// What a file that failed to load is instead, when its header says so plainly; wasmtime's
/// own message for these is a dump of the bytes it expected.
#[cfg(feature = "compiler")]
fn not_a_component(path: &Path) -> Option<&'static str> {
    use std::io::Read as _;
    let mut header = [0u8; 8];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut header))
        .ok()?;
    if read < 4 || &header[..4] != b"\0asm" {
        return Some("it is not WebAssembly at all (no `\\0asm` header)");
    }
    if read == 8 && header[4..] == [1, 0, 0, 0] {
        return Some(
            "it is a core WebAssembly module, not a component: build the provider for wasm32-wasip2 (or wrap the module with `wasm-tools component new`)",
        );
    }
    None
}

#[cfg(not(feature = "compiler"))]
fn compile(
    _engine: &Engine,
    path: &Path,
    _cache_dir: &Path,
    unusable: Option<(&Path, String)>,
) -> Result<(Component, Origin), LoadError> {
    Err(match unusable {
        Some((artifact, reason)) => unusable_code(artifact, reason),
        None => LoadError::NoCompiler {
            path: path.to_owned(),
        },
    })
}

/// Compiles `wasm` for a provider package: code for the baseline CPU of `platform`'s
/// architecture, with the settings [`WasmProvider::load`](crate::WasmProvider::load) uses
/// under `limits`, so any machine of the platform loads it without compiling. The result is
/// kept in the compile cache in `cache_dir`, so packaging the same component again is quick.
///
/// # Errors
/// When the bytes are not a valid component (`path` names it).
#[cfg(feature = "compiler")]
pub fn precompile_portable(
    wasm: &[u8],
    limits: &crate::CallLimits,
    path: &Path,
    cache_dir: &Path,
    platform: crate::Platform,
) -> Result<Vec<u8>, LoadError> {
    let engine = crate::engine::portable_engine(limits, platform)?;
    crate::cache::precompiled(&engine, cache_dir, wasm).map_err(|e| LoadError::Invalid {
        path: path.to_owned(),
        message: format!("{e:#}"),
    })
}
