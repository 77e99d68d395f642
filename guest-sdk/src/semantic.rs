//! Ready-made semantic equalities for [`Attr::semantic_equals`](crate::Attr::semantic_equals):
//! values that differ in text but mean the same, so a plan keeps the prior value and shows
//! no change.

use tfwasm_model::Value;

/// Two values of an attribute that mean the same (e.g. JSON differing only in whitespace).
pub type SemanticEquals = fn(prior: &Value, new: &Value) -> bool;

/// JSON documents equal after parsing (whitespace, key order and number spelling ignored).
/// Strings that are not JSON are never equal to anything else.
pub fn json(prior: &Value, new: &Value) -> bool {
    let parse = |v: &Value| {
        v.as_str()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
            .map(normalize)
    };
    match (parse(prior), parse(new)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Numbers compared by value (`1.0` and `1`), objects by key regardless of order.
fn normalize(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        J::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(J::Number(n), J::Number),
        J::Array(items) => J::Array(items.into_iter().map(normalize).collect()),
        J::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().map(|(k, v)| (k, normalize(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            J::Object(entries.into_iter().collect())
        }
        other => other,
    }
}

/// Strings equal ignoring ASCII case (e.g. DNS names, enum-like API values).
pub fn case_insensitive(prior: &Value, new: &Value) -> bool {
    match (prior.as_str(), new.as_str()) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ignores_layout_and_key_order() {
        assert!(json(
            &Value::from(r#"{"a": 1, "b": [true, null]}"#),
            &Value::from(r#"{"b":[true,null],"a":1.0}"#)
        ));
        assert!(!json(
            &Value::from(r#"{"a": 1}"#),
            &Value::from(r#"{"a": 2}"#)
        ));
        assert!(!json(&Value::from("not json"), &Value::from("not json ")));
    }

    #[test]
    fn case_insensitive_strings() {
        assert!(case_insensitive(
            &Value::from("Example.COM"),
            &Value::from("example.com")
        ));
        assert!(!case_insensitive(&Value::from("a"), &Value::from("b")));
    }
}
