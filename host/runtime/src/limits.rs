//! Per-call resource limits.

use std::time::Duration;

/// Bounds on one call into the guest. A call that exceeds one traps; its instance is dropped
/// and the call becomes an error diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (roughly, wasm instructions) one call may consume. Deterministic CPU bound.
    pub fuel: u64,
    /// Most linear memory one instance may grow to, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock time one call may take.
    pub timeout: Duration,
    /// Largest wasm stack, in bytes (deep recursion traps instead of crashing the host).
    pub max_wasm_stack: usize,
}

impl Limits {
    /// Default fuel: about ten billion instructions, tens of seconds of guest CPU; real
    /// providers use a tiny fraction per call.
    pub const DEFAULT_FUEL: u64 = 10_000_000_000;
    /// Default memory: 256 MiB per instance.
    pub const DEFAULT_MEMORY_BYTES: usize = 256 << 20;
    /// Default deadline per call: 60 seconds (network-bound applies can be slow).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
    /// Default wasm stack: 1 MiB.
    pub const DEFAULT_MAX_WASM_STACK: usize = 1 << 20;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            fuel: Limits::DEFAULT_FUEL,
            memory_bytes: Limits::DEFAULT_MEMORY_BYTES,
            timeout: Limits::DEFAULT_TIMEOUT,
            max_wasm_stack: Limits::DEFAULT_MAX_WASM_STACK,
        }
    }
}
