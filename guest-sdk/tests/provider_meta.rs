//! `provider_meta`: the provider declares its schema, a module sets it in its `terraform`
//! block, and the SDK hands the decoded value to every read, plan, apply and data source read
//! in `Context::provider_meta`. Run natively through the glue the component exports.

use tfwasm_model::codec::msgpack;
use tfwasm_sdk::glue::{self, Catalog, wit};
use tfwasm_sdk::prelude::*;

struct Meta;

fn meta_schema() -> ResourceSchema {
    ResourceSchema::new().attr(Attr::string("module_name").optional())
}

impl Provider for Meta {
    fn meta_schema(&self) -> Option<ResourceSchema> {
        Some(meta_schema())
    }
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing)]
    }
}

struct Thing;

fn thing_schema() -> ResourceSchema {
    ResourceSchema::new()
        .attr(Attr::string("name").required())
        .attr(Attr::string("called_by").computed())
}

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "x_thing"
    }
    fn schema(&self) -> ResourceSchema {
        thing_schema()
    }
    /// Records which module planned it (as an API might log a caller).
    fn modify_plan(&self, ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        if !plan.is_destroy() {
            let caller = ctx.provider_meta.get_string("module_name")?;
            plan.planned.set(
                "called_by",
                Value::from(caller.unwrap_or_else(|| "nobody".into())),
            );
        }
        Ok(())
    }
    fn create(&self, _: &Context, planned: &Value, _: &Value) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }
}

fn ctx() -> wit::ProviderContext {
    wit::ProviderContext {
        terraform_version: "test".into(),
        config: None,
        client_capabilities: wit::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: true,
            store_planned_private: false,
            computed_blocks_allowed: false,
        },
    }
}

fn plan(c: &Catalog, provider_meta: Vec<u8>) -> Value {
    let ty = thing_schema().value_type();
    let config = Value::object([("name", Value::from("a")), ("called_by", Value::Null)]);
    let encoded = msgpack::encode(&config, &ty).unwrap();
    let resp = glue::plan_resource_change(
        c,
        ctx(),
        wit::PlanRequest {
            type_name: "x_thing".into(),
            prior_state: msgpack::NULL.to_vec(),
            proposed_new_state: encoded.clone(),
            config: encoded,
            prior_private: Vec::new(),
            provider_meta,
            prior_identity: None,
            planned_private: Vec::new(),
        },
    );
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    msgpack::decode(&resp.planned_state, &ty).unwrap()
}

#[test]
fn the_module_s_provider_meta_reaches_the_resource() {
    let c = Catalog::new(Box::new(Meta));
    let schema = glue::get_schema(&c);
    let meta = schema.provider_meta.expect("the meta schema is announced");
    assert_eq!(meta.blocks[0].attributes[0].name, "module_name");

    let value = Value::object([("module_name", Value::from("networking"))]);
    let bytes = msgpack::encode(&value, &meta_schema().value_type()).unwrap();
    assert_eq!(
        plan(&c, bytes).attr("called_by"),
        &Value::from("networking")
    );
    // A module without a provider_meta block: nothing (empty bytes, as the host sends).
    assert_eq!(
        plan(&c, Vec::new()).attr("called_by"),
        &Value::from("nobody")
    );
}
