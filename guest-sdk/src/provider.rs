//! The traits a provider author implements.

use std::cell::RefCell;
use std::collections::BTreeMap;

use tfwasm_model::rpc::{ClientCapabilities, DeferredReason};
use tfwasm_model::{Diagnostic, Diagnostics, Type, Value};

use crate::{PlanContext, ResourceSchema};

/// What every call knows besides its own request.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Version of the calling Terraform/OpenTofu (empty before ConfigureProvider).
    pub terraform_version: String,
    /// The provider configuration (decoded against [`Provider::schema`]); null before
    /// ConfigureProvider and for providers without configuration. The host delivers it to
    /// every call, in every instance, so whatever `configure` accepted is available here.
    pub provider_config: Value,
    /// The resource's value type, during apply (for [`Context::report_state`]): shared, not
    /// copied per apply (a type is a tree of its names).
    pub(crate) state_type: Option<std::sync::Arc<Type>>,
    /// The resource's private state, during read, plan and apply.
    pub(crate) private: RefCell<BTreeMap<String, serde_json::Value>>,
    /// The calling module's `provider_meta` block (decoded against
    /// [`Provider::meta_schema`]) during read, plan, apply and data source reads; null when
    /// the provider declares no meta schema or the module sets none.
    pub provider_meta: Value,
    /// What the client supports for this call (ConfigureProvider's announcement, or the
    /// call's own for read, plan, import, data source reads and ephemeral opens).
    pub client: ClientCapabilities,
    /// During the plan Terraform makes again at apply time: the private state the first
    /// plan produced (clients announcing `store_planned_private`, tfplugin6.11).
    pub(crate) saved_plan_private: BTreeMap<String, serde_json::Value>,
}

/// What `configure` would build from the provider configuration and every resource needs:
/// an API client with its base URL, credentials and headers (the framework's
/// `ProviderData`). [`Context::provider_data`] builds it from the configuration the call
/// carries and keeps it for the instance's later calls with the same configuration, so it is
/// built once per instance, not per call, and never outlives the configuration it came from.
pub trait ProviderData: Send + Sync + Sized + 'static {
    /// Builds it from the provider configuration (`ctx.provider_config`, or
    /// [`Context::provider_config_as`]).
    ///
    /// # Errors
    /// The configuration cannot make one (say what to set, at which attribute).
    fn from_config(ctx: &Context) -> Result<Self, Diagnostic>;
}

/// The provider data built in this instance, by type, with the configuration it came from.
type DataSlot = (Value, std::sync::Arc<dyn std::any::Any + Send + Sync>);

thread_local! {
    static PROVIDER_DATA: RefCell<BTreeMap<std::any::TypeId, DataSlot>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// Why private state could not be set.
fn reserved(key: &str) -> Diagnostic {
    Diagnostic::error(
        "Invalid private state key",
        format!(
            "Private state key {key:?} is reserved: keys must not be empty or start with \".\"."
        ),
    )
}

impl Context {
    /// The provider's shared data for this call (see [`ProviderData`]): built from the
    /// configuration on first use in this instance, then reused while the configuration
    /// stays the same. `let api = ctx.provider_data::<Api>()?;` in every resource.
    ///
    /// # Errors
    /// What [`ProviderData::from_config`] says.
    pub fn provider_data<T: ProviderData>(&self) -> Result<std::sync::Arc<T>, Diagnostic> {
        let key = std::any::TypeId::of::<T>();
        let kept = PROVIDER_DATA.with(|slots| {
            let slots = slots.borrow();
            let (config, data) = slots.get(&key)?;
            (*config == self.provider_config)
                .then(|| data.clone().downcast::<T>().ok())
                .flatten()
        });
        if let Some(data) = kept {
            return Ok(data);
        }
        let data = std::sync::Arc::new(T::from_config(self)?);
        PROVIDER_DATA.with(|slots| {
            slots
                .borrow_mut()
                .insert(key, (self.provider_config.clone(), data.clone()));
        });
        Ok(data)
    }

    /// The provider configuration as a model struct (see [`crate::typed`]), e.g. an API
    /// client's settings. Null configuration reads as the model of a null-filled object
    /// only if the model allows it; use `Option<Model>` for providers that may be unconfigured.
    ///
    /// # Errors
    /// The configuration does not fit the model; the diagnostic names the attribute.
    pub fn provider_config_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        crate::typed::from_value(&self.provider_config).map_err(Into::into)
    }

    /// A private state entry of this resource instance: JSON the provider stored earlier
    /// with [`Context::set_private`], never shown to the user. Available in read, plan
    /// (from the prior state) and apply (from the plan).
    pub fn private(&self, key: &str) -> Option<serde_json::Value> {
        self.private.borrow().get(key).cloned()
    }

    /// When Terraform plans again during apply, an entry of the private state the saved plan
    /// produced, so a choice made at plan time (a generated name, a chosen zone) can be
    /// planned the same way again. Only clients with `store_planned_private`
    /// ([`Context::client`], tfplugin6.11) send it; `None` otherwise and on a first plan.
    pub fn saved_plan_private(&self, key: &str) -> Option<serde_json::Value> {
        self.saved_plan_private.get(key).cloned()
    }

    /// Stores (or with `None`, removes) a private state entry; it travels with the plan and
    /// the new state. Keys starting with `.` are reserved.
    ///
    /// # Errors
    /// A reserved key.
    pub fn set_private(
        &self,
        key: &str,
        value: Option<serde_json::Value>,
    ) -> Result<(), Diagnostic> {
        if key.is_empty() || key.starts_with('.') {
            return Err(reserved(key));
        }
        let mut private = self.private.borrow_mut();
        match value {
            Some(v) => private.insert(key.to_owned(), v),
            None => private.remove(key),
        };
        Ok(())
    }

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
        // Natively (a benchmark baseline, unit tests) there is no host to tell; the SDK's own
        // error path still returns the reported state.
        #[cfg(target_arch = "wasm32")]
        crate::bindings::tfwasm::provider0_2_0::progress::report_state(&bytes);
        LAST_REPORTED.with(|slot| *slot.borrow_mut() = Some(bytes));
        Ok(())
    }
}

/// A state as [`Context::report_created`] reports it: each unknown null, except an unknown
/// set element, which is dropped (a set holds no nulls); sets are rebuilt so elements that
/// became equal merge, as go-cty's would.
fn known_or_null(value: &Value) -> Value {
    match value {
        Value::Unknown(_) => Value::Null,
        Value::List(items) => Value::List(items.iter().map(known_or_null).collect()),
        Value::Tuple(items) => Value::Tuple(items.iter().map(known_or_null).collect()),
        Value::Set(items) => Value::set_of(
            items
                .iter()
                .filter(|item| !item.is_unknown())
                .map(known_or_null)
                .collect(),
        ),
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), known_or_null(v)))
                .collect(),
        ),
        Value::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), known_or_null(v)))
                .collect(),
        ),
        Value::Dynamic(ty, inner) => Value::Dynamic(ty.clone(), Box::new(known_or_null(inner))),
        other => other.clone(),
    }
}

impl Context {
    /// During create: the remote object exists now. Call it the moment the API has
    /// answered with the new object's ID, before anything else can fail or take time (a
    /// read-back, a wait for readiness): `planned.clone().with("id", id)` is enough, and
    /// what is still unknown is reported as null. Should the provider process then be
    /// killed, the next plan names this object and the import that brings it back instead
    /// of creating a second one; should the call fail, Terraform records it (tainted).
    ///
    /// It is [`Context::report_state`] for a state that is not complete yet.
    ///
    /// # Errors
    /// Outside apply, or when `state` does not fit the schema.
    pub fn report_created(&self, state: &Value) -> Result<(), Diagnostic> {
        self.report_state(&known_or_null(state))
    }

    /// Defers this read, plan, import, data source read or ephemeral open to a later
    /// Terraform run (for example while the provider configuration is still unknown).
    /// Only clients that announced it accept a deferral ([`Context::client`]); check
    /// `ctx.client.deferral_allowed` first and plan unknowns otherwise.
    ///
    /// # Errors
    /// When the client does not allow deferral.
    pub fn defer(&self, reason: DeferredReason) -> Result<(), Diagnostic> {
        if !self.client.deferral_allowed {
            return Err(Diagnostic::error(
                "Deferral not allowed",
                format!(
                    "The provider tried to defer ({reason:?}), but this Terraform/OpenTofu run does not allow deferred changes; this is a bug in the provider, which should check Context::client.deferral_allowed."
                ),
            ));
        }
        DEFERRED.with(|slot| slot.set(Some(reason)));
        Ok(())
    }
}

/// The deferral requested in this call, taken (so the next call starts without one).
pub(crate) fn take_deferred() -> Option<DeferredReason> {
    DEFERRED.with(std::cell::Cell::take)
}

thread_local! {
    /// The deferral requested in this call.
    static DEFERRED: std::cell::Cell<Option<DeferredReason>> = const { std::cell::Cell::new(None) };
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
    /// Schema of the `provider_meta "NAME" { ... }` block modules may set in their
    /// `terraform` block (e.g. to tell the API which module calls it); none by default. Its
    /// value reaches [`Context::provider_meta`].
    fn meta_schema(&self) -> Option<ResourceSchema> {
        None
    }
    /// The managed resource types (none by default: a provider may offer only data sources).
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        Vec::new()
    }
    /// The data source types.
    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        Vec::new()
    }
    /// The ephemeral resource types (see [`crate::ephemeral`]).
    fn ephemeral_resources(&self) -> Vec<Box<dyn crate::EphemeralResource>> {
        Vec::new()
    }
    /// Provider-defined functions (see [`crate::function`]).
    fn functions(&self) -> Vec<Box<dyn crate::Function>> {
        Vec::new()
    }
    /// The action types (see [`crate::action`]).
    fn actions(&self) -> Vec<Box<dyn crate::action::Action>> {
        Vec::new()
    }
    /// The state store types (see [`crate::state_store`]).
    fn state_stores(&self) -> Vec<Box<dyn crate::state_store::StateStore>> {
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

    /// Adjusts the plan after the SDK applied defaults, unknowns and requires-replace (see
    /// the planning rules in [`PlanContext`]). Also runs for a destroy, where
    /// `plan.is_destroy()` and the planned value must stay null.
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

    /// Upgraders of stored state, by the schema version they read. Each goes straight to
    /// the current version (they are not chained). State at the current version is decoded
    /// directly and never reaches them; an upgraded state must be wholly known.
    fn upgraders(&self) -> BTreeMap<i64, StateUpgrader> {
        BTreeMap::new()
    }

    /// Movers of state from other resource types (`moved` blocks across types, Terraform
    /// 1.8 and later), tried in order (see [`crate::moves`]). None by default: Terraform
    /// then reports that the move is not supported.
    fn movers(&self) -> Vec<crate::StateMover> {
        Vec::new()
    }

    /// The configuration `terraform plan -generate-config-out` writes for an imported
    /// object with `state` (Terraform >= 1.14; see [`crate::config_generation`]). The
    /// default is terraform-plugin-framework 1.19's: the state without computed-only and
    /// deprecated values. It must be wholly known and set no computed-only attribute.
    ///
    /// # Errors
    /// The configuration cannot be worked out.
    fn generate_config(&self, _ctx: &Context, state: &Value) -> Result<Value, Diagnostic> {
        Ok(crate::config_generation::config_from_state(
            &self.schema(),
            state,
        ))
    }

    /// The schema of a `list` block's `config` for this type (Terraform >= 1.14's
    /// `terraform query`; see [`crate::list`]): `Some` offers a listing, which needs an
    /// [`identity`](Resource::identity). `None` by default.
    fn list_schema(&self) -> Option<ResourceSchema> {
        None
    }

    /// One page of the existing objects of this type, each as its state (see
    /// [`crate::list`]). Called only for types with a [`list_schema`](Resource::list_schema).
    ///
    /// # Errors
    /// The objects cannot be listed (the error ends the listing).
    fn list(
        &self,
        _ctx: &Context,
        _req: &crate::list::ListRequest,
    ) -> Result<crate::list::ListPage, Diagnostic> {
        Err(Diagnostic::error(
            "Listing not implemented",
            format!(
                "{} declares a list schema but does not implement Resource::list.",
                self.type_name()
            ),
        ))
    }

    /// The identity of this resource type (Terraform >= 1.12; see [`crate::identity`]):
    /// declared here, derived by the SDK from every new state. None by default.
    fn identity(&self) -> Option<crate::Identity> {
        None
    }

    /// The identity of the object with `state` (every attribute known after apply, read,
    /// import and move; in a plan, unknown where the state is). The default takes each
    /// identity attribute from the state attribute of the same name.
    fn identity_of(&self, identity: &crate::Identity, state: &Value) -> Value {
        identity.from_state(state)
    }

    /// The state to import from an identity (an `import` block with `identity`; attributes
    /// the user left out are null). The default copies each identity attribute to the state
    /// attribute of the same name and leaves the rest null; Terraform then calls `read`,
    /// which fills in the rest (the framework's `ImportStatePassthroughWithIdentity`).
    /// Override it when `read` needs more than that.
    ///
    /// # Errors
    /// The identity does not name an object.
    fn import_identity(&self, _ctx: &Context, identity: &Value) -> Result<Value, Diagnostic> {
        let mut state = self.schema().null_object();
        if let Value::Object(attrs) = identity {
            for (name, value) in attrs {
                if state.get(name).is_some() {
                    state.set(name, value.clone());
                }
            }
        }
        Ok(state)
    }
}

/// The stored state an upgrader gets.
#[derive(Debug, Clone)]
pub struct PriorState {
    /// Schema version it was written with.
    pub version: i64,
    /// The state as stored (the state file's JSON).
    pub raw: serde_json::Value,
    /// The state decoded with the upgrader's prior schema; null for raw upgraders.
    pub value: Value,
}

type UpgradeFn = dyn Fn(&Context, &PriorState) -> Result<Value, Diagnostic> + Send + Sync;

/// Converts state of one old schema version to the current schema.
pub struct StateUpgrader {
    pub(crate) prior_schema: Option<ResourceSchema>,
    pub(crate) upgrade: Box<UpgradeFn>,
}

impl StateUpgrader {
    /// An upgrader that reads the old state through the schema it was written with: the SDK
    /// decodes it (errors name the attribute) and hands over [`PriorState::value`].
    pub fn with_prior_schema(
        prior_schema: ResourceSchema,
        upgrade: impl Fn(&Context, &PriorState) -> Result<Value, Diagnostic> + Send + Sync + 'static,
    ) -> StateUpgrader {
        StateUpgrader {
            prior_schema: Some(prior_schema),
            upgrade: Box::new(upgrade),
        }
    }

    /// An upgrader that works on the stored JSON ([`PriorState::raw`]) itself, for states
    /// no schema describes (e.g. written by a provider's early releases).
    pub fn raw(
        upgrade: impl Fn(&Context, &PriorState) -> Result<Value, Diagnostic> + Send + Sync + 'static,
    ) -> StateUpgrader {
        StateUpgrader {
            prior_schema: None,
            upgrade: Box::new(upgrade),
        }
    }
}

impl std::fmt::Debug for StateUpgrader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateUpgrader")
            .field("typed", &self.prior_schema.is_some())
            .finish()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_object_is_reported_with_its_unknowns_null_and_unknown_set_elements_gone() {
        let ty = Type::object([
            ("id", Type::String),
            ("size", Type::Number),
            (
                "tags",
                Type::set(Type::object([("k", Type::String), ("v", Type::String)])),
            ),
            ("names", Type::set(Type::String)),
        ]);
        let tag =
            |v: Value| Value::Object([("k".into(), Value::from("a")), ("v".into(), v)].into());
        let planned = Value::Object(
            [
                ("id".into(), Value::from("obj-7")),
                ("size".into(), Value::unknown()),
                // Two elements that only an unknown told apart: one once it is null.
                (
                    "tags".into(),
                    Value::Set(vec![tag(Value::unknown()), tag(Value::unknown())]),
                ),
                (
                    "names".into(),
                    Value::Set(vec![Value::from("x"), Value::unknown()]),
                ),
            ]
            .into(),
        );
        let ctx = Context {
            state_type: Some(std::sync::Arc::new(ty.clone())),
            ..Context::default()
        };
        ctx.report_created(&planned).unwrap();
        let bytes = LAST_REPORTED
            .with(|slot| slot.borrow_mut().take())
            .expect("reported");
        let reported = tfwasm_model::codec::msgpack::decode(&bytes, &ty).unwrap();
        assert!(reported.is_wholly_known(), "{reported:?}");
        assert_eq!(reported.get("id"), Some(&Value::from("obj-7")));
        assert_eq!(reported.get("size"), Some(&Value::Null));
        assert_eq!(
            reported.get("tags"),
            Some(&Value::Set(vec![tag(Value::Null)]))
        );
        assert_eq!(
            reported.get("names"),
            Some(&Value::Set(vec![Value::from("x")]))
        );
    }

    /// Built once per configuration, again when the configuration changes.
    #[test]
    fn provider_data_is_built_once_per_configuration() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILT: AtomicUsize = AtomicUsize::new(0);
        struct Client(String);
        impl ProviderData for Client {
            fn from_config(ctx: &Context) -> Result<Client, Diagnostic> {
                BUILT.fetch_add(1, Ordering::SeqCst);
                let uri = ctx.provider_config.get("uri").and_then(Value::as_str);
                uri.map(|u| Client(u.to_owned()))
                    .ok_or_else(|| Diagnostic::error("No uri", "set uri"))
            }
        }
        let ctx = |uri: &str| Context {
            provider_config: Value::Object([("uri".into(), Value::from(uri))].into()),
            ..Context::default()
        };
        let a = ctx("http://a");
        assert_eq!(a.provider_data::<Client>().unwrap().0, "http://a");
        assert_eq!(a.provider_data::<Client>().unwrap().0, "http://a");
        assert_eq!(BUILT.load(Ordering::SeqCst), 1);
        assert_eq!(
            ctx("http://b").provider_data::<Client>().unwrap().0,
            "http://b"
        );
        assert_eq!(BUILT.load(Ordering::SeqCst), 2);
        let error = Context::default().provider_data::<Client>().err().unwrap();
        assert_eq!(error.summary, "No uri");
    }

    #[test]
    fn reporting_outside_apply_is_an_error_not_a_silent_drop() {
        let err = Context::default()
            .report_created(&Value::from("x"))
            .unwrap_err();
        assert!(err.summary.contains("outside apply"), "{err:?}");
    }
}
