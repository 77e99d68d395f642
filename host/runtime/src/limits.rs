//! Per-call resource limits, with operator-friendly parsing of sizes and durations.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use tfwasm_model::Rpc;

/// Bounds on one call into the guest. A call that exceeds one traps; its instance is dropped
/// and the call becomes an error diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (roughly, wasm instructions) one call may consume. Deterministic CPU bound.
    pub fuel: u64,
    /// Most memory one instance may hold, in bytes: all its linear memories and tables together.
    pub memory_bytes: usize,
    /// Wall-clock time one call may take.
    pub timeout: Duration,
}

impl Limits {
    /// Default fuel: ten billion units, tens of seconds of guest CPU; real providers use a
    /// tiny fraction per call.
    pub const DEFAULT_FUEL: u64 = 10_000_000_000;
    /// Default memory: 256 MiB per instance.
    pub const DEFAULT_MEMORY_BYTES: usize = 256 << 20;
    /// Default deadline per call: 60 seconds (network-bound applies can be slow).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            fuel: Limits::DEFAULT_FUEL,
            memory_bytes: Limits::DEFAULT_MEMORY_BYTES,
            timeout: Limits::DEFAULT_TIMEOUT,
        }
    }
}

/// Default largest wasm stack: 1 MiB (deep recursion traps instead of crashing the host).
pub const DEFAULT_MAX_WASM_STACK: usize = 1 << 20;

/// Limits that differ for one RPC; unset fields inherit the defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitsOverride {
    /// Fuel for this RPC.
    pub fuel: Option<u64>,
    /// Memory for this RPC.
    pub memory_bytes: Option<usize>,
    /// Deadline for this RPC.
    pub timeout: Option<Duration>,
}

/// Limits for every call: defaults plus per-RPC overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallLimits {
    /// Limits of every RPC without an override.
    pub default: Limits,
    /// Overrides by RPC.
    pub per_rpc: BTreeMap<Rpc, LimitsOverride>,
    /// Largest wasm stack in bytes (one value for the engine).
    pub max_wasm_stack: usize,
    /// Meter fuel (default). Off, `fuel` is not enforced and only the deadline bounds CPU;
    /// guest code runs faster. Exists so operators can trade one for the other.
    pub fuel_metering: bool,
    /// Preallocate instance slots with wasmtime's pooling allocator (at most
    /// [`POOL_SLOTS`] calls at once) instead of allocating per call. Off by default; see
    /// docs/sandbox.md for the measurement behind that choice.
    pub pooling: bool,
    /// Serve calls in idle instances whose previous call succeeded instead of a fresh
    /// instance per call (a failed call's instance is always dropped). On by default; see
    /// docs/benchmarks.md for the measurement behind that choice.
    pub reuse_instances: bool,
    /// Guest calls that run at once; more wait for one to end. What bounds the memory a
    /// provider holds under load: at most this many instances are in use, each within the
    /// memory limit (plus at most 16 idle ones), whatever Terraform's `-parallelism`.
    pub concurrent_calls: usize,
    /// Bounds on the host's work for the guest (logs, diagnostics, journal writes).
    pub host_work: HostWork,
}

/// Bounds on what the host does on a guest's behalf beyond running its code: writing its log
/// lines, handing its diagnostics to Terraform, journaling the states it reports. Each costs
/// host CPU, memory or disk that fuel and the memory limit do not see, so each has a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostWork {
    /// Log bytes (WIT `log` lines plus stdout/stderr) one call may write; lines beyond are
    /// dropped, with one line saying so.
    pub log_bytes_per_call: usize,
    /// Log bytes one instance may write over its life; an instance past it is retired.
    pub log_bytes_per_instance: usize,
    /// Diagnostics one response may carry; the rest are replaced by one saying how many
    /// were dropped (an error if any dropped one was).
    pub diagnostics_per_call: usize,
    /// Bytes of diagnostic text (summary, detail, path) one response may carry.
    pub diagnostic_bytes_per_call: usize,
    /// States one apply may write to the journal; later reports are kept in memory only.
    pub state_reports_per_call: u32,
    /// Bytes of state one apply may write to the journal.
    pub state_report_bytes_per_call: usize,
}

impl HostWork {
    /// Default log bytes per call: 64 KiB.
    pub const DEFAULT_LOG_BYTES_PER_CALL: usize = 64 << 10;
    /// Default log bytes per instance: 1 MiB.
    pub const DEFAULT_LOG_BYTES_PER_INSTANCE: usize = 1 << 20;
    /// Default diagnostics per call: 1000 (a validation error per element of a long list).
    pub const DEFAULT_DIAGNOSTICS_PER_CALL: usize = 1000;
    /// Default diagnostic bytes per call: 1 MiB.
    pub const DEFAULT_DIAGNOSTIC_BYTES_PER_CALL: usize = 1 << 20;
    /// Default journal writes per apply: 100.
    pub const DEFAULT_STATE_REPORTS_PER_CALL: u32 = 100;
    /// Default journal bytes per apply: 64 MiB (four largest states).
    pub const DEFAULT_STATE_REPORT_BYTES_PER_CALL: usize = 64 << 20;
}

impl Default for HostWork {
    fn default() -> HostWork {
        HostWork {
            log_bytes_per_call: HostWork::DEFAULT_LOG_BYTES_PER_CALL,
            log_bytes_per_instance: HostWork::DEFAULT_LOG_BYTES_PER_INSTANCE,
            diagnostics_per_call: HostWork::DEFAULT_DIAGNOSTICS_PER_CALL,
            diagnostic_bytes_per_call: HostWork::DEFAULT_DIAGNOSTIC_BYTES_PER_CALL,
            state_reports_per_call: HostWork::DEFAULT_STATE_REPORTS_PER_CALL,
            state_report_bytes_per_call: HostWork::DEFAULT_STATE_REPORT_BYTES_PER_CALL,
        }
    }
}

/// Concurrent instances the pooling allocator provides for.
pub const POOL_SLOTS: u32 = 64;

/// Default of [`CallLimits::concurrent_calls`]: as many as the pooling allocator has slots
/// for, six times Terraform's default `-parallelism`.
pub const DEFAULT_CONCURRENT_CALLS: usize = POOL_SLOTS as usize;

/// Most calls an operator may let run at once.
pub const MAX_CONCURRENT_CALLS: usize = 4096;

impl Default for CallLimits {
    fn default() -> CallLimits {
        CallLimits::new()
    }
}

impl CallLimits {
    /// The defaults everywhere.
    pub fn new() -> CallLimits {
        CallLimits {
            default: Limits::default(),
            per_rpc: BTreeMap::new(),
            max_wasm_stack: DEFAULT_MAX_WASM_STACK,
            fuel_metering: true,
            pooling: false,
            reuse_instances: true,
            concurrent_calls: DEFAULT_CONCURRENT_CALLS,
            host_work: HostWork::default(),
        }
    }

    /// The limits of one RPC.
    pub fn for_rpc(&self, rpc: Rpc) -> Limits {
        let mut limits = self.default;
        if let Some(o) = self.per_rpc.get(&rpc) {
            limits.fuel = o.fuel.unwrap_or(limits.fuel);
            limits.memory_bytes = o.memory_bytes.unwrap_or(limits.memory_bytes);
            limits.timeout = o.timeout.unwrap_or(limits.timeout);
        }
        limits
    }

    /// The largest memory any RPC may use.
    pub fn max_memory_bytes(&self) -> usize {
        self.per_rpc
            .values()
            .filter_map(|o| o.memory_bytes)
            .fold(self.default.memory_bytes, usize::max)
    }
}

/// A size like `256MiB`, `1GiB`, `512KiB`, `4MB` or plain bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub usize);

/// A size or duration could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a valid {what}: expected {expected}")]
pub struct ParseLimitError {
    /// The rejected text.
    pub text: String,
    /// Size or duration.
    pub what: &'static str,
    /// An example of the expected form.
    pub expected: &'static str,
}

impl FromStr for ByteSize {
    type Err = ParseLimitError;
    fn from_str(text: &str) -> Result<ByteSize, ParseLimitError> {
        let err = || ParseLimitError {
            text: text.to_owned(),
            what: "size",
            expected: "a number with KiB, MiB, GiB, KB, MB, GB or B, e.g. 256MiB",
        };
        let t = text.trim();
        let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (digits, unit) = t.split_at(split);
        let n: u64 = digits.parse().map_err(|_| err())?;
        let factor: u64 = match unit.trim() {
            "" | "B" => 1,
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "KB" | "kB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            _ => return Err(err()),
        };
        n.checked_mul(factor)
            .and_then(|b| usize::try_from(b).ok())
            .map(ByteSize)
            .ok_or_else(err)
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (unit, size) in [("GiB", 1usize << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
            if b >= size && b.is_multiple_of(size) {
                return write!(f, "{}{unit}", b / size);
            }
        }
        write!(f, "{b}B")
    }
}

/// A duration like `30s`, `500ms`, `5m` or `1h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

impl FromStr for HumanDuration {
    type Err = ParseLimitError;
    fn from_str(text: &str) -> Result<HumanDuration, ParseLimitError> {
        let err = || ParseLimitError {
            text: text.to_owned(),
            what: "duration",
            expected: "a number with ms, s, m or h, e.g. 30s",
        };
        let t = text.trim();
        let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (digits, unit) = t.split_at(split);
        let n: u64 = digits.parse().map_err(|_| err())?;
        let d = match unit.trim() {
            "ms" => Duration::from_millis(n),
            "s" => Duration::from_secs(n),
            "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(err)?),
            "h" => Duration::from_secs(n.checked_mul(3600).ok_or_else(err)?),
            _ => return Err(err()),
        };
        if d.is_zero() {
            return Err(err());
        }
        Ok(HumanDuration(d))
    }
}

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms.is_multiple_of(3_600_000) {
            write!(f, "{}h", ms / 3_600_000)
        } else if ms.is_multiple_of(60_000) {
            write!(f, "{}m", ms / 60_000)
        } else if ms.is_multiple_of(1000) {
            write!(f, "{}s", ms / 1000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

/// Largest value (state, plan, data) a guest may return: 16 MiB. Terraform keeps every state
/// in memory and rewrites the state file after each resource, so larger values are a bug or
/// an attack, and the gRPC limit (256 MiB) would otherwise be the only bound.
pub const MAX_VALUE_BYTES: usize = 16 << 20;

// A state written through a state store must fit what reading it back may answer with.
const _: () = assert!(tfwasm_model::rpc::MAX_STATE_BYTES <= MAX_VALUE_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!("256MiB".parse::<ByteSize>().unwrap().0, 256 << 20);
        assert_eq!("4MB".parse::<ByteSize>().unwrap().0, 4_000_000);
        assert_eq!("1024".parse::<ByteSize>().unwrap().0, 1024);
        assert_eq!(ByteSize(256 << 20).to_string(), "256MiB");
        for bad in ["", "MiB", "12 parsecs", "-1MiB", "99999999999999999999GiB"] {
            assert!(bad.parse::<ByteSize>().is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(
            "30s".parse::<HumanDuration>().unwrap().0,
            Duration::from_secs(30)
        );
        assert_eq!(
            "500ms".parse::<HumanDuration>().unwrap().0,
            Duration::from_millis(500)
        );
        assert_eq!(
            "5m".parse::<HumanDuration>().unwrap().0,
            Duration::from_secs(300)
        );
        assert_eq!(HumanDuration(Duration::from_secs(90)).to_string(), "90s");
        for bad in ["", "30", "0s", "1d", "s"] {
            assert!(bad.parse::<HumanDuration>().is_err(), "{bad}");
        }
    }

    #[test]
    fn overrides_inherit_defaults() {
        let mut limits = CallLimits::new();
        limits.per_rpc.insert(
            Rpc::ApplyResourceChange,
            LimitsOverride {
                timeout: Some(Duration::from_secs(600)),
                ..Default::default()
            },
        );
        assert_eq!(
            limits.for_rpc(Rpc::ApplyResourceChange).timeout,
            Duration::from_secs(600)
        );
        assert_eq!(
            limits.for_rpc(Rpc::ApplyResourceChange).fuel,
            Limits::DEFAULT_FUEL
        );
        assert_eq!(
            limits.for_rpc(Rpc::PlanResourceChange).timeout,
            Limits::DEFAULT_TIMEOUT
        );
    }
}
