//! Planning: how the SDK turns Terraform's proposed new state into a plan that keeps the
//! lifecycle contracts.
//!
//! Rules, applied to top-level attributes in this order:
//! 1. A destroy (null proposal) plans null; [`Resource::modify_plan`](crate::Resource::modify_plan)
//!    still runs and may only add diagnostics.
//! 2. A write-only attribute plans null (its value lives only in configuration).
//! 3. A computed attribute left null by configuration gets its default, if it has one.
//! 4. Semantic equality: when an attribute has one and its configured value means the same
//!    as the prior state's, the prior value is planned, so no change shows.
//! 5. On create, any other computed attribute left null by configuration becomes unknown.
//! 6. On update, if anything differs from the prior state, computed attributes left null by
//!    configuration and without a default become unknown, except that
//!    `use_state_for_unknown` keeps the prior value (even null) and
//!    `use_non_null_state_for_unknown` keeps a non-null prior value. An update that changes
//!    nothing plans the prior state unchanged.
//! 7. Attributes whose planned value differs from the prior state are reported as requiring
//!    replacement by their rule: `requires_replace` always, `requires_replace_if_configured`
//!    when set in configuration, `requires_replace_if` when its function agrees.
//! 8. The resource's own `modify_plan` hook runs last and may change anything computed and
//!    add requires-replace paths.

use tfwasm_model::{AttributePath, Value};

use crate::ResourceSchema;
use crate::schema::{ReplaceRequest, ReplaceRule, UnknownRule};

/// The plan being built, handed to [`Resource::modify_plan`](crate::Resource::modify_plan).
#[derive(Debug, Clone)]
pub struct PlanContext {
    /// Prior state; null on create.
    pub prior: Value,
    /// Configuration; null on destroy.
    pub config: Value,
    /// The planned state so far; modify it to change the plan. Null on destroy.
    pub planned: Value,
    /// Attributes whose change replaces the resource.
    pub requires_replace: Vec<AttributePath>,
}

impl PlanContext {
    /// True when the plan creates the object.
    pub fn is_create(&self) -> bool {
        self.prior.is_null()
    }
    /// True when the plan destroys the object.
    pub fn is_destroy(&self) -> bool {
        self.planned.is_null()
    }
    /// Marks `attribute` as forcing a replacement (once).
    pub fn require_replace(&mut self, path: AttributePath) {
        if !self.requires_replace.contains(&path) {
            self.requires_replace.push(path);
        }
    }
}

fn configured(config: &Value, name: &str) -> bool {
    !config.get(name).is_none_or(Value::is_null)
}

/// Applies rules 1–7 to a proposal.
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
        let name = attr.name.as_str();
        if attr.write_only {
            ctx.planned.set(name, Value::Null);
            continue;
        }
        let is_configured = configured(&ctx.config, name);
        if attr.computed && !is_configured {
            if let Some(default) = &behaviour.default {
                ctx.planned.set(name, default.clone());
            } else if create {
                ctx.planned.set(name, Value::unknown());
            }
        }
        if let Some(equal) = behaviour.semantic_equals {
            let prior = ctx.prior.get(name).unwrap_or(&Value::Null);
            let planned = ctx.planned.get(name).unwrap_or(&Value::Null);
            if !prior.is_null()
                && prior.is_wholly_known()
                && !planned.is_null()
                && planned.is_wholly_known()
                && prior != planned
                && equal(prior, planned)
            {
                let keep = prior.clone();
                ctx.planned.set(name, keep);
            }
        }
    }
    if create {
        return ctx;
    }
    if ctx.planned != ctx.prior {
        for (attr, behaviour) in schema.attributes() {
            let name = attr.name.as_str();
            if !attr.computed || configured(&ctx.config, name) || behaviour.default.is_some() {
                continue;
            }
            let prior = ctx.prior.get(name).cloned().unwrap_or(Value::Null);
            let planned = match behaviour.unknown {
                UnknownRule::Unknown => Value::unknown(),
                UnknownRule::UseState => prior,
                UnknownRule::UseNonNullState if !prior.is_null() => prior,
                UnknownRule::UseNonNullState => Value::unknown(),
            };
            ctx.planned.set(name, planned);
        }
    }
    for (attr, behaviour) in schema.attributes() {
        let name = attr.name.as_str();
        let null = Value::Null;
        let request = ReplaceRequest {
            prior: ctx.prior.get(name).unwrap_or(&null),
            config: ctx.config.get(name).unwrap_or(&null),
            planned: ctx.planned.get(name).unwrap_or(&null),
        };
        if request.planned == request.prior {
            continue;
        }
        let replace = match &behaviour.replace {
            ReplaceRule::Never => false,
            ReplaceRule::Always => true,
            ReplaceRule::IfConfigured => !request.config.is_null(),
            ReplaceRule::If(rule, _) => rule(&request),
        };
        if replace {
            ctx.require_replace(AttributePath::attribute(name));
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
    fn replace_rules_and_unknown_rules() {
        let schema = ResourceSchema::new()
            .attr(
                Attr::string("name")
                    .optional()
                    .requires_replace_if_configured(),
            )
            .attr(
                Attr::number("size")
                    .optional()
                    .requires_replace_if("when it shrinks", |r| {
                        r.planned.as_i64() < r.prior.as_i64()
                    }),
            )
            .attr(
                Attr::string("arn")
                    .computed()
                    .use_non_null_state_for_unknown(),
            )
            .attr(
                Attr::string("etag")
                    .computed()
                    .use_non_null_state_for_unknown(),
            )
            .attr(Attr::string("kept").computed().use_state_for_unknown())
            .attr(Attr::string("secret").optional().write_only());
        let prior = Value::object([
            ("name", Value::from("a")),
            ("size", 10.into()),
            ("arn", "arn:1".into()),
            ("etag", Value::Null),
            ("kept", Value::Null),
            ("secret", Value::Null),
        ]);
        // name unset in config: a change of the (optional) value does not replace.
        let config = prior
            .clone()
            .with("name", Value::Null)
            .with("size", 20)
            .with("arn", Value::Null)
            .with("secret", "pw");
        let plan = plan_defaults(&schema, prior.clone(), config.clone(), config.clone());
        assert!(
            plan.requires_replace.is_empty(),
            "{:?}",
            plan.requires_replace
        );
        assert_eq!(plan.planned.attr("arn"), &Value::from("arn:1"));
        assert_eq!(plan.planned.attr("etag"), &Value::unknown());
        assert_eq!(plan.planned.attr("kept"), &Value::Null);
        assert_eq!(
            plan.planned.attr("secret"),
            &Value::Null,
            "write-only plans null"
        );
        // Configured name change and a shrinking size replace.
        let config = config.with("name", "b").with("size", 5);
        let plan = plan_defaults(&schema, prior, config.clone(), config);
        assert_eq!(
            plan.requires_replace,
            vec![
                AttributePath::attribute("name"),
                AttributePath::attribute("size")
            ]
        );
    }

    #[test]
    fn semantic_equality_keeps_the_prior_value() {
        let schema = ResourceSchema::new().attr(
            Attr::string("doc")
                .required()
                .semantic_equals(crate::semantic::json),
        );
        let prior = Value::object([("doc", Value::from("{\"a\": 1}"))]);
        let config = Value::object([("doc", Value::from("{\"a\":1}"))]);
        let plan = plan_defaults(&schema, prior.clone(), config.clone(), config);
        assert_eq!(plan.planned, prior);
        let config = Value::object([("doc", Value::from("{\"a\":2}"))]);
        let plan = plan_defaults(&schema, prior, config.clone(), config.clone());
        assert_eq!(plan.planned, config);
    }

    #[test]
    fn destroy_plans_null() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let plan = plan_defaults(&schema(), prior, Value::Null, Value::Null);
        assert!(plan.planned.is_null());
    }
}
