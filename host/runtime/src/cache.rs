//! The on-disk cache of compiled components.
//!
//! Compiling a component takes around a second; Terraform starts the provider 3–4 times per
//! command, so every start after the first loads machine code from here instead (a few ms).
//! Entries are keyed by the SHA-256 of the component and the engine's compatibility hash
//! (wasmtime version, compiler settings, CPU features), written atomically, and only ever
//! written by tfwasm itself, because loading one means trusting it as native code.
//!
//! A start should not even hash the component: `index/` maps a component file's identity
//! (path, size, modification time, inode) to its entry, so a warm start reads neither the
//! component nor its digest (hashing 1 MB took about a third of a warm start). A changed file
//! changes its identity and is hashed again.
//!
//! Everything but [`default_dir`] needs the `compiler` feature: a build without it only runs
//! the precompiled code of provider packages ([`code`](crate::code)).

#[cfg(feature = "compiler")]
use std::hash::{DefaultHasher, Hash, Hasher};
#[cfg(feature = "compiler")]
use std::path::Path;
use std::path::PathBuf;

#[cfg(feature = "compiler")]
use sha2::{Digest, Sha256};
#[cfg(feature = "compiler")]
use wasmtime::Engine;
#[cfg(feature = "compiler")]
use wasmtime::component::Component;

#[cfg(feature = "compiler")]
use crate::code::Origin;

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

#[cfg(feature = "compiler")]
/// The cache file for these bytes under this engine.
pub fn entry_path(dir: &Path, engine: &Engine, wasm: &[u8]) -> PathBuf {
    let digest = hex::encode(Sha256::digest(wasm));
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    dir.join(format!("{digest}-{:016x}.cwasm", hasher.finish()))
}

#[cfg(feature = "compiler")]
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
    load_or_compile_at(engine, &entry_path(dir, engine, wasm), wasm)
}

#[cfg(feature = "compiler")]
/// [`load_or_compile`] with the entry path already computed.
fn load_or_compile_at(
    engine: &Engine,
    path: &Path,
    wasm: &[u8],
) -> Result<(Component, Origin), wasmtime::Error> {
    if path.is_file() {
        // SAFETY: files under our cache directory are only written by `store` below, from
        // `Engine::precompile_component`, and their name pins the exact engine build.
        match unsafe { Component::deserialize_file(engine, path) } {
            Ok(component) => return Ok((component, Origin::Cached)),
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "ignoring unreadable compile cache entry");
            }
        }
    }
    let compiled = engine.precompile_component(wasm)?;
    if let Err(error) = store(path, &compiled) {
        tracing::warn!(path = %path.display(), %error, "cannot write the compile cache; the next start will compile again");
    }
    // SAFETY: the bytes were produced just now by this engine.
    let component = unsafe { Component::deserialize(engine, &compiled)? };
    Ok((component, Origin::Compiled))
}

/// The compiled bytes of `wasm` under `engine` (which may target another CPU than this one,
/// so they are not loaded here), from the cache or compiled and stored.
#[cfg(feature = "compiler")]
pub(crate) fn precompiled(
    engine: &Engine,
    dir: &Path,
    wasm: &[u8],
) -> Result<Vec<u8>, wasmtime::Error> {
    let path = entry_path(dir, engine, wasm);
    if let Ok(bytes) = std::fs::read(&path) {
        return Ok(bytes);
    }
    let compiled = engine.precompile_component(wasm)?;
    if let Err(error) = store(&path, &compiled) {
        tracing::warn!(path = %path.display(), %error, "cannot write the compile cache; the next package will compile again");
    }
    Ok(compiled)
}

#[cfg(feature = "compiler")]
/// Why a component file could not be loaded.
#[derive(Debug)]
pub enum FileError {
    /// The file could not be read.
    Read(std::io::Error),
    /// The bytes are not a valid component.
    Invalid(wasmtime::Error),
}

#[cfg(feature = "compiler")]
/// The index key of a component file: its identity on disk and the engine.
fn identity_key(path: &Path, meta: &std::fs::Metadata, engine: &Engine) -> String {
    use std::os::unix::fs::MetadataExt;
    let mut hasher = DefaultHasher::new();
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_owned())
        .hash(&mut hasher);
    (
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino(),
        meta.dev(),
    )
        .hash(&mut hasher);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

#[cfg(feature = "compiler")]
/// A cache entry file name as `entry_path` makes them (`<sha256>-<hash>.cwasm`).
fn is_entry_name(name: &str) -> bool {
    name.len() == 64 + 1 + 16 + 6
        && name.ends_with(".cwasm")
        && name[..81].chars().enumerate().all(|(i, c)| {
            if i == 64 {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

#[cfg(feature = "compiler")]
/// Loads the component in `path`: through the index without reading the file when this exact
/// file was loaded before, else as [`load_or_compile`] does (and records it in the index).
///
/// # Errors
/// When the file cannot be read or is not a valid component.
pub fn load_file(
    engine: &Engine,
    dir: &Path,
    path: &Path,
) -> Result<(Component, Origin), FileError> {
    let meta = std::fs::metadata(path).map_err(FileError::Read)?;
    let index = dir.join("index").join(identity_key(path, &meta, engine));
    if let Ok(name) = std::fs::read_to_string(&index)
        && is_entry_name(name.trim())
    {
        let entry = dir.join(name.trim());
        // SAFETY: as in `load_or_compile`: only tfwasm writes entries and index files here.
        if let Ok(component) = unsafe { Component::deserialize_file(engine, &entry) } {
            return Ok((component, Origin::Cached));
        }
    }
    let wasm = std::fs::read(path).map_err(FileError::Read)?;
    let entry = entry_path(dir, engine, &wasm);
    let loaded = load_or_compile_at(engine, &entry, &wasm).map_err(FileError::Invalid)?;
    if let Some(name) = entry.file_name().and_then(|n| n.to_str())
        && entry.is_file()
        && let Err(error) = store(&index, name.as_bytes())
    {
        tracing::debug!(%error, "cannot write the compile cache index");
    }
    Ok(loaded)
}

#[cfg(feature = "compiler")]
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

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use super::*;

    /// The smallest component: header only; and one with a custom section ("hi").
    const EMPTY: &[u8] = b"\0asm\x0d\x00\x01\x00";
    const WITH_SECTION: &[u8] = b"\0asm\x0d\x00\x01\x00\x00\x03\x02hi";

    #[test]
    fn a_known_file_loads_through_the_index_and_a_changed_one_is_hashed_again() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let file = dir.path().join("c.wasm");
        std::fs::write(&file, EMPTY).unwrap();

        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Compiled);
        assert_eq!(std::fs::read_dir(cache.join("index")).unwrap().count(), 1);
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Cached);

        std::fs::write(&file, WITH_SECTION).unwrap();
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Compiled, "new content, new entry");
        assert_eq!(std::fs::read_dir(cache.join("index")).unwrap().count(), 2);

        // A tampered index naming something that is not an entry is ignored.
        for entry in std::fs::read_dir(cache.join("index")).unwrap() {
            std::fs::write(entry.unwrap().path(), "../../etc/passwd").unwrap();
        }
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Cached, "falls back to the content hash");

        std::fs::write(&file, b"not wasm").unwrap();
        assert!(matches!(
            load_file(&engine, &cache, &file),
            Err(FileError::Invalid(_))
        ));
        assert!(matches!(
            load_file(&engine, &cache, &dir.path().join("missing.wasm")),
            Err(FileError::Read(_))
        ));
    }
}
