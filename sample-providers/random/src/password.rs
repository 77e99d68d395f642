//! `random_password`: `random_string` for secrets. The result is sensitive and comes with a
//! bcrypt hash of itself.
//!
//! Schema version 3, as hashicorp/random's: stored state of versions 0, 1 and 2 is upgraded
//! straight to 3 by one upgrader each, reading the old state through its own schema:
//! - v0 had neither `bcrypt_hash` nor `numeric`;
//! - v1 added `bcrypt_hash`;
//! - v2 added `numeric` (the deprecated `number` stays, kept equal to it);
//! - v3 makes sure `bcrypt_hash` really is a hash of `result` (releases writing v2 could store
//!   a wrong one).
//!
//! Upgraders never leave an attribute null that the current schema defaults (older states may
//! hold nulls there), so a plan after the upgrade shows no change.

use std::collections::BTreeMap;

use tfwasm_sdk::prelude::*;

use crate::keepers;
use crate::rng::Rng;
use crate::string::{Params, generation_attrs};

pub(crate) struct RandomPassword;

/// The bcrypt cost hashicorp/random uses (Go's `bcrypt.DefaultCost`).
pub(crate) const BCRYPT_COST: u32 = 10;

/// The state of a `random_password`, as a model.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct State {
    keepers: Option<BTreeMap<String, String>>,
    length: i64,
    special: bool,
    upper: bool,
    lower: bool,
    numeric: bool,
    number: bool,
    min_numeric: i64,
    min_upper: i64,
    min_lower: i64,
    min_special: i64,
    override_special: Option<String>,
    result: String,
    bcrypt_hash: String,
    id: String,
}

/// The generated password, as the resource and the ephemeral resource return it.
pub(crate) fn result() -> Attr {
    Attr::string("result")
        .computed()
        .sensitive()
        .description("The generated password.")
}

/// Its bcrypt hash.
pub(crate) fn bcrypt_hash_attr() -> Attr {
    Attr::string("bcrypt_hash")
        .computed()
        .sensitive()
        .description("A bcrypt hash of the generated password.")
}

pub(crate) fn bcrypt_hash(password: &str) -> Result<String, Diagnostic> {
    bcrypt::hash(password, BCRYPT_COST)
        .map_err(|e| Diagnostic::error("Unable to hash the password", e.to_string()))
}

impl Resource for RandomPassword {
    fn type_name(&self) -> &'static str {
        "random_password"
    }

    fn schema(&self) -> ResourceSchema {
        generation_attrs(
            ResourceSchema::new()
                .version(3)
                .markdown_description(
                    "Identical to `random_string`, except that the result is treated as sensitive and a bcrypt hash of it is available as `bcrypt_hash`.",
                )
                .attr(keepers()),
        )
        .attr(
            Attr::bool("numeric")
                .optional()
                .computed()
                .requires_replace()
                .description("Include digits in the result. Default true."),
        )
        .attr(
            Attr::bool("number")
                .optional()
                .computed()
                .requires_replace()
                .deprecated("Use numeric instead; number will be removed in a later version.")
                .description("Include digits in the result. Default true."),
        )
        .attr(result())
        .attr(bcrypt_hash_attr())
        .attr(
            Attr::string("id")
                .computed()
                .description("A static value used internally by Terraform; always \"none\"."),
        )
    }

    fn validate(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        let (number, numeric) = (config.attr("number"), config.attr("numeric"));
        if number.is_wholly_known()
            && numeric.is_wholly_known()
            && !number.is_null()
            && !numeric.is_null()
            && number != numeric
        {
            return vec![
                Diagnostic::error(
                    "Conflicting number and numeric",
                    "number is a deprecated name for numeric; when both are set they must be equal.",
                )
                .at(AttributePath::attribute("number")),
            ];
        }
        Vec::new()
    }

    /// `number` and `numeric` are one setting under two names: whichever is configured
    /// decides both, and both default to true.
    fn modify_plan(&self, _ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        if plan.is_destroy() {
            return Ok(());
        }
        let configured = |name: &str| {
            let v = plan.config.attr(name);
            (!v.is_null()).then(|| v.clone())
        };
        let value = configured("numeric")
            .or_else(|| configured("number"))
            .unwrap_or(Value::Bool(true));
        plan.planned.set("numeric", value.clone());
        plan.planned.set("number", value);
        Ok(())
    }

    fn create(&self, ctx: &Context, planned: &Value, _config: &Value) -> Result<Value, Diagnostic> {
        let params = Params::from(planned)?;
        let result = params.generate(&mut Rng::secure())?;
        // A new secret the SDK has not seen yet: mask it before anything might log it.
        // (Values of sensitive attributes in requests are masked by the SDK itself.)
        tfwasm_sdk::log::mask(&result);
        tfwasm_sdk::log::debug(
            "generated random_password",
            &[("length", &params.length.to_string()), ("result", &result)],
        );
        let hash = bcrypt_hash(&result)?;
        let state = planned
            .clone()
            .with("result", result)
            .with("bcrypt_hash", hash)
            .with("id", "none");
        // Remember which cost the hash was made with, for a later cost change.
        ctx.set_private("bcrypt_cost", Some(BCRYPT_COST.into()))?;
        Ok(state)
    }

    /// The import ID is the password itself; the other attributes take their defaults.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        if id.is_empty() {
            return Err(Diagnostic::error(
                "Invalid import ID",
                "The import ID of random_password is the password itself; it must not be empty.",
            ));
        }
        let state = State {
            keepers: None,
            length: id.chars().count() as i64,
            special: true,
            upper: true,
            lower: true,
            numeric: true,
            number: true,
            min_numeric: 0,
            min_upper: 0,
            min_lower: 0,
            min_special: 0,
            override_special: None,
            result: id.to_owned(),
            bcrypt_hash: bcrypt_hash(id)?,
            id: "none".to_owned(),
        };
        self.schema().encode(&state)
    }

    /// A `moved` block from a `random_string` keeps its value (see [`crate::moves`]).
    fn movers(&self) -> Vec<StateMover> {
        vec![crate::moves::from_string()]
    }

    fn upgraders(&self) -> BTreeMap<i64, StateUpgrader> {
        BTreeMap::from([
            (0, StateUpgrader::with_prior_schema(schema_v0(), upgrade)),
            (1, StateUpgrader::with_prior_schema(schema_v1(), upgrade)),
            (2, StateUpgrader::with_prior_schema(schema_v2(), upgrade)),
        ])
    }
}

/// Any older state, read through its own schema, to version 3.
fn upgrade(_ctx: &Context, prior: &PriorState) -> Result<Value, Diagnostic> {
    let old: OldState = RandomPassword.schema().decode(&prior.value)?;
    let result = old.result.ok_or_else(|| {
        Diagnostic::error(
            "Unable to upgrade random_password",
            "The stored state has no result; remove it from state and create the password again.",
        )
        .at(AttributePath::attribute("result"))
    })?;
    // Versions before 2 have only `number`; later ones have both.
    let numeric = old.numeric.or(old.number).unwrap_or(true);
    let bcrypt_hash = match old.bcrypt_hash {
        Some(hash) if bcrypt::verify(&result, &hash).unwrap_or(false) => hash,
        _ => bcrypt_hash(&result)?,
    };
    let state = State {
        keepers: old.keepers,
        length: old.length.unwrap_or_else(|| result.chars().count() as i64),
        special: old.special.unwrap_or(true),
        upper: old.upper.unwrap_or(true),
        lower: old.lower.unwrap_or(true),
        numeric,
        number: numeric,
        min_numeric: old.min_numeric.unwrap_or(0),
        min_upper: old.min_upper.unwrap_or(0),
        min_lower: old.min_lower.unwrap_or(0),
        min_special: old.min_special.unwrap_or(0),
        override_special: old.override_special,
        result,
        bcrypt_hash,
        id: old.id.unwrap_or_else(|| "none".to_owned()),
    };
    RandomPassword.schema().encode(&state)
}

/// Any of versions 0–2, with the attributes a version lacks read as null.
#[derive(Debug, Deserialize)]
struct OldState {
    keepers: Option<BTreeMap<String, String>>,
    length: Option<i64>,
    special: Option<bool>,
    upper: Option<bool>,
    lower: Option<bool>,
    number: Option<bool>,
    #[serde(default)]
    numeric: Option<bool>,
    min_numeric: Option<i64>,
    min_upper: Option<i64>,
    min_lower: Option<i64>,
    min_special: Option<i64>,
    override_special: Option<String>,
    result: Option<String>,
    #[serde(default)]
    bcrypt_hash: Option<String>,
    id: Option<String>,
}

/// Version 0 (hashicorp/random before 3.3): no `bcrypt_hash`, no `numeric`.
fn schema_v0() -> ResourceSchema {
    let flag = |name: &str| Attr::bool(name).optional().computed();
    let count = |name: &str| Attr::number(name).optional().computed();
    ResourceSchema::new()
        .attr(Attr::map("keepers", Type::String).optional())
        .attr(Attr::number("length").required())
        .attr(flag("special"))
        .attr(flag("upper"))
        .attr(flag("lower"))
        .attr(flag("number"))
        .attr(count("min_numeric"))
        .attr(count("min_upper"))
        .attr(count("min_lower"))
        .attr(count("min_special"))
        .attr(Attr::string("override_special").optional())
        .attr(Attr::string("result").computed().sensitive())
        .attr(Attr::string("id").computed())
}

/// Version 1 (hashicorp/random 3.3): adds `bcrypt_hash`.
fn schema_v1() -> ResourceSchema {
    schema_v0().attr(Attr::string("bcrypt_hash").computed().sensitive())
}

/// Version 2 (hashicorp/random 3.4.0–3.4.2): adds `numeric`.
fn schema_v2() -> ResourceSchema {
    schema_v1().attr(Attr::bool("numeric").optional().computed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prior_schemas_are_valid() {
        for schema in [
            schema_v0(),
            schema_v1(),
            schema_v2(),
            RandomPassword.schema(),
        ] {
            assert_eq!(tfwasm_sdk::schema::check(&schema), Vec::<String>::new());
        }
    }
}
