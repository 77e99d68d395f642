//! Record and replay: a bug report that can be run again.
//!
//! With `TFWASM_RECORD=DIR` (or `[record] dir` in `tfwasm.toml`) every provider process
//! writes a session directory under `DIR`: `session.json` (tfwasm version, component and its
//! SHA-256) and one `NNNNNN-Rpc.json` per call with the request Terraform sent and the
//! response it got back (after the contract checks). Values are decoded to JSON against the
//! schema and redacted (`values`): by default every value is (`redact`), keeping only its
//! shape; with `[record] values = "non-sensitive"` only what any process of the run marks
//! sensitive or write-only is (`sensitive`, `shared`). `tfwasm replay DIR` sends the requests,
//! in order, to a component and reports every response that differs (`replay`).
//!
//! The recording is written by the host where no guest can reach it: outside every granted
//! directory, in `0700` directories, each file created `0600` without following symlinks
//! (`store`).
//!
//! [`Recorded`] wraps the checked provider in every process; without a recorder it forwards
//! each call untouched. One module per RPC family (`families/`) says, for each RPC, how its
//! request and response are recorded and how the request is replayed.

mod families;
mod redact;
pub mod replay;
mod sensitive;
mod shared;
mod store;
pub mod values;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::Digest as _;
use tfwasm_contract::decodings::{Decodings, keeping};
use tfwasm_model::Provider;
use tfwasm_model::rpc::Call;
use tfwasm_runtime::DirGrant;

use sensitive::Sensitive;
use values::{Policy, Schemas};

/// Names the directory to record into (overrides `[record] dir`).
pub const RECORD_ENV: &str = "TFWASM_RECORD";
/// Says what a recording keeps of values (overrides `[record] values`).
pub const VALUES_ENV: &str = "TFWASM_RECORD_VALUES";

/// What a recording keeps of the values calls carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Values {
    /// None: every string, number and bool, and every map key, is redacted; nulls, unknowns
    /// and the shape of collections and objects stay. Terraform does not tell a provider which
    /// inputs came from sensitive variables, so only this keeps every secret out.
    #[default]
    Redacted,
    /// All but what any process of the run marks sensitive or write-only, so that a recording
    /// replays faithfully. Private state, function arguments and results and ephemeral results
    /// are still redacted.
    NonSensitive,
}

impl Values {
    /// Reads the setting's text.
    pub fn parse(text: &str) -> anyhow::Result<Values> {
        match text {
            "redacted" => Ok(Values::Redacted),
            "non-sensitive" => Ok(Values::NonSensitive),
            other => bail!("{other:?} is neither \"redacted\" nor \"non-sensitive\""),
        }
    }

    /// The setting's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Values::Redacted => "redacted",
            Values::NonSensitive => "non-sensitive",
        }
    }

    /// What recordings of format 1 kept: values but sensitive and write-only attributes.
    fn format_1() -> Values {
        Values::NonSensitive
    }
}

/// Where and how the settings ask calls to be recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The recording's root: each process writes a session directory in it.
    pub dir: PathBuf,
    /// What is kept of values.
    pub values: Values,
    /// The directories granted to the guest, which the recording must stay out of.
    pub grants: Vec<DirGrant>,
}

/// What `session.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    /// Format of the recording; replay refuses newer ones.
    pub format: u32,
    /// The tfwasm that recorded it.
    pub tfwasm: String,
    /// The provider's name, as diagnostics give it.
    pub provider: String,
    /// The component that served the calls.
    pub component: PathBuf,
    /// Its SHA-256, so a replay can tell whether it runs the same code.
    pub component_sha256: String,
    /// When the process started (RFC 3339, UTC).
    pub started: String,
    /// The provider process.
    pub pid: u32,
    /// What the recording keeps of values.
    #[serde(default = "Values::format_1")]
    pub values: Values,
}

/// The recording format this tfwasm writes (1: no `values`, values kept but secrets).
pub const FORMAT: u32 = 2;

/// One recorded call: `NNNNNN-Rpc.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Order of arrival in the process (from 1); replay runs calls in this order.
    pub seq: u64,
    /// The protocol's method name.
    pub rpc: String,
    /// The type or function the call is about (empty for provider-wide calls).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subject: String,
    /// How long the call took in the provider process, in milliseconds.
    pub elapsed_ms: f64,
    /// The request, values decoded.
    pub request: Json,
    /// The response Terraform got, values decoded.
    pub response: Json,
}

/// Writes one session's calls.
pub struct Recorder {
    root: store::Dir,
    session: store::Dir,
    values: Values,
    seq: AtomicU64,
    /// Values written from a tree decoded before (by the checks, or for an earlier field of
    /// the call) rather than decoded again, over the session.
    reused: AtomicU64,
    warned: AtomicBool,
    /// The secrets this process's schema marks, once added to the root's; `None` when they
    /// could not be, and then nothing more is written.
    own: OnceLock<Option<Sensitive>>,
}

impl Recorder {
    /// Starts a session directory under `settings.dir` for `component`. Refused when the
    /// directory is one a guest could reach (`store`).
    pub fn start(
        settings: &Settings,
        component: &Path,
        provider: &str,
    ) -> anyhow::Result<Recorder> {
        store::check_outside_grants(&settings.dir, &settings.grants)?;
        let root = store::Dir::open_root(&settings.dir)?;
        // Again now that it exists: whatever it resolves to must be outside the grants too.
        store::check_outside_grants(root.path(), &settings.grants)?;
        let bytes = std::fs::read(component)
            .with_context(|| format!("cannot read {}", component.display()))?;
        let now = time::OffsetDateTime::now_utc();
        let pid = std::process::id();
        let stamp = now
            .format(time::macros::format_description!(
                "[year][month][day]T[hour][minute][second].[subsecond digits:3]Z"
            ))
            .unwrap_or_default();
        let session = session_dir(&root, &format!("{stamp}-{pid}"))?;
        let meta = Session {
            format: FORMAT,
            tfwasm: env!("CARGO_PKG_VERSION").to_owned(),
            provider: provider.to_owned(),
            component: std::fs::canonicalize(component).unwrap_or_else(|_| component.to_owned()),
            component_sha256: hex::encode(sha2::Sha256::digest(&bytes)),
            started: now
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            pid,
            values: settings.values,
        };
        session
            .create_new(SESSION_FILE, &to_json(&meta)?)
            .with_context(|| {
                format!(
                    "cannot write {}",
                    session.path().join(SESSION_FILE).display()
                )
            })?;
        tracing::info!(dir = %session.path().display(), values = settings.values.as_str(), "recording every call");
        Ok(Recorder {
            root,
            session,
            values: settings.values,
            seq: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            warned: AtomicBool::new(false),
            own: OnceLock::new(),
        })
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        self.session.path()
    }

    /// This process's secrets, added to the root's before the first call is written.
    fn own(&self, schemas: &Schemas) -> Option<&Sensitive> {
        self.own
            .get_or_init(|| {
                let own = Sensitive::of(&schemas.provider);
                match shared::publish(&self.root, &own) {
                    Ok(()) => Some(own),
                    Err(error) => {
                        self.warn(&error.context("not recording: the secrets of this schema cannot be added to the recording's"));
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Redacts `entry` (values still encoded) and writes it, under the root's lock. The values
    /// the call's checks decoded (`decodings`) are read from their trees.
    fn record(&self, schemas: &Schemas, mut entry: Entry, decodings: Decodings) {
        let Some(own) = self.own(schemas) else {
            return;
        };
        // Freed after the lock is given back, which every process of the run waits on.
        let mut spent = Decodings::default();
        let written = shared::lock(&self.root).and_then(|mut locked| {
            locked.sensitive.merge(own);
            let policy = Policy::new(self.values, &locked.sensitive).reusing(decodings);
            schemas.decode(&entry.rpc, &entry.subject, &mut entry.request, &policy);
            schemas.decode(&entry.rpc, &entry.subject, &mut entry.response, &policy);
            let reused;
            (spent, reused) = policy.finish();
            self.reused.fetch_add(reused as u64, Ordering::Relaxed);
            let name = format!("{:06}-{}.json", entry.seq, entry.rpc);
            self.session
                .create_new(&name, &to_json(&entry)?)
                .with_context(|| {
                    format!("cannot write {}", self.session.path().join(&name).display())
                })
        });
        drop(spent);
        if let Err(error) = written {
            self.warn(&error);
        }
    }

    fn warn(&self, error: &anyhow::Error) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            // Recording is for diagnosis; the run itself goes on.
            tracing::warn!("cannot record calls (further failures not reported): {error:#}");
        }
    }
}

/// A new session directory named `name`, or `name-2`, ... when a recorder of this process
/// started in the same millisecond.
fn session_dir(root: &store::Dir, name: &str) -> anyhow::Result<store::Dir> {
    let mut n = 1;
    loop {
        let candidate = if n == 1 {
            name.to_owned()
        } else {
            format!("{name}-{n}")
        };
        match root.create_dir(&candidate) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            created => {
                return created.with_context(|| {
                    format!(
                        "cannot create the session directory {}",
                        root.path().join(&candidate).display()
                    )
                });
            }
        }
    }
}

/// The file of a session's metadata.
pub const SESSION_FILE: &str = "session.json";

/// Whether `name` is a recorded call's file: `NNNNNN-Rpc.json`.
fn is_call_file(name: &str) -> bool {
    name.ends_with(".json")
        && name
            .split_once('-')
            .is_some_and(|(seq, _)| !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit()))
}

/// A recording file's text.
fn to_json<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(value)?;
    text.push(b'\n');
    Ok(text)
}

/// A provider whose calls are recorded when a [`Recorder`] is given, else passed through.
pub struct Recorded<P> {
    inner: P,
    recorder: Option<Recorder>,
    schemas: tokio::sync::OnceCell<Schemas>,
}

impl<P: Provider> Recorded<P> {
    /// Wraps `inner`; records only with `recorder`.
    pub fn new(inner: P, recorder: Option<Recorder>) -> Recorded<P> {
        Recorded {
            inner,
            recorder,
            schemas: tokio::sync::OnceCell::new(),
        }
    }

    /// Runs one call of the RPC `C`, recording it: the request is copied out before the call,
    /// and the values the checks decode during it are kept for the recording to read.
    async fn exchange<C: Call>(&self, req: C::Request) -> C::Response {
        let Some(recorder) = &self.recorder else {
            return C::call(&self.inner, req).await;
        };
        let seq = recorder.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let subject = C::subject(&req).to_owned();
        let request = serde_json::to_value(&req).unwrap_or(Json::Null);
        let started = Instant::now();
        let (resp, decodings) = keeping(C::call(&self.inner, req)).await;
        let elapsed = started.elapsed();
        let response = families::message(serde_json::to_value(&resp).unwrap_or(Json::Null));
        let schemas = schemas_of(&self.inner, &self.schemas).await;
        recorder.record(
            schemas,
            Entry {
                seq,
                rpc: C::RPC.name().to_owned(),
                subject,
                elapsed_ms: elapsed.as_secs_f64() * 1000.0,
                request,
                response,
            },
            decodings,
        );
        resp
    }
}

/// The schemas values are read with, asked of `provider` once.
async fn schemas_of<'a, P: Provider>(
    provider: &P,
    cell: &'a tokio::sync::OnceCell<Schemas>,
) -> &'a Schemas {
    static NONE: std::sync::LazyLock<Schemas> = std::sync::LazyLock::new(Schemas::default);
    if let Some(schemas) = cell.get() {
        return schemas;
    }
    // A failed answer is not kept: values meanwhile are read with no schema (redacted whole).
    let index = tfwasm_model::schema_index::index_of(provider).await;
    if tfwasm_model::has_error(&index.provider.diagnostics) {
        return &NONE;
    }
    cell.get_or_init(|| async { Schemas(index) }).await
}

/// Reads `path` as JSON of `T`, naming the file in errors.
/// The largest recording file read: well past what a recorder writes for one call (its
/// values share a 32 MiB bound), and a bound on what someone else's recording can cost.
pub(crate) const MAX_RECORDING_FILE: u64 = 128 << 20;

/// Reads a recording file: a regular file, not through a symlink (a recording is someone
/// else's folder: `/dev/zero` behind a call file's name grew without end, a FIFO blocked
/// forever), at most [`MAX_RECORDING_FILE`] bytes.
fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    budget: &mut ReadBudget,
) -> anyhow::Result<T> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .with_context(|| {
            format!(
                "cannot read {} (a recording file is never a symlink)",
                path.display()
            )
        })?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "{}: not a recording file (not a regular file)",
            path.display()
        );
    }
    if meta.len() > MAX_RECORDING_FILE {
        bail!(
            "{}: not a recording file ({} bytes; a recorder writes at most {MAX_RECORDING_FILE})",
            path.display(),
            meta.len()
        );
    }
    let past_budget = || {
        anyhow::anyhow!(
            "{}: the recording holds more than {} MiB in all; replay a smaller session",
            path.display(),
            MAX_RECORDING_BYTES >> 20
        )
    };
    if meta.len() > budget.bytes {
        return Err(past_budget());
    }
    let mut text = Vec::new();
    // What is read counts, not what the metadata said: the file may have grown since.
    file.take(MAX_RECORDING_FILE.min(budget.bytes) + 1)
        .read_to_end(&mut text)
        .with_context(|| format!("cannot read {}", path.display()))?;
    budget.bytes = (budget.bytes.checked_sub(text.len() as u64)).ok_or_else(past_budget)?;
    if text.len() as u64 > MAX_RECORDING_FILE {
        bail!(
            "{}: not a recording file (it grew while read)",
            path.display()
        );
    }
    let values_left = &mut budget.values;
    // Weighed by what parsing it would hold (`[0,0,…]` is 16 times its size), within what
    // the whole replay may hold.
    let counted = tfwasm_model::codec::json::value_count_at_most(&text, *values_left)
        .with_context(|| {
            format!(
                "{}: the recording holds more than {MAX_RECORDING_VALUES} JSON values in all; replay a smaller session",
                path.display()
            )
        })?;
    *values_left -= counted;
    serde_json::from_slice(&text)
        .with_context(|| format!("{}: not a recording file", path.display()))
}

/// The most JSON values one replay reads, all its files together (about 80 bytes each once
/// parsed).
pub(crate) const MAX_RECORDING_VALUES: usize = 16 << 20;

/// The most bytes one replay reads, all its files together (they are all held while it
/// runs).
pub(crate) const MAX_RECORDING_BYTES: u64 = 2 << 30;

/// What one replay may still read.
#[derive(Debug)]
pub(crate) struct ReadBudget {
    /// JSON values.
    pub(crate) values: usize,
    /// Bytes, counted as read.
    pub(crate) bytes: u64,
}

impl Default for ReadBudget {
    fn default() -> ReadBudget {
        ReadBudget {
            values: MAX_RECORDING_VALUES,
            bytes: MAX_RECORDING_BYTES,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use serde_json::json;
    use tfwasm_model::rpc::{DynamicValue, PlanResourceChangeRequest};
    use tfwasm_model::{Attribute, Block, Schema, Type, Value};

    use super::*;

    /// The twenty-fourth hostile pass: a call file that was `/dev/zero` behind a symlink
    /// grew `tfwasm replay` without end, and a FIFO blocked it forever.
    #[test]
    fn a_recording_file_is_a_regular_file_of_bounded_size_never_a_link_or_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("000010-Zero.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let budget = &mut ReadBudget::default();
        let error = format!(
            "{:#}",
            read_json::<serde_json::Value>(&link, budget).unwrap_err()
        );
        assert!(error.contains("never a symlink"), "{error}");
        let fifo = dir.path().join("000011-Fifo.json");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = format!(
            "{:#}",
            read_json::<serde_json::Value>(&fifo, budget).unwrap_err()
        );
        assert!(error.contains("not a regular file"), "{error}");
        let big = dir.path().join("000012-Big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_RECORDING_FILE + 1)
            .unwrap();
        let error = format!(
            "{:#}",
            read_json::<serde_json::Value>(&big, budget).unwrap_err()
        );
        assert!(error.contains("at most"), "{error}");
        let good = dir.path().join("000013-Ok.json");
        std::fs::write(&good, b"{}").unwrap();
        read_json::<serde_json::Value>(&good, budget).unwrap();
        // The twenty-fifth hostile pass: 32 MiB of `[0,0,…]` held 3.4 GB once parsed.
        let zeros = dir.path().join("000014-Zeros.json");
        std::fs::write(&zeros, format!("[{}0]", "0,".repeat(1000))).unwrap();
        let error = format!(
            "{:#}",
            read_json::<serde_json::Value>(
                &zeros,
                &mut ReadBudget {
                    values: 500,
                    ..ReadBudget::default()
                }
            )
            .unwrap_err()
        );
        assert!(error.contains("JSON values"), "{error}");
        // The twenty-sixth hostile pass: the session's bytes were summed from metadata taken
        // before each file was opened, so files swapped in between passed the bound; what
        // is read counts.
        let mut nearly_spent = ReadBudget {
            bytes: 10,
            ..ReadBudget::default()
        };
        std::fs::write(&good, b"[1,2,3]").unwrap();
        read_json::<serde_json::Value>(&good, &mut nearly_spent).unwrap();
        assert_eq!(nearly_spent.bytes, 3);
        let error = format!(
            "{:#}",
            read_json::<serde_json::Value>(&good, &mut nearly_spent).unwrap_err()
        );
        assert!(error.contains("MiB in all"), "{error}");
    }

    fn schemas(password_sensitive: bool) -> Schemas {
        let mut password = Attribute::new("password", Type::String);
        password.sensitive = password_sensitive;
        let block = Block {
            attributes: vec![Attribute::new("id", Type::String), password],
            ..Block::default()
        };
        let mut provider = tfwasm_model::ProviderSchema::default();
        provider
            .resources
            .insert("t_x".into(), Schema { version: 0, block });
        Schemas::new(provider, Default::default(), Default::default())
    }

    fn plan(seq: u64, password: &str) -> Entry {
        let ty = schemas(true).provider.resources["t_x"].block.implied_type();
        let config = Value::object([
            ("id", Value::String("i-1".into())),
            ("password", Value::String(password.into())),
        ]);
        let request = PlanResourceChangeRequest {
            type_name: "t_x".into(),
            config: DynamicValue::encode(&config, &ty).unwrap(),
            ..Default::default()
        };
        Entry {
            seq,
            rpc: "PlanResourceChange".into(),
            subject: "t_x".into(),
            elapsed_ms: 1.0,
            request: serde_json::to_value(request).unwrap(),
            response: json!({}),
        }
    }

    struct Run {
        tmp: tempfile::TempDir,
        settings: Settings,
        component: PathBuf,
    }

    fn run(values: Values) -> Run {
        let tmp = tempfile::tempdir().unwrap();
        let component = tmp.path().join("provider.wasm");
        std::fs::write(&component, b"\0asm").unwrap();
        let settings = Settings {
            dir: tmp.path().join("recording"),
            values,
            grants: Vec::new(),
        };
        Run {
            tmp,
            settings,
            component,
        }
    }

    impl Run {
        fn start(&self) -> Recorder {
            Recorder::start(&self.settings, &self.component, "t").unwrap()
        }

        /// Every file of the recording, with its text.
        fn files(&self) -> Vec<(PathBuf, String)> {
            let mut out = Vec::new();
            let mut dirs = vec![self.settings.dir.clone()];
            while let Some(dir) = dirs.pop() {
                for entry in std::fs::read_dir(&dir).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        dirs.push(path);
                    } else {
                        let text = std::fs::read_to_string(&path).unwrap();
                        out.push((path, text));
                    }
                }
            }
            out
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    /// A provider of `schemas(true)` that plans every resource as its configuration says.
    struct Planner;

    impl tfwasm_model::rpc::Handler for Planner {
        async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
            let mut answer = serde_json::to_value(C::Response::default()).unwrap();
            match C::RPC {
                tfwasm_model::Rpc::GetProviderSchema => {
                    answer = serde_json::to_value(&schemas(true).provider).unwrap();
                }
                tfwasm_model::Rpc::PlanResourceChange => {
                    answer["planned_state"] = serde_json::to_value(&req).unwrap()["config"].take();
                }
                _ => {}
            }
            serde_json::from_value(answer).unwrap()
        }

        fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
            Default::default()
        }
    }

    /// Through the layers `tfwasm serve` stacks (recording around the checks), a recorded
    /// plan writes its values from the trees the checks decoded: the configuration, the
    /// prior state, the proposed state and the planned state (both the configuration's
    /// bytes, as a create's are) are four values read and none decoded again, and what is
    /// written is what they hold.
    #[test]
    fn a_recorded_call_writes_the_checks_trees_decoding_nothing_again() {
        use tfwasm_contract::{Checked, Mode};
        use tfwasm_model::rpc::{Handled, ResourceServer as _};
        let run = run(Values::NonSensitive);
        let checked = Checked::new(Handled(Planner), "t", Mode::Enforce);
        let provider = Handled(Recorded::new(checked, Some(run.start())));
        let mut req: PlanResourceChangeRequest =
            serde_json::from_value(plan(1, "hunter2").request).unwrap();
        req.prior_state = DynamicValue::null();
        req.proposed_new_state = req.config.clone();
        let resp = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(provider.plan_resource_change(req.clone()));
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        assert_eq!(resp.planned_state, req.config);
        let recorder = provider.0.recorder.as_ref().unwrap();
        assert_eq!(recorder.reused.load(Ordering::Relaxed), 4);
        let files = run.files();
        let (_, text) = (files.iter())
            .find(|(path, _)| path.to_string_lossy().ends_with("-PlanResourceChange.json"))
            .unwrap_or_else(|| panic!("no plan recorded: {files:?}"));
        let entry: Entry = serde_json::from_str(text).unwrap();
        for (message, field) in [
            (&entry.request, "config"),
            (&entry.request, "proposed_new_state"),
            (&entry.response, "planned_state"),
        ] {
            let value = &message[field]["value"];
            assert_eq!(value["id"], "i-1", "{field}: {text}");
            assert_eq!(
                value["password"],
                json!({"$redacted": true}),
                "{field}: {text}"
            );
        }
        assert_eq!(
            entry.request["prior_state"],
            json!({ "value": null }),
            "{text}"
        );
    }

    #[test]
    fn a_recording_is_private_to_its_user() {
        let run = run(Values::Redacted);
        let recorder = run.start();
        recorder.record(&schemas(true), plan(1, "hunter2"), Decodings::default());
        assert_eq!(mode(&run.settings.dir), 0o700);
        assert_eq!(mode(recorder.dir()), 0o700);
        let files = run.files();
        assert!(
            files.len() >= 4,
            "session, call, secrets and lock: {files:?}"
        );
        for (path, _) in &files {
            assert_eq!(mode(path), 0o600, "{}", path.display());
        }
    }

    #[test]
    fn a_secret_one_process_marks_never_stays_in_what_another_recorded_whatever_the_order() {
        let run = run(Values::NonSensitive);
        // Process B's schema drops `sensitive` and records first.
        let b = run.start();
        b.record(&schemas(false), plan(1, "hunter2"), Decodings::default());
        assert!(run.files().iter().any(|(_, text)| text.contains("hunter2")));
        // Process A's schema marks it: what B wrote is redacted as A starts recording...
        let a = run.start();
        a.record(&schemas(true), plan(1, "s3cr3t-a"), Decodings::default());
        // ...and what B writes after, by A's schema too.
        b.record(&schemas(false), plan(2, "s3cr3t-b"), Decodings::default());
        let files = run.files();
        for (path, text) in &files {
            for secret in ["hunter2", "s3cr3t-a", "s3cr3t-b"] {
                assert!(
                    !text.contains(secret),
                    "{} holds {secret}:\n{text}",
                    path.display()
                );
            }
        }
        let calls: Vec<_> = files
            .iter()
            .filter(|(p, _)| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("PlanResourceChange"))
            })
            .collect();
        assert_eq!(calls.len(), 3, "{files:?}");
        for (_, text) in calls {
            let entry: Entry = serde_json::from_str(text).unwrap();
            assert_eq!(
                entry.request["config"]["value"]["password"],
                json!({"$redacted": true})
            );
            assert_eq!(
                entry.request["config"]["value"]["id"], "i-1",
                "the rest stays readable"
            );
        }
    }

    #[test]
    fn a_symlink_planted_at_the_next_name_is_not_followed() {
        let run = run(Values::Redacted);
        let victim = run.tmp.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let recorder = run.start();
        recorder.record(&schemas(true), plan(1, "hunter2"), Decodings::default());
        assert!(!recorder.warned.load(Ordering::Relaxed));
        std::os::unix::fs::symlink(
            &victim,
            recorder.dir().join("000002-PlanResourceChange.json"),
        )
        .unwrap();
        recorder.record(&schemas(true), plan(2, "hunter2"), Decodings::default());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            recorder.warned.load(Ordering::Relaxed),
            "the failed write is reported"
        );
        // The next call is written as usual.
        recorder.record(&schemas(true), plan(3, "hunter2"), Decodings::default());
        assert!(
            recorder
                .dir()
                .join("000003-PlanResourceChange.json")
                .is_file()
        );
    }

    #[test]
    fn recording_into_a_granted_directory_is_refused_at_start() {
        let mut run = run(Values::Redacted);
        let granted = run.tmp.path().join("granted");
        std::fs::create_dir(&granted).unwrap();
        run.settings.dir = granted.join("recording");
        run.settings.grants = vec![format!("{}:/data:rw", granted.display()).parse().unwrap()];
        let error = format!(
            "{:#}",
            Recorder::start(&run.settings, &run.component, "t")
                .err()
                .unwrap()
        );
        assert!(
            error.contains(&run.settings.dir.display().to_string())
                && error.contains(&granted.display().to_string())
                && error.contains("/data"),
            "{error}"
        );
        assert!(
            !run.settings.dir.exists(),
            "nothing is created in the grant"
        );
    }
}
