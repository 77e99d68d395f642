//! The lifecycle invariants the SDK checks itself in debug builds, so a provider bug is
//! reported by the SDK, naming the attribute and the broken rule, before the host or
//! Terraform reject the result with a vaguer message. Release builds skip them; the host
//! checks every result anyway.
//!
//! The rules are tfwasm's contract checks (`tfwasm-contract`), the same code the host runs,
//! linked only with the `invariants` feature: an author's tests ask for it (as a
//! dev-dependency feature), and a release component never carries the host's checker.

use tfwasm_model::{Block, Diagnostic, Value};

/// True when this build checks invariants (debug builds of the provider).
pub const ENABLED: bool = cfg!(debug_assertions);

fn report(what: &str, type_name: &str, violations: tfwasm_contract::Violations) -> Vec<Diagnostic> {
    violations
        .into_iter()
        .map(|v| {
            let d = Diagnostic::error(
                format!("Provider bug: {what} breaks the lifecycle contract"),
                format!(
                    "{type_name}: {v}. The tfwasm SDK found this in a debug build of the provider; Terraform would reject it."
                ),
            );
            if v.path.is_root() { d } else { d.at(v.path) }
        })
        .collect()
}

/// Checks a plan (`prior` null on create, `config` null on destroy) as the host does for a
/// client that does or does not take computed blocks (`computed_blocks_allowed`).
pub fn check_plan(
    type_name: &str,
    block: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    computed_blocks: bool,
) -> Vec<Diagnostic> {
    report(
        "the plan",
        type_name,
        tfwasm_contract::check_plan_for(block, prior, config, planned, computed_blocks),
    )
}

/// Checks an apply result against its plan.
pub fn check_apply(
    type_name: &str,
    block: &Block,
    planned: &Value,
    new: &Value,
) -> Vec<Diagnostic> {
    report(
        "the new state",
        type_name,
        tfwasm_contract::check_apply(block, planned, new),
    )
}

/// Checks that a read, imported or upgraded state has no unknowns.
pub fn check_known(type_name: &str, what: &str, state: &Value) -> Vec<Diagnostic> {
    report(what, type_name, tfwasm_contract::check_wholly_known(state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attr, ResourceSchema};

    fn block() -> Block {
        ResourceSchema::new()
            .attr(Attr::string("name").required())
            .attr(Attr::string("id").computed())
            .to_wire()
            .block
    }

    #[test]
    fn changed_config_value_is_named() {
        let config = Value::object([("name", Value::from("a")), ("id", Value::Null)]);
        let planned = Value::object([("name", Value::from("b")), ("id", Value::unknown())]);
        let diags = check_plan("x_thing", &block(), &Value::Null, &config, &planned, true);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].attribute, Some("name".parse().unwrap()));
        assert!(diags[0].detail.contains("x_thing"), "{}", diags[0].detail);
    }

    #[test]
    fn apply_must_keep_known_planned_values() {
        let planned = Value::object([("name", Value::from("a")), ("id", Value::unknown())]);
        let good = Value::object([("name", Value::from("a")), ("id", Value::from("1"))]);
        assert!(check_apply("x_thing", &block(), &planned, &good).is_empty());
        let unknown_left = planned.clone();
        let diags = check_apply("x_thing", &block(), &planned, &unknown_left);
        assert_eq!(diags[0].attribute, Some("id".parse().unwrap()));
    }
}
