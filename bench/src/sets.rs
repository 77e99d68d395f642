//! Planning at scale: a `policy_document` (the policy sample) with a set of N `statement`
//! blocks (5 attributes each, JSON compared by meaning on one), one statement changed, planned
//! and applied over tfplugin6 — through tfwasm and through the same provider code natively.
//! What Terraform would send is built here: the prior state from a real create, and a
//! proposal that keeps the prior computed values of every unchanged statement.

use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tfwasm_model::codec::msgpack;
use tfwasm_model::{Type, Value};
use tfwasm_sdk::Provider as _;
use tfwasm_wire::proto::tfplugin6 as pb;

use crate::plugin::{Launch, Plugin};

/// Medians of one provider at one size.
#[derive(Debug, Clone)]
pub struct SetTiming {
    /// Provider label.
    pub label: String,
    /// Statements in the set.
    pub statements: usize,
    /// PlanResourceChange with one statement changed.
    pub plan: Vec<Duration>,
    /// ApplyResourceChange of that plan.
    pub apply: Vec<Duration>,
}

fn policy_type() -> anyhow::Result<Type> {
    let resource = tfwasm_sample_policy::PolicyProvider
        .resources()
        .into_iter()
        .next()
        .context("policy_document")?;
    Ok(resource.schema().value_type())
}

fn statement(i: usize, changed: bool) -> Value {
    let actions = if changed {
        vec![Value::from("s3:PutObject")]
    } else {
        vec![Value::from("s3:GetObject"), Value::from("s3:ListBucket")]
    };
    Value::object([
        ("sid", Value::from(format!("s{i}"))),
        ("effect", Value::Null),
        ("actions", Value::Set(actions)),
        ("principals", Value::Null),
        ("condition", Value::from(format!("{{\"n\":{i}}}"))),
        ("fingerprint", Value::Null),
    ])
}

/// The configuration with `n` statements, statement `changed` (if any) different.
fn config(n: usize, changed: Option<usize>) -> Value {
    Value::object([
        ("name", Value::from("big")),
        ("tag", Value::Null),
        ("json", Value::Null),
        ("id", Value::Null),
        (
            "statement",
            Value::Set((0..n).map(|i| statement(i, Some(i) == changed)).collect()),
        ),
    ])
}

fn dv(value: &Value, ty: &Type) -> anyhow::Result<Option<pb::DynamicValue>> {
    Ok(Some(pb::DynamicValue {
        msgpack: msgpack::encode(value, ty)?,
        json: Vec::new(),
    }))
}

fn decode(value: &Option<pb::DynamicValue>, ty: &Type) -> anyhow::Result<Value> {
    Ok(msgpack::decode(
        &value.as_ref().context("no value")?.msgpack,
        ty,
    )?)
}

fn failed(what: &str, diagnostics: &[pb::Diagnostic]) -> anyhow::Result<()> {
    if let Some(d) = diagnostics.first() {
        bail!("{what}: {} {}", d.summary, d.detail);
    }
    Ok(())
}

/// Plans and applies a one-statement change to a set of each of `sizes`, `runs` times, for
/// each launch (the policy component through tfwasm, and natively).
pub async fn set_scaling(
    launches: &[Launch],
    sizes: &[usize],
    runs: usize,
) -> anyhow::Result<Vec<SetTiming>> {
    let ty = policy_type()?;
    let mut out = Vec::new();
    for &n in sizes {
        for launch in launches {
            let plugin = Plugin::start(launch)?;
            let mut client = plugin.configured_client().await?;
            // The prior state: a real create.
            let first = config(n, None);
            let plan = client
                .plan_resource_change(pb::plan_resource_change::Request {
                    type_name: "policy_document".into(),
                    prior_state: dv(&Value::Null, &ty)?,
                    proposed_new_state: dv(&first, &ty)?,
                    config: dv(&first, &ty)?,
                    ..Default::default()
                })
                .await?
                .into_inner();
            failed("create plan", &plan.diagnostics)?;
            let created = client
                .apply_resource_change(pb::apply_resource_change::Request {
                    type_name: "policy_document".into(),
                    prior_state: dv(&Value::Null, &ty)?,
                    planned_state: plan.planned_state,
                    config: dv(&first, &ty)?,
                    ..Default::default()
                })
                .await?
                .into_inner();
            failed("create", &created.diagnostics)?;
            let prior = decode(&created.new_state, &ty)?;

            // Terraform's proposal: the prior state with the middle statement as configured.
            let changed = n / 2;
            let second = config(n, Some(changed));
            let mut proposed = prior.clone();
            if let Some(Value::Set(items)) = proposed.get_mut("statement") {
                for item in items.iter_mut() {
                    if item.get("sid") == Some(&Value::from(format!("s{changed}"))) {
                        *item = statement(changed, true);
                    }
                }
            }
            let plan_req = pb::plan_resource_change::Request {
                type_name: "policy_document".into(),
                prior_state: created.new_state.clone(),
                proposed_new_state: dv(&proposed, &ty)?,
                config: dv(&second, &ty)?,
                ..Default::default()
            };
            let mut timing = SetTiming {
                label: launch.label.clone(),
                statements: n,
                plan: Vec::new(),
                apply: Vec::new(),
            };
            for run in 0..=runs {
                let t = Instant::now();
                let planned = client
                    .plan_resource_change(plan_req.clone())
                    .await?
                    .into_inner();
                let plan_time = t.elapsed();
                failed("plan", &planned.diagnostics)?;
                let t = Instant::now();
                let applied = client
                    .apply_resource_change(pb::apply_resource_change::Request {
                        type_name: "policy_document".into(),
                        prior_state: created.new_state.clone(),
                        planned_state: planned.planned_state,
                        config: dv(&second, &ty)?,
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                let apply_time = t.elapsed();
                failed("apply", &applied.diagnostics)?;
                // Run 0 warms up.
                if run > 0 {
                    timing.plan.push(plan_time);
                    timing.apply.push(apply_time);
                }
            }
            out.push(timing);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workload follows the policy sample's schema as it changes.
    #[test]
    fn the_configuration_fits_the_policy_schema() {
        let ty = policy_type().unwrap();
        dv(&config(3, Some(1)), &ty).unwrap();
    }
}
