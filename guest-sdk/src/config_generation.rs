//! Configuration generation: what `terraform plan -generate-config-out` writes for an
//! imported object (Terraform >= 1.14). Terraform hands the object's state to
//! [`Resource::generate_config`](crate::Resource::generate_config); the configuration it
//! returns becomes the `resource` block, so it holds what a user would write and nothing
//! only the provider sets.
//!
//! The default, [`config_from_state`], is terraform-plugin-framework 1.19's (itself
//! Terraform's own fallback): the state with computed-only and deprecated attributes and
//! deprecated blocks null, and optional strings that are empty null. Override
//! `generate_config` when the state holds more than a user writes, e.g. a JSON document
//! the API fills with defaults:
//!
//! ```
//! use tfwasm_sdk::prelude::*;
//!
//! fn without_server_fields(schema: &ResourceSchema, state: &Value) -> Value {
//!     let mut config = tfwasm_sdk::config_generation::config_from_state(schema, state);
//!     config.set("etag", Value::Null);
//!     config
//! }
//! ```

use tfwasm_model::{Attribute, AttributeType, NestedBlock, Value};

use crate::ResourceSchema;

/// The configuration terraform-plugin-framework 1.19 generates from `state`, an object of
/// `schema`.
pub fn config_from_state(schema: &ResourceSchema, state: &Value) -> Value {
    let block = schema.to_wire().block;
    let mut config = state.clone();
    clear(&block.attributes, &block.block_types, &mut config, true);
    config
}

/// Nulls what a configuration does not hold in an object of these attributes and blocks.
fn clear(attributes: &[Attribute], blocks: &[NestedBlock], value: &mut Value, root: bool) {
    let Value::Object(fields) = value else {
        return;
    };
    for a in attributes {
        let Some(v) = fields.get_mut(a.name.as_str()) else {
            continue;
        };
        if v.is_null() {
            continue;
        }
        let computed_only = a.computed && !a.optional;
        // The legacy SDK's implied `id` (optional and computed) is not in the user's schema.
        let legacy_id = root && a.name == "id" && a.computed && a.optional;
        let empty_string = a.optional && v.as_str() == Some("");
        if a.deprecated || computed_only || legacy_id || empty_string {
            *v = Value::Null;
        } else if let AttributeType::Nested(object) = &a.ty {
            each_object(v, &mut |element| {
                clear(&object.attributes, &[], element, false)
            });
        }
    }
    for nested in blocks {
        let Some(v) = fields.get_mut(nested.type_name.as_str()) else {
            continue;
        };
        if nested.block.deprecated {
            *v = Value::Null;
        } else {
            each_object(v, &mut |element| {
                clear(
                    &nested.block.attributes,
                    &nested.block.block_types,
                    element,
                    false,
                )
            });
        }
    }
}

fn each_object(value: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    match value {
        Value::Object(_) => f(value),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            items.iter_mut().for_each(f)
        }
        Value::Map(map) => map.values_mut().for_each(f),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attr, Block as SdkBlock};

    fn schema() -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("id").computed())
            .attr(Attr::string("name").required())
            .attr(Attr::string("note").optional())
            .attr(Attr::string("region").optional().computed())
            .attr(Attr::string("old").optional().deprecated("use name"))
            .block(SdkBlock::list(
                "rule",
                ResourceSchema::new()
                    .attr(Attr::string("cidr").required())
                    .attr(Attr::string("hash").computed()),
            ))
    }

    #[test]
    fn the_framework_default_keeps_what_a_user_writes() {
        let state = Value::object([
            ("id", Value::from("i-1")),
            ("name", Value::from("web")),
            ("note", Value::from("")),
            ("region", Value::from("eu")),
            ("old", Value::from("w")),
            (
                "rule",
                Value::List(vec![Value::object([
                    ("cidr", Value::from("10.0.0.0/8")),
                    ("hash", Value::from("h")),
                ])]),
            ),
        ]);
        let config = config_from_state(&schema(), &state);
        let get = |name: &str| config.get(name).cloned().unwrap();
        assert_eq!(get("id"), Value::Null, "computed-only");
        assert_eq!(get("name"), Value::from("web"));
        assert_eq!(get("note"), Value::Null, "an empty optional string");
        assert_eq!(get("region"), Value::from("eu"), "optional and computed");
        assert_eq!(get("old"), Value::Null, "deprecated");
        assert_eq!(
            get("rule"),
            Value::List(vec![Value::object([
                ("cidr", Value::from("10.0.0.0/8")),
                ("hash", Value::Null),
            ])])
        );
    }
}
