//! Values out of a recording, leaving their shape: what the default recording keeps of every
//! value, and of function arguments and results and ephemeral results always.
//!
//! Terraform does not tell a provider which of its inputs came from sensitive variables, so
//! a recording cannot tell a secret passed into an ordinary attribute from any other string:
//! by default it keeps no value at all. What stays is what shape bugs are about: nulls,
//! unknowns, object attribute names, list lengths, map sizes.

use serde_json::{Map, Value as Json};
use tfwasm_model::Type;
use tfwasm_model::codec::json::UNKNOWN_MARKER;
pub use tfwasm_model::codec::redact::scrub_unknown;
use tfwasm_model::codec::redact::{is_redacted, redacted};

/// Replaces every string, number and bool under `json` (a value of type `ty` in its readable
/// form) by the redaction marker, and every map key by a numbered stand-in. A dynamic value
/// is replaced whole: its type names attributes the configuration chose.
pub fn leaves(json: &mut Json, ty: &Type) {
    if json.is_null() || is_redacted(json) || scrub_unknown(json) {
        return;
    }
    match (ty, json) {
        (Type::Object(attrs), Json::Object(fields)) => {
            for (name, value) in fields.iter_mut() {
                match attrs.get(name) {
                    Some(attr_ty) => leaves(value, attr_ty),
                    None => *value = redacted(),
                }
            }
        }
        (Type::List(elem) | Type::Set(elem), Json::Array(items)) => {
            items.iter_mut().for_each(|v| leaves(v, elem));
        }
        (Type::Tuple(elems), Json::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                match elems.get(i) {
                    Some(elem) => leaves(item, elem),
                    None => *item = redacted(),
                }
            }
        }
        (Type::Map(elem), Json::Object(entries)) => {
            let taken = std::mem::take(entries);
            for (i, (_, mut value)) in taken.into_iter().enumerate() {
                leaves(&mut value, elem);
                entries.insert(format!("(redacted key {})", i + 1), value);
            }
        }
        (_, json) => *json = redacted(),
    }
}

/// Whether `json` is an encoded value (`{"msgpack": ...}` or `{"json": ...}`): one the
/// recording could not read with a schema, and so cannot redact part of.
pub fn is_encoded(json: &Json) -> bool {
    json.as_object()
        .is_some_and(|o| !o.is_empty() && o.keys().all(|k| k == "msgpack" || k == "json"))
}

/// How many redaction markers `json` holds.
pub fn markers(json: &Json) -> usize {
    if is_redacted(json) {
        return 1;
    }
    match json {
        Json::Array(items) => items.iter().map(markers).sum(),
        Json::Object(fields) => fields.values().map(markers).sum(),
        _ => 0,
    }
}

/// Replaces a redacted refinement of an unknown by nothing (the unknown is less refined);
/// returns how many it removed.
pub fn unrefine(json: &mut Json) -> usize {
    let Some(Json::Object(refinements)) = json
        .as_object_mut()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get_mut(UNKNOWN_MARKER))
    else {
        return 0;
    };
    let before = refinements.len();
    refinements.retain(|_, v| !is_redacted(v));
    let removed = before - refinements.len();
    if refinements.is_empty() {
        *json = Json::Object(Map::from_iter([(
            UNKNOWN_MARKER.to_owned(),
            Json::Bool(true),
        )]));
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_leaf_and_map_key_goes_and_the_shape_stays() {
        let ty = Type::object([
            ("name", Type::String),
            ("n", Type::Number),
            ("on", Type::Bool),
            ("gone", Type::String),
            ("later", Type::String),
            ("tags", Type::Map(Box::new(Type::String))),
            ("ports", Type::List(Box::new(Type::Number))),
            ("any", Type::Dynamic),
        ]);
        let mut value = json!({
            "name": "hunter2", "n": 7, "on": true, "gone": null,
            "later": {"$unknown": {"prefix": "hun", "not_null": true}},
            "tags": {"hunter2": "x"}, "ports": [1, 2],
            "any": {"type": ["object", {"hunter2": "string"}], "value": {"hunter2": "y"}},
        });
        leaves(&mut value, &ty);
        let text = value.to_string();
        assert!(!text.contains("hun") && !text.contains('7'), "{text}");
        assert_eq!(value["gone"], Json::Null);
        assert_eq!(
            value["later"],
            json!({"$unknown": {"prefix": {"$redacted": true}, "not_null": true}})
        );
        assert_eq!(
            value["tags"],
            json!({"(redacted key 1)": {"$redacted": true}})
        );
        assert_eq!(
            value["ports"],
            json!([{"$redacted": true}, {"$redacted": true}])
        );
        assert_eq!(value["any"], redacted());
        assert_eq!(markers(&value), 8);
        let mut later = value["later"].take();
        assert_eq!(unrefine(&mut later), 1);
        assert_eq!(later, json!({"$unknown": {"not_null": true}}));
    }
}
