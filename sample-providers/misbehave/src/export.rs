//! Tampering with raw responses for the rules that need bytes the SDK's encoder would refuse
//! to produce (wrong types, non-null deletes and destroy plans, unknowns after upgrade,
//! imports without a type).

use tfwasm_sdk::glue::{RawHook, wit};
use tfwasm_sdk::prelude::*;

use crate::{Thing, rule_of};

fn schema_type() -> Type {
    Thing.schema().value_type()
}

fn decode(bytes: &[u8]) -> Option<Value> {
    tfwasm_model::codec::msgpack::decode(bytes, &schema_type()).ok()
}

fn rule_in(bytes: &[u8]) -> String {
    decode(bytes).map(|v| rule_of(&v)).unwrap_or_default()
}

/// Re-encodes `bytes` with `attr` replaced by `replacement` of type `replacement_type`,
/// producing an object that no longer fits the schema.
fn with_wrong_type(
    bytes: &[u8],
    attr: &str,
    replacement: Value,
    replacement_type: Type,
) -> Vec<u8> {
    let (Some(mut value), Type::Object(mut attrs)) = (decode(bytes), schema_type()) else {
        return bytes.to_vec();
    };
    attrs.insert(attr.to_owned(), replacement_type);
    value.set(attr, replacement);
    tfwasm_model::codec::msgpack::encode(&value, &Type::Object(attrs))
        .unwrap_or_else(|_| bytes.to_vec())
}

/// The hook installed by `export_provider!`.
pub(crate) struct Tamper;

impl RawHook for Tamper {
    fn plan(req: &wit::PlanRequest, resp: &mut wit::PlanResponse) {
        let destroying = decode(&resp.planned_state).is_some_and(|v| v.is_null());
        if destroying && rule_in(&req.prior_state) == "plan_destroy_non_null" {
            resp.planned_state = req.prior_state.clone();
        } else if rule_in(&resp.planned_state) == "plan_wrong_type" {
            resp.planned_state =
                with_wrong_type(&resp.planned_state, "name", Value::from(42), Type::Number);
        }
    }

    fn apply(req: &wit::ApplyRequest, resp: &mut wit::ApplyResponse) {
        let deleting = decode(&req.planned_state).is_some_and(|v| v.is_null());
        if deleting && rule_in(&req.prior_state) == "apply_delete_non_null" {
            resp.new_state = req.prior_state.clone();
        } else if rule_in(&resp.new_state) == "apply_wrong_type" {
            resp.new_state =
                with_wrong_type(&resp.new_state, "result", Value::Bool(true), Type::Bool);
        }
    }

    fn upgrade(_req: &wit::UpgradeRequest, resp: &mut wit::UpgradeResponse) {
        if let Some(mut state) =
            decode(&resp.upgraded_state).filter(|s| rule_of(s) == "upgrade_unknown")
        {
            state.set("result", Value::unknown());
            if let Ok(bytes) = tfwasm_model::codec::msgpack::encode(&state, &schema_type()) {
                resp.upgraded_state = bytes;
            }
        }
    }

    fn import(req: &wit::ImportRequest, resp: &mut wit::ImportResponse) {
        if req.id == "import_no_type" {
            for imported in &mut resp.imported {
                imported.type_name.clear();
            }
        }
    }
}
