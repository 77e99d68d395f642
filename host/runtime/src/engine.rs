//! The wasmtime engine every component runs on.

use std::time::Duration;

use wasmtime::{Config, Engine};

use crate::LoadError;

/// How often the epoch advances. Deadlines and StopProvider are noticed within one tick.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Creates the engine: fuel metering and epoch interruption on (for per-call limits), and a
/// background thread advancing the epoch that ends when the engine is dropped.
///
/// # Errors
/// When wasmtime rejects the configuration (it should not on supported platforms).
pub fn new_engine(max_wasm_stack: usize, fuel_metering: bool) -> Result<Engine, LoadError> {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.consume_fuel(fuel_metering);
    config.epoch_interruption(true);
    config.max_wasm_stack(max_wasm_stack);
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
