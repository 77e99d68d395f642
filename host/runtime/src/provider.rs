//! [`WasmProvider`]: a component behind the [`Provider`] trait; each call runs in an instance
//! of its own (reused after successful calls, dropped after failed ones).

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ConfigureProviderRequest,
    DynamicValue, ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostic, Diagnostics, Provider, ProviderSchema, has_error};
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Engine, Store, Trap, UpdateDeadline};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::bindings::{self, TfwasmProvider, TfwasmProviderPre, wit};
use crate::code::Origin;
use crate::engine::EPOCH_TICK;
use crate::state::{MAX_CAPTURED_OUTPUT, StoreState};
use crate::{CallError, CallLimits, Grants, Limits, LoadError};

/// Where guest log lines (the WIT `log` import, and captured stdout/stderr) go.
pub trait GuestLogSink: Send + Sync + 'static {
    /// One line at `level` (`trace`, `debug`, `info`, `warn` or `error`).
    fn log(&self, level: &str, message: &str, fields: &[(String, String)]);
}

/// A sink that drops guest log lines (for commands that only inspect a component).
pub struct DiscardLog;

impl GuestLogSink for DiscardLog {
    fn log(&self, _level: &str, _message: &str, _fields: &[(String, String)]) {}
}

/// Everything [`WasmProvider::load`] needs besides the component.
pub struct LoadOptions {
    /// Limits of every call.
    pub limits: CallLimits,
    /// What the guest may reach.
    pub grants: Grants,
    /// The compile cache directory.
    pub cache_dir: std::path::PathBuf,
    /// Code precompiled by `tfwasm package` (its `component.cwasm`), tried before the cache.
    pub precompiled: Option<std::path::PathBuf>,
    /// Where guest logs go.
    pub log_sink: Arc<dyn GuestLogSink>,
    /// Where the operator changes limits, named in limit diagnostics (e.g. the tfwasm.toml path).
    pub settings_hint: String,
    /// Name used in diagnostics (the provider type); defaults to the component's file name.
    pub display_name: Option<String>,
    /// How allowed outgoing HTTP is made (trusted CAs, proxies).
    pub http: crate::HttpSettings,
}

/// How loading went, for the operator's log.
#[derive(Debug, Clone, Copy)]
pub struct LoadReport {
    /// From the package, the cache, or freshly compiled.
    pub origin: Origin,
    /// Time to load (and compile, on a miss).
    pub elapsed: Duration,
}

/// A provider component, ready to serve calls.
pub struct WasmProvider {
    engine: Engine,
    pre: TfwasmProviderPre<StoreState>,
    limits: CallLimits,
    grants: Grants,
    /// The HTTP allow-list, shared by every store.
    http_allow: Arc<crate::HttpAllowList>,
    /// The pool of outgoing connections, shared by every store.
    outbound: Arc<crate::http::outbound::Outbound>,
    /// Values of the granted environment variables, read once at load.
    env: Vec<(String, String)>,
    settings_hint: String,
    /// What the component imports (WASI interfaces, tfwasm's log), for `tfwasm inspect`.
    imports: Vec<String>,
    /// Name used in diagnostics (the component's file name).
    name: String,
    /// What ConfigureProvider accepted; handed to every call.
    context: RwLock<wit::ProviderContext>,
    schema: OnceLock<ProviderSchema>,
    /// Bumped by StopProvider; a call started under an older generation is interrupted,
    /// whether it is running wasm (epoch callback) or waiting in a host call (select below).
    stop_generation: Arc<tokio::sync::watch::Sender<u64>>,
    log_sink: Arc<dyn GuestLogSink>,
    /// Idle instances whose last call succeeded, for [`CallLimits::reuse_instances`].
    warm: std::sync::Mutex<Vec<Warm>>,
}

/// An instance kept for the next call.
struct Warm {
    store: Store<StoreState>,
    instance: TfwasmProvider,
    calls: u32,
}

/// Idle instances kept at most (more concurrent calls instantiate fresh ones).
const MAX_IDLE_INSTANCES: usize = 16;
/// Calls an instance serves before it is retired, bounding slow leaks in guest memory.
const MAX_CALLS_PER_INSTANCE: u32 = 1000;
/// An instance whose linear memory grew past this is retired after its call.
const MAX_REUSED_MEMORY: usize = 64 << 20;

/// Why the epoch callback stopped a call.
#[derive(Debug)]
enum Interrupted {
    Deadline,
    Stopped,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interrupted::Deadline => "deadline exceeded",
            Interrupted::Stopped => "stopped by StopProvider",
        })
    }
}

impl std::error::Error for Interrupted {}

type GuestFuture<'a, R> = Pin<Box<dyn Future<Output = wasmtime::Result<R>> + Send + 'a>>;

impl WasmProvider {
    /// Loads the component at `path`: the package's precompiled code when `precompiled` names
    /// usable code, else through (and filling) the compile cache in `cache_dir`.
    ///
    /// # Errors
    /// When the file cannot be read, is not a component, or does not fit the tfwasm world.
    pub fn load(
        path: &Path,
        options: LoadOptions,
    ) -> Result<(WasmProvider, LoadReport), LoadError> {
        let LoadOptions {
            limits,
            grants,
            cache_dir,
            precompiled,
            log_sink,
            settings_hint,
            display_name,
            http,
        } = options;
        let started = Instant::now();
        for dir in &grants.dirs {
            if !dir.host.is_dir() {
                return Err(LoadError::Grant {
                    grant: dir.to_string(),
                    message: "not an existing directory on this host".into(),
                });
            }
        }
        let env = grants
            .env
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|value| (name.clone(), value)))
            .collect();
        let outbound = Arc::new(crate::http::outbound::Outbound::new(&http)?);
        let engine = crate::engine::new_engine(&limits)?;
        let (component, origin) =
            crate::code::load(&engine, path, precompiled.as_deref(), &cache_dir)?;
        let mut linker: Linker<StoreState> = Linker::new(&engine);
        let incompatible = |e: wasmtime::Error| LoadError::Incompatible {
            path: path.to_owned(),
            message: format!("{e:#}"),
        };
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(incompatible)?;
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker).map_err(incompatible)?;
        TfwasmProvider::add_to_linker::<StoreState, HasSelf<StoreState>>(&mut linker, |state| {
            state
        })
        .map_err(incompatible)?;
        let instance_pre = linker.instantiate_pre(&component).map_err(incompatible)?;
        let pre = TfwasmProviderPre::new(instance_pre).map_err(incompatible)?;
        let imports = component
            .component_type()
            .imports(&engine)
            .map(|(name, _)| name.to_owned())
            .collect();
        let name = display_name.unwrap_or_else(|| {
            path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        });
        let provider = WasmProvider {
            engine,
            pre,
            limits,
            http_allow: Arc::new(grants.http.clone()),
            outbound,
            grants,
            env,
            settings_hint,
            imports,
            name,
            context: RwLock::new(wit::ProviderContext {
                terraform_version: String::new(),
                config: None,
            }),
            schema: OnceLock::new(),
            stop_generation: Arc::new(tokio::sync::watch::Sender::new(0)),
            log_sink,
            warm: std::sync::Mutex::new(Vec::new()),
        };
        Ok((
            provider,
            LoadReport {
                origin,
                elapsed: started.elapsed(),
            },
        ))
    }

    /// The limits calls run under.
    pub fn limits(&self) -> &CallLimits {
        &self.limits
    }

    /// What the guest may reach.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The interfaces the component imports.
    pub fn imports(&self) -> &[String] {
        &self.imports
    }

    fn context(&self) -> wit::ProviderContext {
        self.context
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// A store for a new instance: what lasts as long as the instance (WASI context, grants,
    /// captured output pipes). Per-call state is set by [`WasmProvider::call`].
    fn new_store(&self) -> Result<Store<StoreState>, String> {
        let stdout = MemoryOutputPipe::new(MAX_CAPTURED_OUTPUT);
        let stderr = MemoryOutputPipe::new(MAX_CAPTURED_OUTPUT);
        // Deny by default: only granted directories and variables; no sockets, no stdin.
        let mut builder = WasiCtxBuilder::new();
        builder
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .envs(&self.env);
        for dir in &self.grants.dirs {
            let perms = if dir.writable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            builder
                .preopened_dir(&dir.host, &dir.guest, perms)
                .map_err(|e| format!("granted directory {dir}: {e:#}"))?;
        }
        let state = StoreState {
            wasi: builder.build(),
            http: wasmtime_wasi_http::WasiHttpCtx::new(),
            http_gate: crate::http::gate::HttpGate {
                allow: self.http_allow.clone(),
                outbound: self.outbound.clone(),
                problems: Default::default(),
                timeout: Duration::ZERO,
                requests: 0,
            },
            table: Default::default(),
            limits: crate::state::MemoryLimiter::new(0),
            stdout,
            stderr,
            log_sink: self.log_sink.clone(),
            reported: Default::default(),
            stdout_seen: 0,
            stderr_seen: 0,
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|state| &mut state.limits);
        Ok(store)
    }

    /// Runs one guest call under the RPC's limits: in an idle instance whose previous call
    /// succeeded (when [`CallLimits::reuse_instances`] is on), else in a fresh one. An
    /// instance whose call fails in any way is dropped.
    async fn call<R: Send + ReturnedValues>(
        &self,
        rpc: &'static str,
        f: impl for<'a> FnOnce(&'a mut Store<StoreState>, &'a TfwasmProvider) -> GuestFuture<'a, R>
        + Send,
    ) -> Result<R, Failed> {
        let limits = self.limits.for_rpc(rpc);
        let warm = if self.limits.reuse_instances {
            self.warm.lock().ok().and_then(|mut idle| idle.pop())
        } else {
            None
        };
        let (mut store, instance, calls) = match warm {
            Some(w) => (w.store, Some(w.instance), w.calls),
            None => {
                let store = self.new_store().map_err(|message| Failed {
                    error: CallError::Instantiate { rpc, message },
                    reported: None,
                })?;
                (store, None, 0)
            }
        };
        // Per-call state, set here for fresh and reused instances alike.
        let problems = crate::http::Problems::default();
        let reported = Reported::default();
        {
            let state = store.data_mut();
            state.http_gate.problems = problems.clone();
            state.http_gate.requests = 0;
            state.http_gate.timeout = limits.timeout;
            state.reported = reported.clone();
            state.limits.limit = limits.memory_bytes;
        }
        match self
            .run(rpc, limits, &mut store, instance, problems, f)
            .await
        {
            Ok((value, instance)) => {
                self.keep_warm(store, instance, calls + 1);
                Ok(value)
            }
            Err(error) => Err(Failed {
                error,
                reported: reported.lock().ok().and_then(|mut slot| slot.take()),
            }),
        }
    }

    /// Returns an instance to the idle list, unless it should retire.
    fn keep_warm(&self, store: Store<StoreState>, instance: TfwasmProvider, calls: u32) {
        let state = store.data();
        if !self.limits.reuse_instances
            || calls >= MAX_CALLS_PER_INSTANCE
            || state.limits.size > MAX_REUSED_MEMORY
            || state.stdout_seen > MAX_CAPTURED_OUTPUT / 2
            || state.stderr_seen > MAX_CAPTURED_OUTPUT / 2
        {
            return;
        }
        if let Ok(mut idle) = self.warm.lock()
            && idle.len() < MAX_IDLE_INSTANCES
        {
            idle.push(Warm {
                store,
                instance,
                calls,
            });
        }
    }

    async fn run<R: Send + ReturnedValues>(
        &self,
        rpc: &'static str,
        limits: Limits,
        store: &mut Store<StoreState>,
        warm: Option<TfwasmProvider>,
        problems: crate::http::Problems,
        f: impl for<'a> FnOnce(&'a mut Store<StoreState>, &'a TfwasmProvider) -> GuestFuture<'a, R>
        + Send,
    ) -> Result<(R, TfwasmProvider), CallError> {
        if self.limits.fuel_metering {
            store
                .set_fuel(limits.fuel)
                .map_err(|e| CallError::Instantiate {
                    rpc,
                    message: format!("{e:#}"),
                })?;
        }
        let deadline = Instant::now() + limits.timeout;
        let generation = *self.stop_generation.borrow();
        let stop = self.stop_generation.clone();
        store.epoch_deadline_callback(move |_| {
            if *stop.borrow() != generation {
                return Err(wasmtime::Error::new(Interrupted::Stopped));
            }
            if Instant::now() >= deadline {
                return Err(wasmtime::Error::new(Interrupted::Deadline));
            }
            Ok(UpdateDeadline::Yield(1))
        });
        store.set_epoch_deadline(1);

        let instance = match warm {
            Some(instance) => instance,
            None => self.pre.instantiate_async(&mut *store).await.map_err(|e| {
                CallError::Instantiate {
                    rpc,
                    message: format!("{e:#}"),
                }
            })?,
        };
        // The epoch callback stops running wasm at the deadline or on StopProvider; the select
        // also covers time spent waiting in host calls (sleeps, I/O), with a little grace.
        let mut stopped = self.stop_generation.subscribe();
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(limits.timeout + EPOCH_TICK * 5, f(&mut *store, &instance)) => Some(outcome),
            // Dropping the call future unwinds the guest; the caller drops the store.
            _ = stopped.wait_for(|current| *current != generation) => None,
        };
        let stderr = self.flush_output(store);
        match outcome {
            None => Err(CallError::Cancelled { rpc }),
            Some(Ok(Ok(value))) if value.largest_value() > MAX_VALUE_BYTES => {
                Err(CallError::Oversize {
                    rpc,
                    bytes: value.largest_value(),
                    limit: MAX_VALUE_BYTES,
                })
            }
            Some(Ok(Ok(mut value))) => {
                for problem in problems.lock().map(|p| p.clone()).unwrap_or_default() {
                    value.add_diagnostic(self.http_problem(&problem));
                }
                Ok((value, instance))
            }
            Some(Ok(Err(error))) => Err(self.classify(rpc, &limits, &error, &stderr)),
            Some(Err(_elapsed)) => Err(CallError::Timeout {
                rpc,
                limit: limits.timeout,
            }),
        }
    }

    /// Sends the guest output captured during this call to the log and returns this call's
    /// stderr, for crash reports.
    fn flush_output(&self, store: &mut Store<StoreState>) -> String {
        let state = store.data_mut();
        let stdout_all = state.stdout.contents();
        let stderr_all = state.stderr.contents();
        let stdout =
            String::from_utf8_lossy(stdout_all.get(state.stdout_seen..).unwrap_or_default())
                .into_owned();
        let stderr =
            String::from_utf8_lossy(stderr_all.get(state.stderr_seen..).unwrap_or_default())
                .into_owned();
        state.stdout_seen = stdout_all.len();
        state.stderr_seen = stderr_all.len();
        for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
            self.log_sink
                .log("info", line, &[("stream".into(), "stdout".into())]);
        }
        for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
            self.log_sink
                .log("warn", line, &[("stream".into(), "stderr".into())]);
        }
        stderr
    }

    fn classify(
        &self,
        rpc: &'static str,
        limits: &Limits,
        error: &wasmtime::Error,
        stderr: &str,
    ) -> CallError {
        if let Some(interrupted) = error.downcast_ref::<Interrupted>() {
            return match interrupted {
                Interrupted::Deadline => CallError::Timeout {
                    rpc,
                    limit: limits.timeout,
                },
                Interrupted::Stopped => CallError::Cancelled { rpc },
            };
        }
        if let Some(Trap::OutOfFuel) = error.downcast_ref::<Trap>() {
            return CallError::OutOfFuel {
                rpc,
                fuel: limits.fuel,
            };
        }
        if error
            .downcast_ref::<crate::state::MemoryLimitExceeded>()
            .is_some()
        {
            return CallError::OutOfMemory {
                rpc,
                limit: limits.memory_bytes,
            };
        }
        let text = format!("{error:#}");
        let panic = stderr
            .lines()
            .skip_while(|l| !l.contains("panicked at"))
            .collect::<Vec<_>>()
            .join("\n");
        let message = match error.downcast_ref::<Trap>() {
            Some(Trap::StackOverflow) => "wasm stack overflow (unbounded recursion?)".to_owned(),
            // Rust and C guests keep a shadow stack in linear memory; overflowing it runs off
            // the start of memory.
            Some(Trap::MemoryOutOfBounds) => {
                "out of bounds memory access (in Rust or C guests usually a stack overflow from unbounded recursion)".to_owned()
            }
            Some(Trap::UnreachableCodeReached) if !panic.is_empty() => {
                format!("guest panicked: {panic}")
            }
            Some(trap) => format!("{trap}"),
            None => text,
        };
        CallError::Trap { rpc, message }
    }

    fn call_diagnostic(&self, error: &CallError, subject: &str) -> Diagnostic {
        let summary = match error {
            CallError::OutOfFuel { .. } => "Provider exceeded its fuel budget",
            CallError::Timeout { .. } => "Provider exceeded its time limit",
            CallError::Cancelled { .. } => "Provider call cancelled",
            CallError::OutOfMemory { .. } => "Provider exceeded its memory limit",
            CallError::Trap { .. } => "Provider crashed",
            CallError::Instantiate { .. } => "Provider could not start",
            CallError::Oversize { .. } => "Provider returned a value that is too large",
        };
        let subject = if subject.is_empty() {
            String::new()
        } else {
            format!(" for {subject}")
        };
        let hint = match error {
            CallError::OutOfFuel { rpc, .. } => self.raise_hint("fuel", rpc),
            CallError::Timeout { rpc, .. } => self.raise_hint("timeout", rpc),
            CallError::OutOfMemory { rpc, .. } => self.raise_hint("memory", rpc),
            _ => String::new(),
        };
        Diagnostic::error(
            summary,
            format!(
                "The Wasm provider {} failed{subject}: {error}.{hint} The failed instance was discarded; later calls run in a fresh one.",
                self.name
            ),
        )
    }

    /// An outgoing request that failed for a reason the operator can fix, naming the setting.
    fn http_problem(&self, problem: &crate::http::Problem) -> wit::Diagnostic {
        use crate::http::Problem;
        let (summary, detail) = match problem {
            Problem::Denied { entry } => (
                "Outgoing HTTP request denied",
                format!(
                    "The Wasm provider {} tried to reach {entry}, which its allow-list does not include. To allow it, add \"{entry}\" to http under [grants] in {} (or package with --allow-http {entry}).",
                    self.name, self.settings_hint
                ),
            ),
            Problem::Untrusted { host, reason } => (
                "Outgoing HTTPS request to an untrusted server",
                format!(
                    "The Wasm provider {} could not verify the certificate of {host}: {reason}. If the server's certificate comes from a private CA, add the CA's PEM file to ca_files under [http] in {} (or package with --ca-file PATH).",
                    self.name, self.settings_hint
                ),
            ),
            Problem::Proxy { message } => (
                "Outgoing HTTP request failed at the proxy",
                format!(
                    "The Wasm provider {} could not send a request {message}. The proxy comes from [http] in {} or, when that sets none, from HTTPS_PROXY/HTTP_PROXY/ALL_PROXY (NO_PROXY exempts hosts) in the environment Terraform runs in.",
                    self.name, self.settings_hint
                ),
            ),
        };
        wit::Diagnostic {
            severity: wit::Severity::Error,
            summary: summary.into(),
            detail,
            attribute: Vec::new(),
        }
    }

    /// Terraform's schema rules, checked here so the error says where the problem is.
    fn schema_problems(&self, schema: &ProviderSchema) -> Vec<Diagnostic> {
        use tfwasm_model::schema_check::check_schema;
        let mut problems = check_schema("provider", &schema.provider);
        for (name, s) in schema.resources.iter().chain(&schema.data_sources) {
            problems.extend(check_schema(name, s));
        }
        problems
            .into_iter()
            .map(|p| {
                Diagnostic::error(
                    "Provider returned an invalid schema",
                    format!("The Wasm provider {} declares an invalid schema at {}: {}. This is a bug in the provider.", self.name, p.at, p.message),
                )
            })
            .collect()
    }

    /// Tells the operator which setting to raise, and where.
    fn raise_hint(&self, key: &str, rpc: &str) -> String {
        format!(
            " If the provider needs more, raise `{key}` under [limits] (or [limits.rpc.{rpc}]) in {}.",
            self.settings_hint
        )
    }
}

/// The state a guest reported during a call, shared between the store and the caller.
pub(crate) type Reported = Arc<std::sync::Mutex<Option<Vec<u8>>>>;

/// A failed call, with any state the guest reported before it failed.
pub(crate) struct Failed {
    error: CallError,
    reported: Option<Vec<u8>>,
}

/// Largest value (state, plan, data) a guest may return: 16 MiB. Terraform keeps every state
/// in memory and rewrites the state file after each resource, so larger values are a bug or
/// an attack, and the gRPC limit (256 MiB) would otherwise be the only bound.
pub const MAX_VALUE_BYTES: usize = 16 << 20;

/// What the host needs to know about, and add to, any guest response.
pub(crate) trait ReturnedValues {
    /// Bytes of the largest value returned (checked against [`MAX_VALUE_BYTES`]).
    fn largest_value(&self) -> usize {
        0
    }
    /// Adds a host diagnostic (such as a denied request) to the response.
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic);
}

impl ReturnedValues for Vec<wit::Diagnostic> {
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.push(diagnostic);
    }
}
impl ReturnedValues for wit::ProviderSchema {
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::UpgradeResponse {
    fn largest_value(&self) -> usize {
        self.upgraded_state.len()
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::ReadResponse {
    fn largest_value(&self) -> usize {
        self.new_state.len()
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::PlanResponse {
    fn largest_value(&self) -> usize {
        self.planned_state.len()
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::ApplyResponse {
    fn largest_value(&self) -> usize {
        self.new_state.len()
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::ImportResponse {
    fn largest_value(&self) -> usize {
        self.imported
            .iter()
            .map(|r| r.state.len())
            .max()
            .unwrap_or(0)
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
impl ReturnedValues for wit::ReadDataResponse {
    fn largest_value(&self) -> usize {
        self.state.len()
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

/// Terraform never sends JSON in these fields; an absent value travels as empty bytes, which
/// the guest SDK reads as null.
fn bytes(value: DynamicValue) -> Vec<u8> {
    value.msgpack
}

fn diagnostics(list: Vec<wit::Diagnostic>) -> Diagnostics {
    list.into_iter().map(bindings::diagnostic).collect()
}

impl Provider for WasmProvider {
    /// Components plan destroys too (the WIT contract: a null proposal plans null), so
    /// Terraform >= 1.3 sends them through PlanResourceChange, where the contract checks see
    /// them.
    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        tfwasm_model::rpc::ServerCapabilities {
            plan_destroy: true,
            ..Default::default()
        }
    }

    async fn get_provider_schema(&self) -> ProviderSchema {
        if let Some(schema) = self.schema.get() {
            return schema.clone();
        }
        let result = self
            .call("GetProviderSchema", |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_get_schema(store)
                        .await
                })
            })
            .await;
        match result {
            Ok(raw) => match bindings::provider_schema(raw) {
                Ok(mut schema) => {
                    schema.diagnostics.extend(self.schema_problems(&schema));
                    self.schema.get_or_init(|| schema).clone()
                }
                Err(e) => ProviderSchema {
                    diagnostics: vec![Diagnostic::error(
                        "Provider returned an invalid schema",
                        format!(
                            "The Wasm provider {} returned an invalid schema: {e}. This is a bug in the provider.",
                            self.name
                        ),
                    )],
                    ..ProviderSchema::default()
                },
            },
            Err(e) => ProviderSchema {
                diagnostics: vec![self.call_diagnostic(&e.error, "")],
                ..ProviderSchema::default()
            },
        }
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        let config = bytes(config);
        self.call("ValidateProviderConfig", move |store, guest| {
            Box::pin(async move {
                guest
                    .tfwasm_provider_provider()
                    .call_validate_provider_config(store, &config)
                    .await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, "the provider configuration")],
            diagnostics,
        )
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        let ctx = wit::ProviderContext {
            terraform_version: req.terraform_version,
            config: Some(bytes(req.config)),
        };
        let candidate = ctx.clone();
        let result = self
            .call("ConfigureProvider", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_configure_provider(store, &candidate)
                        .await
                })
            })
            .await
            .map_or_else(
                |e| vec![self.call_diagnostic(&e.error, "the provider configuration")],
                diagnostics,
            );
        if !has_error(&result) {
            *self
                .context
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = ctx;
        }
        result
    }

    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ValidateRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        self.call("ValidateResourceConfig", move |store, guest| {
            Box::pin(async move {
                guest
                    .tfwasm_provider_provider()
                    .call_validate_resource_config(store, &ctx, &wreq)
                    .await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ValidateRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        self.call("ValidateDataResourceConfig", move |store, guest| {
            Box::pin(async move {
                guest
                    .tfwasm_provider_provider()
                    .call_validate_data_resource_config(store, &ctx, &wreq)
                    .await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::UpgradeRequest {
            type_name: req.type_name,
            version: req.version,
            raw_state_json: req.raw_state.json,
        };
        match self
            .call("UpgradeResourceState", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_upgrade_resource_state(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => UpgradeResourceStateResponse {
                upgraded_state: DynamicValue::from_msgpack(resp.upgraded_state),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => UpgradeResourceStateResponse {
                upgraded_state: DynamicValue::default(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let (current_state, private) = (req.current_state.clone(), req.private.clone());
        let wreq = wit::ReadRequest {
            type_name: req.type_name,
            current_state: bytes(req.current_state),
            private: req.private,
            provider_meta: bytes(req.provider_meta),
        };
        match self
            .call("ReadResource", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_read_resource(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => ReadResourceResponse {
                new_state: DynamicValue::from_msgpack(resp.new_state),
                private: resp.private,
                diagnostics: diagnostics(resp.diagnostics),
            },
            // Keep the recorded state: a crash must not make Terraform forget the object.
            Err(e) => ReadResourceResponse {
                new_state: current_state,
                private,
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::PlanRequest {
            type_name: req.type_name,
            prior_state: bytes(req.prior_state),
            proposed_new_state: bytes(req.proposed_new_state),
            config: bytes(req.config),
            prior_private: req.prior_private,
            provider_meta: bytes(req.provider_meta),
        };
        match self
            .call("PlanResourceChange", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_plan_resource_change(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => PlanResourceChangeResponse {
                planned_state: DynamicValue::from_msgpack(resp.planned_state),
                requires_replace: resp
                    .requires_replace
                    .into_iter()
                    .map(bindings::path)
                    .collect(),
                planned_private: resp.planned_private,
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => PlanResourceChangeResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..PlanResourceChangeResponse::default()
            },
        }
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let prior = req.prior_state.clone();
        let wreq = wit::ApplyRequest {
            type_name: req.type_name,
            prior_state: bytes(req.prior_state),
            planned_state: bytes(req.planned_state),
            config: bytes(req.config),
            planned_private: req.planned_private,
            provider_meta: bytes(req.provider_meta),
        };
        match self
            .call("ApplyResourceChange", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_apply_resource_change(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => ApplyResourceChangeResponse {
                new_state: DynamicValue::from_msgpack(resp.new_state),
                private: resp.private,
                diagnostics: diagnostics(resp.diagnostics),
            },
            // The call failed: hand back the state the guest reported (the remote object
            // exists), else the prior one, so Terraform keeps what it knew (null on create).
            Err(e) => ApplyResourceChangeResponse {
                new_state: e.reported.map_or(prior, DynamicValue::from_msgpack),
                private: Vec::new(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ImportRequest {
            type_name: req.type_name,
            id: req.id,
        };
        match self
            .call("ImportResourceState", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_import_resource_state(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => ImportResourceStateResponse {
                imported_resources: resp
                    .imported
                    .into_iter()
                    .map(|r| ImportedResource {
                        type_name: r.type_name,
                        state: DynamicValue::from_msgpack(r.state),
                        private: r.private,
                    })
                    .collect(),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => ImportResourceStateResponse {
                imported_resources: Vec::new(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ReadDataRequest {
            type_name: req.type_name,
            config: bytes(req.config),
            provider_meta: bytes(req.provider_meta),
        };
        match self
            .call("ReadDataSource", move |store, guest| {
                Box::pin(async move {
                    guest
                        .tfwasm_provider_provider()
                        .call_read_data_source(store, &ctx, &wreq)
                        .await
                })
            })
            .await
        {
            Ok(resp) => ReadDataSourceResponse {
                state: DynamicValue::from_msgpack(resp.state),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => ReadDataSourceResponse {
                state: DynamicValue::default(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn stop_provider(&self) -> Result<(), String> {
        // In-flight calls stop at once (waiting in the host) or within one epoch tick
        // (running wasm); calls that start afterwards run normally.
        self.stop_generation
            .send_modify(|generation| *generation += 1);
        Ok(())
    }
}
