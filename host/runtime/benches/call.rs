//! What one guest call costs, and what the limits add. Side by side in one run, through the
//! public `WasmProvider` API with the random sample component:
//! - `validate_provider_config`: a fresh instance and a call that does almost nothing, so
//!   the fixed cost of the instance-per-call strategy;
//! - `plan_resource_change` (create of a random_string): a realistic call.
//!
//! Each runs in a fresh instance per call with fuel metering on (plus the epoch deadline),
//! off (epoch only), and with the pooling allocator instead of on-demand allocation; and,
//! the default, in reused instances with fuel and epoch.
//!
//! Needs `make build` first (the component in target/wasm32-wasip2/release).

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use tfwasm_model::Value;
use tfwasm_model::rpc::prelude::*;
use tfwasm_model::rpc::{DynamicValue, PlanResourceChangeRequest};
use tfwasm_runtime::{CallLimits, DiscardLog, Grants, LoadOptions, WasmProvider};

fn component() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let path = target.join("wasm32-wasip2/release/tfwasm_sample_random.wasm");
    assert!(
        path.is_file(),
        "{} is missing: run `make build` first",
        path.display()
    );
    path
}

fn provider(fuel_metering: bool, pooling: bool, reuse_instances: bool) -> WasmProvider {
    let limits = CallLimits {
        fuel_metering,
        pooling,
        reuse_instances,
        ..CallLimits::new()
    };
    let cache = std::env::temp_dir().join("tfwasm-bench-cache");
    let options = LoadOptions {
        limits,
        grants: Grants::default(),
        cache_dir: cache,
        precompiled: None,
        log_sink: Arc::new(DiscardLog),
        settings_hint: "bench".into(),
        display_name: None,
        http: Default::default(),
        journal: None,
        protected: Vec::new(),
    };
    WasmProvider::load(&component(), options)
        .expect("load the random component")
        .0
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let providers = [
        ("fresh/fuel_and_epoch", provider(true, false, false)),
        ("fresh/epoch_only", provider(false, false, false)),
        ("fresh/fuel_and_epoch_pooling", provider(true, true, false)),
        ("reused/fuel_and_epoch", provider(true, false, true)),
    ];
    let schema = runtime.block_on(providers[0].1.get_provider_schema());
    let ty = schema.resources["random_string"].block.implied_type();
    let mut config = Value::null_object_of(&ty);
    config.set("length", Value::from(16));
    let config = DynamicValue::encode(&config, &ty).unwrap();
    let plan = PlanResourceChangeRequest {
        type_name: "random_string".into(),
        prior_state: DynamicValue::null(),
        proposed_new_state: config.clone(),
        config,
        ..Default::default()
    };
    let empty = DynamicValue::encode(
        &Value::object::<_, String>([]),
        &tfwasm_model::Type::object::<_, String>([]),
    )
    .unwrap();

    let mut group = c.benchmark_group("guest_call");
    for (name, provider) in &providers {
        group.bench_function(format!("{name}/validate_provider_config"), |b| {
            b.to_async(&runtime)
                .iter(|| provider.validate_provider_config(empty.clone()))
        });
        group.bench_function(format!("{name}/plan_resource_change"), |b| {
            b.to_async(&runtime).iter(|| async {
                let resp = provider.plan_resource_change(plan.clone()).await;
                assert!(resp.diagnostics.is_empty());
                resp
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
