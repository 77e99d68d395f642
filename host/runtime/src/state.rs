//! What each store holds: a deny-by-default WASI context, resource limits, and the guest's
//! captured output.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::latest::tfwasm::provider::log;
use crate::provider::GuestLogSink;

/// Most guest stdout/stderr kept per call; the rest is dropped.
pub(crate) const MAX_CAPTURED_OUTPUT: usize = 64 << 10;

/// The data of one store (one call).
pub(crate) struct StoreState {
    pub(crate) wasi: WasiCtx,
    pub(crate) http: wasmtime_wasi_http::WasiHttpCtx,
    pub(crate) http_gate: crate::http::gate::HttpGate,
    pub(crate) table: ResourceTable,
    pub(crate) limits: MemoryLimiter,
    pub(crate) stdout: MemoryOutputPipe,
    pub(crate) stderr: MemoryOutputPipe,
    pub(crate) log_sink: Arc<dyn GuestLogSink>,
    /// The latest state the guest reported during this call (see WIT `progress`).
    pub(crate) reported: crate::provider::Reported,
    /// Captured output already sent to the log by earlier calls of this instance.
    pub(crate) stdout_seen: usize,
    pub(crate) stderr_seen: usize,
}

/// Caps linear memory (per instance) and remembers how large it grew, so a reused instance
/// that grew large is retired.
pub(crate) struct MemoryLimiter {
    /// Most bytes a memory may grow to.
    pub(crate) limit: usize,
    /// Largest size any memory of the instance grew to.
    pub(crate) size: usize,
}

/// A guest tried to grow its memory past the limit; the call traps with this error, which
/// `WasmProvider` reports as the memory limit.
#[derive(Debug)]
pub(crate) struct MemoryLimitExceeded {
    desired: usize,
}

impl std::fmt::Display for MemoryLimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "memory limit exceeded growing to {} bytes", self.desired)
    }
}

impl std::error::Error for MemoryLimitExceeded {}

/// Most table elements an instance may have; tables hold function references, so real
/// guests stay far below.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

impl MemoryLimiter {
    pub(crate) fn new(limit: usize) -> MemoryLimiter {
        MemoryLimiter { limit, size: 0 }
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            return Err(wasmtime::Error::new(MemoryLimitExceeded { desired }));
        }
        self.size = self.size.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            return Err(wasmtime::Error::msg(format!(
                "forcing trap when growing a table to {desired} elements"
            )));
        }
        Ok(true)
    }
}

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

impl crate::bindings::latest::tfwasm::provider::progress::Host for StoreState {
    async fn report_state(&mut self, state: Vec<u8>) -> wasmtime::Result<()> {
        // An oversized report is ignored, as an oversized result would be refused.
        if state.len() <= crate::provider::MAX_VALUE_BYTES {
            self.reported.report(state);
        }
        Ok(())
    }
}

impl log::Host for StoreState {
    async fn log(
        &mut self,
        level: log::Level,
        message: String,
        fields: Vec<(String, String)>,
    ) -> wasmtime::Result<()> {
        let level = match level {
            log::Level::Trace => "trace",
            log::Level::Debug => "debug",
            log::Level::Info => "info",
            log::Level::Warn => "warn",
            log::Level::Error => "error",
        };
        self.log_sink.log(level, &message, &fields);
        Ok(())
    }
}

/// The `types` interface has no functions; this marks that the store provides it.
impl crate::bindings::latest::tfwasm::provider::types::Host for StoreState {}
