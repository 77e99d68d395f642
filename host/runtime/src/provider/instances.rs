//! Stores and instances: what a fresh instance gets (deny by default), and the idle pool of
//! instances whose last call succeeded.

use std::time::Duration;

use wasmtime::Store;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::WasmProvider;
use crate::bindings::Guest;
use crate::state::{MAX_CAPTURED_OUTPUT, StoreState};

/// An instance kept for the next call.
pub(super) struct Warm {
    pub(super) store: Store<StoreState>,
    pub(super) instance: Guest,
    /// Calls it has served.
    pub(super) calls: u32,
}

/// Idle instances kept at most (more concurrent calls instantiate fresh ones).
const MAX_IDLE_INSTANCES: usize = 16;
/// Calls an instance serves before it is retired, bounding slow leaks in guest memory.
const MAX_CALLS_PER_INSTANCE: u32 = 1000;
/// An instance whose linear memory grew past this is retired after its call.
const MAX_REUSED_MEMORY: usize = 64 << 20;

impl WasmProvider {
    /// A store for a new instance: what lasts as long as the instance (WASI context, grants,
    /// captured output pipes). Per-call state is set by [`WasmProvider::call`].
    pub(super) fn new_store(&self) -> Result<Store<StoreState>, String> {
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

    /// An idle instance whose last call succeeded, when instances are reused and one waits.
    pub(super) fn take_idle(&self) -> Option<Warm> {
        if !self.limits.reuse_instances {
            return None;
        }
        self.warm.lock().ok().and_then(|mut idle| idle.pop())
    }

    /// Returns an instance to the idle list, unless it should retire.
    pub(super) fn keep_warm(&self, store: Store<StoreState>, instance: Guest, calls: u32) {
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
}
