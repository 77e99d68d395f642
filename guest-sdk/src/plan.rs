//! Planning: how the SDK turns Terraform's proposed new state into a plan that keeps the
//! lifecycle contracts.
//!
//! Rules, applied to top-level attributes in this order:
//! 1. A destroy (null proposal) plans null.
//! 2. A computed attribute left null by configuration gets its default, if it has one.
//! 3. On create, any other computed attribute left null by configuration becomes unknown.
//! 4. On update, if anything differs from the prior state, computed attributes left null by
//!    configuration become unknown, except those marked `use_state_for_unknown`.
//! 5. Attributes marked `requires_replace` whose planned value differs from the prior state
//!    are reported as requiring replacement.
//! 6. The resource's own [`Resource::modify_plan`](crate::Resource::modify_plan) hook runs last.

use tfwasm_model::{AttributePath, Value};

use crate::ResourceSchema;

/// The plan being built, handed to [`Resource::modify_plan`](crate::Resource::modify_plan).
#[derive(Debug, Clone)]
pub struct PlanContext {
    /// Prior state; null on create.
    pub prior: Value,
    /// Configuration.
    pub config: Value,
    /// The planned state so far; modify it to change the plan.
    pub planned: Value,
    /// Attributes whose change replaces the resource.
    pub requires_replace: Vec<AttributePath>,
}

impl PlanContext {
    /// True when the plan creates the object.
    pub fn is_create(&self) -> bool {
        self.prior.is_null()
    }
}

/// Applies rules 1–5 to a proposal.
pub(crate) fn plan_defaults(
    schema: &ResourceSchema,
    prior: Value,
    proposed: Value,
    config: Value,
) -> PlanContext {
    let mut ctx = PlanContext {
        prior,
        config,
        planned: proposed,
        requires_replace: Vec::new(),
    };
    if ctx.planned.is_null() {
        return ctx;
    }
    let create = ctx.is_create();
    for (attr, behaviour) in schema.attributes() {
        let configured = !ctx.config.get(&attr.name).is_none_or(Value::is_null);
        if attr.computed && !configured {
            if let Some(default) = &behaviour.default {
                ctx.planned.set(&attr.name, default.clone());
            } else if create {
                ctx.planned.set(&attr.name, Value::unknown());
            }
        }
    }
    if create {
        return ctx;
    }
    if ctx.planned != ctx.prior {
        for (attr, behaviour) in schema.attributes() {
            let configured = !ctx.config.get(&attr.name).is_none_or(Value::is_null);
            if attr.computed
                && !configured
                && behaviour.default.is_none()
                && !behaviour.use_state_for_unknown
            {
                ctx.planned.set(&attr.name, Value::unknown());
            }
        }
    }
    for (attr, behaviour) in schema.attributes() {
        if behaviour.requires_replace && ctx.planned.get(&attr.name) != ctx.prior.get(&attr.name) {
            ctx.requires_replace
                .push(AttributePath::attribute(attr.name.clone()));
        }
    }
    ctx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attr, ValueExt};

    fn schema() -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::number("length").required().requires_replace())
            .attr(Attr::bool("special").default(true).requires_replace())
            .attr(Attr::string("result").computed())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn obj(length: i64, special: Value, result: Value, id: Value) -> Value {
        Value::object([
            ("length", Value::from(length)),
            ("special", special),
            ("result", result),
            ("id", id),
        ])
    }

    #[test]
    fn create_fills_defaults_and_unknowns() {
        let config = obj(4, Value::Null, Value::Null, Value::Null);
        let plan = plan_defaults(&schema(), Value::Null, config.clone(), config);
        assert_eq!(
            plan.planned,
            obj(4, true.into(), Value::unknown(), Value::unknown())
        );
        assert!(plan.requires_replace.is_empty());
    }

    #[test]
    fn unchanged_update_keeps_prior() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let config = obj(4, Value::Null, Value::Null, Value::Null);
        let proposed = prior.clone();
        let plan = plan_defaults(&schema(), prior.clone(), proposed, config);
        assert_eq!(plan.planned, prior);
        assert!(plan.requires_replace.is_empty());
    }

    #[test]
    fn changed_replaced_attribute_is_reported() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let config = obj(5, Value::Null, Value::Null, Value::Null);
        let proposed = prior.clone().with("length", 5);
        let plan = plan_defaults(&schema(), prior, proposed, config);
        assert_eq!(
            plan.requires_replace,
            vec![AttributePath::attribute("length")]
        );
        assert_eq!(plan.planned.attr("result"), &Value::unknown());
        assert_eq!(
            plan.planned.attr("id"),
            &Value::from("abcd"),
            "use_state_for_unknown keeps the id"
        );
    }

    #[test]
    fn destroy_plans_null() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let plan = plan_defaults(&schema(), prior, Value::Null, Value::Null);
        assert!(plan.planned.is_null());
    }
}
