//! The wasmtime engine every component runs on.

use std::time::Duration;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::LoadError;

/// How often the epoch advances. Deadlines and StopProvider are noticed within one tick.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Creates the engine: fuel metering and epoch interruption on (for per-call limits), and a
/// background thread advancing the epoch that ends when the engine is dropped.
///
/// # Errors
/// When wasmtime rejects the configuration (it should not on supported platforms).
pub(crate) fn new_engine(limits: &crate::CallLimits) -> Result<Engine, LoadError> {
    let engine = Engine::new(&config(limits)).map_err(|e| LoadError::Engine(e.to_string()))?;
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("tfwasm-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .map_err(|e| LoadError::Engine(format!("cannot start the epoch thread: {e}")))?;
    Ok(engine)
}

/// An engine that compiles code any CPU of `platform` can run, for provider packages: a
/// package may be installed on an older machine than the one that made it, or another
/// architecture's. Its settings are otherwise [`new_engine`]'s, so the code loads there.
#[cfg(feature = "compiler")]
pub(crate) fn portable_engine(
    limits: &crate::CallLimits,
    platform: crate::Platform,
) -> Result<Engine, LoadError> {
    let mut config = config(limits);
    config
        .target(platform.triple())
        .map_err(|e| LoadError::Engine(e.to_string()))?;
    for feature in platform.baseline() {
        // SAFETY: these are features of the baseline every supported CPU of the
        // architecture has; a CPU without one is refused when the code is loaded
        // (wasmtime checks each enabled feature against the host), never run.
        unsafe {
            config.cranelift_flag_enable(feature);
        }
    }
    Engine::new(&config).map_err(|e| LoadError::Engine(e.to_string()))
}

/// The settings every engine shares: they are part of compiled code's compatibility, so an
/// engine loading precompiled code must be configured exactly like the one that made it.
fn config(limits: &crate::CallLimits) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.consume_fuel(limits.fuel_metering);
    config.epoch_interruption(true);
    config.max_wasm_stack(limits.max_wasm_stack);
    // The machine-code-to-Wasm-offset map only adds offsets to trap backtraces (function
    // names stay); it is 11 % of a package's precompiled code, which Terraform hashes at
    // every command.
    config.generate_address_map(false);
    // `.eh_frame` for Wasm frames serves only outside unwinders (a debugger, `perf`);
    // wasmtime's own traps and backtraces walk frame pointers, and a host function's panic
    // is caught before it would unwind through Wasm. 2.4-3.4 % of precompiled code, and
    // registered with the system unwinder at every load.
    config.native_unwind_info(false);
    if limits.pooling {
        let slots = crate::limits::POOL_SLOTS;
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(slots)
            .total_core_instances(slots * 8)
            .total_memories(slots * 2)
            .total_tables(slots * 8)
            .total_stacks(slots)
            .max_memory_size(limits.max_memory_bytes())
            .max_memories_per_component(2)
            .max_tables_per_component(8)
            .max_core_instances_per_component(8);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use super::*;

    /// What serving never reads stays out of precompiled code: no native unwind tables and
    /// no machine-code-to-Wasm address map.
    #[test]
    fn precompiled_code_carries_no_unwind_tables_or_address_map() {
        let component = wat::parse_str(
            r#"(component (core module (func (export "f") (param i32) (result i32) local.get 0)))"#,
        )
        .unwrap();
        let limits = crate::CallLimits::default();
        let engine = new_engine(&limits).unwrap();
        let code = engine.precompile_component(&component).unwrap();
        let has = |name: &[u8]| code.windows(name.len()).any(|w| w == name);
        assert!(has(b".text\0"), "not the ELF image expected");
        assert!(!has(b".eh_frame\0"));
        assert!(!has(b".wasmtime.addrmap\0"));
        let portable = portable_engine(&limits, crate::Platform::host().unwrap()).unwrap();
        let code = portable.precompile_component(&component).unwrap();
        assert!(!code.windows(10).any(|w| w == b".eh_frame\0"));
    }
}
