//! The traits a provider author implements.

use tfwasm_model::{Diagnostic, Diagnostics, Type, Value};

use crate::{PlanContext, ResourceSchema};

/// What every call knows besides its own request.
#[derive(Debug, Clone)]
pub struct Context {
    /// Version of the calling Terraform/OpenTofu (empty before ConfigureProvider).
    pub terraform_version: String,
    /// The provider configuration (decoded against [`Provider::schema`]); null before
    /// ConfigureProvider and for providers without configuration.
    pub provider_config: Value,
    /// The resource's value type, during apply (for [`Context::report_state`]).
    pub(crate) state_type: Option<Type>,
}

impl Context {
    /// During create/update: tells the host the remote object now exists with `state`
    /// (complete and wholly known). If anything fails afterwards, even a crash or an
    /// exhausted limit, Terraform still records the object (tainted on create) with this
    /// state instead of losing it. Call it as soon as the object exists.
    ///
    /// # Errors
    /// Outside apply, or when `state` does not fit the schema.
    pub fn report_state(&self, state: &Value) -> Result<(), Diagnostic> {
        let ty = self.state_type.as_ref().ok_or_else(|| {
            Diagnostic::error(
                "report_state outside apply",
                "Context::report_state only works during create and update.",
            )
        })?;
        let bytes = tfwasm_model::codec::msgpack::encode(state, ty).map_err(|e| {
            Diagnostic::error(
                "Invalid reported state",
                format!("{e}; this is a bug in the provider."),
            )
            .at(e.path.clone())
        })?;
        crate::bindings::tfwasm::provider::progress::report_state(&bytes);
        LAST_REPORTED.with(|slot| *slot.borrow_mut() = Some(bytes));
        Ok(())
    }
}

thread_local! {
    /// The last state reported in this call, for the SDK's own error path.
    pub(crate) static LAST_REPORTED: std::cell::RefCell<Option<Vec<u8>>> = const { std::cell::RefCell::new(None) };
}

/// A provider: its configuration schema and what it offers.
pub trait Provider: Send + Sync + 'static {
    /// Schema of the `provider` block. Defaults to an empty block.
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
    }
    /// Checks the provider configuration (may contain unknowns).
    fn validate_config(&self, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// Checks a configuration before it is used for every later call; returning errors
    /// fails ConfigureProvider.
    fn configure(&self, _ctx: &Context) -> Diagnostics {
        Vec::new()
    }
    /// The managed resource types.
    fn resources(&self) -> Vec<Box<dyn Resource>>;
    /// The data source types.
    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        Vec::new()
    }
}

/// A managed resource type.
///
/// Values passed in and returned are objects of the schema's type; build results by
/// modifying the planned value (`planned.clone().with("id", ...)`) so every attribute is
/// present.
pub trait Resource: Send + Sync {
    /// Full type name, e.g. `random_string`.
    fn type_name(&self) -> &'static str;
    /// The schema.
    fn schema(&self) -> ResourceSchema;

    /// Checks configuration beyond what the schema says (may contain unknowns).
    fn validate(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }

    /// Adjusts the plan after the SDK applied defaults, unknowns and requires-replace.
    fn modify_plan(&self, _ctx: &Context, _plan: &mut PlanContext) -> Result<(), Diagnostic> {
        Ok(())
    }

    /// Creates the remote object from the planned value and returns the new state.
    fn create(&self, ctx: &Context, planned: &Value, config: &Value) -> Result<Value, Diagnostic>;

    /// Reads the remote object; `None` means it is gone and Terraform will plan to recreate it.
    fn read(&self, _ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        Ok(Some(state.clone()))
    }

    /// Updates in place. The default refuses, which suits resources whose every configurable
    /// attribute requires replacement.
    fn update(
        &self,
        _ctx: &Context,
        _prior: &Value,
        _planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Err(Diagnostic::error(
            format!("{} cannot be updated in place", self.type_name()),
            "This resource type does not support in-place updates; this is a bug in the provider, which should have planned a replacement.",
        ))
    }

    /// Deletes the remote object.
    fn delete(&self, _ctx: &Context, _prior: &Value) -> Result<(), Diagnostic> {
        Ok(())
    }

    /// Builds the state of an existing object from an import ID.
    fn import(&self, _ctx: &Context, _id: &str) -> Result<Value, Diagnostic> {
        Err(Diagnostic::error(
            format!("{} does not support import", self.type_name()),
            "This resource type cannot be imported.",
        ))
    }

    /// Converts state stored with an older schema `version` (as the state file's JSON) to the
    /// current schema. State at the current version is decoded directly and never reaches this.
    fn upgrade(
        &self,
        _ctx: &Context,
        version: i64,
        _raw_state: &serde_json::Value,
    ) -> Result<Value, Diagnostic> {
        Err(Diagnostic::error(
            "Unable to upgrade resource state",
            format!(
                "{} has no upgrader from schema version {version} to {}.",
                self.type_name(),
                self.schema().version
            ),
        ))
    }
}

/// A data source type.
pub trait DataSource: Send + Sync {
    /// Full type name, e.g. `random_thing`.
    fn type_name(&self) -> &'static str;
    /// The schema.
    fn schema(&self) -> ResourceSchema;
    /// Checks configuration (may contain unknowns).
    fn validate(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// Reads the data: returns the config object with computed attributes filled in.
    fn read(&self, ctx: &Context, config: &Value) -> Result<Value, Diagnostic>;
}
