//! Stores and instances: what a fresh instance gets (deny by default), and the idle pool of
//! instances whose last call succeeded.

use std::time::Duration;

use wasmtime::Store;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::WasmProvider;
use crate::bindings::Guest;
use crate::guest_output::{Capture, GuestLog};
use crate::state::StoreState;

/// An instance kept for the next call.
pub(super) struct Warm {
    pub(super) store: Store<StoreState>,
    pub(super) instance: Guest,
    /// Calls it has served.
    pub(super) calls: u32,
}

/// Host-side handles (files, streams, HTTP requests, responses and header blocks) one
/// instance may hold at once. What they hold lives in host memory, outside `memory`; real
/// guests hold tens.
pub(crate) const MAX_HANDLES: usize = 1024;
/// Largest header block (wasi:http `fields`) a guest may build, as wasmtime counts it.
pub(crate) const MAX_HEADER_BLOCK: usize = 32 << 10;
/// Most bytes one call between guest and host (an import, or an export's result) may copy
/// out of the guest: the bound on what lifting a guest's strings and lists costs the host,
/// however its data is aliased. Above the largest value (16 MiB) and the largest schemas.
pub(crate) const MAX_HOST_CALL_COPY: usize = 128 << 20;

/// Variables every guest gets, set to the level its log lines are written at.
pub(crate) const GUEST_LOG_LEVEL_VARS: [&str; 2] = ["TF_LOG_PROVIDER", "TF_LOG_SDK"];

/// Idle instances kept at most (more concurrent calls instantiate fresh ones).
const MAX_IDLE_INSTANCES: usize = 16;
/// Calls an instance serves before it is retired, bounding slow leaks in guest memory.
const MAX_CALLS_PER_INSTANCE: u32 = 1000;

impl WasmProvider {
    /// A store for a new instance: what lasts as long as the instance (WASI context, grants,
    /// captured output pipes). Per-call state is set by [`WasmProvider::call`].
    pub(super) fn new_store(&self) -> Result<Store<StoreState>, String> {
        let stdout = Capture::default();
        let stderr = Capture::default();
        // Deny by default: only granted directories and variables; no sockets, no stdin.
        let mut builder = WasiCtxBuilder::new();
        builder.stdout(stdout.clone()).stderr(stderr.clone());
        // The level guest lines are written at, in the variables terraform-plugin-log reads
        // (a granted variable of the same name wins).
        let level = self.log_sink.level().unwrap_or("off");
        for name in GUEST_LOG_LEVEL_VARS {
            if !self.env.iter().any(|(granted, _)| granted == name) {
                builder.env(name, level);
            }
        }
        builder.envs(&self.env);
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
            http: {
                let mut http = wasmtime_wasi_http::WasiHttpCtx::new();
                http.set_field_size_limit(MAX_HEADER_BLOCK);
                http
            },
            http_gate: crate::http::gate::HttpGate {
                allow: self.http_allow.clone(),
                outbound: self.outbound.clone(),
                problems: Default::default(),
                timeout: Duration::ZERO,
                requests: 0,
                // Replaced by each call's own.
                call_ended: tokio::sync::watch::channel(()).1,
            },
            table: {
                let mut table = wasmtime::component::ResourceTable::new();
                table.set_max_capacity(MAX_HANDLES);
                table
            },
            limits: crate::state::MemoryLimiter::new(0),
            stdout,
            stderr,
            log: GuestLog::new(self.log_sink.clone(), &self.limits.host_work),
            reported: Default::default(),
            progress: Default::default(),
            dirs: self.grants.dirs.clone(),
        };
        let mut store = Store::new(&self.engine, state);
        store.set_hostcall_fuel(MAX_HOST_CALL_COPY);
        store.limiter(|state| &mut state.limits);
        Ok(store)
    }

    /// An idle instance whose last call succeeded, when instances are reused and one waits
    /// that fits the call's `memory` limit: an instance never shrinks, so one grown by an
    /// earlier call under a larger limit (a large plan) would fail a call with a smaller one
    /// (a per-RPC override) for memory it did not use.
    pub(super) fn take_idle(&self, memory_limit: usize) -> Option<Warm> {
        if !self.limits.reuse_instances {
            return None;
        }
        let mut idle = self.warm.lock().ok()?;
        let at = newest_within(
            idle.iter().map(|w| w.store.data().limits.total),
            memory_limit,
        )?;
        Some(idle.remove(at))
    }

    /// Returns an instance to the idle list, unless it should retire: idle instances'
    /// memories and tables together stay within one call's memory limit
    /// ([`idle_memory_fits`]).
    pub(super) fn keep_warm(&self, store: Store<StoreState>, instance: Guest, calls: u32) {
        let state = store.data();
        if !self.limits.reuse_instances
            || calls >= MAX_CALLS_PER_INSTANCE
            || state.log.instance_spent()
        {
            return;
        }
        let memory = state.limits.total;
        if let Ok(mut idle) = self.warm.lock()
            && idle_memory_fits(
                idle.iter().map(|w| w.store.data().limits.total),
                memory,
                self.limits.default.memory_bytes,
            )
        {
            idle.push(Warm {
                store,
                instance,
                calls,
            });
        }
    }
}

/// Whether an instance holding `memory` bytes may join the idle ones: at most
/// [`MAX_IDLE_INSTANCES`], holding at most `budget` together (the default per-call memory
/// limit, which operators set). A large instance is kept while it fits, so a provider that
/// plans a 10,000-element set keeps the instance it grew for that (a fresh one costs page
/// faults on every page it touches again), and idle memory never exceeds one call's worth.
fn idle_memory_fits(
    idle: impl ExactSizeIterator<Item = usize>,
    memory: usize,
    budget: usize,
) -> bool {
    idle.len() < MAX_IDLE_INSTANCES
        && idle.fold(memory, |total, held| total.saturating_add(held)) <= budget
}

/// The newest (last) of the idle instances holding `totals` bytes that is within `limit`.
fn newest_within(
    mut totals: impl DoubleEndedIterator<Item = usize> + ExactSizeIterator,
    limit: usize,
) -> Option<usize> {
    totals.rposition(|total| total <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_takes_only_an_instance_within_its_memory_limit() {
        let mib = 1 << 20;
        assert_eq!(
            newest_within([2 * mib, 3 * mib].into_iter(), 256 * mib),
            Some(1)
        );
        // The newest grew for a large plan; a call limited to 128 MiB takes the older one.
        assert_eq!(
            newest_within([2 * mib, 200 * mib].into_iter(), 128 * mib),
            Some(0)
        );
        assert_eq!(newest_within([200 * mib].into_iter(), 128 * mib), None);
        assert_eq!(newest_within([0usize; 0].into_iter(), 128 * mib), None);
    }

    #[test]
    fn idle_instances_hold_at_most_the_memory_budget() {
        let mib = 1 << 20;
        // A large instance alone fits; beside one that leaves no room, it does not.
        assert!(idle_memory_fits([].into_iter(), 150 * mib, 256 * mib));
        assert!(!idle_memory_fits(
            [150 * mib].into_iter(),
            150 * mib,
            256 * mib
        ));
        assert!(idle_memory_fits(
            [100 * mib].into_iter(),
            150 * mib,
            256 * mib
        ));
        // Larger than the budget on its own: retired.
        assert!(!idle_memory_fits([].into_iter(), 300 * mib, 256 * mib));
        // The count bound holds however small they are.
        assert!(!idle_memory_fits(
            [mib; MAX_IDLE_INSTANCES].into_iter(),
            mib,
            256 * mib
        ));
        assert!(idle_memory_fits(
            [mib; MAX_IDLE_INSTANCES - 1].into_iter(),
            mib,
            256 * mib
        ));
        assert!(!idle_memory_fits(
            [usize::MAX].into_iter(),
            1,
            usize::MAX - 1
        ));
    }
}
