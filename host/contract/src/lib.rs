//! # tfwasm-contract
//!
//! The provider lifecycle contracts, checked on every result a provider returns, before it
//! leaves the host. Each broken rule becomes a [`Violation`] with the attribute path where it
//! happened; [`Checked`] wraps any [`tfwasm_model::Provider`] and turns violations into error
//! diagnostics (or warnings, for authors migrating a provider).
//!
//! The rules follow Terraform core's own checks (`plan.rs`: the plan must keep configuration;
//! `apply.rs`: the new state must complete the plan; `results.rs`: read, upgrade, import and
//! data-source results must be wholly known). Type conformance is checked by decoding with the
//! schema's implied type (`tfwasm_model::codec`).
//!
//! This crate does no IO and knows nothing of wasm or gRPC, so `tfwasm check` can run it on
//! hand-written files.

#![deny(missing_docs)]

mod apply;
mod at;
mod checked;
pub mod decodings;
mod function;
mod generated;
mod identity;
mod plan;
mod render;
mod results;
mod secret;
pub use secret::shows_no_value;
mod violations;
mod write_only;

use std::fmt;

pub use apply::{check_apply, check_apply_with};
pub use checked::{Checked, Mode};
pub use function::check_function_result;
pub use generated::check_generated_config;
pub use identity::{IdentityRole, check_identity, check_identity_kept, is_empty_identity};
pub use plan::{
    check_plan, check_plan_for, check_plan_with, check_requires_replace, check_requires_replace_in,
};
pub use render::render;
pub use results::{check_data_source, check_import, check_wholly_known};
use tfwasm_model::{AttributePath, Value};
pub use violations::Violations;
pub use write_only::{check_write_only_null, has_write_only};

/// One broken rule at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where in the object.
    pub path: AttributePath,
    /// What is wrong, naming the values involved.
    pub message: String,
}

/// Most violations reported of one answer: past a few, more say nothing new, and a hostile
/// answer (millions of unknowns) would otherwise make one diagnostic each.
pub const MAX_VIOLATIONS: usize = 100;

/// Longest message a violation keeps: messages quote the guest's keys and values, which
/// may be megabytes long.
const MAX_MESSAGE_BYTES: usize = 1024;

/// Most bytes (messages and paths) the violations kept for one answer hold: what the checks
/// add to an answer's diagnostics, beside the guest's own (capped by the runtime).
pub const MAX_VIOLATION_BYTES: usize = 256 << 10;

/// Longest map key or attribute name a violation's path keeps; longer ones are cut, as a
/// path copied per violation must not copy a 16 MiB key each time.
pub(crate) const MAX_STEP_BYTES: usize = 256;

impl Violation {
    pub(crate) fn new(path: &impl at::Place, message: impl Into<String>) -> Violation {
        Violation {
            // Cut as it is copied: a path of megabyte keys, copied whole for each of a
            // million violations, was quadratic (1 MB of answer: 5.7 s).
            path: path.to_path_cut(MAX_STEP_BYTES),
            message: message.into(),
        }
        .cut()
    }

    /// Cuts long path steps and the message to their bounds. [`Violations::push`] cuts every
    /// violation, however it was built: one kept whole could be larger than all kept ones may
    /// be, and would only be counted, so the answer would look to have none.
    pub(crate) fn cut(self) -> Violation {
        let Violation {
            mut path,
            mut message,
        } = self;
        for step in &mut path.0 {
            if let tfwasm_model::PathStep::Attribute(s) | tfwasm_model::PathStep::KeyString(s) =
                step
                && s.len() > MAX_STEP_BYTES
            {
                s.truncate(s.floor_char_boundary(MAX_STEP_BYTES));
                s.push('…');
            }
        }
        if message.len() > MAX_MESSAGE_BYTES {
            message.truncate(message.floor_char_boundary(MAX_MESSAGE_BYTES));
            message.push('…');
        }
        Violation { path, message }
    }

    /// What the violation costs in the diagnostics it becomes: its message and path, each
    /// step at least 8 bytes (as the runtime charges a guest's diagnostic paths).
    pub(crate) fn bytes(&self) -> usize {
        let steps: usize = self
            .path
            .0
            .iter()
            .map(|step| match step {
                tfwasm_model::PathStep::Attribute(s) | tfwasm_model::PathStep::KeyString(s) => {
                    s.len().max(8)
                }
                _ => 8,
            })
            .sum();
        self.message.len() + steps
    }
}

/// `.a.b[0]: message`; the whole object is shown as `(root)`.
impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Equality as core compares plans: unknowns are equal whatever their refinements.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Unknown(_), Unknown(_)) => true,
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Set(x), Set(y)) => same_multiset(x, y),
        (Map(x), Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        // Both in name order: the same names are the same names in step.
        (Object(x), Object(y)) => {
            x.len() == y.len() && (x.iter().zip(y)).all(|((k, v), (l, w))| k == l && same(v, w))
        }
        (Dynamic(tx, x), Dynamic(ty, y)) => tx == ty && same(x, y),
        _ => a == b,
    }
}

/// Sets under [`same`], as multisets (elements holding unknowns may repeat): a value's
/// unrefined hash agrees with [`same`], and each element is compared once.
fn same_multiset(x: &[Value], y: &[Value]) -> bool {
    tfwasm_model::hash::same_multiset(x, y, tfwasm_model::hash::unrefined_hash, same)
}

/// The attribute `name` of an object value; null when the object is null or lacks it,
/// unknown when the object is unknown.
pub(crate) fn attr<'a>(value: &'a Value, name: &str) -> &'a Value {
    const NULL: Value = Value::Null;
    static UNKNOWN: std::sync::LazyLock<Value> = std::sync::LazyLock::new(Value::unknown);
    // go-cty: every attribute of an unknown object is unknown.
    if unwrap_dynamic(value).is_unknown() {
        return &UNKNOWN;
    }
    value.get(name).unwrap_or(&NULL)
}

/// [`attr`] of each of `values`, which are of one object type, looked for first at `at`
/// (where values of the type hold the name: its place in the block's
/// [`tfwasm_model::Layout`], or its position in an object type's attributes, which are in name
/// order too): one name comparison per value, and a search only in a value laid out otherwise.
pub(crate) fn attrs_at<'a, const N: usize>(
    values: [&'a Value; N],
    at: usize,
    name: &str,
) -> [&'a Value; N] {
    const NULL: Value = Value::Null;
    values.map(|v| match unwrap_dynamic(v) {
        Value::Object(attributes) => attributes.get_at(at, name).unwrap_or(&NULL),
        _ => attr(v, name),
    })
}

/// A value with any dynamic wrapper removed.
pub(crate) fn unwrap_dynamic(value: &Value) -> &Value {
    match value {
        Value::Dynamic(_, inner) => unwrap_dynamic(inner),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::Refinement;

    /// Found by `make fuzz-diff` (seed 1269) when value hashes began to include refinements:
    /// a set of one refined unknown planned as a set of one plain unknown is the same value
    /// to core, so it must be to the checks.
    #[test]
    fn sets_of_differently_refined_unknowns_are_the_same() {
        let refined = Value::refined(Refinement {
            not_null: true,
            ..Refinement::default()
        });
        let config = Value::Set(vec![refined.clone()]);
        let planned = Value::Set(vec![Value::unknown()]);
        assert!(same(&config, &planned));
        assert_ne!(config, planned, "structurally they differ");
        // Large sets go through the hashed path.
        let many = |u: &Value| Value::Set((0..40).map(|_| Value::List(vec![u.clone()])).collect());
        assert!(same(&many(&refined), &many(&Value::unknown())));
        assert!(!same(
            &many(&refined),
            &Value::Set(vec![Value::unknown(); 40])
        ));
    }

    /// A place is a hint: at any place, right or wrong, each value gives its own attribute,
    /// whatever it is: an object of the type, one missing the attribute or laid out
    /// otherwise, unknown, null, dynamic-wrapped or a map.
    #[test]
    fn attributes_of_several_values_are_each_values_own() {
        let object = |names: &[&str]| {
            Value::object(names.iter().map(|n| (*n, Value::from(format!("{n} here")))))
        };
        let values = [
            object(&["a", "b", "c"]),
            object(&["b", "c"]),
            object(&["a", "c", "d", "e"]),
            Value::unknown(),
            Value::Null,
            Value::Dynamic(tfwasm_model::Type::Dynamic, Box::new(object(&["c"]))),
            Value::Map([("c".into(), Value::from("in a map"))].into()),
        ];
        for first in &values {
            for second in &values {
                for third in &values {
                    for (name, at) in ["a", "b", "c", "d", "z"]
                        .into_iter()
                        .flat_map(|name| [0, 1, 2, 4, 5, usize::MAX].map(|at| (name, at)))
                    {
                        let found = attrs_at([first, second, third], at, name);
                        let each = [attr(first, name), attr(second, name), attr(third, name)];
                        assert_eq!(
                            found, each,
                            "{name} at {at} of {first:?}, {second:?}, {third:?}"
                        );
                    }
                }
            }
        }
    }
}
