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

/// Refinements of an unknown that say nothing of its value; the others (a string's prefix,
/// a number's bounds) are taken from it.
const SHAPE_REFINEMENTS: &[&str] = &["not_null", "min_length", "max_length"];

/// Whether `json` is an unknown's marker; if so, the refinements that hold (part of) a value
/// are redacted in place.
pub fn scrub_unknown(json: &mut Json) -> bool {
    let Some(marker) = json
        .as_object_mut()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get_mut(super::json::UNKNOWN_MARKER))
    else {
        return false;
    };
    if let Json::Object(refinements) = marker {
        for (key, value) in refinements.iter_mut() {
            if !SHAPE_REFINEMENTS.contains(&key.as_str()) {
                *value = redacted();
            }
        }
    }
    true
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
            // An unknown keeps what says nothing of its value (a prefix, a bound would).
            if !value.is_null() && !scrub_unknown(value) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attribute, Type};

    /// The sixteenth hostile pass: an unknown of a sensitive attribute kept its refinements,
    /// so a string's prefix reached the apply journal.
    #[test]
    fn a_secret_unknown_keeps_only_what_says_nothing_of_its_value() {
        let mut password = Attribute::new("password", Type::String);
        password.sensitive = true;
        let block = Block {
            attributes: vec![password, Attribute::new("name", Type::String)],
            ..Block::default()
        };
        let mut json = json!({
            "password": { "$unknown": { "prefix": "SECRET-", "not_null": true } },
            "name": "n",
        });
        redact_block(&mut json, &block);
        assert!(!json.to_string().contains("SECRET"), "{json}");
        assert_eq!(json["password"]["$unknown"]["not_null"], true);
        assert_eq!(json["name"], "n");
        let mut known = json!({ "password": "SECRET", "name": null });
        redact_block(&mut known, &block);
        assert!(is_redacted(&known["password"]));
    }
}
