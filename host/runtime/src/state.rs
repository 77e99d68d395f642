//! What each store holds: a deny-by-default WASI context, resource limits, and the guest's
//! captured output.

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::guest_output::{Capture, GuestLog};

/// The data of one store (one call).
pub(crate) struct StoreState {
    pub(crate) wasi: WasiCtx,
    pub(crate) http: wasmtime_wasi_http::WasiHttpCtx,
    pub(crate) http_gate: crate::http::gate::HttpGate,
    pub(crate) table: ResourceTable,
    pub(crate) limits: MemoryLimiter,
    pub(crate) stdout: Capture,
    pub(crate) stderr: Capture,
    /// Log lines and captured output, within the log budget.
    pub(crate) log: GuestLog,
    /// The latest state the guest reported during this call (see WIT `progress`).
    pub(crate) reported: crate::reported::Reported,
    /// Where an invoked action's progress goes (see WIT `action-progress`); nowhere
    /// outside InvokeAction.
    pub(crate) progress: crate::action_progress::ActionProgress,
    /// The directory grants, for what WIT `files` does in them beyond WASI.
    pub(crate) dirs: Vec<crate::DirGrant>,
}

/// Caps an instance's memory: the sum over all its linear memories and tables (a component
/// composed of several core modules has one memory each), checked at every growth, including
/// the initial allocation. It also remembers that sum, so a reused instance that grew large
/// is retired.
pub(crate) struct MemoryLimiter {
    /// Most bytes the memories and tables of the instance may hold together.
    pub(crate) limit: usize,
    /// Bytes they hold now.
    pub(crate) total: usize,
    /// Bytes granted by the last growth, given back if wasmtime then fails it.
    last_grant: usize,
}

/// A guest tried to grow its memory past the limit; the call traps with this error, which
/// `WasmProvider` reports as the memory limit.
#[derive(Debug)]
pub(crate) struct MemoryLimitExceeded {
    /// The instance's total the growth asked for.
    desired: usize,
}

impl std::fmt::Display for MemoryLimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "memory limit exceeded growing the instance's memories and tables to {} bytes",
            self.desired
        )
    }
}

impl std::error::Error for MemoryLimitExceeded {}

/// Most elements one table may have; tables hold function references, so real guests stay
/// far below.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;
/// What wasmtime keeps per table element (a pointer).
const TABLE_ELEMENT_BYTES: usize = std::mem::size_of::<usize>();

impl MemoryLimiter {
    pub(crate) fn new(limit: usize) -> MemoryLimiter {
        MemoryLimiter {
            limit,
            total: 0,
            last_grant: 0,
        }
    }

    /// Grants `current -> desired` bytes of one memory or table if the total stays in the limit.
    fn grow(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.last_grant = 0;
        if maximum.is_some_and(|max| desired > max) {
            // wasmtime refuses this growth itself; nothing to count.
            return Ok(false);
        }
        let grant = desired.saturating_sub(current);
        let total = self.total.saturating_add(grant);
        if total > self.limit {
            return Err(wasmtime::Error::new(MemoryLimitExceeded { desired: total }));
        }
        self.total = total;
        self.last_grant = grant;
        Ok(true)
    }

    /// A granted growth failed after all (the OS refused): its bytes are not held.
    fn grow_failed(&mut self) {
        self.total = self
            .total
            .saturating_sub(std::mem::take(&mut self.last_grant));
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.grow(current, desired, maximum)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.grow_failed();
        Ok(())
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            return Err(wasmtime::Error::msg(format!(
                "forcing trap when growing a table to {desired} elements"
            )));
        }
        self.grow(
            current * TABLE_ELEMENT_BYTES,
            desired * TABLE_ELEMENT_BYTES,
            maximum.map(|m| m.saturating_mul(TABLE_ELEMENT_BYTES)),
        )
    }

    fn table_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.grow_failed();
        Ok(())
    }

    // A provider composed of a few components has a few of each; wasmtime's defaults
    // (10,000) would let per-instance host state pile up outside the memory total.
    fn instances(&self) -> usize {
        MAX_CORE_INSTANCES
    }

    fn memories(&self) -> usize {
        MAX_CORE_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_CORE_INSTANCES
    }
}

/// Most core instances, memories and tables in one instance of a component.
const MAX_CORE_INSTANCES: usize = 100;

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl wasmtime_wasi_http::WasiHttpView for StoreState {
    fn http(&mut self) -> wasmtime_wasi_http::WasiHttpCtxView<'_> {
        wasmtime_wasi_http::WasiHttpCtxView {
            hooks: &mut self.http_gate,
            table: &mut self.table,
            ctx: &mut self.http,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::component::{Component, Linker};
    use wasmtime::{Engine, Store};

    /// A component of two core modules with a memory of `pages` 64 KiB pages each, as `wac`
    /// composes a provider with other components.
    fn two_memories(pages: u32) -> Vec<u8> {
        wat::parse_str(format!(
            r#"(component
                 (core module $a (memory (export "m") {pages}))
                 (core module $b (memory (export "m") {pages}))
                 (core instance (instantiate $a))
                 (core instance (instantiate $b)))"#
        ))
        .expect("valid component text")
    }

    fn instantiate(limit: usize, pages: u32) -> (Store<MemoryLimiter>, wasmtime::Result<()>) {
        let engine = Engine::default();
        let component = Component::new(&engine, two_memories(pages)).expect("component");
        let mut store = Store::new(&engine, MemoryLimiter::new(limit));
        store.limiter(|limiter| limiter);
        let result = Linker::new(&engine)
            .instantiate(&mut store, &component)
            .map(drop);
        (store, result)
    }

    #[test]
    fn the_limit_is_the_sum_over_an_instances_memories() {
        // 3 MiB each under a 4 MiB limit: either memory fits alone, both do not.
        let (_, result) = instantiate(4 << 20, 48);
        let err = result.expect_err("6 MiB of memories under a 4 MiB limit");
        let exceeded = err
            .downcast_ref::<MemoryLimitExceeded>()
            .unwrap_or_else(|| panic!("not the memory limit: {err:#}"));
        assert_eq!(exceeded.desired, 6 << 20);

        let (store, result) = instantiate(6 << 20, 48);
        result.expect("6 MiB of memories under a 6 MiB limit");
        assert_eq!(
            store.data().total,
            6 << 20,
            "the total idle retirement reads"
        );
    }

    #[test]
    fn growth_counts_deltas_tables_and_gives_back_failed_growth() {
        let mut limiter = MemoryLimiter::new(10 << 20);
        assert!(limiter.grow(0, 4 << 20, None).unwrap());
        assert!(limiter.grow(0, 4 << 20, None).unwrap());
        // The first memory grows by 1 MiB: 9 MiB in all.
        assert!(limiter.grow(4 << 20, 5 << 20, None).unwrap());
        assert_eq!(limiter.total, 9 << 20);
        // Past a memory's own maximum: wasmtime refuses it, nothing counted.
        assert!(!limiter.grow(5 << 20, 6 << 20, Some(5 << 20)).unwrap());
        assert_eq!(limiter.total, 9 << 20);
        // The OS refusing a granted growth gives its bytes back.
        assert!(limiter.grow(5 << 20, 6 << 20, None).unwrap());
        limiter.grow_failed();
        assert_eq!(limiter.total, 9 << 20);
        // Tables count a pointer per element.
        use wasmtime::ResourceLimiter as _;
        assert!(limiter.table_growing(0, 1000, None).unwrap());
        assert_eq!(limiter.total, (9 << 20) + 1000 * TABLE_ELEMENT_BYTES);
        assert!(limiter.memory_growing(0, 1 << 20, None).is_err());
        assert!(
            limiter
                .table_growing(0, MAX_TABLE_ELEMENTS + 1, None)
                .is_err()
        );
    }
}
