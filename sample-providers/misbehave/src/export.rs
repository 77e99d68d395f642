//! This component's own export: the SDK's glue for every call, with tampering for the rules
//! that need bytes the SDK's encoder would refuse to produce.

use tfwasm_sdk::glue::{self, wit};
use tfwasm_sdk::prelude::*;

use crate::{Misbehave, Thing, rule_of};

fn schema_type() -> Type {
    Thing.schema().value_type()
}

/// Re-encodes `bytes` with `attr` replaced by `replacement` of type `replacement_type`,
/// producing an object that no longer fits the schema.
fn with_wrong_type(
    bytes: &[u8],
    attr: &str,
    replacement: Value,
    replacement_type: Type,
) -> Vec<u8> {
    let ty = schema_type();
    let Ok(mut value) = tfwasm_model::codec::msgpack::decode(bytes, &ty) else {
        return bytes.to_vec();
    };
    let Type::Object(mut attrs) = ty else {
        return bytes.to_vec();
    };
    attrs.insert(attr.to_owned(), replacement_type);
    value.set(attr, replacement);
    tfwasm_model::codec::msgpack::encode(&value, &Type::Object(attrs))
        .unwrap_or_else(|_| bytes.to_vec())
}

fn rule_in(bytes: &[u8]) -> String {
    tfwasm_model::codec::msgpack::decode(bytes, &schema_type())
        .map(|v| rule_of(&v))
        .unwrap_or_default()
}

struct Export;

impl tfwasm_sdk::bindings::exports::tfwasm::provider::provider::Guest for Export {
    fn get_schema() -> wit::ProviderSchema {
        glue::get_schema(&Misbehave)
    }
    fn validate_provider_config(config: Vec<u8>) -> Vec<wit::Diagnostic> {
        glue::validate_provider_config(&Misbehave, config)
    }
    fn configure_provider(ctx: wit::ProviderContext) -> Vec<wit::Diagnostic> {
        glue::configure_provider(&Misbehave, ctx)
    }
    fn validate_resource_config(
        ctx: wit::ProviderContext,
        req: wit::ValidateRequest,
    ) -> Vec<wit::Diagnostic> {
        glue::validate_resource_config(&Misbehave, ctx, req)
    }
    fn validate_data_resource_config(
        ctx: wit::ProviderContext,
        req: wit::ValidateRequest,
    ) -> Vec<wit::Diagnostic> {
        glue::validate_data_resource_config(&Misbehave, ctx, req)
    }
    fn upgrade_resource_state(
        ctx: wit::ProviderContext,
        req: wit::UpgradeRequest,
    ) -> wit::UpgradeResponse {
        let mut resp = glue::upgrade_resource_state(&Misbehave, ctx, req);
        if rule_in(&resp.upgraded_state) == "upgrade_unknown"
            && let Ok(mut state) =
                tfwasm_model::codec::msgpack::decode(&resp.upgraded_state, &schema_type())
        {
            state.set("result", Value::unknown());
            if let Ok(bytes) = tfwasm_model::codec::msgpack::encode(&state, &schema_type()) {
                resp.upgraded_state = bytes;
            }
        }
        resp
    }
    fn read_resource(ctx: wit::ProviderContext, req: wit::ReadRequest) -> wit::ReadResponse {
        glue::read_resource(&Misbehave, ctx, req)
    }
    fn plan_resource_change(ctx: wit::ProviderContext, req: wit::PlanRequest) -> wit::PlanResponse {
        let prior = req.prior_state.clone();
        let mut resp = glue::plan_resource_change(&Misbehave, ctx, req);
        let destroying = tfwasm_model::codec::msgpack::decode(&resp.planned_state, &schema_type())
            .is_ok_and(|v| v.is_null());
        if destroying && rule_in(&prior) == "plan_destroy_non_null" {
            resp.planned_state = prior;
            return resp;
        }
        if rule_in(&resp.planned_state) == "plan_wrong_type" {
            resp.planned_state =
                with_wrong_type(&resp.planned_state, "name", Value::from(42), Type::Number);
        }
        resp
    }
    fn apply_resource_change(
        ctx: wit::ProviderContext,
        req: wit::ApplyRequest,
    ) -> wit::ApplyResponse {
        let prior = req.prior_state.clone();
        let deleting = tfwasm_model::codec::msgpack::decode(&req.planned_state, &schema_type())
            .is_ok_and(|v| v.is_null());
        let mut resp = glue::apply_resource_change(&Misbehave, ctx, req);
        if deleting && rule_in(&prior) == "apply_delete_non_null" {
            resp.new_state = prior;
        } else if rule_in(&resp.new_state) == "apply_wrong_type" {
            resp.new_state =
                with_wrong_type(&resp.new_state, "result", Value::Bool(true), Type::Bool);
        }
        resp
    }
    fn import_resource_state(
        ctx: wit::ProviderContext,
        req: wit::ImportRequest,
    ) -> wit::ImportResponse {
        let no_type = req.id == "import_no_type";
        let mut resp = glue::import_resource_state(&Misbehave, ctx, req);
        if no_type {
            for imported in &mut resp.imported {
                imported.type_name.clear();
            }
        }
        resp
    }
    fn read_data_source(
        ctx: wit::ProviderContext,
        req: wit::ReadDataRequest,
    ) -> wit::ReadDataResponse {
        glue::read_data_source(&Misbehave, ctx, req)
    }
}

#[cfg(target_arch = "wasm32")]
tfwasm_sdk::bindings::export_tfwasm_provider!(Export with_types_in tfwasm_sdk::bindings);
