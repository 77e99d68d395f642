//! The SDK served natively (feature `native`): the glue a component runs, behind the model's
//! provider traits, as `make bench`'s native baselines serve it. Each family's native impl
//! sits beside its WIT export in `glue/<family>.rs`; these tests reach every one.

use std::future::Future;

use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, Call, CallVisitor, ConfigureProviderRequest, DynamicValue,
    ImportResourceStateRequest, PlanResourceChangeRequest, ProviderServer as _,
    ReadResourceRequest, ResourceServer as _,
};
use tfwasm_sdk::glue::NativeProvider;
use tfwasm_sdk::prelude::*;

struct Shelf;

impl Provider for Shelf {
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new().attr(Attr::string("label").optional())
    }
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Book), Box::new(Retitled)]
    }
}

/// A resource whose `modify_plan` rewrites the prior state too and plans that: the glue must
/// answer what was planned, not the prior state Terraform sent.
struct Retitled;

impl Resource for Retitled {
    fn type_name(&self) -> &'static str {
        "shelf_retitled"
    }

    fn schema(&self) -> ResourceSchema {
        Book.schema()
    }

    fn modify_plan(&self, _ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        if !plan.prior.is_null() {
            plan.prior.set("title", Value::from("Retitled"));
            plan.planned = plan.prior.clone();
        }
        Ok(())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }
}

struct Book;

impl Resource for Book {
    fn type_name(&self) -> &'static str {
        "shelf_book"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("title").required())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let mut state = planned.clone();
        let title = planned.attr("title").as_str().unwrap_or("");
        state.set("id", Value::from(format!("book-{title}")));
        Ok(state)
    }

    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        Ok(Value::object([
            ("title", Value::from(id.trim_start_matches("book-"))),
            ("id", Value::from(id)),
        ]))
    }
}

/// The glue answers at once: one poll finishes every call.
fn run<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(out) => out,
        std::task::Poll::Pending => panic!("a native call waited"),
    }
}

fn book_type() -> Type {
    Book.schema().value_type()
}

fn dv(value: &Value) -> DynamicValue {
    DynamicValue::encode(value, &book_type()).unwrap()
}

/// Calls one RPC with its default request and keeps the answer as recorded.
struct Default_<'a>(&'a NativeProvider);

impl CallVisitor for Default_<'_> {
    type Output = serde_json::Value;
    fn visit<C: Call>(self) -> serde_json::Value {
        serde_json::to_value(run(C::call(self.0, C::Request::default()))).unwrap()
    }
}

/// Every RPC of the table reaches the native provider and comes back; one about a type the
/// provider does not have says so (nothing panics, nothing is answered as if it worked).
#[test]
fn every_rpc_is_served_natively() {
    let p = NativeProvider::new(Shelf);
    let mut refused = 0;
    for &rpc in Rpc::ALL {
        let answer = rpc.visit(Default_(&p));
        let text = answer.to_string();
        let about_a_type = rpc
            .request_fields()
            .iter()
            .any(|(name, _)| *name == "type_name" || *name == "action_type");
        if about_a_type && rpc.reaches_guest() {
            // The SDK's own refusal, naming the missing type: not a marker's "not
            // supported", not an answer as if it worked.
            assert!(
                text.contains("Error") && !text.contains("Not Supported"),
                "{rpc} for the type \"\" answered no error of its own: {text}"
            );
            assert!(
                text.contains(r#"\"\""#),
                "{rpc} does not name the type: {text}"
            );
            refused += 1;
        }
    }
    assert!(refused >= 27, "only {refused} RPCs were about a type");
}

/// A provider whose calls block on I/O runs them through the runner it is given, each once,
/// and gets their answers back.
#[test]
fn blocking_calls_go_through_the_runner() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    fn runner(call: &mut dyn FnMut()) {
        RUNS.fetch_add(1, Ordering::SeqCst);
        call();
        call(); // a runner that calls twice runs the call once
    }
    let p = NativeProvider::new(Shelf).with_blocking_io(runner);
    let imported = run(p.import_resource_state(ImportResourceStateRequest {
        type_name: "shelf_book".into(),
        id: "book-Emma".into(),
        ..Default::default()
    }));
    assert!(
        imported.diagnostics.is_empty(),
        "{:?}",
        imported.diagnostics
    );
    assert_eq!(imported.imported_resources.len(), 1);
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

/// A resource's life natively: plan with the computed ID unknown, apply fills it, a refresh
/// reads and plans it unchanged, import finds it again.
#[test]
fn a_resource_is_planned_applied_and_imported_natively() {
    let p = NativeProvider::new(Shelf);
    let config = Value::object([("title", Value::from("Dune")), ("id", Value::Null)]);
    let configured = run(p.configure_provider(ConfigureProviderRequest {
        config: DynamicValue::encode(
            &Value::object([("label", Value::Null)]),
            &Shelf.schema().value_type(),
        )
        .unwrap(),
        ..Default::default()
    }));
    assert!(configured.is_empty(), "{configured:?}");

    let planned = run(p.plan_resource_change(PlanResourceChangeRequest {
        type_name: "shelf_book".into(),
        prior_state: DynamicValue::null(),
        proposed_new_state: dv(&config),
        config: dv(&config),
        ..Default::default()
    }));
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    let planned_state = planned.planned_state.decode(&book_type()).unwrap();
    assert!(planned_state.attr("id").is_unknown());

    let applied = run(p.apply_resource_change(ApplyResourceChangeRequest {
        type_name: "shelf_book".into(),
        prior_state: DynamicValue::null(),
        planned_state: planned.planned_state,
        config: dv(&config),
        ..Default::default()
    }));
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    let state = applied.new_state.decode(&book_type()).unwrap();
    assert_eq!(state.attr("id"), &Value::from("book-Dune"));

    // A refresh: the resource reads back unchanged (that the answer is the bytes sent, not a
    // re-encoding, is `an_unchanged_read_or_plan_answers_the_bytes_it_was_sent`).
    let read = run(p.read_resource(ReadResourceRequest {
        type_name: "shelf_book".into(),
        current_state: applied.new_state.clone(),
        ..Default::default()
    }));
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(read.new_state, applied.new_state);

    // A refresh plan: the proposed state is the prior one byte for byte, and the plan keeps it.
    let unchanged = run(p.plan_resource_change(PlanResourceChangeRequest {
        type_name: "shelf_book".into(),
        prior_state: applied.new_state.clone(),
        proposed_new_state: applied.new_state.clone(),
        config: dv(&config),
        ..Default::default()
    }));
    assert!(
        unchanged.diagnostics.is_empty(),
        "{:?}",
        unchanged.diagnostics
    );
    assert!(unchanged.requires_replace.is_empty());
    assert_eq!(unchanged.planned_state, applied.new_state);

    let imported = run(p.import_resource_state(ImportResourceStateRequest {
        type_name: "shelf_book".into(),
        id: "book-Dune".into(),
        ..Default::default()
    }));
    assert!(
        imported.diagnostics.is_empty(),
        "{:?}",
        imported.diagnostics
    );
    let found = imported.imported_resources[0]
        .state
        .decode(&book_type())
        .unwrap();
    assert_eq!(found, state);
}

/// `{"id": "book-Dune", "title": "Dune"}` with each string as `str8`, which go-cty reads as
/// any string but no encoder here writes for one this short: bytes a re-encoding would change.
fn dune_in_str8() -> DynamicValue {
    let mut bytes = vec![0x82, 0xa2, b'i', b'd', 0xd9, 9];
    bytes.extend_from_slice(b"book-Dune");
    bytes.extend_from_slice(&[0xa5, b't', b'i', b't', b'l', b'e', 0xd9, 4]);
    bytes.extend_from_slice(b"Dune");
    DynamicValue::from_msgpack(bytes)
}

/// A read or plan that changes nothing answers with the very bytes Terraform sent (so the
/// host's checks need not decode them), not with a re-encoding of them.
#[test]
fn an_unchanged_read_or_plan_answers_the_bytes_it_was_sent() {
    let p = NativeProvider::new(Shelf);
    let state = dune_in_str8();
    assert_eq!(
        state.decode(&book_type()).unwrap(),
        Value::object([
            ("id", Value::from("book-Dune")),
            ("title", Value::from("Dune"))
        ])
    );
    let read = run(p.read_resource(ReadResourceRequest {
        type_name: "shelf_book".into(),
        current_state: state.clone(),
        ..Default::default()
    }));
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(read.new_state, state);
    let config = Value::object([("title", Value::from("Dune")), ("id", Value::Null)]);
    let plan = |type_name: &str| {
        run(p.plan_resource_change(PlanResourceChangeRequest {
            type_name: type_name.into(),
            prior_state: state.clone(),
            proposed_new_state: state.clone(),
            config: dv(&config),
            ..Default::default()
        }))
    };
    let unchanged = plan("shelf_book");
    assert!(
        unchanged.diagnostics.is_empty(),
        "{:?}",
        unchanged.diagnostics
    );
    assert_eq!(unchanged.planned_state, state);
    // `modify_plan` changed the prior along with the plan: what it planned is answered.
    let retitled = plan("shelf_retitled");
    assert!(
        retitled.diagnostics.is_empty(),
        "{:?}",
        retitled.diagnostics
    );
    let planned = retitled.planned_state.decode(&book_type()).unwrap();
    assert_eq!(planned.attr("title"), &Value::from("Retitled"));
}
