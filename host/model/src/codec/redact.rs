//! Secrets out of a value's JSON form: sensitive and write-only attributes, at any depth,
//! become `{"$redacted": true}`. Used wherever a value leaves the process for people to read
//! (recordings, the apply journal), so one rule decides what a secret is.

use serde_json::{Value as Json, json};

use crate::{AttributeType, Block, BlockNesting, NestedObject, ObjectNesting};

/// What stands in for a secret.
pub const REDACTED_MARKER: &str = "$redacted";

/// The stand-in for one secret.
pub fn redacted() -> Json {
    json!({ REDACTED_MARKER: true })
}

/// Whether `json` is the stand-in for a secret.
pub fn is_redacted(json: &Json) -> bool {
    json.as_object()
        .is_some_and(|o| o.len() == 1 && o.get(REDACTED_MARKER) == Some(&Json::Bool(true)))
}

fn is_unknown(json: &Json) -> bool {
    json.as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key(super::json::UNKNOWN_MARKER))
}

/// Replaces the known, non-null values of sensitive and write-only attributes under `block`.
/// Null and unknown stay visible: they are no secret, and often what a bug is about.
pub fn redact_block(json: &mut Json, block: &Block) {
    redact_attributes(json, &block.attributes);
    let Some(object) = json.as_object_mut() else {
        return;
    };
    for nested in &block.block_types {
        let Some(value) = object.get_mut(&nested.type_name) else {
            continue;
        };
        match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => redact_block(value, &nested.block),
            BlockNesting::List | BlockNesting::Set | BlockNesting::Map => {
                for_each_element(value, |v| redact_block(v, &nested.block));
            }
        }
    }
}

/// [`redact_block`] for the attributes alone (a block's, or a nested object's, borrowed:
/// copying them per value visited made redaction quadratic).
fn redact_attributes(json: &mut Json, attributes: &[crate::Attribute]) {
    let Some(object) = json.as_object_mut() else {
        return;
    };
    for attr in attributes {
        let Some(value) = object.get_mut(&attr.name) else {
            continue;
        };
        if attr.sensitive || attr.write_only {
            if !value.is_null() && !is_unknown(value) {
                *value = redacted();
            }
        } else if let AttributeType::Nested(nested) = &attr.ty {
            redact_nested(value, nested);
        }
    }
}

fn redact_nested(json: &mut Json, nested: &NestedObject) {
    match nested.nesting {
        ObjectNesting::Single => redact_attributes(json, &nested.attributes),
        ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => {
            for_each_element(json, |v| redact_attributes(v, &nested.attributes));
        }
    }
}

/// Array elements or map values.
fn for_each_element(json: &mut Json, f: impl FnMut(&mut Json)) {
    if is_unknown(json) {
        return;
    }
    match json {
        Json::Array(items) => items.iter_mut().for_each(f),
        Json::Object(entries) => entries.values_mut().for_each(f),
        _ => {}
    }
}
