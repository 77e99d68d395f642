//! Resource identity (Terraform 1.12): an identity names the remote object, so it must fit
//! its schema, be wholly known once the object exists, and stay the same for the same object
//! across plan, apply and read. Terraform core rejects an unknown identity ("Provider
//! produced invalid identity"); it does not check that an identity stays put, which is how a
//! provider that derives it from a mutable attribute silently breaks `import` and `list`.
//!
//! Violations sit at the root of the resource (an identity is not part of its configuration)
//! and name the identity attribute in their message.

use tfwasm_model::{AttributePath, Value};

use crate::{Violation, Violations, attr, same};

/// Where an identity is looked at, for the wording of violations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdentityRole {
    /// In a plan: unknowns allowed (the object may not exist yet), and none at all (a new
    /// object's identity is known after apply; terraform-plugin-framework plans none, and
    /// OpenTofu cannot store one holding unknowns).
    Planned,
    /// After apply, read, import or move: wholly known.
    Final,
}

/// An identity a provider returned with a non-null state, decoded against the identity
/// schema's type (`None`: the provider returned none). `declared` says whether the type has
/// an identity schema at all.
pub fn check_identity(declared: bool, identity: Option<&Value>, role: IdentityRole) -> Violations {
    let root = AttributePath::root();
    match (declared, identity) {
        (false, None) => Violations::new(),
        (false, Some(_)) => Violations::from(vec![Violation {
            path: root,
            message: "returned an identity, but the provider declares no identity for this resource type".into(),
        }]),
        (true, None | Some(Value::Null)) if role == IdentityRole::Planned => Violations::new(),
        (true, None) => Violations::from(vec![Violation {
            path: root,
            message: "returned no identity, but this resource type declares one: Terraform stores the identity with the state, and import and list rely on it".into(),
        }]),
        (true, Some(Value::Null)) => Violations::from(vec![Violation {
            path: root,
            message: "returned a null identity; an existing object's identity is an object".into(),
        }]),
        (true, Some(Value::Unknown(_))) if role == IdentityRole::Final => Violations::from(vec![Violation {
            path: root,
            message: "returned an unknown identity; after the object exists its identity must be wholly known".into(),
        }]),
        (true, Some(identity)) if role == IdentityRole::Final => crate::results::unknown_paths(identity)
            .into_iter()
            .map(|p| Violation {
                path: AttributePath::root(),
                message: format!("identity attribute `{}` is unknown; after the object exists its identity must be wholly known", p.to_string().trim_start_matches('.')),
            })
            .collect(),
        (true, Some(_)) => Violations::new(),
    }
}

/// The identity after a step must be what it was for the same object: where `before` is
/// known, `after` must equal it (a planned identity with unknowns is completed, not changed).
/// `step` names the transition, e.g. "during refresh".
pub fn check_identity_kept(before: &Value, after: &Value, step: &str) -> Violations {
    let (Value::Object(names), Value::Object(_)) = (before, after) else {
        return Violations::new();
    };
    names
        .keys()
        .filter_map(|name| {
            let (was, now) = (attr(before, name), attr(after, name));
            if !was.is_wholly_known() || same(was, now) {
                return None;
            }
            Some(Violation {
                path: AttributePath::root(),
                message: format!(
                    "identity attribute `{name}` changed {step} from {} to {}; the identity names the remote object and must not change while the object is the same (plan a replacement instead)",
                    crate::render(was),
                    crate::render(now)
                ),
            })
        })
        .collect()
}

pub use tfwasm_model::rpc::is_empty_identity;

#[cfg(test)]
mod tests {
    use super::*;

    fn id(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| ((*k).into(), v.clone()))
                .collect(),
        )
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn unknown() -> Value {
        Value::unknown()
    }

    #[test]
    fn declared_identity_must_be_returned_and_not_null() {
        assert!(check_identity(false, None, IdentityRole::Final).is_empty());
        assert_eq!(check_identity(true, None, IdentityRole::Final).len(), 1);
        assert_eq!(
            check_identity(true, Some(&Value::Null), IdentityRole::Final).len(),
            1
        );
        // A plan may leave a new object's identity to the apply.
        assert!(check_identity(true, None, IdentityRole::Planned).is_empty());
        assert!(check_identity(true, Some(&Value::Null), IdentityRole::Planned).is_empty());
        let v = check_identity(false, Some(&id(&[("id", s("a"))])), IdentityRole::Final);
        assert!(v[0].message.contains("declares no identity"), "{v:?}");
    }

    #[test]
    fn final_identities_are_wholly_known_planned_ones_may_not_be() {
        let partly = id(&[("id", unknown()), ("region", s("eu"))]);
        assert!(check_identity(true, Some(&partly), IdentityRole::Planned).is_empty());
        let v = check_identity(true, Some(&partly), IdentityRole::Final);
        assert_eq!(v.len(), 1);
        assert!(v[0].message.contains("`id` is unknown"), "{v:?}");
        assert_eq!(
            check_identity(true, Some(&unknown()), IdentityRole::Final).len(),
            1
        );
        assert!(check_identity(true, Some(&id(&[("id", s("a"))])), IdentityRole::Final).is_empty());
    }

    #[test]
    fn a_known_identity_attribute_must_not_change() {
        let before = id(&[("id", s("a")), ("region", s("eu"))]);
        assert!(check_identity_kept(&before, &before, "during refresh").is_empty());
        let moved = id(&[("id", s("b")), ("region", s("eu"))]);
        let v = check_identity_kept(&before, &moved, "during refresh");
        assert_eq!(v.len(), 1);
        assert!(
            v[0].message
                .contains("`id` changed during refresh from \"a\" to \"b\""),
            "{v:?}"
        );
    }

    #[test]
    fn a_planned_unknown_may_become_anything() {
        let planned = id(&[("id", unknown()), ("region", s("eu"))]);
        let actual = id(&[("id", s("42")), ("region", s("eu"))]);
        assert!(check_identity_kept(&planned, &actual, "during apply").is_empty());
        let wrong = id(&[("id", s("42")), ("region", s("us"))]);
        assert_eq!(
            check_identity_kept(&planned, &wrong, "during apply").len(),
            1
        );
    }

    #[test]
    fn all_null_identities_are_empty() {
        assert!(is_empty_identity(&Value::Null));
        assert!(is_empty_identity(&id(&[("id", Value::Null)])));
        assert!(!is_empty_identity(&id(&[("id", s("a"))])));
    }
}
