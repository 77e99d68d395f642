//! tfplugin6.11 fields through the glue: a computed block and a block's deprecation message
//! reach the WIT schema, the client capabilities reach `Context::client`, and a saved plan's
//! private state reaches `Context::saved_plan_private` when Terraform plans again at apply.

use std::sync::atomic::{AtomicBool, Ordering};

use tfwasm_model::codec::msgpack;
use tfwasm_sdk::glue::{self, Catalog, wit};
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::schema::Block;

struct P;

impl Provider for P {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing)]
    }
}

struct Thing;

static SAW_SAVED_PLAN: AtomicBool = AtomicBool::new(false);

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "x_thing"
    }
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("zone").computed())
            .block(
                Block::single(
                    "status",
                    ResourceSchema::new().attr(Attr::string("phase").computed()),
                )
                .computed()
                .deprecated("Use zone."),
            )
    }
    /// Chooses a zone once and plans the same one again when Terraform re-plans at apply.
    fn modify_plan(&self, ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        assert!(ctx.client.store_planned_private && ctx.client.computed_blocks_allowed);
        let zone = match ctx.saved_plan_private("zone") {
            Some(saved) => {
                SAW_SAVED_PLAN.store(true, Ordering::SeqCst);
                saved.as_str().unwrap_or_default().to_owned()
            }
            None => "zone-a".to_owned(),
        };
        ctx.set_private("zone", Some(serde_json::json!(zone)))?;
        plan.planned.set("zone", zone.into());
        Ok(())
    }
    fn create(&self, _: &Context, planned: &Value, _: &Value) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }
}

fn ctx() -> wit::ProviderContext {
    wit::ProviderContext {
        terraform_version: "1.16.0".into(),
        config: None,
        client_capabilities: wit::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: true,
            store_planned_private: true,
            computed_blocks_allowed: true,
        },
    }
}

#[test]
fn the_newest_fields_reach_the_author() {
    let c = Catalog::new(Box::new(P));
    let schema = glue::get_schema(&c);
    let status = &schema.resources[0].schema.blocks[1];
    assert!(status.computed);
    assert_eq!(status.deprecation_message, "Use zone.");

    let ty = Thing.schema().value_type();
    let config = Value::object([("zone", Value::Null), ("status", Value::Null)]);
    let plan = |planned_private: Vec<u8>| {
        glue::plan_resource_change(
            &c,
            ctx(),
            wit::PlanRequest {
                type_name: "x_thing".into(),
                prior_state: msgpack::NULL.to_vec(),
                proposed_new_state: msgpack::encode(&config, &ty).unwrap(),
                config: msgpack::encode(&config, &ty).unwrap(),
                prior_private: Vec::new(),
                provider_meta: Vec::new(),
                prior_identity: None,
                planned_private,
            },
        )
    };
    let first = plan(Vec::new());
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    assert!(!SAW_SAVED_PLAN.load(Ordering::SeqCst));
    let saved = br#"{"zone":"zone-b"}"#.to_vec();
    let again = plan(saved);
    assert!(SAW_SAVED_PLAN.load(Ordering::SeqCst));
    let planned = msgpack::decode(&again.planned_state, &ty).unwrap();
    assert_eq!(planned.get("zone"), Some(&Value::from("zone-b")));
    assert!(first.planned_private.starts_with(br#"{"zone":"zone-a"#));
}
