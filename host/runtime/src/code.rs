//! Where a component's machine code comes from.
//!
//! A provider package carries its code precompiled by `tfwasm package` (`component.cwasm`,
//! built for the architecture's baseline CPU by [`precompile_portable`]), so the runner in
//! the package needs no compiler: Cranelift is about 40 % of a binary that Terraform hashes at
//! every command. Without a package artifact, a build with the `compiler` feature compiles
//! through the on-disk [`cache`](crate::cache); a build without it cannot load the component.
//!
//! The artifact is zstd-compressed by default ([`pack`]), for the same hashing: machine code
//! and a CPython heap image shrink 3–4×. Its first start unpacks it into the compile cache
//! (checked and written as a compiled entry, keyed by the SHA-256 of the packed bytes, so no
//! package can plant code under another's key); later starts map that entry. Without a usable
//! cache the code is unpacked in memory at each start. A plain artifact is mapped directly.

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
        Some(artifact) => match load_precompiled(engine, artifact, cache_dir) {
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

/// zstd's frame magic, which a compressed artifact starts with (an ELF image starts `\x7fELF`).
const PACKED_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The most a packed artifact may unpack to (a CPython component's code is 36.6 MB).
const MAX_UNPACKED: usize = 1 << 30;

/// zstd level for [`pack`]: a CPython component's 36.6 MB in about a second (level 19 saves
/// 12 % more in twenty times as long).
const PACK_LEVEL: i32 = 9;

/// Compresses precompiled code for a package, which [`load`] unpacks.
///
/// # Errors
/// zstd fails (out of memory).
pub fn pack(code: &[u8]) -> std::io::Result<Vec<u8>> {
    // With zstd's checksum of the content, so unpacking checks what it made.
    let mut compressor = zstd::bulk::Compressor::new(PACK_LEVEL)?;
    compressor.include_checksum(true)?;
    compressor.compress(code)
}

/// Why the artifact could not be read.
fn unreadable(e: std::io::Error) -> String {
    format!("cannot be read ({e})")
}

/// The artifact opened once, when it is packed code (its first bytes say so): the file and
/// its metadata, from that descriptor, so what is indexed is what is read.
fn open_packed(artifact: &Path) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(artifact)?;
    let mut magic = [0u8; 4];
    match file.read_exact(&mut magic) {
        Ok(()) if magic == PACKED_MAGIC => {}
        Ok(()) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let meta = file.metadata()?;
    Ok(Some((file, meta)))
}

/// The code in packed bytes, refusing any that claim or hold more than [`MAX_UNPACKED`].
///
/// # Errors
/// The bytes are not one zstd frame saying its size, or are damaged, or too large.
pub fn unpack(packed: &[u8]) -> Result<Vec<u8>, String> {
    let size = zstd::zstd_safe::get_frame_content_size(packed)
        .map_err(|_| "its compressed code is damaged (no zstd frame)".to_owned())?
        .ok_or("its compressed code does not say its size")?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s <= MAX_UNPACKED)
        .ok_or_else(|| {
            format!("its compressed code unpacks to {size} bytes, over {MAX_UNPACKED}")
        })?;
    zstd::bulk::decompress(packed, size)
        .map_err(|e| format!("its compressed code is damaged or too large to unpack here ({e})"))
        .and_then(|code| match code.len() == size {
            true => Ok(code),
            false => Err("its compressed code is damaged (shorter than it says)".to_owned()),
        })
}

/// A packed artifact's code: the compile cache's entry for these packed bytes (found through
/// the index when this exact file was unpacked before, else by their digest), else unpacked
/// now, and stored there for the next start only once it has loaded here (code this CPU
/// cannot run is never kept, so it is not remade at every start).
fn load_packed(
    engine: &Engine,
    artifact: &Path,
    file: std::fs::File,
    meta: &std::fs::Metadata,
    cache_dir: &Path,
) -> Result<Component, String> {
    use std::io::{Read as _, Seek as _};

    use crate::cache::{index_unpacked, indexed_unpacked, load_entry, private_dir};
    let private = private_dir(cache_dir);
    let indexed = (private.as_ref()).and_then(|p| indexed_unpacked(p, artifact, meta));
    if let (Some(private), Some(name)) = (&private, &indexed)
        && let Some(component) = load_entry(engine, private, name)
    {
        return Ok(component);
    }
    // A packed artifact is a fraction of its code: one claiming more is refused unread.
    if meta.len() > MAX_UNPACKED as u64 {
        return Err(format!(
            "its compressed code is {} bytes, over {MAX_UNPACKED}",
            meta.len()
        ));
    }
    let mut file = file;
    let mut packed = Vec::new();
    (file.rewind())
        .and_then(|()| file.read_to_end(&mut packed))
        .map_err(unreadable)?;
    let name = crate::cache::unpacked_entry_name(&packed);
    if let Some(private) = &private
        && indexed.as_deref() != Some(name.as_str())
        && let Some(component) = load_entry(engine, private, &name)
    {
        index_unpacked(private, artifact, meta, &name);
        return Ok(component);
    }
    let code = unpack(&packed)?;
    // SAFETY: the code was unpacked from the package's own artifact, trusted as the running
    // code itself (see `load_precompiled`); wasmtime checks its version, settings and CPU
    // features before use.
    let component =
        unsafe { Component::deserialize(engine, &code) }.map_err(|e| format!("{e:#}"))?;
    if let Some(private) = &private {
        crate::cache::store_entry(private, &name, &code, "start");
        index_unpacked(private, artifact, meta, &name);
    }
    Ok(component)
}

/// Maps the package's artifact without reading it all (the pages are shared by every provider
/// process of a Terraform run); a packed one goes through [`load_packed`].
fn load_precompiled(
    engine: &Engine,
    artifact: &Path,
    cache_dir: &Path,
) -> Result<Component, String> {
    if !artifact.is_file() {
        return Err("the file is missing".into());
    }
    if let Some((file, meta)) = open_packed(artifact).map_err(unreadable)? {
        return load_packed(engine, artifact, file, &meta, cache_dir);
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

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use super::*;

    /// An engine and the precompiled code of a small component for it.
    fn engine_and_code() -> (Engine, Vec<u8>) {
        let engine = crate::engine::new_engine(&crate::CallLimits::default()).unwrap();
        let wasm = wat::parse_str(r#"(component (core module (func (export "f"))))"#).unwrap();
        let code = engine.precompile_component(&wasm).unwrap();
        (engine, code)
    }

    fn cache_entries(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut found: Vec<_> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        found.retain(|p| p.to_string_lossy().ends_with("-unpacked.cwasm"));
        found
    }

    #[test]
    fn packed_code_loads_and_its_unpacked_code_is_kept_for_the_next_start() {
        let (engine, code) = engine_and_code();
        let packed = pack(&code).unwrap();
        assert!(
            packed.len() < code.len(),
            "{} >= {}",
            packed.len(),
            code.len()
        );
        let dir = tempfile::tempdir().unwrap();
        let artifact = dir.path().join("component.cwasm");
        std::fs::write(&artifact, &packed).unwrap();
        let cache = dir.path().join("cache");

        let (_, origin) = load(&engine, &artifact, Some(&artifact), &cache).unwrap();
        assert_eq!(origin, Origin::Packaged);
        let entries = cache_entries(&cache);
        assert_eq!(entries.len(), 1, "{entries:?}");
        // The entry is what the next start maps: it holds the code unpacked.
        let entry = std::fs::read(&entries[0]).unwrap();
        assert_eq!(&entry[..code.len()], &code[..]);
        let index: Vec<_> = std::fs::read_dir(cache.join("index")).unwrap().collect();
        assert_eq!(
            index.len(),
            1,
            "the next start finds the entry without hashing"
        );
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = inode(&entries[0]);
        let (_, origin) = load(&engine, &artifact, Some(&artifact), &cache).unwrap();
        assert_eq!(origin, Origin::Packaged);
        assert_eq!(
            inode(&entries[0]),
            before,
            "the next start loads the entry, not unpacks again"
        );

        // A damaged entry is made again from the package, not loaded.
        std::fs::write(&entries[0], b"\x7fELF not code").unwrap();
        load(&engine, &artifact, Some(&artifact), &cache).unwrap();
        assert_eq!(std::fs::read(&entries[0]).unwrap(), entry);

        // Without a usable cache, the code is unpacked in memory.
        let (_, origin) = load(&engine, &artifact, Some(&artifact), Path::new("")).unwrap();
        assert_eq!(origin, Origin::Packaged);

        // Plain code still loads as it always did.
        std::fs::write(&artifact, &code).unwrap();
        load(&engine, &artifact, Some(&artifact), &cache).unwrap();
    }

    #[test]
    fn damaged_or_oversized_packed_code_is_refused_saying_so() {
        let (engine, code) = engine_and_code();
        let dir = tempfile::tempdir().unwrap();
        let artifact = dir.path().join("component.cwasm");
        let cache = dir.path().join("cache");
        let error = |bytes: &[u8]| {
            std::fs::write(&artifact, bytes).unwrap();
            match load(&engine, &artifact, Some(&artifact), &cache) {
                Err(LoadError::Precompiled { reason, .. }) => reason,
                Err(other) => panic!("another error: {other}"),
                Ok(_) => panic!("loaded"),
            }
        };

        let packed = pack(&code).unwrap();
        let mut damaged = packed.clone();
        let middle = damaged.len() / 2;
        damaged.truncate(middle);
        assert!(error(&damaged).contains("damaged"), "{}", error(&damaged));

        // A frame that says it holds 2 GiB: magic, a descriptor with an 8-byte content
        // size and a single segment, the size, then an empty raw last block.
        let mut huge = PACKED_MAGIC.to_vec();
        huge.push(0b1110_0000);
        huge.extend_from_slice(&(2u64 << 30).to_le_bytes());
        huge.extend_from_slice(&[1, 0, 0]);
        let why = error(&huge);
        assert!(why.contains("over 1073741824"), "{why}");
        assert!(cache_entries(&cache).is_empty());
    }
}
