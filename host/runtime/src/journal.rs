//! The apply journal: what a guest reported creating during an apply (WIT `progress`), kept
//! on disk until the apply answers. A provider process killed mid-apply (SIGKILL, the OOM
//! killer) takes the reported state with it, and Terraform, which never got the response,
//! would plan to create the object again while the remote side still holds the first one.
//!
//! With the journal, the next provider process started for the same component in the same
//! working directory finds the entry, and a plan that would create a resource of that type
//! from the same configuration is stopped with an error naming the object and how to import
//! it. Importing it (or reading a state that holds it) settles the entry; so does removing
//! the file the error names.
//!
//! Entries hold the configuration only as a SHA-256 digest and the state with sensitive and
//! write-only attributes redacted: the journal is for finding an object, not a second copy
//! of secrets. Files are written whole and synced (temporary file, then rename; the compile
//! cache's `store`) into a `0700` directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tfwasm_model::codec::redact::redact_block;
use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{Block, Diagnostic, SchemaIndex, Type, Value};

/// Overrides where journals are kept.
pub const JOURNAL_DIR_ENV: &str = "TFWASM_JOURNAL_DIR";

/// Where journals are kept: `$TFWASM_JOURNAL_DIR`, else `$XDG_STATE_HOME/tfwasm/journal`, else
/// `~/.local/state/tfwasm/journal`. State, not cache: wiping caches must not lose it.
pub fn default_root() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    };
    var(JOURNAL_DIR_ENV)
        .or_else(|| var("XDG_STATE_HOME").map(|d| d.join("tfwasm").join("journal")))
        .or_else(|| var("HOME").map(|d| d.join(".local/state/tfwasm/journal")))
}

/// Version of the entry format; entries of another version are left alone.
const FORMAT: u32 = 1;

/// The journal of one component in one working directory.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    /// Entries left by earlier processes and not settled yet.
    left: Mutex<Vec<Left>>,
    /// Numbers this process's entry files.
    next: AtomicU64,
}

/// A resource type's schema as the journal reads states with it: borrowed from the process's
/// schema index, so an entry neither copies a schema (a create must not clone one just in case
/// the guest reports) nor works out its type per report.
#[derive(Debug, Clone)]
pub struct TypeSchema {
    index: Arc<SchemaIndex>,
    type_name: String,
}

impl TypeSchema {
    /// The resource type `type_name` of `index`, if it has one.
    pub fn of(index: Arc<SchemaIndex>, type_name: &str) -> Option<TypeSchema> {
        index.resource_type(type_name)?;
        index.provider.resources.get(type_name)?;
        Some(TypeSchema {
            index,
            type_name: type_name.to_owned(),
        })
    }

    fn block(&self) -> &Block {
        &self.index.provider.resources[&self.type_name].block
    }

    fn ty(&self) -> &Type {
        (self.index.resource_type(&self.type_name))
            .unwrap_or_else(|| unreachable!("`of` found the type"))
    }
}

/// An interrupted apply read back: only what a plan compares and says, never the entry
/// itself, whose state may be as large as a report (and a file planted in a folder beside
/// the state larger still), for as long as the provider serves.
#[derive(Debug)]
struct Left {
    path: PathBuf,
    type_name: String,
    config_sha256: String,
    /// SHA-256 of the object's id: what [`Journal::settled`] compares a read state's id with.
    id_sha256: Option<String>,
    /// What a plan of the same configuration is told, rendered once when read.
    diagnostic: Diagnostic,
}

impl Left {
    /// The parts of `entry` a plan needs, or `None` for an entry this host would not have
    /// written (a type name or digest past any real one's length).
    fn of(path: PathBuf, entry: &Entry) -> Option<Left> {
        if entry.type_name.len() > MAX_TYPE_NAME_BYTES || entry.config_sha256.len() > 64 {
            return None;
        }
        Some(Left {
            diagnostic: interrupted_diagnostic(entry, &path),
            path,
            type_name: entry.type_name.clone(),
            config_sha256: entry.config_sha256.clone(),
            id_sha256: entry.id.as_deref().map(id_digest),
        })
    }
}

/// The longest type name an entry is read with (Terraform's are identifiers of a few dozen
/// bytes).
const MAX_TYPE_NAME_BYTES: usize = 256;

/// One reported-but-unanswered apply, as written to disk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Entry {
    format: u32,
    pid: u32,
    /// The kernel's boot id when written: a journal kept beside the state travels to other
    /// machines (a CI runner restoring it), where `pid` may be another live process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    boot: Option<String>,
    type_name: String,
    /// SHA-256 of the apply's configuration as Terraform encoded it (msgpack); a later plan
    /// of the same resource sends the same bytes.
    config_sha256: String,
    /// The object's `id` attribute when it has a readable one: what an import needs.
    id: Option<String>,
    /// The reported state in Terraform's JSON form, secrets redacted.
    state: serde_json::Value,
    /// The object's resource identity as an `import` block's `identity` takes it (name and
    /// value, in declaration order), when the type declares one and the state holds every
    /// attribute it needs: the import ID is the provider's own syntax (`/items/42`), which
    /// the host cannot know, while an identity names the object by attribute. Values, not
    /// text: an entry is read back from a folder others may write (a checkout), so it is
    /// rendered as HCL only when shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    identity: Option<Vec<(String, serde_json::Value)>>,
}

/// Why the journal cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("the apply journal {dir} {why}")]
pub struct JournalError {
    dir: PathBuf,
    why: String,
}

impl Journal {
    /// The journal for `component` run from the current directory, under `root`. Reads what
    /// earlier processes left; the directory is created (`0700`) when a first entry is
    /// written, and refused when another user owns it or can write to it.
    ///
    /// # Errors
    /// When the directory cannot be made private or read.
    pub fn open(root: &Path, component: &Path) -> Result<Journal, JournalError> {
        Journal::open_dir(Journal::dir_for(root, component))
    }

    /// The directory [`Journal::open`] uses, computed without touching anything (a caller
    /// checks it against the grants first).
    pub fn dir_for(root: &Path, component: &Path) -> PathBuf {
        let cwd = std::env::current_dir().unwrap_or_default();
        let component = component
            .canonicalize()
            .unwrap_or_else(|_| component.to_owned());
        let mut key = Sha256::new();
        key.update(cwd.as_os_str().as_encoded_bytes());
        key.update([0]);
        key.update(component.as_os_str().as_encoded_bytes());
        root.join(&hex::encode(key.finalize())[..16])
    }

    /// The journal of the provider `provider` (its type name) under `dir`, a directory that
    /// belongs to one working directory, beside its state: keyed by the provider alone, so
    /// it is found again wherever the checkout and the plugin cache lie (a CI runner that
    /// restores the folder with the state on another machine).
    ///
    /// # Errors
    /// As [`Journal::open`].
    pub fn open_beside_state(dir: &Path, provider: &str) -> Result<Journal, JournalError> {
        Journal::open_dir(Journal::dir_beside_state(dir, provider))
    }

    /// The directory [`Journal::open_beside_state`] uses, computed without touching anything.
    pub fn dir_beside_state(dir: &Path, provider: &str) -> PathBuf {
        let mut key = Sha256::new();
        key.update(b"beside-state\0");
        key.update(provider.as_bytes());
        dir.join(&hex::encode(key.finalize())[..16])
    }

    /// The journal in `dir` (from [`Journal::dir_for`] or [`Journal::dir_beside_state`]).
    ///
    /// # Errors
    /// As [`Journal::open`].
    pub fn open_dir(dir: PathBuf) -> Result<Journal, JournalError> {
        Journal::open_dir_within(dir, MAX_BYTES_READ)
    }

    /// [`Journal::open_dir`], reading at most `bytes_left` bytes of entries.
    fn open_dir_within(dir: PathBuf, mut bytes_left: u64) -> Result<Journal, JournalError> {
        let mut left = Vec::new();
        // Nothing is created until an apply reports a state: most runs never write one.
        if !dir.exists() {
            return Ok(Journal {
                dir,
                left: Mutex::new(left),
                next: AtomicU64::new(0),
            });
        }
        // What we read here decides what a plan says, so only a private directory counts.
        crate::cache::make_private_dir(&dir).map_err(|why| JournalError {
            dir: dir.clone(),
            why,
        })?;
        let listing = std::fs::read_dir(&dir).map_err(|e| JournalError {
            dir: dir.clone(),
            why: format!("cannot be read ({e})"),
        })?;
        // What is read is bounded in parsed values, not bytes alone: `[0,0,…]` costs 16 times
        // its size once parsed, and a folder beside the state may hold files someone else
        // wrote (a checkout).
        let mut values_left = MAX_VALUES_READ;
        let mut files_left = MAX_ENTRIES_READ;
        for file in listing.flatten() {
            let path = file.path();
            // Only the names this host writes (`PID-N-TYPE.json`).
            if !path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(entry_file_name)
            {
                continue;
            }
            if files_left == 0 {
                tracing::warn!(dir = %dir.display(), "more than {MAX_ENTRIES_READ} apply journal entries; the rest are not read");
                break;
            }
            files_left -= 1;
            // Never through a symlink: an entry is a file this host wrote.
            let Some(entry) = read_no_follow(&path, bytes_left)
                .ok()
                .filter(|bytes| {
                    bytes_left -= bytes.len() as u64;
                    let counted =
                        tfwasm_model::codec::json::value_count_at_most(bytes, values_left);
                    values_left -= counted.unwrap_or(values_left);
                    counted.is_some()
                })
                .and_then(|bytes| serde_json::from_slice::<Entry>(&bytes).ok())
            else {
                tracing::warn!(file = %path.display(), "ignoring an unreadable apply journal entry (or one past what is read)");
                continue;
            };
            // Another process still serving in this directory owns its entries; one written
            // on another boot (or machine) is no process running now.
            let same_boot = entry.boot.is_none() || entry.boot == boot_id();
            if entry.format == FORMAT && !(same_boot && process_alive(entry.pid)) {
                match Left::of(path, &entry) {
                    Some(l) => left.push(l),
                    None => {
                        tracing::warn!(dir = %dir.display(), "ignoring an apply journal entry no tfwasm wrote")
                    }
                }
            }
        }
        if !left.is_empty() {
            tracing::warn!(
                dir = %dir.display(),
                entries = left.len(),
                "an earlier apply was interrupted after its provider reported creating objects"
            );
        }
        Ok(Journal {
            dir,
            left: Mutex::new(left),
            next: AtomicU64::new(0),
        })
    }

    /// Where this journal's entries live.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An entry for an apply of `type_name` with `config`, written only once the guest
    /// reports a state. `schema` is the resource's (for redaction and the `id`).
    pub(crate) fn pending(
        &self,
        type_name: &str,
        config: &DynamicValue,
        schema: TypeSchema,
    ) -> Pending {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Pending {
            path: self
                .dir
                .join(format!("{}-{n}-{type_name}.json", std::process::id())),
            type_name: type_name.to_owned(),
            config_sha256: digest(config),
            schema,
            written: false,
        }
    }

    /// Errors for a plan that would create `type_name` from `config` while an interrupted
    /// apply of the same configuration left an object behind. Empty when there is none.
    pub fn interrupted(&self, type_name: &str, config: &DynamicValue) -> Vec<Diagnostic> {
        let left = self.left.lock().unwrap_or_else(|p| p.into_inner());
        if left.is_empty() {
            return Vec::new();
        }
        let config = digest(config);
        left.iter()
            .filter(|l| l.type_name == type_name && l.config_sha256 == config)
            .map(|l| l.diagnostic.clone())
            .collect()
    }

    /// `state` of `type_name` is in Terraform's hands now (imported, or read from its
    /// state): entries naming the same object are settled and removed.
    pub fn settled(&self, type_name: &str, state: &DynamicValue, schema: &TypeSchema) {
        let mut left = self.left.lock().unwrap_or_else(|p| p.into_inner());
        if left.is_empty() {
            return;
        }
        let Some(id) = state
            .decode(schema.ty())
            .ok()
            .and_then(|v| readable_id(&v, schema.block()))
        else {
            return;
        };
        left.retain(|l| {
            let same =
                l.type_name == type_name && l.id_sha256.as_deref() == Some(&*id_digest(&id));
            if same {
                tracing::info!(file = %l.path.display(), id, "interrupted apply settled: the object is in Terraform's state");
                remove_entry(&l.path);
            }
            !same
        });
    }
}

/// An apply in flight: [`Pending::record`] on each reported state, [`Pending::finish`]
/// when the apply answers.
#[derive(Debug)]
pub(crate) struct Pending {
    path: PathBuf,
    type_name: String,
    config_sha256: String,
    schema: TypeSchema,
    written: bool,
}

impl Pending {
    /// Writes (or rewrites) the entry for a reported state (msgpack) if it takes at most
    /// `allowance` bytes, and returns the bytes written. A failure to write is logged and
    /// otherwise ignored: the apply itself goes on.
    ///
    /// The entry is JSON, where a six-byte `1e999` becomes 1,000 digits: what a state
    /// would write is bounded before it is built, so the allowance bounds memory and disk.
    pub(crate) fn record(&mut self, state: &[u8], allowance: usize) -> Option<usize> {
        let ty = self.schema.ty();
        let value = tfwasm_model::codec::msgpack::decode(state, ty).ok();
        if value
            .as_ref()
            .is_some_and(|v| number_text_bytes(v) > allowance)
        {
            return None;
        }
        let id = value
            .as_ref()
            .and_then(|v| readable_id(v, self.schema.block()));
        let identity = value.as_ref().and_then(|v| {
            let identity = self.schema.index.identities.get(&self.type_name)?;
            import_identity(v, self.schema.block(), identity)
        });
        let mut json = value
            .and_then(|v| tfwasm_model::codec::json::encode_with_unknowns(&v, ty).ok())
            .unwrap_or(serde_json::Value::Null);
        redact_block(&mut json, self.schema.block());
        let entry = Entry {
            format: FORMAT,
            pid: std::process::id(),
            boot: boot_id(),
            type_name: self.type_name.clone(),
            config_sha256: self.config_sha256.clone(),
            id,
            state: json,
            identity,
        };
        // Compact: indentation grows with depth (a number 120 levels down took 247 bytes).
        let mut capped = Capped {
            bytes: Vec::new(),
            cap: allowance,
        };
        serde_json::to_writer(&mut capped, &entry).ok()?;
        let bytes = capped.bytes;
        match write_bytes(&self.path, &bytes) {
            Ok(()) => self.written = true,
            Err(e) => tracing::warn!(
                file = %self.path.display(),
                "cannot write the apply journal entry: {e}"
            ),
        }
        Some(bytes.len())
    }

    /// The apply answered: its entry is no longer needed, unless the client that asked is
    /// gone ([`client_gone`]): then the answer, and the object in it, never reaches a state
    /// file, and the entry stays for the next plan to report.
    pub(crate) fn finish(self) {
        if self.written && !client_gone() {
            remove_entry(&self.path);
        }
    }
}

/// The process that started this provider (Terraform, OpenTofu), when known.
static CLIENT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Names the client process (the parent at start), so an answer finished after it died keeps
/// its journal entry. Without it every answer is taken as delivered.
pub fn watch_client(parent: i32) {
    CLIENT.store(parent, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the client named by [`watch_client`] is no longer this process's parent.
pub fn client_gone() -> bool {
    gone(CLIENT.load(std::sync::atomic::Ordering::Relaxed))
}

/// Whether `client` (0: none named) is no longer this process's parent.
fn gone(client: i32) -> bool {
    // SAFETY: getppid has no preconditions and cannot fail.
    client > 1 && unsafe { libc::getppid() } != client
}

/// Removes an entry, and its directory when that was the last one (no litter per working
/// directory).
fn remove_entry(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        tracing::warn!(file = %path.display(), "cannot remove the apply journal entry: {e}");
    }
    if let Some(dir) = path.parent() {
        // Fails while other entries are there, as it should.
        let _ = std::fs::remove_dir(dir);
    }
}

fn digest(value: &DynamicValue) -> String {
    let mut hash = Sha256::new();
    hash.update(&value.msgpack);
    hash.update([0]);
    hash.update(&value.json);
    hex::encode(hash.finalize())
}

/// SHA-256 of an object's id, hex.
fn id_digest(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// The `id` attribute when it is a known string and not a secret.
fn readable_id(state: &Value, block: &Block) -> Option<String> {
    let attr = block.attributes.iter().find(|a| a.name == "id")?;
    if attr.sensitive || attr.write_only {
        return None;
    }
    state.get("id")?.as_str().map(str::to_owned)
}

/// The identity of the object with `state`, taken as the SDKs' default does (each identity
/// attribute from the state attribute of the same name); `None` when an attribute an import
/// needs has no readable value there.
fn import_identity(
    state: &Value,
    block: &Block,
    identity: &tfwasm_model::rpc::IdentitySchema,
) -> Option<Vec<(String, serde_json::Value)>> {
    let mut out = Vec::new();
    for attr in &identity.attributes {
        let readable = block
            .attributes
            .iter()
            .find(|a| a.name == attr.name)
            .filter(|a| !a.sensitive && !a.write_only)
            .and_then(|_| match state.get(&attr.name)? {
                Value::String(s) => Some(serde_json::Value::from(s.as_str())),
                Value::Bool(b) => Some(serde_json::Value::from(*b)),
                Value::Number(n) => serde_json::from_str(&n.to_string()).ok(),
                _ => None,
            });
        match readable {
            Some(value) if attr.required_for_import || attr.optional_for_import => {
                out.push((attr.name.clone(), value));
            }
            None if attr.required_for_import => return None,
            _ => {}
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A string, number or bool as HCL writes it, a string's `${` and `%{` escaped so nothing in
/// it is a template; `None` for anything else.
fn hcl_literal(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(
            serde_json::Value::from(s.as_str())
                .to_string()
                .replace("${", "$${")
                .replace("%{", "%%{"),
        ),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Whether `name` can stand as an attribute name in an `identity` object: an identifier as
/// schemas take them, not starting with a digit or `-`, no longer than a schema name.
fn identifier(name: &str) -> bool {
    crate::bindings::is_identifier(name)
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && name.len() <= crate::bindings::MAX_NAME_BYTES
}

/// `text` as one shell word: as is when it holds nothing a shell reads specially, else in
/// single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:/@+=,-".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The most entry files read from one journal directory.
const MAX_ENTRIES_READ: usize = 1000;
/// The most JSON values read from one journal directory, all entries together (about 80
/// bytes each once parsed).
const MAX_VALUES_READ: usize = 4 << 20;

/// Whether `name` is one an entry is written under: `PID-N-TYPE.json`.
fn entry_file_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".json") else {
        return false;
    };
    let mut parts = stem.splitn(3, '-');
    let digits =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next())
        && digits(parts.next())
        && parts.next().is_some_and(|t| {
            !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// The largest entry file read back: well past what the host writes (the per-call report
/// allowance), and a bound on what a file planted in the folder (a checkout) can cost.
const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// The most bytes read from one journal directory, all entries together: one entry at its
/// largest. Values alone do not bound it (a string of any length is one value), and a
/// folder beside the state may hold a thousand files someone else wrote.
const MAX_BYTES_READ: u64 = MAX_ENTRY_BYTES;

/// Reads a regular file that is not a symlink (nor a FIFO, which would block the start), up
/// to [`MAX_ENTRY_BYTES`] and to `budget` bytes.
fn read_no_follow(path: &Path, budget: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    let limit = MAX_ENTRY_BYTES.min(budget);
    if !meta.is_file() || meta.len() > limit {
        return Err(std::io::Error::other(
            "not a journal entry (a regular file within the size bound)",
        ));
    }
    let mut bytes = Vec::new();
    // The file may have grown since: never more than the bound.
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn write_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        crate::cache::make_private_dir(dir).map_err(std::io::Error::other)?;
    }
    crate::cache::store(path, &[bytes])
}

/// A buffer that refuses to grow past `cap`, so an entry over its allowance stops being
/// written as soon as it is.
struct Capped {
    bytes: Vec<u8>,
    cap: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.cap {
            return Err(std::io::Error::other("journal entry over its allowance"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes the numbers in `value` take written out in plain decimal, the bounds of refined
/// unknowns and dynamic values' types included: what the entry holds beyond the report's
/// own bytes.
fn number_text_bytes(value: &Value) -> usize {
    match value {
        Value::Number(n) => n.plain_len(),
        Value::Unknown(r) => [&r.number_lower, &r.number_upper]
            .into_iter()
            .flatten()
            .map(|(n, _)| n.plain_len())
            .sum(),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            items.iter().map(number_text_bytes).sum()
        }
        Value::Map(entries) => entries.values().map(number_text_bytes).sum(),
        Value::Object(entries) => entries.values().map(number_text_bytes).sum(),
        // A dynamic value is written with its type's JSON.
        Value::Dynamic(ty, inner) => ty.to_json_string().len() + number_text_bytes(inner),
        _ => 0,
    }
}

/// Most of a journaled state or id a diagnostic quotes: the file holds the whole of it, and
/// a guest reports states of up to 64 MiB (quoted whole, a diagnostic past every cap).
const QUOTED_STATE_BYTES: usize = 1024;

/// The start of `text`, then how long it was, when it is longer than `max` bytes.
fn quote_start(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    format!(
        "{}… ({} bytes)",
        &text[..text.floor_char_boundary(max)],
        text.len()
    )
}

fn interrupted_diagnostic(entry: &Entry, file: &Path) -> Diagnostic {
    // The id and the state are the guest's: every control and bidirectional character is
    // shown as an escape wherever they are quoted.
    let escape = |text: &str| tfwasm_model::quote::escaped(text).into_owned();
    let id = entry.id.as_deref().map(|id| escape(&quote_start(id, 256)));
    let object = match &id {
        Some(id) => format!("with id {id:?}"),
        None => format!(
            "(state: {})",
            escape(&quote_start(&entry.state.to_string(), QUOTED_STATE_BYTES))
        ),
    };
    // Shown as HCL and as a shell word, rendered here from values: the id and the identity
    // are the guest's (or whoever wrote the folder), and `${` or `;` must stay text.
    let identity = entry.identity.as_ref().and_then(|attrs| {
        let attrs: Option<Vec<String>> = (attrs.iter().take(32))
            .map(|(name, value)| {
                let literal = hcl_literal(value).filter(|l| l.len() <= 1024)?;
                identifier(name).then(|| format!("{name} = {}", escape(&literal)))
            })
            .collect();
        attrs.map(|attrs| attrs.join(", "))
    });
    let literal = entry.id.as_deref().map(|id| {
        escape(&quote_start(
            &hcl_literal(&id.into()).unwrap_or_default(),
            256,
        ))
    });
    let command = id.as_deref().map(shell_word);
    let import = match (&identity, &literal) {
        (Some(identity), _) => format!(
            "Import it into this resource: an `import` block with `identity = {{ {identity} }}` (Terraform 1.12 and later), or `terraform import ADDRESS IMPORT_ID` with the ID this resource type's import takes{}",
            id.as_ref()
                .map(|id| format!(" (the object's id is {id:?})"))
                .unwrap_or_default()
        ),
        (None, Some(literal)) => format!(
            "Import it into this resource (`terraform import ADDRESS {}`, or an `import` block with id = {literal})",
            command.unwrap_or_default()
        ),
        (None, None) => "Import it into this resource".to_owned(),
    };
    Diagnostic::error(
        "An interrupted apply left an object behind",
        format!(
            "An earlier apply of {} with this same configuration stopped (the provider process was killed) after the provider reported creating the object {object}, before Terraform could save it. Creating it again would leave that object unmanaged. {import}; or, if it no longer exists, delete {} and plan again.",
            escape(&entry.type_name),
            escape(&shell_word(&file.display().to_string()))
        ),
    )
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`), read once.
fn boot_id() -> Option<String> {
    static BOOT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty())
    })
    .clone()
}

/// Whether a process with this id exists (signal 0 checks without sending).
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid == 0 || pid == std::process::id() as libc::pid_t {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
    let rc = unsafe { libc::kill(pid, 0) };
    let exists = rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    // A zombie (dead, not yet reaped: an orphaned provider whose new parent has not waited
    // for it) serves nothing.
    exists && !zombie(pid)
}

/// Whether `pid` is a zombie, from `/proc/<pid>/stat` (false where that cannot be read).
fn zombie(pid: libc::pid_t) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|close| stat[close + 1..].split_whitespace().next())
            == Some("Z")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{Attribute, Type};

    /// An orphaned provider that died but was not reaped yet (a zombie) owns no entries.
    #[test]
    fn a_zombie_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let started = std::time::Instant::now();
        while !zombie(pid as libc::pid_t) && started.elapsed() < std::time::Duration::from_secs(5) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!process_alive(pid), "dead, not yet reaped");
        child.wait().unwrap();
        // SAFETY: getppid has no preconditions.
        assert!(process_alive(unsafe { libc::getppid() } as u32));
    }

    #[test]
    fn an_answer_after_the_client_is_gone_keeps_its_entry() {
        // SAFETY: getppid has no preconditions.
        let parent = unsafe { libc::getppid() };
        assert!(!gone(parent));
        assert!(gone(parent + 100_000));
        assert!(!gone(0), "unwatched: every answer counts as delivered");
    }

    /// `block` as the schema of `t_x`, in an index of its own.
    fn schema_of(block: Block) -> TypeSchema {
        let mut provider = tfwasm_model::ProviderSchema::default();
        provider
            .resources
            .insert("t_x".into(), tfwasm_model::Schema { version: 0, block });
        let index = SchemaIndex::new(provider, Default::default(), Default::default());
        TypeSchema::of(Arc::new(index), "t_x").unwrap()
    }

    fn block() -> Block {
        let mut secret = Attribute::new("password", Type::String);
        secret.sensitive = true;
        Block {
            attributes: vec![
                Attribute::new("id", Type::String),
                Attribute::new("name", Type::String),
                secret,
            ],
            ..Block::default()
        }
    }

    fn state(id: &str) -> DynamicValue {
        let value = Value::object([
            ("id", Value::from(id)),
            ("name", Value::from("n")),
            ("password", Value::from("hunter2")),
        ]);
        DynamicValue::encode(&value, &block().implied_type()).unwrap()
    }

    fn config(name: &str) -> DynamicValue {
        let value = Value::object([
            ("id", Value::Null),
            ("name", Value::from(name)),
            ("password", Value::from("hunter2")),
        ]);
        DynamicValue::encode(&value, &block().implied_type()).unwrap()
    }

    /// A journal root, a component in it, and the journal of both (for this working directory).
    fn fresh() -> (tempfile::TempDir, PathBuf, Journal) {
        let root = tempfile::tempdir().unwrap();
        let component = root.path().join("p.wasm");
        std::fs::write(&component, b"x").unwrap();
        let journal = Journal::open(root.path(), &component).unwrap();
        (root, component, journal)
    }

    /// The seventh hostile pass: numbers sent as `1e9999` (seven bytes) were written as
    /// 10,000 digits, so 112 KB of reports wrote 160 MB (now `1e999` and 1,000 digits at
    /// most). The allowance counts what is written.
    #[test]
    fn an_entry_is_written_only_within_its_allowance_counted_as_written() {
        let (_root, _component, journal) = fresh();
        let mut numbers = block();
        numbers
            .attributes
            .push(Attribute::new("n", Type::List(Box::new(Type::Number))));
        let numbers = schema_of(numbers);
        // {"id": "obj-1", "n": ["1e999" × 200], "name": null, "password": null}, numbers
        // as text as a guest may send them.
        let mut sent = vec![0x84, 0xa2, b'i', b'd', 0xa5];
        sent.extend(b"obj-1");
        sent.extend([0xa1, b'n', 0xdc, 0x00, 200]);
        (0..200).for_each(|_| sent.extend(b"\xa51e999"));
        sent.extend(b"\xa4name\xc0\xa8password\xc0");
        assert!(sent.len() < 2_000, "{} bytes sent", sent.len());
        let mut pending = journal.pending("t_x", &config("a"), numbers);
        assert_eq!(
            pending.record(&sent, 100_000),
            None,
            "200,000 digits refused"
        );
        let entries = || std::fs::read_dir(journal.dir()).map_or(0, |d| d.count());
        assert_eq!(entries(), 0, "nothing written");
        let written = pending
            .record(&sent, 2_000_000)
            .expect("within the allowance");
        assert!(written > 200_000, "charged {written}, the bytes written");
        assert_eq!(entries(), 1);

        // The eighth pass: unknowns refined between -1e999 and 1e999 (23 bytes each)
        // write both bounds in full.
        let mut bounds = vec![0xc7, 20, 0x0c, 0x82, 0x03, 0x92, 0xa6];
        bounds.extend(b"-1e999\xc3\x04\x92\xa51e999\xc3");
        let mut sent = vec![0x84, 0xa2, b'i', b'd', 0xa5];
        sent.extend(b"obj-2");
        sent.extend([0xa1, b'n', 0xdc, 0x00, 100]);
        (0..100).for_each(|_| sent.extend(&bounds));
        sent.extend(b"\xa4name\xc0\xa8password\xc0");
        assert_eq!(
            pending.record(&sent, 100_000),
            None,
            "200,000 digits of bounds refused"
        );
        let text = std::fs::read_to_string(
            std::fs::read_dir(journal.dir())
                .unwrap()
                .flatten()
                .next()
                .unwrap()
                .path(),
        )
        .unwrap();
        assert!(
            text.contains("obj-1") && !text.contains("obj-2"),
            "the earlier entry stays"
        );
        assert!(
            !text.contains("\n "),
            "written compact, not indented by depth"
        );
    }

    /// The fifteenth hostile pass: the diagnostic quoted a journaled state whole (60 MiB
    /// reported: a 63 MB diagnostic, past every cap).
    #[test]
    fn the_interrupted_apply_diagnostic_quotes_the_state_by_its_start() {
        let entry = |id: Option<String>| Entry {
            format: 1,
            pid: 1,
            boot: None,
            type_name: "t_x".into(),
            config_sha256: String::new(),
            id,
            state: serde_json::json!({ "blob": "b".repeat(4 << 20) }),
            identity: None,
        };
        let file = Path::new("/journal/entry.json");
        let without_id = interrupted_diagnostic(&entry(None), file);
        assert!(
            without_id.detail.len() < 4096,
            "{}",
            without_id.detail.len()
        );
        assert!(without_id.detail.contains("bytes)") && without_id.detail.contains("entry.json"));
        let long_id = interrupted_diagnostic(&entry(Some("i".repeat(1 << 20))), file);
        assert!(long_id.detail.len() < 4096, "{}", long_id.detail.len());
        let short = interrupted_diagnostic(&entry(Some("i-1".into())), file);
        assert!(
            short.detail.contains(r#"with id "i-1""#),
            "{}",
            short.detail
        );
    }

    /// An import ID is the provider's own syntax (restapi's is `/items/42`), which the host
    /// cannot know; a type with an identity is named by attribute instead, as an `import`
    /// block takes it, with template syntax in a value escaped.
    #[test]
    fn a_type_with_an_identity_is_named_by_an_import_block() {
        use tfwasm_model::rpc::{IdentityAttribute, IdentitySchema};
        let mut block = block();
        block.attributes.push(Attribute::new("path", Type::String));
        let attr = |name: &str, required| IdentityAttribute {
            name: name.into(),
            ty: Type::String,
            required_for_import: required,
            optional_for_import: !required,
            description: String::new(),
        };
        let identity = IdentitySchema {
            version: 0,
            attributes: vec![attr("path", true), attr("id", true), attr("region", false)],
        };
        let value = Value::object([
            ("id", Value::from("42")),
            ("name", Value::from("n")),
            ("password", Value::from("hunter2")),
            ("path", Value::from("/items/${x}")),
        ]);
        let found = import_identity(&value, &block, &identity).unwrap();
        assert_eq!(
            found,
            [
                ("path".to_owned(), serde_json::json!("/items/${x}")),
                ("id".to_owned(), serde_json::json!("42"))
            ]
        );
        let entry = Entry {
            format: 1,
            pid: 1,
            boot: None,
            type_name: "t_x".into(),
            config_sha256: String::new(),
            id: Some("42".into()),
            state: serde_json::Value::Null,
            identity: Some(found),
        };
        let d = interrupted_diagnostic(&entry, Path::new("/j/e.json"));
        assert!(
            d.detail
                .contains(r#"identity = { path = "/items/$${x}", id = "42" }"#)
                && d.detail.contains(r#"the object's id is "42""#),
            "{}",
            d.detail
        );
        // A required attribute the state lacks or keeps secret: no block to suggest.
        let mut secret_path = block.clone();
        (secret_path.attributes.iter_mut())
            .filter(|a| a.name == "path")
            .for_each(|a| a.sensitive = true);
        assert_eq!(import_identity(&value, &secret_path, &identity), None);
    }

    /// Beside the state the journal is keyed by the provider alone: another checkout path
    /// (a CI runner restoring the folder elsewhere) finds the same entries, and an entry
    /// written on another boot belongs to no live process, whatever its pid.
    #[test]
    fn beside_the_state_entries_are_found_from_another_checkout_and_boot() {
        let dir = tempfile::tempdir().unwrap();
        let first = Journal::open_beside_state(dir.path(), "restapi").unwrap();
        let again = Journal::open_beside_state(dir.path(), "restapi").unwrap();
        let other = Journal::open_beside_state(dir.path(), "local").unwrap();
        assert_eq!(first.dir(), again.dir());
        assert_ne!(first.dir(), other.dir());
        let mut pending = first.pending("t_x", &config("a"), schema_of(block()));
        pending.record(&state("obj-9").msgpack, 1 << 20).unwrap();
        // Written by a live process (this one's parent) on another boot.
        let file = std::fs::read_dir(first.dir())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut entry: Entry = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(entry.boot, boot_id());
        // SAFETY: getppid has no preconditions.
        entry.pid = unsafe { libc::getppid() } as u32;
        std::fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
        let same_boot = Journal::open_beside_state(dir.path(), "restapi").unwrap();
        assert!(
            same_boot.interrupted("t_x", &config("a")).is_empty(),
            "a live process owns it"
        );
        entry.boot = Some("another-boot".into());
        std::fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
        let restored = Journal::open_beside_state(dir.path(), "restapi").unwrap();
        assert_eq!(restored.interrupted("t_x", &config("a")).len(), 1);
    }

    /// The twenty-fourth hostile pass: the guest's id went raw into the suggested shell
    /// command and, `{:?}`-quoted, into HCL (`${nonsensitive(var.db_password)}` stayed a
    /// live template, so the suggested import block handed the guest a secret), and an
    /// entry's identity was shown as stored text, which anyone writing the folder chooses.
    #[test]
    fn the_import_hint_is_text_in_the_shell_and_in_hcl() {
        let entry = |id: &str, identity| Entry {
            format: 1,
            pid: 1,
            boot: None,
            type_name: "t_x".into(),
            config_sha256: String::new(),
            id: Some(id.into()),
            state: serde_json::Value::Null,
            identity,
        };
        let file = Path::new("/j/e.json");
        let d = interrupted_diagnostic(&entry("x; touch /tmp/p #", None), file);
        assert!(
            d.detail
                .contains("`terraform import ADDRESS 'x; touch /tmp/p #'`"),
            "{}",
            d.detail
        );
        let d = interrupted_diagnostic(&entry("it's", None), file);
        assert!(d.detail.contains(r"ADDRESS 'it'\''s'`"), "{}", d.detail);
        let d = interrupted_diagnostic(&entry("${nonsensitive(var.pw)}", None), file);
        assert!(
            d.detail.contains(r#"id = "$${nonsensitive(var.pw)}""#),
            "{}",
            d.detail
        );
        assert!(
            d.detail.contains("ADDRESS '${nonsensitive(var.pw)}'"),
            "{}",
            d.detail
        );
        let d = interrupted_diagnostic(&entry("plain-1", None), file);
        assert!(
            d.detail.contains("`terraform import ADDRESS plain-1`"),
            "{}",
            d.detail
        );
        // A planted identity: values are rendered here, names must be identifiers.
        let planted = |name: &str, value: serde_json::Value| {
            interrupted_diagnostic(&entry("1", Some(vec![(name.to_owned(), value)])), file).detail
        };
        let text = planted("id", serde_json::json!("${nonsensitive(var.pw)} }"));
        assert!(
            text.contains(r#"identity = { id = "$${nonsensitive(var.pw)} }" }"#),
            "{text}"
        );
        let text = planted("id = 1 } x = {", serde_json::json!("v"));
        assert!(!text.contains("identity ="), "{text}");
        let text = planted("id", serde_json::json!({"nested": true}));
        assert!(!text.contains("identity ="), "{text}");
    }

    /// The twenty-fifth hostile pass: a 32 MiB entry of `[0,0,…]` planted beside the state
    /// took 1.76 GB to read at every start; only names this host writes are read, within a
    /// budget of parsed values.
    #[test]
    fn entries_are_read_by_name_and_within_a_budget_of_values() {
        assert!(entry_file_name("4242-0-restapi_object.json"));
        for name in [
            "a;rm -rf ~;.json",
            "1-2.json",
            "x-0-t.json",
            "1-0-t y.json",
            "1-0-t.json.bak",
        ] {
            assert!(!entry_file_name(name), "{name}");
        }
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open_beside_state(dir.path(), "p").unwrap();
        std::fs::create_dir_all(journal.dir()).unwrap();
        let mut zeros = String::from(
            r#"{"format":1,"pid":1,"boot":"other","type_name":"t_x","config_sha256":"","id":null,"state":["#,
        );
        zeros.push_str(&"0,".repeat(MAX_VALUES_READ));
        zeros.push_str("0]}");
        std::fs::write(journal.dir().join("1-0-t_x.json"), &zeros).unwrap();
        let small = r#"{"format":1,"pid":1,"boot":"other","type_name":"t_x","config_sha256":"","id":"i-1","state":null}"#;
        std::fs::write(journal.dir().join("1-1-t_x.json"), small).unwrap();
        std::fs::write(journal.dir().join("a;rm -rf ~;.json"), small).unwrap();
        let read = Journal::open_beside_state(dir.path(), "p").unwrap();
        let left = read.left.lock().unwrap();
        assert_eq!(left.len(), 1, "the small entry only");
        assert_eq!(left[0].id_sha256, Some(id_digest("i-1")));
    }

    /// The twenty-sixth hostile pass: a string is one value however long, so entries of
    /// 255 MiB each passed the value budget, and each was kept whole while the provider
    /// served (eight took 2.15 GB). Entries are read within a budget of bytes too, and only
    /// what a plan says of them is kept.
    #[test]
    fn entries_are_read_within_a_budget_of_bytes_and_kept_as_their_diagnostic() {
        let dir = tempfile::tempdir().unwrap();
        let journal_dir = Journal::dir_beside_state(dir.path(), "p");
        std::fs::create_dir_all(&journal_dir).unwrap();
        let long = "A".repeat(1 << 20);
        let entry = format!(
            r#"{{"format":1,"pid":1,"boot":"other","type_name":"t_x","config_sha256":"","id":"{long}","state":"{long}"}}"#
        );
        std::fs::write(journal_dir.join("1-0-t_x.json"), &entry).unwrap();
        std::fs::write(journal_dir.join("1-1-t_x.json"), &entry).unwrap();
        let read = Journal::open_dir_within(journal_dir.clone(), entry.len() as u64 + 10).unwrap();
        let left = read.left.lock().unwrap();
        assert_eq!(left.len(), 1, "the second entry is past the budget");
        assert_eq!(left[0].id_sha256, Some(id_digest(&long)));
        let kept = left[0].diagnostic.summary.len() + left[0].diagnostic.detail.len();
        assert!(kept < 4096, "{kept} bytes kept of a 2 MiB entry");
        drop(left);

        let odd_name = entry.replace(r#""t_x""#, &format!("{:?}", "t".repeat(300)));
        std::fs::remove_file(journal_dir.join("1-1-t_x.json")).unwrap();
        std::fs::write(journal_dir.join("1-0-t_x.json"), odd_name).unwrap();
        let read = Journal::open_dir(journal_dir).unwrap();
        assert!(
            read.left.lock().unwrap().is_empty(),
            "a type name no provider has"
        );
    }

    /// The twenty-second hostile pass: the import hint wrote a guest-chosen id raw, and a
    /// state without one was quoted as JSON, which keeps C1 and bidirectional controls.
    #[test]
    fn the_interrupted_apply_diagnostic_shows_no_control_character() {
        let entry = |id: Option<&str>| Entry {
            format: 1,
            pid: 1,
            boot: None,
            type_name: "t_x".into(),
            config_sha256: String::new(),
            id: id.map(str::to_owned),
            state: serde_json::json!({ "name": "a\u{9b}31m\u{202e}b" }),
            identity: None,
        };
        let file = Path::new("/journal/entry.json");
        for d in [
            interrupted_diagnostic(&entry(Some("x\u{1b}]0;t\u{7}\u{9b}2J\u{202e}")), file),
            interrupted_diagnostic(&entry(None), file),
        ] {
            assert!(
                !d.detail.chars().any(tfwasm_model::quote::is_hidden_char),
                "{:?}",
                d.detail
            );
        }
    }

    /// The nineteenth hostile pass: with the journal inside a read-write grant, a guest
    /// planted a symlink at the next temporary name and the host wrote the entry through it,
    /// outside every grant. Writes never follow a symlink now, nor do reads of entries.
    #[test]
    fn entries_are_never_written_or_read_through_a_symlink() {
        let (root, _component, journal) = fresh();
        let victim = root.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        std::fs::create_dir_all(journal.dir()).unwrap();
        let entry = journal.dir().join("1-0-t_x.json");
        std::os::unix::fs::symlink(&victim, &entry).unwrap();
        crate::cache::store(&entry, &[b"{\"written\": true}"]).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&entry).unwrap().is_symlink());

        let planted = journal.dir().join("2-0-t_x.json");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert!(
            read_no_follow(&planted, MAX_BYTES_READ).is_err(),
            "a symlinked entry is not read"
        );
    }

    /// The eighteenth hostile pass: a sensitive map with the key `"$unknown"` was written as
    /// an unknown's marker, kept by the redaction, and quoted by the next plan's diagnostic.
    #[test]
    fn a_secret_map_whose_key_looks_like_a_marker_is_redacted() {
        let mut secrets = Attribute::new("secrets", Type::Map(Box::new(Type::String)));
        secrets.sensitive = true;
        let block = Block {
            attributes: vec![Attribute::new("id", Type::String), secrets],
            ..Block::default()
        };
        let ty = block.implied_type();
        let value = |secret: &str| {
            Value::object([
                ("id", Value::Null),
                (
                    "secrets",
                    Value::Map(
                        [("$unknown".into(), Value::from(secret))]
                            .into_iter()
                            .collect(),
                    ),
                ),
            ])
        };
        let (_root, _component, journal) = fresh();
        let config = DynamicValue::encode(&value("hunter2-config"), &ty).unwrap();
        let mut pending = journal.pending("t_m", &config, schema_of(block));
        let state = DynamicValue::encode(&value("hunter2-journal"), &ty).unwrap();
        pending.record(&state.msgpack, usize::MAX);
        let text = (std::fs::read_dir(journal.dir()).unwrap().flatten())
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>();
        assert!(text.contains("$redacted"), "an entry was written: {text}");
        assert!(!text.contains("hunter2"), "secrets stay out: {text}");
    }

    #[test]
    fn an_entry_left_by_a_dead_process_stops_the_same_create_until_settled() {
        let (root, component, journal) = fresh();
        let mut pending = journal.pending("t_x", &config("a"), schema_of(block()));
        pending.record(&state("obj-1").msgpack, usize::MAX);
        // The process "dies": the entry stays, now owned by a pid that does not exist.
        let file = std::fs::read_dir(journal.dir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .expect("entry written on report");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("hunter2"), "secrets stay out: {text}");
        assert!(text.contains("obj-1"), "{text}");
        let mut entry: Entry = serde_json::from_str(&text).unwrap();
        entry.pid = u32::MAX - 1;
        std::fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
        std::mem::forget(pending);

        let next = Journal::open(root.path(), &component).unwrap();
        let errors = next.interrupted("t_x", &config("a"));
        assert_eq!(errors.len(), 1);
        let detail = &errors[0].detail;
        assert!(detail.contains("\"obj-1\""), "{detail}");
        assert!(detail.contains(&file.display().to_string()), "{detail}");
        assert!(
            next.interrupted("t_x", &config("b")).is_empty(),
            "other config"
        );
        assert!(
            next.interrupted("t_y", &config("a")).is_empty(),
            "other type"
        );

        next.settled("t_x", &state("obj-2"), &schema_of(block()));
        assert!(file.exists(), "another object does not settle it");
        next.settled("t_x", &state("obj-1"), &schema_of(block()));
        assert!(!file.exists(), "importing the object settles it");
        assert!(next.interrupted("t_x", &config("a")).is_empty());
    }

    #[test]
    fn an_answered_apply_leaves_nothing_and_a_live_process_keeps_its_entries() {
        let (root, component, journal) = fresh();
        let mut pending = journal.pending("t_x", &config("a"), schema_of(block()));
        pending.record(&state("obj-1").msgpack, usize::MAX);
        let file = journal.dir().join(pending.path.file_name().unwrap());
        // Seen from another process while a live one (here: our parent) owns the entry,
        // the apply is in flight, not interrupted.
        let mut entry: Entry = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        // SAFETY: getppid has no preconditions.
        entry.pid = unsafe { libc::getppid() } as u32;
        std::fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
        let other = Journal::open(root.path(), &component).unwrap();
        assert!(other.interrupted("t_x", &config("a")).is_empty());
        pending.finish();
        assert!(
            !journal.dir().exists(),
            "the last entry takes its directory along"
        );
    }
}
