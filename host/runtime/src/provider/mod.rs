//! [`WasmProvider`]: a component behind the [`Provider`] trait; each call runs in an instance
//! of its own (reused after successful calls, dropped after failed ones).
//!
//! By concern: loading and settings here; [`instances`] (stores, the idle pool and when an
//! instance retires); [`call`] (one guest call under its limits: fuel, memory, deadline,
//! StopProvider, result size); [`failure`] (what a failed call becomes for the operator);
//! [`rpcs`] (each RPC mapped onto its guest export).

mod call;
mod failure;
mod instances;
mod rpcs;

use std::path::Path;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use wasmtime::Engine;
use wasmtime::component::Linker;

use crate::bindings::{GuestPre, WitVersion, wit};
use crate::code::Origin;
use crate::guest_output::GuestLogSink;
use crate::state::StoreState;
use crate::{CallLimits, Grants, LoadError};

use instances::Warm;

/// The guest's schemas as the process keeps them: indexed once, and shared with every layer
/// above (the contract checks, the recording) through `schema_index`.
pub(crate) struct KnownSchema {
    /// The schemas, function signatures and identity schemas, with their value types.
    pub(crate) index: Arc<tfwasm_model::SchemaIndex>,
    /// Resource value types the host may decode current state with
    /// (`host-decodes-current-state`); empty otherwise.
    pub(crate) current_state_types: std::collections::BTreeMap<String, tfwasm_model::Type>,
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
    /// Where applies keep what the guest reported until they answer; `None` turns that off.
    pub journal: Option<crate::Journal>,
    /// Files the caller reads on the guest's behalf (settings, CA files), which no read-write
    /// grant may hold, beside those every load protects ([`crate::host_paths::host_paths`]).
    pub protected: Vec<crate::host_paths::HostPath>,
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
    pre: GuestPre,
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
    /// The guest's schema and function signatures, asked for once.
    schema: OnceLock<KnownSchema>,
    /// Bumped by StopProvider; a call started under an older generation is interrupted,
    /// whether it is running wasm (epoch callback) or waiting in a host call (select below).
    stop_generation: Arc<tokio::sync::watch::Sender<u64>>,
    log_sink: Arc<dyn GuestLogSink>,
    /// Idle instances whose last call succeeded, for [`CallLimits::reuse_instances`].
    warm: std::sync::Mutex<Vec<Warm>>,
    /// One permit per call running, [`CallLimits::concurrent_calls`] in all.
    running: tokio::sync::Semaphore,
    /// The apply journal of this component in this working directory.
    journal: Option<Arc<crate::Journal>>,
    /// Set when this start compiled the component slowly: told once, as a warning with the
    /// first ConfigureProvider, where the operator sees it.
    slow_start: std::sync::Mutex<Option<tfwasm_model::Diagnostic>>,
    /// Each state store's configuration as ConfigureStateStore accepted it, sent with every
    /// later call of the store (the guest keeps nothing).
    store_configs: RwLock<std::collections::BTreeMap<String, Vec<u8>>>,
}

/// A start that compiled for longer than this says so in Terraform's output...
const SLOW_START: Duration = Duration::from_secs(10);
/// ...as does any start that compiled a component this large (one built from CPython is
/// 18 MiB and takes 20 s on 2 cores), however fast the machine was this time.
const LARGE_COMPONENT: u64 = 8 << 20;

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
            journal,
            mut protected,
        } = options;
        let started = Instant::now();
        protected.extend(crate::host_paths::host_paths(path, &cache_dir));
        crate::host_paths::refuse_granted(&grants.dirs, &protected)?;
        let mut grants = grants;
        crate::grants::pin_dirs(&mut grants.dirs).map_err(|e| LoadError::Grant {
            grant: e.grant,
            message: e.message,
        })?;
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
        crate::http::unsent::add_to_linker(&mut linker).map_err(incompatible)?;
        crate::bindings::add_to_linker(&mut linker).map_err(incompatible)?;
        let version = WitVersion::of(&component, &engine).ok_or_else(|| LoadError::Incompatible {
            path: path.to_owned(),
            message: format!(
                "it exports no tfwasm:provider interface of a version this tfwasm serves ({}); was it built with tfwasm-sdk?",
                (WitVersion::ALL.iter()).map(|v| format!("@{}", v.as_str())).collect::<Vec<_>>().join(", ")
            ),
        })?;
        let instance_pre = linker.instantiate_pre(&component).map_err(incompatible)?;
        let pre = GuestPre::new(version, instance_pre).map_err(incompatible)?;
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
        let concurrent_calls =
            (limits.concurrent_calls).clamp(1, crate::limits::MAX_CONCURRENT_CALLS);
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
                client_capabilities: crate::bindings::client_capabilities(Default::default()),
            }),
            schema: OnceLock::new(),
            stop_generation: Arc::new(tokio::sync::watch::Sender::new(0)),
            log_sink,
            warm: std::sync::Mutex::new(Vec::new()),
            running: tokio::sync::Semaphore::new(concurrent_calls),
            journal: journal.map(Arc::new),
            slow_start: std::sync::Mutex::new(None),
            store_configs: RwLock::new(std::collections::BTreeMap::new()),
        };
        let elapsed = started.elapsed();
        let large = std::fs::metadata(path).is_ok_and(|m| m.len() > LARGE_COMPONENT);
        if matches!(origin, Origin::Compiled) && (elapsed > SLOW_START || large) {
            *provider
                .slow_start
                .lock()
                .unwrap_or_else(|p| p.into_inner()) =
                Some(slow_start_warning(&provider.name, elapsed, &cache_dir));
        }
        Ok((provider, LoadReport { origin, elapsed }))
    }

    /// The warning of a slow start, the first time it is asked for.
    pub(crate) fn take_slow_start(&self) -> Option<tfwasm_model::Diagnostic> {
        self.slow_start
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// The limits calls run under.
    pub fn limits(&self) -> &CallLimits {
        &self.limits
    }

    /// What the guest may reach.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The WIT version the component was built against.
    pub fn wit_version(&self) -> WitVersion {
        self.pre.version()
    }

    /// Which families of later WIT versions the component exports too.
    pub fn families(&self) -> crate::bindings::Families {
        self.pre.additions()
    }

    /// The interfaces the component imports.
    pub fn imports(&self) -> &[String] {
        &self.imports
    }

    /// The context of a call that carries its own client capabilities (read, plan, import,
    /// data source read, ephemeral open): they replace ConfigureProvider's.
    fn context_for(&self, client: tfwasm_model::rpc::ClientCapabilities) -> wit::ProviderContext {
        wit::ProviderContext {
            client_capabilities: crate::bindings::client_capabilities(client),
            ..self.context()
        }
    }

    fn context(&self) -> wit::ProviderContext {
        self.context
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

fn slow_start_warning(name: &str, elapsed: Duration, cache_dir: &Path) -> tfwasm_model::Diagnostic {
    tfwasm_model::Diagnostic::warning(
        "Provider component compiled at start",
        format!(
            "The Wasm provider {name} was compiled to machine code when it started ({:.1} s), because neither its package's precompiled code nor the compile cache ({}) had it. Later starts on this machine load it from the cache in milliseconds. Install it from a package made by `tfwasm package` for this platform to skip compiling altogether.",
            elapsed.as_secs_f64(),
            cache_dir.display()
        ),
    )
}
