//! Record and replay: a bug report that can be run again.
//!
//! With `TFWASM_RECORD=DIR` (or `[record] dir` in `tfwasm.toml`) every provider process
//! writes a session directory under `DIR`: `session.json` (tfwasm version, component and its
//! SHA-256) and one `NNNNNN-Rpc.json` per call with the request Terraform sent and the
//! response it got back (after the contract checks). Values are decoded to JSON against the
//! schema, secrets redacted (`values`). `tfwasm replay DIR` sends the requests, in order, to a
//! component and reports every response that differs (`replay`).
//!
//! [`Recorded`] wraps the checked provider in every process; without a recorder it forwards
//! each call untouched. One module per RPC family (`families/`) says, for each RPC, how its
//! request and response are recorded and how the request is replayed.

mod families;
pub mod replay;
pub mod values;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::Digest as _;
use tfwasm_model::Provider;

use values::{Direction, Schemas};

/// Names the directory to record into (overrides `[record] dir`).
pub const RECORD_ENV: &str = "TFWASM_RECORD";

/// What `session.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    /// Format of the recording; replay refuses others.
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
}

/// The recording format this tfwasm writes and replays.
pub const FORMAT: u32 = 1;

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
    dir: PathBuf,
    seq: AtomicU64,
    warned: AtomicBool,
}

impl Recorder {
    /// Starts a session directory under `root` for `component`.
    pub fn start(root: &Path, component: &Path, provider: &str) -> anyhow::Result<Recorder> {
        let bytes = std::fs::read(component)
            .with_context(|| format!("cannot read {}", component.display()))?;
        let now = time::OffsetDateTime::now_utc();
        let pid = std::process::id();
        let stamp = now
            .format(time::macros::format_description!(
                "[year][month][day]T[hour][minute][second].[subsecond digits:3]Z"
            ))
            .unwrap_or_default();
        let dir = root.join(format!("{stamp}-{pid}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the recording directory {}", dir.display()))?;
        let session = Session {
            format: FORMAT,
            tfwasm: env!("CARGO_PKG_VERSION").to_owned(),
            provider: provider.to_owned(),
            component: std::fs::canonicalize(component).unwrap_or_else(|_| component.to_owned()),
            component_sha256: hex::encode(sha2::Sha256::digest(&bytes)),
            started: now
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            pid,
        };
        write_json(&dir.join(SESSION_FILE), &session)?;
        tracing::info!(dir = %dir.display(), "recording every call");
        Ok(Recorder {
            dir,
            seq: AtomicU64::new(0),
            warned: AtomicBool::new(false),
        })
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&self, entry: &Entry) {
        let path = self
            .dir
            .join(format!("{:06}-{}.json", entry.seq, entry.rpc));
        if let Err(error) = write_json(&path, entry)
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            // Recording is for diagnosis; the run itself goes on.
            tracing::warn!("cannot record calls (further failures not reported): {error:#}");
        }
    }
}

/// The file of a session's metadata.
pub const SESSION_FILE: &str = "session.json";

fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_vec_pretty(value)?;
    text.push(b'\n');
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
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

    /// Runs one call, recording it: `call` gets the request after it has been copied out.
    async fn exchange<Req, Resp, F>(
        &self,
        rpc: &'static str,
        subject: &str,
        req: Req,
        call: impl FnOnce(Req) -> F,
    ) -> Resp
    where
        Req: Serialize,
        Resp: Serialize,
        F: Future<Output = Resp>,
    {
        let Some(recorder) = &self.recorder else {
            return call(req).await;
        };
        let seq = recorder.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let mut request = serde_json::to_value(&req).unwrap_or(Json::Null);
        let started = Instant::now();
        let resp = call(req).await;
        let elapsed = started.elapsed();
        let mut response = serde_json::to_value(&resp).unwrap_or(Json::Null);
        let schemas = schemas_of(&self.inner, &self.schemas).await;
        schemas.rewrite(rpc, subject, &mut request, Direction::Decode);
        schemas.rewrite(rpc, subject, &mut response, Direction::Decode);
        recorder.write(&Entry {
            seq,
            rpc: rpc.to_owned(),
            subject: subject.to_owned(),
            elapsed_ms: elapsed.as_secs_f64() * 1000.0,
            request,
            response,
        });
        resp
    }
}

/// The schemas values are read with, asked of `provider` once.
async fn schemas_of<'a, P: Provider>(
    provider: &P,
    cell: &'a tokio::sync::OnceCell<Schemas>,
) -> &'a Schemas {
    cell.get_or_init(|| async {
        Schemas {
            provider: provider.get_provider_schema().await,
            identities: provider.get_resource_identity_schemas().await,
            functions: provider.get_functions().await,
        }
    })
    .await
}

/// Reads `path` as JSON of `T`, naming the file in errors.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_slice(&text)
        .with_context(|| format!("{}: not a recording file", path.display()))
}
