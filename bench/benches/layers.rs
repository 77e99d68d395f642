//! Where a PlanResourceChange / ApplyResourceChange spends its time, layer by layer, in
//! process (no gRPC): the SDK natively, the contract checks on top, and the Wasm runtime
//! with reused or fresh instances. Besides the create, a refresh of the created resource:
//! its UpgradeResourceState from stored JSON, ReadResource and the PlanResourceChange that
//! finds it unchanged, as `plan -refresh=true` sends for every resource. First, the value
//! codec alone on the apply's values. Side by side in one run; needs `make build` first.

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use tfwasm_bench::native::NativeProvider;
use tfwasm_contract::{Checked, Mode};
use tfwasm_model::Provider;
use tfwasm_model::rpc::prelude::*;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, DynamicValue, PlanResourceChangeRequest, RawState,
    ReadResourceRequest, UpgradeResourceStateRequest,
};
use tfwasm_runtime::{CallLimits, DiscardLog, Grants, LoadOptions, WasmProvider};

fn component() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("wasm32-wasip2/release/tfwasm_sample_random.wasm")
}

fn wasm(reuse: bool) -> WasmProvider {
    wasm_with(reuse, true)
}

fn wasm_with(reuse: bool, fuel_metering: bool) -> WasmProvider {
    let options = LoadOptions {
        limits: CallLimits {
            reuse_instances: reuse,
            fuel_metering,
            ..CallLimits::new()
        },
        grants: Grants::default(),
        cache_dir: std::env::temp_dir().join("tfwasm-bench-cache"),
        precompiled: None,
        log_sink: Arc::new(DiscardLog),
        settings_hint: "bench".into(),
        display_name: None,
        http: Default::default(),
        journal: None,
        protected: Vec::new(),
    };
    WasmProvider::load(&component(), options)
        .expect("load the random component (run `make build` first)")
        .0
}

fn create_requests(
    ty: &tfwasm_model::Type,
) -> (PlanResourceChangeRequest, ApplyResourceChangeRequest) {
    let (config, planned) = tfwasm_bench::workload::random_string_create(ty);
    let config = DynamicValue::encode(&config, ty).unwrap();
    let planned = DynamicValue::encode(&planned, ty).unwrap();
    (
        PlanResourceChangeRequest {
            type_name: "random_string".into(),
            prior_state: DynamicValue::null(),
            proposed_new_state: config.clone(),
            config: config.clone(),
            ..Default::default()
        },
        ApplyResourceChangeRequest {
            type_name: "random_string".into(),
            prior_state: DynamicValue::null(),
            planned_state: planned,
            config,
            ..Default::default()
        },
    )
}

/// What every layer is asked: the create's plan and apply, and the refresh of what it created.
struct Requests {
    plan: PlanResourceChangeRequest,
    apply: ApplyResourceChangeRequest,
    refresh: Refresh,
}

/// The refresh of the resource `apply` creates: its upgrade from the JSON Terraform stores,
/// its read, and its plan with the configuration unchanged (prior and proposed state the
/// same bytes).
struct Refresh {
    upgrade: UpgradeResourceStateRequest,
    read: ReadResourceRequest,
    plan: PlanResourceChangeRequest,
}

/// `ty` and `version`: the resource's value type and schema version.
fn refresh_requests(
    rt: &tokio::runtime::Runtime,
    p: &impl Provider,
    apply: &ApplyResourceChangeRequest,
    ty: &tfwasm_model::Type,
    version: i64,
) -> Refresh {
    let created = rt.block_on(p.apply_resource_change(apply.clone()));
    assert!(created.diagnostics.is_empty(), "{:?}", created.diagnostics);
    let state = created.new_state;
    let stored = state.decode(ty).expect("the created state decodes");
    Refresh {
        upgrade: UpgradeResourceStateRequest {
            type_name: apply.type_name.clone(),
            version,
            raw_state: RawState {
                json: tfwasm_model::codec::json::encode_text(&stored, ty)
                    .unwrap()
                    .into_bytes(),
                flatmap: Default::default(),
            },
        },
        read: ReadResourceRequest {
            type_name: apply.type_name.clone(),
            current_state: state.clone(),
            ..Default::default()
        },
        plan: PlanResourceChangeRequest {
            type_name: apply.type_name.clone(),
            prior_state: state.clone(),
            proposed_new_state: state,
            config: apply.config.clone(),
            ..Default::default()
        },
    }
}

fn bench_provider<P: Provider>(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    name: &str,
    p: &P,
    requests: &Requests,
) {
    let Requests {
        plan,
        apply,
        refresh,
    } = requests;
    rt.block_on(p.get_provider_schema());
    // Every step answers without a diagnostic (and the refresh's plan changes nothing)
    // before it is timed: an error path would time as fast.
    let answers = [
        (
            "plan",
            rt.block_on(p.plan_resource_change(plan.clone()))
                .diagnostics,
        ),
        (
            "apply",
            rt.block_on(p.apply_resource_change(apply.clone()))
                .diagnostics,
        ),
        (
            "upgrade",
            rt.block_on(p.upgrade_resource_state(refresh.upgrade.clone()))
                .diagnostics,
        ),
        (
            "read",
            rt.block_on(p.read_resource(refresh.read.clone()))
                .diagnostics,
        ),
    ];
    for (step, diagnostics) in answers {
        assert!(diagnostics.is_empty(), "{name}/{step}: {diagnostics:?}");
    }
    let unchanged = rt.block_on(p.plan_resource_change(refresh.plan.clone()));
    assert!(
        unchanged.diagnostics.is_empty() && unchanged.planned_state == refresh.plan.prior_state,
        "{name}/plan_unchanged: {unchanged:?}"
    );
    let mut group = c.benchmark_group("layers");
    group.bench_function(format!("{name}/plan"), |b| {
        b.iter(|| rt.block_on(p.plan_resource_change(plan.clone())))
    });
    group.bench_function(format!("{name}/apply"), |b| {
        b.iter(|| rt.block_on(p.apply_resource_change(apply.clone())))
    });
    group.bench_function(format!("{name}/upgrade"), |b| {
        b.iter(|| rt.block_on(p.upgrade_resource_state(refresh.upgrade.clone())))
    });
    group.bench_function(format!("{name}/read"), |b| {
        b.iter(|| rt.block_on(p.read_resource(refresh.read.clone())))
    });
    group.bench_function(format!("{name}/plan_unchanged"), |b| {
        b.iter(|| rt.block_on(p.plan_resource_change(refresh.plan.clone())))
    });
    group.finish();
}

/// The value codec alone, natively, on the apply's values: what the SDK's apply spends
/// parsing its request and writing its answer (two decodes and an encode), against building
/// the same tree without parsing (a clone). The difference bounds what handing the guest
/// values already parsed (a typed value in a new WIT version) could save; the tree is built
/// either way.
fn bench_codec(c: &mut Criterion, requests: &Requests, ty: &tfwasm_model::Type) {
    use tfwasm_model::codec::msgpack;
    let apply = &requests.apply;
    let planned_bytes = &apply.planned_state.msgpack;
    let config_bytes = &apply.config.msgpack;
    let planned = msgpack::decode(planned_bytes, ty).unwrap();
    let new_state = requests.refresh.read.current_state.decode(ty).unwrap();
    let mut group = c.benchmark_group("layers");
    group.bench_function("0_codec/decode_planned", |b| {
        b.iter(|| msgpack::decode(planned_bytes, ty).unwrap())
    });
    group.bench_function("0_codec/decode_config", |b| {
        b.iter(|| msgpack::decode(config_bytes, ty).unwrap())
    });
    group.bench_function("0_codec/clone_planned", |b| b.iter(|| planned.clone()));
    group.bench_function("0_codec/encode_new_state", |b| {
        b.iter(|| msgpack::encode(&new_state, ty).unwrap())
    });
    group.finish();
}

/// The buffer the cold group writes through between two calls: more than a last-level cache
/// holds, over more pages than a TLB maps, so each call starts with little of its own cached
/// (branch predictors keep theirs).
const EVICTION_BYTES: usize = 64 << 20;

/// Writes one byte in every cache line of `buffer`, pushing out whatever was cached before.
fn evict(buffer: &mut [u8]) {
    for line in buffer.chunks_mut(64) {
        line[0] = line[0].wrapping_add(1);
    }
    std::hint::black_box(buffer);
}

/// The checked layers' plan and apply (2 and 4), each call after the caches were filled with
/// other bytes: a hot loop keeps a call's code and data cached from the call before, while a
/// served call may find them pushed out by what ran in between (gRPC, the kernel, the
/// client). Only the call is timed; few calls, since each eviction costs milliseconds.
fn bench_cold(c: &mut Criterion, rt: &tokio::runtime::Runtime, requests: &Requests) {
    let native = Checked::new(
        NativeProvider::new(tfwasm_sample_random::RandomProvider),
        "random",
        Mode::Enforce,
    );
    let wasm = Checked::new(wasm(true), "random", Mode::Enforce);
    rt.block_on(native.get_provider_schema());
    rt.block_on(wasm.get_provider_schema());
    let mut buffer = vec![0u8; EVICTION_BYTES];
    let mut group = c.benchmark_group("layers_cold");
    group
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(50))
        .measurement_time(std::time::Duration::from_millis(100));
    let mut cold = |name: &str, call: &mut dyn FnMut()| {
        group.bench_function(name, |b| {
            b.iter_custom(|iterations| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..iterations {
                    evict(&mut buffer);
                    let started = std::time::Instant::now();
                    call();
                    spent += started.elapsed();
                }
                spent
            })
        });
    };
    let (plan, apply) = (&requests.plan, &requests.apply);
    cold("2_native_sdk_checked/plan", &mut || {
        std::hint::black_box(rt.block_on(native.plan_resource_change(plan.clone())));
    });
    cold("2_native_sdk_checked/apply", &mut || {
        std::hint::black_box(rt.block_on(native.apply_resource_change(apply.clone())));
    });
    cold("4_wasm_reused_checked/plan", &mut || {
        std::hint::black_box(rt.block_on(wasm.plan_resource_change(plan.clone())));
    });
    cold("4_wasm_reused_checked/apply", &mut || {
        std::hint::black_box(rt.block_on(wasm.apply_resource_change(apply.clone())));
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let native = NativeProvider::new(tfwasm_sample_random::RandomProvider);
    let schema = &rt.block_on(native.get_provider_schema()).resources["random_string"];
    let ty = schema.block.implied_type();
    let (plan, apply) = create_requests(&ty);
    let refresh = refresh_requests(&rt, &native, &apply, &ty, schema.version);
    let requests = Requests {
        plan,
        apply,
        refresh,
    };
    bench_codec(c, &requests, &ty);
    bench_provider(c, &rt, "1_native_sdk", &native, &requests);
    let checked = Checked::new(
        NativeProvider::new(tfwasm_sample_random::RandomProvider),
        "random",
        Mode::Enforce,
    );
    bench_provider(c, &rt, "2_native_sdk_checked", &checked, &requests);
    bench_provider(c, &rt, "3_wasm_reused", &wasm(true), &requests);
    let epoch_only = wasm_with(true, false);
    bench_provider(c, &rt, "3b_wasm_reused_epoch_only", &epoch_only, &requests);
    let checked = Checked::new(wasm(true), "random", Mode::Enforce);
    bench_provider(c, &rt, "4_wasm_reused_checked", &checked, &requests);
    bench_provider(c, &rt, "5_wasm_fresh", &wasm(false), &requests);
    bench_cold(c, &rt, &requests);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50);
    targets = bench
}
criterion_main!(benches);
