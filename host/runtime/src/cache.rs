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
//! Loading an entry runs its machine code, so the cache is trusted only as far as it is
//! private: the directory is created `0700`, and one that is owned by another user or
//! writable by group or others is not used at all (the component is compiled in memory).
//! Each entry ends with a trailer (length, CRC-32, magic) checked before wasmtime sees a
//! byte, so a truncated or corrupted entry is compiled again instead of deserialized. A
//! cache that cannot be written (read-only, full) costs time, never the start: one warning,
//! and the component is compiled in memory.
//!
//! The cache does not grow for ever: when a new entry is stored, what nobody loaded for 30
//! days (`TFWASM_CACHE_KEEP_DAYS`) is removed, then the least recently used entries past
//! 4 GiB (`TFWASM_CACHE_MAX_GIB`) (`prune.rs`).
//!
//! Compiling needs the `compiler` feature: a build without it only runs the precompiled code
//! of provider packages (`code.rs`), and keeps here only the code it unpacks from a package
//! whose code is compressed, under the same checks.

#[cfg(feature = "compiler")]
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

mod prune;

/// How a component's code was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Precompiled code shipped in the provider package.
    Packaged,
    /// Loaded from the compile cache.
    Cached,
    /// Compiled now (and stored, if the cache was writable).
    Compiled,
}

/// Environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "TFWASM_CACHE_DIR";

/// Where compiled components are kept: `$TFWASM_CACHE_DIR`, else `$XDG_CACHE_HOME/tfwasm`,
/// else `~/.cache/tfwasm` (the home directory from `$HOME`, else this user's account). Never
/// a shared directory such as the system temp dir, where another user could create the name
/// first; with no home at all the path is empty, which no cache check accepts (components
/// compile in memory).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("tfwasm");
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(account_home)
        .map_or_else(PathBuf::new, |home| home.join(".cache").join("tfwasm"))
}

/// This user's home directory from the account database (a service started without `HOME`).
pub(crate) fn account_home() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: `passwd` is plain data; getpwuid_r writes at most `buffer.len()` bytes into
    // `buffer` and points `found` at `entry` or leaves it null; both outlive the call.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    let status = unsafe {
        libc::getpwuid_r(
            libc::geteuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_dir.is_null() {
        return None;
    }
    // SAFETY: pw_dir points into `buffer`, NUL-terminated, as getpwuid_r promises.
    let dir = unsafe { std::ffi::CStr::from_ptr(entry.pw_dir) };
    let dir = Path::new(std::ffi::OsStr::from_bytes(dir.to_bytes()));
    (dir.is_absolute() && dir != Path::new("/")).then(|| dir.to_owned())
}

#[cfg(feature = "compiler")]
/// The cache file for these bytes under this engine.
pub fn entry_path(dir: &Path, engine: &Engine, wasm: &[u8]) -> PathBuf {
    dir.join(entry_name(engine, wasm))
}

#[cfg(feature = "compiler")]
/// The name of the cache entry for these bytes under this engine.
fn entry_name(engine: &Engine, wasm: &[u8]) -> String {
    let digest = hex::encode(Sha256::digest(wasm));
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{digest}-{:016x}.cwasm", hasher.finish())
}

/// The name of the cache entry holding the code a package's packed artifact unpacks to: the
/// packed bytes decide the code, whatever the engine (wasmtime checks the code against the
/// engine when it loads it).
pub(crate) fn unpacked_entry_name(packed: &[u8]) -> String {
    format!("{}-unpacked.cwasm", hex::encode(Sha256::digest(packed)))
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
    let Some(private) = private_dir(dir) else {
        announce_compile(wasm, None);
        return Ok((Component::new(engine, wasm)?, Origin::Compiled));
    };
    load_or_compile_at(engine, &private, &entry_name(engine, wasm), wasm)
}

#[cfg(feature = "compiler")]
/// Says, before it happens, that a start is about to compile: a large component (one built
/// from CPython is ~19 MiB) takes tens of seconds on a small machine, which must not look
/// like a hang in the operator's log.
fn announce_compile(wasm: &[u8], cache: Option<&Path>) {
    tracing::warn!(
        size_mib = %format_args!("{:.1}", wasm.len() as f64 / (1024.0 * 1024.0)),
        cache = %cache.map_or_else(|| "none (compiling in memory)".to_owned(), |d| d.display().to_string()),
        "compiling the provider component: no precompiled code or cache entry matches it; this takes a while for a large component, and later starts load it from the cache (`tfwasm package` precompiles it)"
    );
}

#[cfg(feature = "compiler")]
/// [`load_or_compile`] with the entry's name already computed.
fn load_or_compile_at(
    engine: &Engine,
    private: &Private,
    name: &str,
    wasm: &[u8],
) -> Result<(Component, Origin), wasmtime::Error> {
    if let Some(component) = load_entry(engine, private, name) {
        return Ok((component, Origin::Cached));
    }
    announce_compile(wasm, Some(&private.path));
    let compiled = engine.precompile_component(wasm)?;
    store_entry(private, name, &compiled, "start");
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
    let name = entry_name(engine, wasm);
    let private = private_dir(dir);
    if let Some(private) = &private
        && let Ok((mut bytes, file)) = private.read(&name)
    {
        match verified_len(&bytes) {
            Ok(len) => {
                prune::mark_used(&file);
                bytes.truncate(len);
                return Ok(bytes);
            }
            Err(why) => {
                tracing::warn!(path = %private.path.join(&name).display(), "compile cache entry is {why}; compiling again");
            }
        }
    }
    let compiled = engine.precompile_component(wasm)?;
    if let Some(private) = &private {
        store_entry(private, &name, &compiled, "package");
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
    let mut hasher = file_identity(path, meta);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// A hasher holding a file's identity on disk: its path, size, times, inode and device.
fn file_identity(path: &Path, meta: &std::fs::Metadata) -> std::hash::DefaultHasher {
    use std::hash::Hash as _;
    use std::os::unix::fs::MetadataExt;
    let mut hasher = std::hash::DefaultHasher::new();
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_owned())
        .hash(&mut hasher);
    // ctime too: it changes on every write and cannot be set back (`touch -r` sets mtime),
    // so a file rewritten in place with the same size and mtime is still a new identity.
    (
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino(),
        meta.dev(),
    )
        .hash(&mut hasher);
    hasher
}

/// The entry this exact packed artifact (same path, size, times, inode) was unpacked to
/// before, by the index: a start that finds it neither reads nor hashes the artifact.
pub(crate) fn indexed_unpacked(
    private: &Private,
    artifact: &Path,
    meta: &std::fs::Metadata,
) -> Option<String> {
    let (name, file) = private.read(&unpacked_index(artifact, meta)).ok()?;
    prune::mark_used(&file);
    let name = String::from_utf8(name).ok()?;
    is_unpacked_entry_name(&name).then_some(name)
}

/// Records in the index that this packed artifact unpacks to the entry `name`.
pub(crate) fn index_unpacked(
    private: &Private,
    artifact: &Path,
    meta: &std::fs::Metadata,
    name: &str,
) {
    let index = private.path.join(unpacked_index(artifact, meta));
    if let Err(error) = store(&index, &[name.as_bytes()]) {
        tracing::debug!(%error, "cannot write the compile cache index");
    }
}

/// The index file (relative to the cache) naming what a packed artifact unpacks to.
fn unpacked_index(artifact: &Path, meta: &std::fs::Metadata) -> String {
    use std::hash::Hasher as _;
    let identity = file_identity(artifact, meta).finish();
    format!("index/{identity:016x}-unpacked")
}

/// An entry file name as [`unpacked_entry_name`] makes them (`<sha256>-unpacked.cwasm`).
fn is_unpacked_entry_name(name: &str) -> bool {
    name.strip_suffix("-unpacked.cwasm")
        .is_some_and(|digest| digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()))
}

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
    let Some(private) = private_dir(dir) else {
        let wasm = std::fs::read(path).map_err(FileError::Read)?;
        let component = Component::new(engine, &wasm).map_err(FileError::Invalid)?;
        return Ok((component, Origin::Compiled));
    };
    let index = format!("index/{}", identity_key(path, &meta, engine));
    if let Ok((name, file)) = private.read(&index)
        && let Ok(name) = std::str::from_utf8(&name)
        && is_entry_name(name.trim())
        && let Some(component) = load_entry(engine, &private, name.trim())
    {
        prune::mark_used(&file);
        return Ok((component, Origin::Cached));
    }
    let wasm = std::fs::read(path).map_err(FileError::Read)?;
    let name = entry_name(engine, &wasm);
    let loaded = load_or_compile_at(engine, &private, &name, &wasm).map_err(FileError::Invalid)?;
    if private.read(&name).is_ok()
        && let Err(error) = store(&private.path.join(&index), &[name.as_bytes()])
    {
        tracing::debug!(%error, "cannot write the compile cache index");
    }
    Ok(loaded)
}

/// Root does not create directories inside another user's (`sudo -E terraform` keeps the
/// user's `HOME`): a root-owned `~/.cache` would break the user's own tools, and the user's
/// next start would refuse the cache. Says why.
fn refuse_roots_dirs_in_a_users_tree(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 || dir.exists() {
        return Ok(());
    }
    let owner =
        (dir.ancestors().skip(1)).find_map(|a| std::fs::metadata(a).ok().map(|m| (a, m.uid())));
    match owner {
        Some((ancestor, uid)) if uid != 0 => Err(format!(
            "would be created by root inside {}, which belongs to uid {uid} (run as that user, or set TFWASM_CACHE_DIR)",
            ancestor.display()
        )),
        _ => Ok(()),
    }
}

/// Creates `dir` `0700` if missing and checks that it is ours and writable by nobody else:
/// what a directory needs before we trust what is in it. Says why not.
pub fn make_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    refuse_roots_dirs_in_a_users_tree(dir)?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .and_then(|()| std::fs::metadata(dir))
        .map_err(|e| format!("cannot be created or read ({e})"))
        .and_then(|meta| {
            // SAFETY: geteuid has no preconditions and cannot fail.
            let me = unsafe { libc::geteuid() };
            if meta.uid() != me {
                Err(format!(
                    "is owned by uid {}, not by this user (uid {me})",
                    meta.uid()
                ))
            } else if meta.mode() & 0o022 != 0 {
                Err(format!(
                    "is writable by other users (mode {:o}); `chmod go-w` it",
                    meta.mode() & 0o777
                ))
            } else {
                Ok(())
            }
        })
}

/// The cache directory, opened once and checked through that handle: every entry is then
/// read relative to it, so swapping the path (a symlink another user controls) after the
/// check changes nothing that is loaded.
pub(crate) struct Private {
    dir: std::fs::File,
    pub(crate) path: PathBuf,
}

impl Private {
    /// Reads `relative` (no symlink at its last step) below the checked directory: its bytes
    /// and the open file they came from.
    fn read(&self, relative: &str) -> std::io::Result<(Vec<u8>, std::fs::File)> {
        use std::io::Read as _;
        let mut file = self.open(relative)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok((bytes, file))
    }

    /// Maps `relative` (no symlink at its last step) below the checked directory, read-only:
    /// its bytes without copying them (the page cache's pages, shared with every process
    /// that maps the entry), and the open file.
    fn map(&self, relative: &str) -> std::io::Result<(Mapped, std::fs::File)> {
        let file = self.open(relative)?;
        // SAFETY: entries are written by `replace` (a new file renamed into place) and never
        // changed in place by tfwasm; the same file is mapped by wasmtime for the code it
        // holds, which already depends on this.
        let mapped = unsafe { Mapped::of(&file)? };
        Ok((mapped, file))
    }

    /// Opens `relative` (no symlink at its last step) below the checked directory.
    fn open(&self, relative: &str) -> std::io::Result<std::fs::File> {
        use std::os::fd::{AsRawFd as _, FromRawFd as _};
        let name = std::ffi::CString::new(relative).map_err(std::io::Error::other)?;
        // SAFETY: the directory descriptor is open for the life of `self`, `name` is a
        // NUL-terminated string, and a returned descriptor is owned by the File made here.
        let fd = unsafe {
            libc::openat(
                self.dir.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

/// A file mapped read-only, unmapped when dropped.
struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

impl Mapped {
    /// # Safety
    /// Nothing may change or truncate the file while the mapping lives (the bytes would
    /// change under a shared slice, or reading them raise SIGBUS).
    unsafe fn of(file: &std::fs::File) -> std::io::Result<Mapped> {
        use std::os::fd::AsRawFd as _;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        if len == 0 {
            return Ok(Mapped {
                ptr: std::ptr::null_mut(),
                len,
            });
        }
        // SAFETY: a new private read-only mapping of an open file, of its length; nothing
        // else refers to the memory, which `Drop` unmaps.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapped { ptr, len })
    }
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` maps `len` readable bytes until `Drop`, of a file nothing changes
        // meanwhile (`of`'s contract).
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: `ptr` and `len` are the mapping `of` made, unmapped only here.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }
}

/// The cache directory if it may hold code we run (see [`make_private_dir`]), opened and
/// checked once. Says why not once per process.
pub(crate) fn private_dir(dir: &Path) -> Option<Private> {
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    static WARNED: std::sync::Once = std::sync::Once::new();
    let checked = make_private_dir(dir).and_then(|()| {
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(dir)
            .map_err(|e| format!("cannot be opened ({e})"))?;
        // The directory opened is the one judged, whatever the path names from now on.
        let meta = opened
            .metadata()
            .map_err(|e| format!("cannot be read ({e})"))?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me || meta.mode() & 0o022 != 0 {
            return Err("changed owner or mode while it was opened".to_owned());
        }
        Ok(Private {
            dir: opened,
            path: dir.to_owned(),
        })
    });
    match checked {
        Ok(private) => Some(private),
        Err(why) => {
            WARNED.call_once(|| {
                tracing::warn!(
                    dir = %dir.display(),
                    "the compile cache {why}: not using it, making code in memory (set TFWASM_CACHE_DIR to use another)"
                );
            });
            None
        }
    }
}

/// The trailer after an entry's code: code length (u64 LE), CRC-32 of the code (u32 LE), magic.
const TRAILER_LEN: usize = 16;
const TRAILER_MAGIC: &[u8; 4] = b"TFWC";

/// The length of the code in an entry whose trailer checks out, or why it does not.
fn verified_len(bytes: &[u8]) -> Result<usize, &'static str> {
    let code_len = bytes
        .len()
        .checked_sub(TRAILER_LEN)
        .ok_or("truncated (shorter than its trailer)")?;
    let (code, trailer) = bytes.split_at(code_len);
    if &trailer[12..] != TRAILER_MAGIC {
        return Err("truncated or not written by this tfwasm (no trailer)");
    }
    let recorded_len = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    if recorded_len != code_len as u64 {
        return Err("truncated or extended (its length does not match its trailer)");
    }
    let recorded_crc = u32::from_le_bytes(trailer[8..12].try_into().expect("4 bytes"));
    if crc32fast::hash(code) != recorded_crc {
        return Err("corrupt (its checksum does not match)");
    }
    Ok(code_len)
}

/// Loads the entry at `path` if it exists and its trailer checks out; `None` (with a warning
/// for a bad entry) means compile.
///
/// The check reads the file through a mapping (the checksum of a CPython component's 36 MB
/// costs a few ms; copying it into a buffer first cost 20); the code is then mapped rather
/// than copied, so the provider processes of one Terraform run share its pages (copying
/// took 1.6 ms and a private copy per process).
pub(crate) fn load_entry(engine: &Engine, private: &Private, name: &str) -> Option<Component> {
    use std::os::fd::AsRawFd as _;
    let (bytes, file) = private.map(name).ok()?;
    let why = match verified_len(&bytes) {
        // SAFETY (both): the entry was opened in the directory checked to be this user's
        // alone, was written by `store_entry` from `Engine::precompile_component` (or
        // unpacked from a package's artifact, `code::load_packed`), and its checksum
        // matched just now; a compiled entry's name pins the exact engine build, and
        // wasmtime checks every entry against the engine. wasmtime ignores the trailer
        // after the code's ELF image. The file is mapped through the descriptor already
        // open (`/proc/self/fd`), never by its path again; without `/proc`, the bytes
        // checked are copied in.
        Ok(len) => match unsafe {
            Component::deserialize_file(engine, format!("/proc/self/fd/{}", file.as_raw_fd()))
        } {
            Ok(component) => {
                prune::mark_used(&file);
                return Some(component);
            }
            Err(_) if !Path::new("/proc/self/fd").is_dir() => {
                match unsafe { Component::deserialize(engine, &bytes[..len]) } {
                    Ok(component) => {
                        prune::mark_used(&file);
                        return Some(component);
                    }
                    Err(error) => format!("unusable ({error})"),
                }
            }
            Err(error) => format!("unusable ({error})"),
        },
        Err(why) => why.to_owned(),
    };
    let path = private.path.join(name);
    tracing::warn!(path = %path.display(), "compile cache entry is {why}; making it again");
    None
}

/// Stores compiled code with its trailer; a failure is one warning (`what` is what will
/// compile again: the next start or package).
///
/// A new entry is when the cache grows, so it is also when what nobody used for a while, or
/// what takes it past its size, is removed ([`prune`]).
pub(crate) fn store_entry(private: &Private, name: &str, code: &[u8], what: &str) {
    let mut trailer = [0u8; TRAILER_LEN];
    trailer[..8].copy_from_slice(&(code.len() as u64).to_le_bytes());
    trailer[8..12].copy_from_slice(&crc32fast::hash(code).to_le_bytes());
    trailer[12..].copy_from_slice(TRAILER_MAGIC);
    let path = private.path.join(name);
    match store(&path, &[code, &trailer]) {
        Ok(()) => prune::prune(private, name),
        Err(error) => tracing::warn!(
            path = %path.display(),
            %error,
            "cannot write the compile cache (read-only or full?); serving from memory, the next {what} will make the code again"
        ),
    }
}

/// Writes `parts` atomically, `0600`, creating the directory `0700`: see [`replace`]. Also
/// the apply journal's.
pub(crate) fn store(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    replace(path, parts, 0o600)
}

/// A number nobody can guess (the standard library's per-process random hash keys over the
/// time), for temporary names another user or a guest must not predict.
pub(crate) fn unguessable() -> u64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

/// Replaces `path` with `parts` (mode `mode`) atomically: a new file beside it under a name
/// nobody can guess, created new and never through a symlink (whatever already lies there,
/// something planted, is not written through), synced, then renamed over `path` (a rename
/// replaces a symlink, it does not follow it). A failed write (a full disk) leaves nothing
/// behind. Every file the host writes on its own behalf goes through here.
pub fn replace(path: &Path, parts: &[&[u8]], mode: u32) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    let nonce = unguessable();
    let tmp = dir.join(format!(
        ".{}.{}.{nonce:016x}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(mode)
        .open(&tmp)
        .and_then(|mut file| {
            for part in parts {
                file.write_all(part)?;
            }
            file.sync_data()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use super::*;

    /// The smallest component: header only; and one with a custom section ("hi").
    const EMPTY: &[u8] = b"\0asm\x0d\x00\x01\x00";
    const WITH_SECTION: &[u8] = b"\0asm\x0d\x00\x01\x00\x00\x03\x02hi";

    /// A cache (not made yet) and a component file of `wasm` beside it, in a new directory.
    fn cache_and_file(wasm: &[u8]) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let file = dir.path().join("c.wasm");
        std::fs::write(&file, wasm).unwrap();
        (dir, cache, file)
    }

    #[test]
    fn a_known_file_loads_through_the_index_and_a_changed_one_is_hashed_again() {
        let engine = Engine::default();
        let (dir, cache, file) = cache_and_file(EMPTY);

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

    /// Same size as `WITH_SECTION`, other content.
    const WITH_OTHER_SECTION: &[u8] = b"\0asm\x0d\x00\x01\x00\x00\x03\x02ho";

    fn entries(cache: &Path) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "cwasm"))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn corrupt_truncated_and_foreign_entries_are_compiled_again_not_loaded() {
        let engine = Engine::default();
        let (_dir, cache, file) = cache_and_file(WITH_SECTION);
        assert_eq!(
            load_file(&engine, &cache, &file).unwrap().1,
            Origin::Compiled
        );
        let [entry] = entries(&cache).try_into().unwrap();
        let good = std::fs::read(&entry).unwrap();

        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x40;
        let truncated = good[..good.len() - 100].to_vec();
        let without_trailer = good[..good.len() - TRAILER_LEN].to_vec();
        for (what, bytes) in [
            ("a flipped bit", flipped),
            ("truncated", truncated),
            ("no trailer", without_trailer),
            ("empty", Vec::new()),
        ] {
            std::fs::write(&entry, &bytes).unwrap();
            assert!(verified_len(&bytes).is_err(), "{what}");
            let (_, origin) = load_file(&engine, &cache, &file).unwrap();
            assert_eq!(origin, Origin::Compiled, "{what}: recompiled");
            assert_eq!(std::fs::read(&entry).unwrap(), good, "{what}: rewritten");
            assert_eq!(load_file(&engine, &cache, &file).unwrap().1, Origin::Cached);
        }
    }

    #[test]
    fn a_file_replaced_in_place_with_its_old_size_and_mtime_is_hashed_again() {
        let engine = Engine::default();
        let (_dir, cache, file) = cache_and_file(WITH_SECTION);
        let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
        assert_eq!(
            load_file(&engine, &cache, &file).unwrap().1,
            Origin::Compiled
        );

        // Same inode, same size, mtime put back (as `cp` over it then `touch -r` would).
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .and_then(|mut f| {
                use std::io::Write as _;
                f.write_all(WITH_OTHER_SECTION)?;
                f.set_modified(mtime)
            })
            .unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), mtime);
        assert_eq!(
            load_file(&engine, &cache, &file).unwrap().1,
            Origin::Compiled
        );
        assert_eq!(entries(&cache).len(), 2, "an entry for the new content");
    }

    #[test]
    fn a_cache_others_can_write_or_that_cannot_exist_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.wasm");
        std::fs::write(&file, EMPTY).unwrap();

        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        for _ in 0..2 {
            assert_eq!(
                load_file(&engine, &shared, &file).unwrap().1,
                Origin::Compiled
            );
        }
        assert_eq!(
            std::fs::read_dir(&shared).unwrap().count(),
            0,
            "nothing written"
        );

        // A cache path under a regular file cannot be created; the component still loads.
        let blocked = file.join("cache");
        assert_eq!(
            load_file(&engine, &blocked, &file).unwrap().1,
            Origin::Compiled
        );
        assert!(precompiled(&engine, &blocked, EMPTY).is_ok());

        // A new cache directory is private, its entries too.
        let private = dir.path().join("a").join("cache");
        load_file(&engine, &private, &file).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&private), 0o700);
        assert_eq!(mode(&entries(&private)[0]), 0o600);
    }

    /// The twenty-second hostile pass: the directory was checked by its path and each entry
    /// opened by path again, so another user swapping a symlink between the two (in a shared
    /// temp dir, the old fallback without `HOME`) had their own code loaded.
    #[test]
    fn entries_come_from_the_directory_checked_whatever_the_path_names_later() {
        let engine = Engine::default();
        let root = tempfile::tempdir().unwrap();
        let (mine, theirs, link) = (
            root.path().join("mine"),
            root.path().join("theirs"),
            root.path().join("cache"),
        );
        let name = entry_name(&engine, EMPTY);
        load_or_compile(&engine, &mine, EMPTY).unwrap();
        // Someone else's bytes under this component's entry name, with a valid trailer.
        make_private_dir(&theirs).unwrap();
        store_entry(
            &private_dir(&theirs).unwrap(),
            &name,
            b"planted code",
            "test",
        );
        let mine_bytes = std::fs::read(mine.join(&name)).unwrap();
        assert!(mine_bytes != std::fs::read(theirs.join(&name)).unwrap());

        std::os::unix::fs::symlink(&mine, &link).unwrap();
        let private = private_dir(&link).unwrap();
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&theirs, &link).unwrap();
        let (read, _) = private.read(&name).unwrap();
        assert!(read == mine_bytes, "read through the handle checked");
        assert!(private_dir(&link).unwrap().read(&name).unwrap().0 != mine_bytes);
        assert!(load_entry(&engine, &private, &name).is_some());
    }

    #[test]
    fn without_home_the_cache_is_the_accounts_never_a_shared_directory() {
        let home = account_home().expect("this user has a home directory");
        assert!(home.is_absolute());
        assert!(
            !home.starts_with(std::env::temp_dir()),
            "{}",
            home.display()
        );
        assert!(private_dir(Path::new("")).is_none(), "no home, no cache");
    }

    #[test]
    fn packaging_reads_entries_through_the_same_check() {
        let engine = Engine::default();
        let dir = tempfile::tempdir().unwrap();
        let code = precompiled(&engine, dir.path(), WITH_SECTION).unwrap();
        let [entry] = entries(dir.path()).try_into().unwrap();
        assert_eq!(
            std::fs::read(&entry).unwrap().len(),
            code.len() + TRAILER_LEN
        );
        assert_eq!(
            precompiled(&engine, dir.path(), WITH_SECTION).unwrap(),
            code
        );
        std::fs::write(&entry, &code[..code.len() / 2]).unwrap();
        assert_eq!(
            precompiled(&engine, dir.path(), WITH_SECTION).unwrap(),
            code,
            "a truncated entry is compiled again"
        );
    }

    #[test]
    fn storing_an_entry_removes_what_nobody_used_for_the_keep_time_and_loading_marks_use() {
        use std::time::{Duration, SystemTime};
        let set_age = |path: &Path, days: u64| {
            let file = std::fs::File::options().write(true).open(path).unwrap();
            (file.set_modified(SystemTime::now() - Duration::from_secs(days * 24 * 3600))).unwrap();
        };
        let engine = Engine::default();
        let (_dir, cache, file) = cache_and_file(EMPTY);
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Compiled);
        let entry = cache.join(entry_name(&engine, EMPTY));
        let index = std::fs::read_dir(cache.join("index"))
            .unwrap()
            .next()
            .unwrap();
        let index = index.unwrap().path();

        // Used after its time was set back: the load marks both files used again.
        set_age(&entry, 40);
        set_age(&index, 40);
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        assert_eq!(origin, Origin::Cached);
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        assert!(modified(&entry) > hour_ago && modified(&index) > hour_ago);

        // A month unused, then another component is compiled: it goes (unless this
        // environment keeps entries longer); the new one stays.
        set_age(&entry, 31);
        set_age(&index, 31);
        load_or_compile(&engine, &cache, WITH_SECTION).unwrap();
        let goes = (prune::Bounds::from_env().keep)
            .is_some_and(|keep| keep < Duration::from_secs(31 * 24 * 3600));
        assert_eq!(!entry.exists(), goes, "unused for 31 days");
        assert_eq!(!index.exists(), goes);
        assert!(cache.join(entry_name(&engine, WITH_SECTION)).exists());
        let (_, origin) = load_file(&engine, &cache, &file).unwrap();
        let again = if goes {
            Origin::Compiled
        } else {
            Origin::Cached
        };
        assert_eq!(origin, again);
    }
}
