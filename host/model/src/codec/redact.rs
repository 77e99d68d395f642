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

/// Whether `json` is an unknown's marker as [`super::json::encode_with_unknowns`] writes it
/// (`true`, or an object of refinements with values of their types); if so, the refinements
/// that hold (part of) a value are redacted in place. Anything else under the marker's key is
/// a value (a map with the key `"$unknown"`, in JSON that did not escape it) and is not one.
pub fn scrub_unknown(json: &mut Json) -> bool {
    let Some(marker) = json
        .as_object_mut()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get_mut(super::json::UNKNOWN_MARKER))
    else {
        return false;
    };
    if !is_marker_body(marker) {
        return false;
    }
    if let Json::Object(refinements) = marker {
        for (key, value) in refinements.iter_mut() {
            if !SHAPE_REFINEMENTS.contains(&key.as_str()) {
                *value = redacted();
            }
        }
    }
    true
}

/// What the marker's key holds when it is one: `true`, or refinements of their types.
fn is_marker_body(body: &Json) -> bool {
    match body {
        Json::Bool(true) => true,
        Json::Object(refinements) => refinements.iter().all(|(key, value)| match key.as_str() {
            "not_null" => value == &Json::Bool(true),
            "prefix" => value.is_string(),
            "min" | "max" | "min_exclusive" | "max_exclusive" => value.is_number(),
            "min_length" | "max_length" => value.is_u64(),
            _ => false,
        }),
        _ => false,
    }
}

fn is_unknown(json: &Json) -> bool {
    json.as_object().is_some_and(|o| {
        o.len() == 1
            && o.get(super::json::UNKNOWN_MARKER)
                .is_some_and(is_marker_body)
    })
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
    /// The eighteenth hostile pass: `{"$unknown": "SECRET"}` (a sensitive map with that key,
    /// in stored JSON that does not escape keys) was taken for an unknown and kept.
    #[test]
    fn a_value_under_the_marker_key_is_no_unknown() {
        let mut tokens = Attribute::new("tokens", Type::Map(Box::new(Type::String)));
        tokens.sensitive = true;
        let block = Block {
            attributes: vec![tokens],
            ..Block::default()
        };
        for secret in [
            json!({ "$unknown": "SECRET" }),
            json!({ "$unknown": { "prefix": "x", "note": "SECRET" } }),
            json!({ "$unknown": { "not_null": "SECRET" } }),
        ] {
            let mut json = json!({ "tokens": secret });
            redact_block(&mut json, &block);
            assert!(is_redacted(&json["tokens"]), "{json}");
        }
        let mut unknown =
            json!({ "tokens": { "$unknown": { "not_null": true, "min_length": 1 } } });
        redact_block(&mut unknown, &block);
        assert_eq!(unknown["tokens"]["$unknown"]["min_length"], 1);
    }

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
