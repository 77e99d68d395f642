//! In debug builds the SDK checks its own results before they leave the provider. Run
//! natively through the same glue the component exports (tests build with debug assertions).

use tfwasm_model::codec::msgpack;
use tfwasm_sdk::glue::{self, Catalog, wit};
use tfwasm_sdk::prelude::*;

struct Broken;

impl Provider for Broken {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing)]
    }
}

struct Thing;

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "x_thing"
    }
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("name").required())
            .attr(Attr::string("id").computed())
    }
    /// A bug: rewrites a configured value.
    fn modify_plan(&self, _ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        if !plan.is_destroy() {
            plan.planned.set("name", "changed".into());
        }
        Ok(())
    }
    /// A bug: leaves the computed id unknown.
    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }
}

/// The single attribute name a WIT path points at.
fn attribute(path: &[wit::PathStep]) -> Option<&str> {
    match path {
        [wit::PathStep::AttributeName(name)] => Some(name),
        _ => None,
    }
}

fn ctx() -> wit::ProviderContext {
    wit::ProviderContext {
        terraform_version: "test".into(),
        config: None,
        client_capabilities: wit::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: false,
            store_planned_private: false,
            computed_blocks_allowed: false,
        },
    }
}

// The checks exist only in debug builds, which is how tests are built.
#[cfg(debug_assertions)]
#[test]
fn broken_plan_and_apply_are_reported_by_the_sdk_naming_the_attribute() {
    let catalog = Catalog::new(Box::new(Broken));
    let ty = Thing.schema().value_type();
    let config = Value::object([("name", Value::from("a")), ("id", Value::Null)]);
    let bytes = msgpack::encode(&config, &ty).unwrap();
    let plan = glue::plan_resource_change(
        &catalog,
        ctx(),
        wit::PlanRequest {
            type_name: "x_thing".into(),
            prior_state: msgpack::NULL.to_vec(),
            proposed_new_state: bytes.clone(),
            config: bytes.clone(),
            prior_private: Vec::new(),
            provider_meta: Vec::new(),
            prior_identity: None,
            planned_private: Vec::new(),
        },
    );
    let d = &plan.diagnostics[0];
    assert!(d.summary.starts_with("Provider bug"), "{}", d.summary);
    assert_eq!(attribute(&d.attribute), Some("name"));

    let planned = Value::object([("name", Value::from("a")), ("id", Value::unknown())]);
    let apply = glue::apply_resource_change(
        &catalog,
        ctx(),
        wit::ApplyRequest {
            type_name: "x_thing".into(),
            prior_state: msgpack::NULL.to_vec(),
            planned_state: msgpack::encode(&planned, &ty).unwrap(),
            config: bytes,
            planned_private: Vec::new(),
            provider_meta: Vec::new(),
            planned_identity: None,
        },
    );
    let d = &apply.diagnostics[0];
    assert!(d.summary.starts_with("Provider bug"), "{}", d.summary);
    assert_eq!(attribute(&d.attribute), Some("id"));
    assert!(
        !apply.new_state.is_empty(),
        "the state still comes back with the error"
    );
}
