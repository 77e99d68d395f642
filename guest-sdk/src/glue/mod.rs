//! Glue between the WIT exports and the author's traits: schema flattening, value decoding
//! against schemas, and dispatch by type name. Used by [`export_provider!`](crate::export_provider).
//!
//! One module per RPC family, as in every host layer; what several families share (the
//! catalog of types, value codecs, private state, identities, hooks) is here.

use tfwasm_model::codec::{self, CodecError};
use tfwasm_model::{
    AttributePath, AttributeType, Block, BlockNesting, Diagnostic, NestedObject, ObjectNesting,
    PathStep, Schema, Severity, StringKind, Type, Value,
};

use crate::function::{Arguments, Param, Signature};
use crate::plan::plan_defaults_for;
use crate::{Context, DataSource, EphemeralResource, Function, Provider, Resource};

mod action;
mod config_generation;
mod data_source;
mod ephemeral;
mod function;
mod identity;
mod list;
mod moves;
#[cfg(feature = "native")]
mod native;
mod provider;
mod resource;
mod schema;
mod state_store;

pub use action::*;
pub use config_generation::*;
pub use data_source::*;
pub use ephemeral::*;
pub use function::*;
pub use identity::*;
pub use list::*;
pub use moves::*;
#[cfg(feature = "native")]
pub use native::{BlockingRunner, NativeProvider};
pub use provider::*;
pub use resource::*;
pub use schema::*;
pub use state_store::*;

/// A provider with its resources and data sources, built once per instance; each type's
/// schema is built the first time a call needs it and kept (instances serve many calls, and
/// a fresh instance builds only the schema its one call uses).
pub struct Catalog {
    provider: Box<dyn Provider>,
    provider_schema: crate::ResourceSchema,
    provider_type: Type,
    /// The `provider_meta` schema and its value type, if the provider declares one.
    meta: Option<(crate::ResourceSchema, Type)>,
    resources: Vec<Entry<Box<dyn Resource>>>,
    data_sources: Vec<Entry<Box<dyn DataSource>>>,
    ephemeral_resources: Vec<Entry<Box<dyn EphemeralResource>>>,
    functions: Vec<Box<dyn Function>>,
    actions: Vec<Entry<Box<dyn crate::action::Action>>>,
    state_stores: Vec<Entry<Box<dyn crate::state_store::StateStore>>>,
}

/// What has a schema: resources and data sources.
trait HasSchema {
    fn type_name(&self) -> &'static str;
    fn schema(&self) -> crate::ResourceSchema;
}

impl HasSchema for Box<dyn Resource> {
    fn type_name(&self) -> &'static str {
        self.as_ref().type_name()
    }
    fn schema(&self) -> crate::ResourceSchema {
        self.as_ref().schema()
    }
}

impl HasSchema for Box<dyn EphemeralResource> {
    fn type_name(&self) -> &'static str {
        self.as_ref().type_name()
    }
    fn schema(&self) -> crate::ResourceSchema {
        self.as_ref().schema()
    }
}

impl HasSchema for Box<dyn crate::action::Action> {
    fn type_name(&self) -> &'static str {
        self.as_ref().type_name()
    }
    fn schema(&self) -> crate::ResourceSchema {
        self.as_ref().schema()
    }
}

impl HasSchema for Box<dyn crate::state_store::StateStore> {
    fn type_name(&self) -> &'static str {
        self.as_ref().type_name()
    }
    fn schema(&self) -> crate::ResourceSchema {
        self.as_ref().schema()
    }
}

impl HasSchema for Box<dyn DataSource> {
    fn type_name(&self) -> &'static str {
        self.as_ref().type_name()
    }
    fn schema(&self) -> crate::ResourceSchema {
        self.as_ref().schema()
    }
}

/// One resource or data source type with its schema and value type, built on first use.
struct Entry<T> {
    item: T,
    built: std::sync::OnceLock<(crate::ResourceSchema, std::sync::Arc<Type>)>,
    /// A resource's identity schema and its value type, built on first use.
    identity: std::sync::OnceLock<Option<(crate::Identity, Type)>>,
}

impl<T: HasSchema> Entry<T> {
    fn new(item: T) -> Entry<T> {
        Entry {
            item,
            built: std::sync::OnceLock::new(),
            identity: std::sync::OnceLock::new(),
        }
    }
    fn built(&self) -> &(crate::ResourceSchema, std::sync::Arc<Type>) {
        self.built.get_or_init(|| {
            let mut schema = self.item.schema();
            schema.place();
            let ty = std::sync::Arc::new(schema.value_type());
            (schema, ty)
        })
    }
    fn schema(&self) -> &crate::ResourceSchema {
        &self.built().0
    }
    fn ty(&self) -> &Type {
        &self.built().1
    }
    /// [`Entry::ty`], to share beyond the call's borrow (an apply's [`crate::Context`]).
    fn shared_ty(&self) -> &std::sync::Arc<Type> {
        &self.built().1
    }
}

impl Entry<Box<dyn Resource>> {
    /// The resource's identity schema and its value type, if it declares one.
    fn identity(&self) -> Option<&(crate::Identity, Type)> {
        self.identity
            .get_or_init(|| {
                self.item.identity().map(|identity| {
                    let ty = identity.value_type();
                    (identity, ty)
                })
            })
            .as_ref()
    }
}

impl Catalog {
    /// Builds the catalog of `provider`.
    pub fn new(provider: Box<dyn Provider>) -> Catalog {
        let provider_schema = provider.schema();
        let provider_type = provider_schema.value_type();
        let meta = provider.meta_schema().map(|schema| {
            let ty = schema.value_type();
            (schema, ty)
        });
        let resources = provider.resources().into_iter().map(Entry::new).collect();
        let data_sources = provider
            .data_sources()
            .into_iter()
            .map(Entry::new)
            .collect();
        let ephemeral_resources = provider
            .ephemeral_resources()
            .into_iter()
            .map(Entry::new)
            .collect();
        let functions = provider.functions();
        let actions = provider.actions().into_iter().map(Entry::new).collect();
        let state_stores = provider
            .state_stores()
            .into_iter()
            .map(Entry::new)
            .collect();
        Catalog {
            provider,
            provider_schema,
            provider_type,
            meta,
            resources,
            data_sources,
            ephemeral_resources,
            functions,
            actions,
            state_stores,
        }
    }

    /// The provider.
    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }
}

/// The WIT types, for the export macro: the shared ones and each family's records.
pub mod wit {
    pub use crate::bindings::exports::tfwasm::provider0_2_0::data_source::{
        ReadDataRequest, ReadDataResponse,
    };
    pub use crate::bindings::exports::tfwasm::provider0_2_0::ephemeral::{
        OpenRequest, OpenResponse, PrivateRequest, RenewResponse,
    };
    pub use crate::bindings::exports::tfwasm::provider0_2_0::function::FunctionError;
    pub use crate::bindings::exports::tfwasm::provider0_2_0::resource::{
        ApplyRequest, ApplyResponse, ImportRequest, ImportResponse, ImportedResource, MoveRequest,
        MoveResponse, PlanRequest, PlanResponse, ReadRequest, ReadResponse, UpgradeIdentityRequest,
        UpgradeIdentityResponse, UpgradeRequest, UpgradeResponse,
    };
    pub use crate::bindings::tfwasm::provider0_2_0::types::*;
}

type Diags = Vec<wit::Diagnostic>;

fn to_wit_path(path: &AttributePath) -> Vec<wit::PathStep> {
    path.0
        .iter()
        .map(|step| match step {
            PathStep::Attribute(name) => wit::PathStep::AttributeName(name.clone()),
            PathStep::KeyString(key) => wit::PathStep::ElementKeyString(key.clone()),
            PathStep::KeyInt(index) => wit::PathStep::ElementKeyInt(*index),
        })
        .collect()
}

/// A model diagnostic in WIT form.
pub fn to_wit_diagnostic(d: &Diagnostic) -> wit::Diagnostic {
    wit::Diagnostic {
        severity: match d.severity {
            Severity::Error => wit::Severity::Error,
            Severity::Warning => wit::Severity::Warning,
        },
        summary: d.summary.clone(),
        detail: d.detail.clone(),
        attribute: d.attribute.as_ref().map(to_wit_path).unwrap_or_default(),
    }
}

fn diags(list: &[Diagnostic]) -> Diags {
    list.iter().map(to_wit_diagnostic).collect()
}

fn kind(k: StringKind) -> wit::StringKind {
    match k {
        StringKind::Plain => wit::StringKind::Plain,
        StringKind::Markdown => wit::StringKind::Markdown,
    }
}

fn decode(bytes: &[u8], ty: &Type, what: &str) -> Result<Value, Diagnostic> {
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    codec::msgpack::decode(bytes, ty).map_err(|e| {
        Diagnostic::error(
            format!("Provider could not decode the {what}"),
            format!("{e}. The value does not match this provider's schema; this is a bug in tfwasm or Terraform."),
        )
        .at(e.path.clone())
    })
}

/// [`decode`] of `bytes`, or a copy of `earlier`'s value when they are `earlier`'s bytes
/// byte for byte: a refresh plan's proposed state is its prior state, and a copy skips the
/// parse and the checks a decode makes (numbers, UTF-8, set elements).
fn decode_or_copy(
    bytes: &[u8],
    earlier: (&[u8], &Value),
    ty: &Type,
    what: &str,
) -> Result<Value, Diagnostic> {
    let (earlier_bytes, earlier_value) = earlier;
    if tfwasm_model::compare::same_bytes(bytes, earlier_bytes) {
        Ok(earlier_value.clone())
    } else {
        decode(bytes, ty, what)
    }
}

/// [`encode`] of `value`, or a copy of `earlier`'s bytes when `value` equals `earlier`'s
/// value: a read or plan that changes nothing answers with the bytes Terraform sent, which
/// spares the encoding here and lets the host's checks recognise them without decoding.
fn encode_or_copy(
    value: &Value,
    earlier: (&[u8], &Value),
    ty: &Type,
    what: &str,
) -> Result<Vec<u8>, Diagnostic> {
    let (earlier_bytes, earlier_value) = earlier;
    if !earlier_bytes.is_empty() && value == earlier_value {
        Ok(earlier_bytes.to_vec())
    } else {
        encode(value, ty, what)
    }
}

fn encode(value: &Value, ty: &Type, what: &str) -> Result<Vec<u8>, Diagnostic> {
    codec::msgpack::encode(value, ty).map_err(|e: CodecError| {
        Diagnostic::error(
            format!("Provider produced an invalid {what}"),
            format!("{e}. The value does not match the schema; this is a bug in the provider."),
        )
        .at(e.path.clone())
    })
}

fn context(c: &Catalog, ctx: wit::ProviderContext) -> Result<Context, Diagnostic> {
    crate::log::reset_masks();
    let mut provider_config = match ctx.config {
        Some(bytes) => decode(&bytes, &c.provider_type, "provider configuration")?,
        None => Value::Null,
    };
    c.provider_schema.with_env_fallbacks(&mut provider_config)?;
    crate::log::mask_sensitive(&c.provider_schema, &provider_config);
    crate::provider::take_deferred();
    Ok(Context {
        terraform_version: ctx.terraform_version,
        provider_config,
        client: tfwasm_model::rpc::ClientCapabilities {
            deferral_allowed: ctx.client_capabilities.deferral_allowed,
            write_only_attributes_allowed: ctx.client_capabilities.write_only_attributes_allowed,
            store_planned_private: ctx.client_capabilities.store_planned_private,
            computed_blocks_allowed: ctx.client_capabilities.computed_blocks_allowed,
        },
        ..Context::default()
    })
}

/// The identity of the object with `state`, encoded; none for a type without identity or
/// an object that does not exist.
fn identity_for(
    entry: &Entry<Box<dyn Resource>>,
    state: &Value,
) -> Result<Option<Vec<u8>>, Diagnostic> {
    let Some((identity, ty)) = entry.identity() else {
        return Ok(None);
    };
    if state.is_null() {
        return Ok(None);
    }
    let value = entry.item.identity_of(identity, state);
    encode(&value, ty, "identity").map(Some)
}

/// [`identity_for`] when it is wholly known, else none.
fn known_identity(
    entry: &Entry<Box<dyn Resource>>,
    state: &Value,
) -> Result<Option<Vec<u8>>, Diagnostic> {
    let Some((identity, _)) = entry.identity() else {
        return Ok(None);
    };
    if state.is_null() || !entry.item.identity_of(identity, state).is_wholly_known() {
        return Ok(None);
    }
    identity_for(entry, state)
}

/// The identity a request carries, decoded, if it names something: Terraform sends an
/// all-null identity for state stored before the type had one.
fn stored_identity(bytes: &Option<Vec<u8>>, entry: &Entry<Box<dyn Resource>>) -> Option<Value> {
    let (_, ty) = entry.identity()?;
    let value = decode(bytes.as_ref()?, ty, "identity").ok()?;
    (!tfwasm_model::rpc::is_empty_identity(&value)).then_some(value)
}

/// The deferral the call requested, in WIT form.
fn deferred() -> Option<wit::DeferredReason> {
    use tfwasm_model::rpc::DeferredReason as D;
    crate::provider::take_deferred().map(|r| match r {
        D::Unknown => wit::DeferredReason::Unknown,
        D::ResourceConfigUnknown => wit::DeferredReason::ResourceConfigUnknown,
        D::ProviderConfigUnknown => wit::DeferredReason::ProviderConfigUnknown,
        D::AbsentPrereq => wit::DeferredReason::AbsentPrereq,
    })
}

/// Decodes the calling module's `provider_meta` into `ctx` (empty bytes: none set).
fn with_meta(c: &Catalog, ctx: &mut Context, bytes: &[u8]) -> Result<(), Diagnostic> {
    if let Some((_, ty)) = &c.meta
        && !bytes.is_empty()
    {
        ctx.provider_meta = decode(bytes, ty, "provider_meta")?;
    }
    Ok(())
}

/// Reads private state bytes (a JSON object; empty means none).
fn load_private(ctx: &Context, bytes: &[u8]) -> Result<(), Diagnostic> {
    *ctx.private.borrow_mut() = parse_private(bytes)?;
    Ok(())
}

fn parse_private(
    bytes: &[u8],
) -> Result<std::collections::BTreeMap<String, serde_json::Value>, Diagnostic> {
    if bytes.is_empty() {
        return Ok(Default::default());
    }
    serde_json::from_slice(bytes).map_err(|e| {
        Diagnostic::error(
            "Unable to read private state",
            format!("The resource's private state is not a JSON object: {e}."),
        )
    })
}

/// Private state as bytes: empty when there is none.
fn save_private(ctx: &Context) -> Vec<u8> {
    let private = ctx.private.borrow();
    if private.is_empty() {
        Vec::new()
    } else {
        serde_json::to_vec(&*private).unwrap_or_default()
    }
}

/// Debug builds: errors for a broken invariant, as diagnostics.
#[cfg(feature = "invariants")]
fn invariant(diags: Vec<Diagnostic>) -> Result<(), Diagnostic> {
    match diags.into_iter().next() {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

fn find_resource<'c>(
    c: &'c Catalog,
    type_name: &str,
) -> Result<&'c Entry<Box<dyn Resource>>, Diagnostic> {
    c.resources
        .iter()
        .find(|r| HasSchema::type_name(&r.item) == type_name)
        .ok_or_else(|| {
            Diagnostic::error(
                "Unknown resource type",
                format!("This provider has no resource type {type_name:?}."),
            )
        })
}

fn find_data_source<'c>(
    c: &'c Catalog,
    type_name: &str,
) -> Result<&'c Entry<Box<dyn DataSource>>, Diagnostic> {
    c.data_sources
        .iter()
        .find(|d| HasSchema::type_name(&d.item) == type_name)
        .ok_or_else(|| {
            Diagnostic::error(
                "Unknown data source type",
                format!("This provider has no data source type {type_name:?}."),
            )
        })
}

fn find_ephemeral<'c>(
    c: &'c Catalog,
    type_name: &str,
) -> Result<&'c Entry<Box<dyn EphemeralResource>>, Diagnostic> {
    c.ephemeral_resources
        .iter()
        .find(|e| HasSchema::type_name(&e.item) == type_name)
        .ok_or_else(|| {
            Diagnostic::error(
                "Unknown ephemeral resource type",
                format!("This provider has no ephemeral resource type {type_name:?}."),
            )
        })
}

/// Runs `f`, turning an early `Err` into a one-diagnostic list.
fn run_diags(f: impl FnOnce() -> Result<Vec<Diagnostic>, Diagnostic>) -> Diags {
    match f() {
        Ok(list) => diags(&list),
        Err(d) => vec![to_wit_diagnostic(&d)],
    }
}

/// Post-processing of raw WIT responses, for test providers that must produce output the
/// SDK would refuse to encode (malformed values, broken contracts). Ordinary providers never
/// need it; `export_provider!(P)` uses [`NoHook`].
pub trait RawHook {
    /// False for [`NoHook`], so the export skips copying requests it would never look at.
    const ACTIVE: bool = true;
    /// After plan-resource-change.
    fn plan(_req: &wit::PlanRequest, _resp: &mut wit::PlanResponse) {}
    /// After apply-resource-change.
    fn apply(_req: &wit::ApplyRequest, _resp: &mut wit::ApplyResponse) {}
    /// After upgrade-resource-state.
    fn upgrade(_req: &wit::UpgradeRequest, _resp: &mut wit::UpgradeResponse) {}
    /// After import-resource-state.
    fn import(_req: &wit::ImportRequest, _resp: &mut wit::ImportResponse) {}
}

/// The hook that changes nothing.
pub struct NoHook;

impl RawHook for NoHook {
    const ACTIVE: bool = false;
}

/// Runs `f` on `req`, then the hook on the response when the hook is active.
pub fn hooked<Req: Clone, Resp>(
    req: Req,
    f: impl FnOnce(Req) -> Resp,
    hook: impl FnOnce(&Req, &mut Resp),
    active: bool,
) -> Resp {
    if !active {
        return f(req);
    }
    let copy = req.clone();
    let mut resp = f(req);
    hook(&copy, &mut resp);
    resp
}
