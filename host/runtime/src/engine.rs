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
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.consume_fuel(limits.fuel_metering);
    config.epoch_interruption(true);
    config.max_wasm_stack(limits.max_wasm_stack);
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
    let engine = Engine::new(&config).map_err(|e| LoadError::Engine(e.to_string()))?;
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
