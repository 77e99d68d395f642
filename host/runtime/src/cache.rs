//! The on-disk cache of compiled components.
//!
//! Compiling a component takes around a second; Terraform starts the provider 3–4 times per
//! command, so every start after the first loads machine code from here instead (a few ms).
//! Entries are keyed by the SHA-256 of the component and the engine's compatibility hash
//! (wasmtime version, compiler settings, CPU features), written atomically, and only ever
//! written by tfwasm itself, because loading one means trusting it as native code.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "TFWASM_CACHE_DIR";

/// Where compiled components are kept: `$TFWASM_CACHE_DIR`, else `$XDG_CACHE_HOME/tfwasm`,
/// else `~/.cache/tfwasm`, else a directory under the system temp dir.
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("tfwasm");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache").join("tfwasm");
    }
    std::env::temp_dir().join("tfwasm-cache")
}

/// How a component was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Loaded from the cache.
    Cached,
    /// Compiled now (and stored, if the cache was writable).
    Compiled,
}

/// The cache file for these bytes under this engine.
pub fn entry_path(dir: &Path, engine: &Engine, wasm: &[u8]) -> PathBuf {
    let digest = hex::encode(Sha256::digest(wasm));
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    dir.join(format!("{digest}-{:016x}.cwasm", hasher.finish()))
}

/// Loads the compiled component from `dir`, compiling and storing it on a miss. A cache that
/// cannot be read or written only costs time: the component is compiled in memory.
///
/// # Errors
/// When the bytes are not a valid component.
pub fn load_or_compile(
    engine: &Engine,
    dir: &Path,
    wasm: &[u8],
) -> Result<(Component, Origin), wasmtime::Error> {
    let path = entry_path(dir, engine, wasm);
    if path.is_file() {
        // SAFETY: files under our cache directory are only written by `store` below, from
        // `Engine::precompile_component`, and their name pins the exact engine build.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(component) => return Ok((component, Origin::Cached)),
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "ignoring unreadable compile cache entry");
            }
        }
    }
    let compiled = engine.precompile_component(wasm)?;
    if let Err(error) = store(&path, &compiled) {
        tracing::warn!(path = %path.display(), %error, "cannot write the compile cache; the next start will compile again");
    }
    // SAFETY: the bytes were produced just now by this engine.
    let component = unsafe { Component::deserialize(engine, &compiled)? };
    Ok((component, Origin::Compiled))
}

/// Writes atomically: a temp file in the same directory, then rename.
fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
