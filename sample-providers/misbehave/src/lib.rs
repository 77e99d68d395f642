//! # tfwasm-sample-misbehave
//!
//! A provider that breaks one lifecycle contract on demand (see README.md for the rules).
//! Most rules go through `tfwasm-sdk`; the ones that need bytes the SDK would refuse to
//! encode (wrong types, a non-null delete) tamper with the SDK's raw responses through the
//! export hook in `export.rs`.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::one_of;

/// Every rule the resource can break, plus `none`.
pub const RULES: &[&str] = &[
    "none",
    "plan_config_changed",
    "plan_non_computed_set",
    "plan_unknown_configured",
    "plan_block_count",
    "plan_block_unknown",
    "plan_bad_replace_path",
    "plan_wrong_type",
    "apply_changed",
    "apply_unknown",
    "apply_null",
    "apply_block_count",
    "apply_wrong_type",
    "apply_delete_non_null",
    "read_unknown",
    "import_unknown",
    "import_no_type",
    "upgrade_unknown",
    "plan_destroy_non_null",
    "generate_computed",
    "plan_choice",
];

/// Rules of the data source `misbehave_data`.
pub const DATA_RULES: &[&str] = &["none", "data_null", "data_unknown"];

/// The provider.
pub struct Misbehave;

impl Provider for Misbehave {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing), Box::new(Status)]
    }
    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        vec![Box::new(Data)]
    }
}

/// `misbehave_status`: breaks nothing; a computed block (tfplugin6.11) that the
/// configuration leaves out, which the SDK plans unknown on create for a client that takes
/// that (Terraform >= 1.16) and this resource fills at apply. An older client gets it null.
struct Status;

impl Resource for Status {
    fn type_name(&self) -> &'static str {
        "misbehave_status"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A computed block the provider fills (tfplugin6.11).")
            .attr(Attr::string("name").required().description("Any text."))
            .attr(Attr::string("id").computed().use_state_for_unknown())
            .block(
                Block::single(
                    "status",
                    ResourceSchema::new()
                        .description("Filled by the provider when the configuration leaves it out.")
                        .attr(Attr::string("phase").computed()),
                )
                .computed(),
            )
    }

    fn create(&self, _: &Context, planned: &Value, _: &Value) -> Result<Value, Diagnostic> {
        let mut state = planned.clone().with("id", "status-1");
        if state.attr("status").is_unknown() {
            state.set("status", Value::object([("phase", Value::from("ready"))]));
        }
        Ok(state)
    }

    fn update(
        &self,
        _: &Context,
        _: &Value,
        planned: &Value,
        _: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }

    fn read(&self, _: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        Ok(Some(state.clone()))
    }

    fn delete(&self, _: &Context, _: &Value) -> Result<(), Diagnostic> {
        Ok(())
    }
}

/// `misbehave_data`: reads `rule` and returns `result`, breaking the rule it names.
struct Data;

impl DataSource for Data {
    fn type_name(&self) -> &'static str {
        "misbehave_data"
    }
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(
                Attr::string("rule")
                    .required()
                    .validate(one_of(DATA_RULES))
                    .description("none, data_null or data_unknown."),
            )
            .attr(Attr::string("result").computed())
    }
    fn read(&self, _ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        Ok(match rule_of(config).as_str() {
            "data_null" => Value::Null,
            "data_unknown" => config.clone().with("result", Value::unknown()),
            _ => config.clone().with("result", "read"),
        })
    }
}

pub(crate) struct Thing;

/// The `item` list block: `v` (optional) and `c` (computed).
fn item_block() -> Block {
    Block::list(
        "item",
        ResourceSchema::new()
            .attr(Attr::string("v").optional())
            .attr(Attr::string("c").computed()),
    )
}

/// `planned` with each item's computed `c` (planned unknown) filled in, as a well-behaved
/// apply does.
fn filled(planned: &Value) -> Value {
    let mut state = planned.clone();
    if let Some(Value::List(items)) = state.get_mut("item") {
        for item in items {
            if item.attr("c").is_unknown() {
                let c = format!("c-{}", item.attr("v").as_str().unwrap_or_default());
                item.set("c", c.into());
            }
        }
    }
    state
}

pub(crate) fn rule_of(value: &Value) -> String {
    value.get_string("rule").ok().flatten().unwrap_or_default()
}

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "misbehave_thing"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("Breaks the lifecycle contract named by `rule`.")
            .attr(
                Attr::string("rule")
                    .required()
                    .requires_replace()
                    .validate(one_of(RULES))
                    .description("Which rule to break, or \"none\"."),
            )
            .attr(Attr::string("name").optional().description("Any text."))
            .attr(
                Attr::string("opt")
                    .optional()
                    .description("Optional and not computed."),
            )
            .attr(Attr::string("id").computed().use_state_for_unknown())
            .attr(Attr::string("result").computed())
            .block(item_block())
    }

    fn modify_plan(&self, ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        let name = plan.planned.attr("name").clone();
        match rule_of(&plan.planned).as_str() {
            // Not a broken rule: a value chosen at plan time (a time-based nonce), planned the
            // same way again when Terraform plans during apply and sends the saved plan's
            // private state back (tfplugin6.11); without it the two plans differ.
            "plan_choice" if plan.is_create() => {
                let choice = (ctx.saved_plan_private("choice"))
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| {
                        let nanos = std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |d| d.as_nanos());
                        format!("chosen-{nanos}")
                    });
                ctx.set_private("choice", Some(serde_json::Value::String(choice.clone())))?;
                plan.planned.set("result", choice.into());
            }
            "plan_config_changed" => {
                let changed = format!("{}-changed", name.as_str().unwrap_or(""));
                plan.planned.set("name", changed.into());
            }
            "plan_non_computed_set" => {
                plan.planned.set("opt", "surprise".into());
            }
            "plan_unknown_configured" => {
                plan.planned.set("name", Value::unknown());
            }
            "plan_block_count" => {
                if let Some(Value::List(items)) = plan.planned.get_mut("item") {
                    items.pop();
                }
            }
            "plan_block_unknown" => {
                if let Some(Value::List(items)) = plan.planned.get_mut("item")
                    && let Some(first) = items.first_mut()
                {
                    *first = Value::unknown();
                }
            }
            "plan_bad_replace_path" if !plan.is_create() => {
                plan.requires_replace.push(AttributePath::attribute("nope"));
            }
            _ => {}
        }
        Ok(())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let rule = rule_of(planned);
        let mut state = filled(planned).with("id", "thing-1").with("result", "done");
        match rule.as_str() {
            "plan_choice" => {
                state.set("result", planned.attr("result").clone());
            }
            "apply_changed" => {
                let changed = format!("{}-changed", planned.attr("name").as_str().unwrap_or(""));
                state.set("name", changed.into());
            }
            "apply_unknown" => {
                state.set("result", Value::unknown());
            }
            "apply_null" => return Ok(Value::Null),
            "apply_block_count" => {
                if let Some(Value::List(items)) = state.get_mut("item") {
                    items.push(Value::object([
                        ("v", Value::from("extra")),
                        ("c", Value::Null),
                    ]));
                }
            }
            _ => {}
        }
        Ok(state)
    }

    fn update(
        &self,
        _ctx: &Context,
        _prior: &Value,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(filled(planned).with("result", "updated"))
    }

    fn read(&self, _ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        if rule_of(state) == "read_unknown" {
            return Ok(Some(state.clone().with("result", Value::unknown())));
        }
        Ok(Some(state.clone()))
    }

    fn generate_config(&self, _ctx: &Context, state: &Value) -> Result<Value, Diagnostic> {
        if rule_of(state) == "generate_computed" {
            // The whole state, computed-only `id` and `result` included.
            return Ok(state.clone());
        }
        Ok(tfwasm_sdk::config_generation::config_from_state(
            &self.schema(),
            state,
        ))
    }

    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        let mut state = self.schema().null_object();
        state.set("rule", id.into());
        state.set("id", id.into());
        state.set("item", Value::List(Vec::new()));
        state.set(
            "result",
            if id == "import_unknown" {
                Value::unknown()
            } else {
                "imported".into()
            },
        );
        Ok(state)
    }
}

// Only the component calls the hook; native builds (unit tests) never do.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod export;

tfwasm_sdk::export_provider!(Misbehave, hook = export::Tamper);
