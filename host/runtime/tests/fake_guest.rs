//! The runtime's call path without a built component: every RPC of the table sent through
//! [`WasmProvider`] to a fake guest made here from the WIT world itself, so these tests need
//! no sample build and a new RPC is covered the moment it is in the table and the world.
//!
//! The fake is a core module with one export per function of the world, each behaving as
//! the test asks (answer, trap, spin, grow, answer a value over the cap, …), wrapped into a
//! component by `wit-component`.
//! Its "answer" is the all-zero value of the result type, which the canonical ABI reads as
//! the emptiest answer there is (no diagnostics, empty lists and strings, first cases).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tfwasm_model::Rpc;
use tfwasm_model::rpc::prelude::*;
use tfwasm_model::rpc::{Call, CallVisitor, ConfigureProviderRequest, DynamicValue};
use tfwasm_runtime::{CallLimits, DiscardLog, Grants, LoadOptions, WasmProvider};
use wit_parser::abi::{AbiVariant, WasmType};
use wit_parser::{Int, Resolve, SizeAlign, Type, TypeDefKind, WorldItem};

/// What an export of the fake does when called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Does {
    /// Returns the all-zero answer.
    Answer,
    /// Traps (`unreachable`), as a panicking guest does.
    Trap,
    /// Loops forever, until fuel, the deadline or StopProvider ends it.
    Spin,
    /// Grows its memory until the limiter refuses.
    Grow,
    /// Answers as `Answer` does but with the first value of the answer (any `list<u8>`: a
    /// `dynamic-value`, private state, a state's bytes) [`BIG`] bytes long; functions whose
    /// answer holds no value answer as `Answer`.
    Big,
    /// Answers in a fresh instance, traps in one that has answered before: tells a reused
    /// instance from a fresh one.
    AnswerOnce,
    /// Answers if its `provider-context` holds a configuration, traps if not.
    NeedsConfig,
}

/// Past the runtime's 16 MiB cap on a returned value.
const BIG: u32 = (16 << 20) + 1;

/// What [`Does::Big`] writes into the return area: a byte (a case's discriminant), a value
/// of [`BIG`] bytes at the heap, or a list of one element holding one.
enum Write {
    Byte(usize, u8),
    Value(usize),
    /// A list of one element at [`ELEMENT`], written as its own writes say.
    List(usize, Vec<Write>),
}

/// Where the one element of a list in a [`Does::Big`] answer lies.
const ELEMENT: u32 = 4096;

/// Stores `writes` relative to `base`.
fn emit(body: &mut String, base: usize, writes: &[Write]) {
    let store = |body: &mut String, at: usize, word: u32| {
        write!(body, " (i32.store (i32.const {at}) (i32.const {word}))").unwrap();
    };
    for write in writes {
        match write {
            Write::Byte(at, byte) => {
                write!(
                    body,
                    " (i32.store8 (i32.const {}) (i32.const {byte}))",
                    base + at
                )
                .unwrap();
            }
            Write::Value(at) => {
                store(body, base + at, HEAP);
                store(body, base + at + 4, BIG);
            }
            Write::List(at, element) => {
                store(body, base + at, ELEMENT);
                store(body, base + at + 4, 1);
                emit(body, ELEMENT as usize, element);
            }
        }
    }
}

/// Where in an answer of type `ty` its first `dynamic-value` lies, and the discriminants on
/// the way to it; `None` when it holds none (through records, options, results and one
/// level of lists).
fn first_value(resolve: &Resolve, sizes: &SizeAlign, ty: &Type) -> Option<Vec<Write>> {
    first_value_in(resolve, sizes, ty, false)
}

fn first_value_in(
    resolve: &Resolve,
    sizes: &SizeAlign,
    ty: &Type,
    within_list: bool,
) -> Option<Vec<Write>> {
    let Type::Id(id) = ty else { return None };
    let shifted = |writes: Vec<Write>, by: usize| {
        writes.into_iter().map(move |w| match w {
            Write::Byte(at, b) => Write::Byte(at + by, b),
            Write::Value(at) => Write::Value(at + by),
            Write::List(at, element) => Write::List(at + by, element),
        })
    };
    match &resolve.types[*id].kind {
        // A `dynamic-value`, private state, a state's bytes: all end up in Terraform's state.
        TypeDefKind::List(Type::U8) => Some(vec![Write::Value(0)]),
        TypeDefKind::List(element) if !within_list => {
            let writes = first_value_in(resolve, sizes, element, true)?;
            Some(vec![Write::List(0, writes)])
        }
        TypeDefKind::Type(inner) => first_value_in(resolve, sizes, inner, within_list),
        TypeDefKind::Record(record) => {
            let offsets = sizes.field_offsets(record.fields.iter().map(|f| &f.ty));
            offsets.into_iter().find_map(|(at, ty)| {
                let writes = first_value_in(resolve, sizes, ty, within_list)?;
                Some(shifted(writes, at.size_wasm32()).collect())
            })
        }
        TypeDefKind::Option(inner) => {
            let writes = first_value_in(resolve, sizes, inner, within_list)?;
            let at = sizes
                .payload_offset(Int::U8, [None, Some(inner)])
                .size_wasm32();
            Some(
                std::iter::once(Write::Byte(0, 1))
                    .chain(shifted(writes, at))
                    .collect(),
            )
        }
        TypeDefKind::Result(result) => {
            let ok = result.ok.as_ref()?;
            let writes = first_value_in(resolve, sizes, ok, within_list)?;
            let at = (sizes.payload_offset(Int::U8, [result.ok.as_ref(), result.err.as_ref()]))
                .size_wasm32();
            Some(shifted(writes, at).collect())
        }
        _ => None,
    }
}

/// The WIT world the runtime serves (0.3.0, which includes 0.2.0's).
fn world() -> (Resolve, wit_parser::WorldId) {
    let wit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit");
    let mut resolve = Resolve::default();
    resolve
        .push_dir(wit.join("since_v0.2.0"))
        .expect("wit/since_v0.2.0 parses");
    let (package, _) = resolve
        .push_dir(wit.join("since_v0.3.0"))
        .expect("wit/since_v0.3.0 parses");
    let world = resolve
        .select_world(&[package], Some("tfwasm-provider"))
        .expect("the tfwasm-provider world");
    (resolve, world)
}

/// Every function the world exports, with its interface's name.
fn exports(resolve: &Resolve, world: wit_parser::WorldId) -> Vec<(String, &wit_parser::Function)> {
    let mut functions = Vec::new();
    for (key, item) in &resolve.worlds[world].exports {
        if let WorldItem::Interface { id, .. } = item {
            let interface = resolve.name_world_key(key);
            for func in resolve.interfaces[*id].functions.values() {
                functions.push((interface.clone(), func));
            }
        }
    }
    functions
}

fn wat_type(ty: WasmType) -> &'static str {
    match ty {
        WasmType::I64 => "i64",
        WasmType::F32 => "f32",
        WasmType::F64 => "f64",
        // Pointers, lengths and the joined cases of variants are i32 in a 32-bit guest.
        _ => "i32",
    }
}

/// Where the zeroed return area of every export lies (nothing else writes there).
const RETURN_AREA: u32 = 1024;
/// Where the bump allocator starts, past the return area.
const HEAP: u32 = 8192;

/// A fake guest component whose exports do what `does` says of each function (by its WIT
/// name, e.g. `plan-resource-change`).
fn fake(does: impl Fn(&str) -> Does) -> Vec<u8> {
    let (resolve, world) = world();
    let mut sizes = SizeAlign::default();
    sizes.fill(&resolve);
    let mut module_exports = String::new();
    for (interface, func) in exports(&resolve, world) {
        let sig = resolve.wasm_signature(AbiVariant::GuestExport, func);
        let params: String = sig
            .params
            .iter()
            .map(|t| format!(" {}", wat_type(*t)))
            .collect();
        let results: String = sig
            .results
            .iter()
            .map(|t| format!(" {}", wat_type(*t)))
            .collect();
        let answer = match (sig.retptr, sig.results.first()) {
            (true, _) => format!("(i32.const {RETURN_AREA})"),
            (false, Some(ty)) => format!("({}.const 0)", wat_type(*ty)),
            (false, None) => String::new(),
        };
        // Parameters are never read, so the heap starts over with each call.
        let answered = format!("(global.set $heap (i32.const {HEAP})) {answer}");
        let body = match does(&func.name) {
            Does::Answer => answered,
            Does::Big => {
                let writes = (func.result.as_ref())
                    .filter(|_| sig.retptr)
                    .and_then(|ty| first_value(&resolve, &sizes, ty))
                    .unwrap_or_default();
                let mut body = format!(
                    "(global.set $heap (i32.const {HEAP})) (drop (memory.grow (i32.const {pages})))",
                    pages = BIG / 65536 + 2
                );
                emit(&mut body, RETURN_AREA as usize, &writes);
                format!("{body} {answer}")
            }
            Does::Trap => "unreachable".to_owned(),
            Does::NeedsConfig => {
                assert_eq!(
                    func.params.first().map(|p| p.name.as_str()),
                    Some("ctx"),
                    "{} takes no provider-context",
                    func.name
                );
                // provider-context is {terraform-version: string, config: option<..>, ..}:
                // the option's case follows the string's pointer and length.
                let configured = if sig.indirect_params {
                    "(i32.load8_u offset=8 (local.get 0))"
                } else {
                    "(local.get 2)"
                };
                format!("(if (i32.eqz {configured}) (then unreachable)) {answered}")
            }
            Does::AnswerOnce => format!(
                "(if (global.get $answered) (then unreachable)) (global.set $answered (i32.const 1)) {answered}"
            ),
            Does::Spin => "(loop $forever (br $forever)) unreachable".to_owned(),
            Does::Grow => {
                "(loop $more (drop (memory.grow (i32.const 16))) (br $more)) unreachable".to_owned()
            }
        };
        writeln!(
            module_exports,
            r#"(func (export "{interface}#{name}") (param{params}) (result{results}) {body})"#,
            name = func.name,
        )
        .unwrap();
    }
    let module = format!(
        r#"(module
             (memory (export "memory") 1)
             (global $heap (mut i32) (i32.const {HEAP}))
             (global $answered (mut i32) (i32.const 0))
             (func (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $size i32) (result i32)
               (local $ptr i32)
               (local.set $ptr
                 (i32.and
                   (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1)))
                   (i32.sub (i32.const 0) (local.get $align))))
               (global.set $heap (i32.add (local.get $ptr) (local.get $size)))
               (block $fits
                 (loop $grow
                   (br_if $fits (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
                   (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then unreachable))
                   (br $grow)))
               (if (local.get $old) (then (memory.copy (local.get $ptr) (local.get $old) (local.get $old_size))))
               (local.get $ptr))
             {module_exports})"#
    );
    let mut module = wat::parse_str(&module).expect("the fake's core module is valid text");
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
    )
    .expect("embedding the world");
    wit_component::ComponentEncoder::default()
        .validate(true)
        .module(&module)
        .expect("the fake's module fits the world")
        .encode()
        .expect("the fake encodes as a component")
}

struct Loaded {
    provider: WasmProvider,
    _dir: tempfile::TempDir,
}

fn load(component: &[u8], limits: CallLimits) -> Loaded {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("fake.wasm");
    std::fs::write(&path, component).unwrap();
    let options = LoadOptions {
        limits,
        grants: Grants::default(),
        cache_dir: dir.path().join("cache"),
        precompiled: None,
        log_sink: Arc::new(DiscardLog),
        settings_hint: "the test's limits".into(),
        display_name: Some("fake".into()),
        http: Default::default(),
        journal: None,
        protected: Vec::new(),
    };
    let (provider, _) = WasmProvider::load(&path, options).expect("the fake loads");
    Loaded {
        provider,
        _dir: dir,
    }
}

/// Sends one RPC with its default request and gives its answer as recorded JSON.
struct Send<'a> {
    provider: &'a WasmProvider,
    runtime: &'a tokio::runtime::Runtime,
}

impl CallVisitor for Send<'_> {
    type Output = String;
    fn visit<C: Call>(self) -> String {
        let answer = self
            .runtime
            .block_on(C::call(self.provider, C::Request::default()));
        serde_json::to_string(&answer).expect("answers serialize")
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn answers(provider: &WasmProvider) -> Vec<(Rpc, String)> {
    let runtime = runtime();
    Rpc::ALL
        .iter()
        .map(|&rpc| {
            let sent = Send {
                provider,
                runtime: &runtime,
            };
            (rpc, rpc.visit(sent))
        })
        .collect()
}

/// An answer cut for a failure message (a value over the cap is 16 MiB of JSON).
fn short(answer: &str) -> &str {
    &answer[..answer.floor_char_boundary(400)]
}

/// The guest function an RPC calls: its name in kebab case, but for three.
fn function_of(rpc: Rpc) -> String {
    match rpc {
        Rpc::GetProviderSchema => "get-schema".to_owned(),
        Rpc::ReadStateBytes => "read-state".to_owned(),
        Rpc::WriteStateBytes => "write-state".to_owned(),
        _ => {
            let mut name = String::new();
            for c in rpc.to_string().chars() {
                if c.is_ascii_uppercase() && !name.is_empty() {
                    name.push('-');
                }
                name.push(c.to_ascii_lowercase());
            }
            name
        }
    }
}

/// Each exported function by name, and whether its answer holds a value (state,
/// configuration, identity, private state, a function's result), as [`Does::Big`] fills it.
fn answers_holding_values() -> std::collections::BTreeMap<String, bool> {
    let (resolve, world) = world();
    let mut sizes = SizeAlign::default();
    sizes.fill(&resolve);
    (exports(&resolve, world).into_iter())
        .map(|(_, func)| {
            let holds = (func.result.as_ref())
                .is_some_and(|ty| first_value(&resolve, &sizes, ty).is_some());
            (func.name.clone(), holds)
        })
        .collect()
}

/// The RPCs whose guest call the failing fakes fail: every one that reaches the guest but
/// GetProviderSchema and ConfigureStateStore, whose functions answer so that the others get
/// that far (the runtime asks for the schema first, and a store must be configured).
fn failing(rpc: Rpc) -> bool {
    rpc.reaches_guest() && !matches!(rpc, Rpc::GetProviderSchema | Rpc::ConfigureStateStore)
}

fn setup_answers(name: &str) -> bool {
    name == "get-schema" || name.ends_with("-schemas") || name == "configure-state-store"
}

/// A fake whose setup functions answer and whose others do `rest`.
fn failing_with(rest: Does) -> impl Fn(&str) -> Does {
    move |name| {
        if setup_answers(name) {
            Does::Answer
        } else {
            rest
        }
    }
}

/// Sends every RPC to a fake whose calls fail with `does` under `limits`, and checks that
/// each failing RPC's answer says `expected` of it.
fn every_failing_rpc_says(does: Does, limits: CallLimits, expected: impl Fn(Rpc) -> String) {
    let fake = load(&fake(failing_with(does)), limits);
    let mut checked = 0;
    for (rpc, answer) in answers(&fake.provider) {
        if failing(rpc) {
            let expected = expected(rpc);
            assert!(
                answer.contains(&expected),
                "{does:?}: {rpc} does not say {expected:?}: {}",
                short(&answer)
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} RPCs reached the guest");
}

/// Every RPC crosses to the guest and back: the empty answer of each function comes back as
/// the RPC's answer, with no failure of the call in it.
#[test]
fn every_rpc_reaches_the_guest_and_its_answer_comes_back() {
    let fake = load(&fake(|_| Does::Answer), CallLimits::new());
    let answers = answers(&fake.provider);
    assert_eq!(answers.len(), Rpc::ALL.len());
    for (rpc, answer) in answers {
        assert!(
            !answer.contains("The Wasm provider fake failed"),
            "{rpc}: the call failed: {answer}"
        );
    }
}

/// A guest that traps fails the RPC it was called for, named in the diagnostic, and the
/// host goes on serving the next RPC.
#[test]
fn a_trap_is_reported_for_the_rpc_it_ended() {
    every_failing_rpc_says(Does::Trap, CallLimits::new(), |rpc| {
        format!("provider crashed during {rpc}")
    });
}

#[test]
fn fuel_ends_a_guest_that_spins() {
    let mut limits = CallLimits::new();
    limits.default.fuel = 1_000_000;
    every_failing_rpc_says(Does::Spin, limits, |rpc| {
        format!("exceeded its fuel budget of 1000000 during {rpc}")
    });
}

/// Without fuel metering, the epoch deadline ends it.
#[test]
fn the_deadline_ends_a_guest_that_spins() {
    let mut limits = CallLimits::new();
    limits.fuel_metering = false;
    limits.default.timeout = Duration::from_millis(100);
    every_failing_rpc_says(Does::Spin, limits, |rpc| {
        format!("exceeded its time limit of 100ms during {rpc}")
    });
}

#[test]
fn the_memory_limit_ends_a_guest_that_grows() {
    let mut limits = CallLimits::new();
    limits.default.memory_bytes = 32 << 20;
    every_failing_rpc_says(Does::Grow, limits, |rpc| {
        format!(
            "exceeded its memory limit of {} bytes during {rpc}",
            32 << 20
        )
    });
}

/// Every answer that holds a value (state, private state, identity, configuration, a
/// function's result, a state store's bytes) is held to the 16 MiB cap: a family whose
/// `ReturnedValues` forgets `largest_value` fails here.
#[test]
fn every_returned_value_is_held_to_the_cap() {
    let fake = load(&fake(failing_with(Does::Big)), CallLimits::new());
    let holding = answers_holding_values();
    let mut capped = 0;
    for (rpc, answer) in answers(&fake.provider) {
        if !failing(rpc) {
            continue;
        }
        let function = function_of(rpc);
        let holds = holding.get(&function).copied();
        if !holds
            .unwrap_or_else(|| panic!("no function {function} in the world: add it to function_of"))
        {
            continue;
        }
        let expected = format!("provider returned a value of {BIG} bytes during {rpc}");
        assert!(
            answer.contains(&expected),
            "{rpc} was not capped: {}",
            short(&answer)
        );
        capped += 1;
    }
    assert!(capped >= 14, "only {capped} answers hold values");
}

/// StopProvider ends a call that is running wasm.
#[test]
fn stop_provider_ends_a_running_call() {
    let mut limits = CallLimits::new();
    limits.fuel_metering = false;
    let fake = load(&fake(failing_with(Does::Spin)), limits);
    let runtime = runtime();
    let provider = &fake.provider;
    let answer = runtime.block_on(async {
        let call = provider.plan_resource_change(Default::default());
        let stop = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            provider.stop_provider().await
        };
        let (answer, stopped) = tokio::join!(call, stop);
        stopped.expect("StopProvider answers");
        answer
    });
    let answer = serde_json::to_string(&answer).unwrap();
    assert!(
        answer.contains("PlanResourceChange was cancelled by StopProvider"),
        "{answer}"
    );
}

/// Instances are reused after a successful call and dropped after any failure: the fake
/// traps in an instance that has answered before.
#[test]
fn instances_are_reused_after_success_and_dropped_after_failure() {
    let once = |name: &str| {
        if setup_answers(name) {
            Does::Answer
        } else {
            Does::AnswerOnce
        }
    };
    let validate = |provider: &WasmProvider, runtime: &tokio::runtime::Runtime| {
        let answer = runtime.block_on(provider.validate_resource_config(Default::default()));
        serde_json::to_string(&answer).unwrap()
    };
    let runtime = runtime();

    let reused = load(&fake(once), CallLimits::new());
    let first = validate(&reused.provider, &runtime);
    assert_eq!(first, "[]", "a fresh instance answers");
    let second = validate(&reused.provider, &runtime);
    assert!(
        second.contains("provider crashed during ValidateResourceConfig"),
        "the instance of the first call was not reused: {second}"
    );
    let third = validate(&reused.provider, &runtime);
    assert_eq!(third, "[]", "the instance that failed was reused");

    let mut limits = CallLimits::new();
    limits.reuse_instances = false;
    let fresh = load(&fake(once), limits);
    for _ in 0..3 {
        assert_eq!(validate(&fresh.provider, &runtime), "[]");
    }
}

/// The guest keeps no state between calls: the configuration ConfigureProvider accepted
/// reaches a call that runs in an instance that never saw ConfigureProvider, in its
/// `provider-context`. The fake traps when a call's context holds no configuration.
#[test]
fn the_configuration_reaches_instances_that_never_saw_configure_provider() {
    let needs_config = |name: &str| match name {
        "validate-resource-config" | "plan-resource-change" => Does::NeedsConfig,
        _ => Does::Answer,
    };
    let mut limits = CallLimits::new();
    limits.reuse_instances = false;
    let fake = load(&fake(needs_config), limits);
    let provider = &fake.provider;
    let runtime = runtime();
    let validate = || {
        let answer = runtime.block_on(provider.validate_resource_config(Default::default()));
        serde_json::to_string(&answer).unwrap()
    };
    assert!(
        validate().contains("provider crashed during ValidateResourceConfig"),
        "the fake must fail without a configuration"
    );
    let configured = runtime.block_on(provider.configure_provider(ConfigureProviderRequest {
        // An empty object.
        config: DynamicValue::from_msgpack(vec![0x80]),
        ..Default::default()
    }));
    assert!(configured.is_empty(), "{configured:?}");
    for _ in 0..3 {
        assert_eq!(
            validate(),
            "[]",
            "a fresh instance lacked the configuration"
        );
        let planned = runtime.block_on(provider.plan_resource_change(Default::default()));
        let planned = serde_json::to_string(&planned).unwrap();
        assert!(!planned.contains("crashed"), "{planned}");
    }
}
