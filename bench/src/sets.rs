//! Planning at scale: a resource with a set of N nested blocks, one block changed, planned
//! and applied over tfplugin6. Two workloads: the policy sample's `policy_document` (its
//! `statement` blocks carry a JSON attribute compared by meaning and are matched across plans
//! by `sid`; through tfwasm and natively), and `blocks_firewall` of bench/outside-blocks, a
//! crate written outside this workspace as an author would (five plain attributes per block).
//! What Terraform would send is built here: the prior state from a real create, and a
//! proposal that keeps the prior computed values of every unchanged block.

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
    /// Blocks in the set.
    pub statements: usize,
    /// PlanResourceChange with one block changed.
    pub plan: Vec<Duration>,
    /// ApplyResourceChange of that plan.
    pub apply: Vec<Duration>,
}

/// A resource with a set of blocks, and how to configure it with N of them.
pub struct Workload {
    type_name: &'static str,
    /// The set attribute.
    set: &'static str,
    /// The block attribute that tells blocks apart (Terraform's proposal keeps the prior
    /// value of every block the configuration did not change).
    key: &'static str,
    ty: Type,
    /// Block `i`, changed or as first created.
    block: fn(usize, bool) -> Value,
    /// The resource's configuration around its set of blocks.
    resource: fn(Value) -> Value,
}

impl Workload {
    /// The policy sample's `policy_document` and its `statement` blocks.
    pub fn policy() -> anyhow::Result<Workload> {
        let resource = tfwasm_sample_policy::PolicyProvider
            .resources()
            .into_iter()
            .next()
            .context("policy_document")?;
        Ok(Workload {
            type_name: "policy_document",
            set: "statement",
            key: "sid",
            ty: resource.schema().value_type(),
            block: statement,
            resource: |statements| {
                Value::object([
                    ("name", Value::from("big")),
                    ("tag", Value::Null),
                    ("json", Value::Null),
                    ("id", Value::Null),
                    ("statement", statements),
                ])
            },
        })
    }

    /// bench/outside-blocks' `blocks_firewall` and its `rule` blocks. Its type is written
    /// out here, as the crate is outside the workspace: a mismatch fails the first call.
    pub fn outside_blocks() -> Workload {
        let object = |attrs: &[(&str, Type)]| {
            Type::Object(
                attrs
                    .iter()
                    .map(|(name, ty)| ((*name).to_owned(), ty.clone()))
                    .collect(),
            )
        };
        let rule = object(&[
            ("name", Type::String),
            ("port", Type::Number),
            ("protocol", Type::String),
            ("cidr", Type::String),
            ("description", Type::String),
        ]);
        Workload {
            type_name: "blocks_firewall",
            set: "rule",
            key: "name",
            ty: object(&[
                ("name", Type::String),
                ("id", Type::String),
                ("rule", Type::Set(Box::new(rule))),
            ]),
            block: |i, changed| {
                Value::object([
                    ("name", Value::from(format!("r{i}"))),
                    ("port", Value::from(if changed { 8443 } else { 443 })),
                    ("protocol", Value::Null),
                    (
                        "cidr",
                        Value::from(format!("10.{}.{}.0/24", i / 256 % 256, i % 256)),
                    ),
                    ("description", Value::Null),
                ])
            },
            resource: |rules| {
                Value::object([
                    ("name", Value::from("big")),
                    ("id", Value::Null),
                    ("rule", rules),
                ])
            },
        }
    }

    /// The configuration with `n` blocks, block `changed` (if any) different.
    fn config(&self, n: usize, changed: Option<usize>) -> Value {
        (self.resource)(Value::Set(
            (0..n)
                .map(|i| (self.block)(i, Some(i) == changed))
                .collect(),
        ))
    }
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

/// Plans and applies a one-block change to a set of each of `sizes`, `runs` times, for each
/// launch of the workload's provider.
pub async fn set_scaling(
    workload: &Workload,
    launches: &[Launch],
    sizes: &[usize],
    runs: usize,
) -> anyhow::Result<Vec<SetTiming>> {
    let ty = &workload.ty;
    let type_name = workload.type_name;
    let mut out = Vec::new();
    for &n in sizes {
        for launch in launches {
            let plugin = Plugin::start(launch)?;
            let mut client = plugin.configured_client().await?;
            // The prior state: a real create.
            let first = workload.config(n, None);
            let plan = client
                .plan_resource_change(pb::plan_resource_change::Request {
                    type_name: type_name.into(),
                    prior_state: dv(&Value::Null, ty)?,
                    proposed_new_state: dv(&first, ty)?,
                    config: dv(&first, ty)?,
                    ..Default::default()
                })
                .await?
                .into_inner();
            failed("create plan", &plan.diagnostics)?;
            let created = client
                .apply_resource_change(pb::apply_resource_change::Request {
                    type_name: type_name.into(),
                    prior_state: dv(&Value::Null, ty)?,
                    planned_state: plan.planned_state,
                    config: dv(&first, ty)?,
                    ..Default::default()
                })
                .await?
                .into_inner();
            failed("create", &created.diagnostics)?;
            let prior = decode(&created.new_state, ty)?;

            // Terraform's proposal: the prior state with the middle block as configured.
            let changed = n / 2;
            let second = workload.config(n, Some(changed));
            let mut proposed = prior.clone();
            let changed_block = (workload.block)(changed, true);
            let key = changed_block.get(workload.key).cloned();
            if let Some(Value::Set(items)) = proposed.get_mut(workload.set) {
                for item in items.iter_mut() {
                    if item.get(workload.key) == key.as_ref() {
                        *item = changed_block.clone();
                    }
                }
            }
            let plan_req = pb::plan_resource_change::Request {
                type_name: type_name.into(),
                prior_state: created.new_state.clone(),
                proposed_new_state: dv(&proposed, ty)?,
                config: dv(&second, ty)?,
                ..Default::default()
            };
            let mut timing = SetTiming {
                label: launch.label.clone(),
                statements: n,
                plan: Vec::new(),
                apply: Vec::new(),
            };
            let second_config = dv(&second, ty)?;
            for run in 0..=runs {
                let request = plan_req.clone();
                let t = Instant::now();
                let planned = client.plan_resource_change(request).await?.into_inner();
                let plan_time = t.elapsed();
                failed("plan", &planned.diagnostics)?;
                let request = pb::apply_resource_change::Request {
                    type_name: type_name.into(),
                    prior_state: created.new_state.clone(),
                    planned_state: planned.planned_state,
                    config: second_config.clone(),
                    ..Default::default()
                };
                let t = Instant::now();
                let applied = client.apply_resource_change(request).await?.into_inner();
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
        let policy = Workload::policy().unwrap();
        dv(&policy.config(3, Some(1)), &policy.ty).unwrap();
    }

    /// The outside crate's blocks and resource, as built here, fit the type written out for
    /// them (a drift from the crate itself fails `make bench`'s first call, naming it).
    #[test]
    fn the_outside_blocks_configuration_fits_its_type() {
        let blocks = Workload::outside_blocks();
        dv(&blocks.config(3, Some(1)), &blocks.ty).unwrap();
    }
}
