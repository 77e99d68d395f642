//! Results that become state or data without a plan to compare against: ReadResource,
//! UpgradeResourceState, ImportResourceState, ReadDataSource. They must be wholly known,
//! and imports and data sources must not be null.

use tfwasm_model::{AttributePath, Value};

use crate::at::{At, Place as _};
use crate::{Violation, Violations};

/// Paths of the unknowns inside `value` (the root itself included), at most
/// [`crate::MAX_VIOLATIONS`] of them.
pub(crate) fn unknown_paths(value: &Value) -> Vec<AttributePath> {
    let mut out = Vec::new();
    walk(value, &At::Root, &mut out);
    out
}

fn walk(value: &Value, path: &At<'_>, out: &mut Vec<AttributePath>) {
    if out.len() >= crate::MAX_VIOLATIONS {
        return;
    }
    match value {
        Value::Unknown(_) => out.push(path.to_path_cut(crate::MAX_STEP_BYTES)),
        Value::List(items) | Value::Tuple(items) | Value::Set(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &path.index(i as i64), out);
            }
        }
        Value::Object(entries) => {
            for (k, v) in entries {
                walk(v, &path.attr(k), out);
            }
        }
        Value::Map(entries) => {
            for (k, v) in entries {
                walk(v, &path.key(k), out);
            }
        }
        Value::Dynamic(_, inner) => walk(inner, path, out),
        _ => {}
    }
}

/// A state returned by read or upgrade: no unknown anywhere.
pub fn check_wholly_known(value: &Value) -> Violations {
    unknown_paths(value)
        .into_iter()
        .map(|path| {
            Violation::new(
                &path,
                "unknown value in a returned state; every value must be known",
            )
        })
        .collect()
}

/// An imported object: a type name this provider has, a non-null and wholly known state.
pub fn check_import(type_name: &str, known_type: bool, state: &Value) -> Violations {
    let root = At::Root;
    if type_name.is_empty() {
        return Violations::from(vec![Violation::new(
            &root,
            "imported object has no type name",
        )]);
    }
    if !known_type {
        return Violations::from(vec![Violation::new(
            &root,
            format!("imported object has type {type_name:?}, which this provider does not have"),
        )]);
    }
    if state.is_null() {
        return Violations::from(vec![Violation::new(&root, "imported object is null")]);
    }
    check_wholly_known(state)
}

/// A data source result: non-null and wholly known.
pub fn check_data_source(value: &Value) -> Violations {
    if value.is_null() {
        return Violations::from(vec![Violation::new(
            &At::Root,
            "data source returned a null object",
        )]);
    }
    unknown_paths(value)
        .into_iter()
        .map(|path| Violation::new(&path, "data source result is not wholly known"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_unknowns_are_a_hundred_violations_with_short_paths() {
        let long_key = "k".repeat(1 << 20);
        let inner = Value::List(vec![Value::unknown(); 1_000_000]);
        let value = Value::Map(vec![(long_key.into(), inner)].into_iter().collect());
        let violations = check_wholly_known(&value);
        assert_eq!(violations.len(), crate::MAX_VIOLATIONS);
        let shown = violations[0].to_string();
        assert!(shown.len() < 1024, "{} bytes", shown.len());
        assert!(shown.contains('…'), "{shown}");
    }
}
