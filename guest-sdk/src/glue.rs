//! Glue between the WIT exports and the author's traits: schema flattening, value decoding
//! against schemas, and dispatch by type name. Used by [`export_provider!`](crate::export_provider).

use tfwasm_model::codec::{self, CodecError};
use tfwasm_model::{
    AttributePath, AttributeType, Block, BlockNesting, Diagnostic, NestedObject, ObjectNesting,
    PathStep, Schema, Severity, StringKind, Type, Value,
};

use crate::function::{Arguments, Param, Signature};
use crate::plan::plan_defaults;
use crate::{Context, DataSource, EphemeralResource, Function, Provider, Resource};

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
    built: std::sync::OnceLock<(crate::ResourceSchema, Type)>,
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
    fn built(&self) -> &(crate::ResourceSchema, Type) {
        self.built.get_or_init(|| {
            let schema = self.item.schema();
            let ty = schema.value_type();
            (schema, ty)
        })
    }
    fn schema(&self) -> &crate::ResourceSchema {
        &self.built().0
    }
    fn ty(&self) -> &Type {
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
        Catalog {
            provider,
            provider_schema,
            provider_type,
            meta,
            resources,
            data_sources,
            ephemeral_resources,
            functions,
        }
    }

    /// The provider.
    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }
}

/// The WIT types, for the export macro: the shared ones and each family's records.
pub mod wit {
    pub use crate::bindings::exports::tfwasm::provider::data_source::{
        ReadDataRequest, ReadDataResponse,
    };
    pub use crate::bindings::exports::tfwasm::provider::ephemeral::{
        OpenRequest, OpenResponse, PrivateRequest, RenewResponse,
    };
    pub use crate::bindings::exports::tfwasm::provider::function::FunctionError;
    pub use crate::bindings::exports::tfwasm::provider::resource::{
        ApplyRequest, ApplyResponse, ImportRequest, ImportResponse, ImportedResource, MoveRequest,
        MoveResponse, PlanRequest, PlanResponse, ReadRequest, ReadResponse, UpgradeIdentityRequest,
        UpgradeIdentityResponse, UpgradeRequest, UpgradeResponse,
    };
    pub use crate::bindings::tfwasm::provider::types::*;
}

type Diags = Vec<wit::Diagnostic>;

// ---- conversions ---------------------------------------------------------------------

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

/// Flattens a schema into WIT's index-linked form (`blocks[0]` is the root).
pub fn to_wit_schema(schema: &Schema) -> wit::Schema {
    let mut out = wit::Schema {
        version: schema.version,
        blocks: Vec::new(),
        objects: Vec::new(),
    };
    push_block(&mut out, &schema.block);
    out
}

fn push_block(out: &mut wit::Schema, block: &Block) -> u32 {
    let index = out.blocks.len();
    out.blocks.push(wit::Block {
        attributes: Vec::new(),
        block_types: Vec::new(),
        description: block.description.clone(),
        description_kind: kind(block.description_kind),
        deprecated: block.deprecated,
        deprecation_message: block.deprecation_message.clone(),
        computed: block.computed,
    });
    let attributes = block.attributes.iter().map(|a| attribute(out, a)).collect();
    let block_types = block
        .block_types
        .iter()
        .map(|nested| wit::NestedBlock {
            type_name: nested.type_name.clone(),
            block: push_block(out, &nested.block),
            nesting: match nested.nesting {
                BlockNesting::Single => wit::BlockNesting::Single,
                BlockNesting::List => wit::BlockNesting::List,
                BlockNesting::Set => wit::BlockNesting::Set,
                BlockNesting::Map => wit::BlockNesting::Map,
                BlockNesting::Group => wit::BlockNesting::Group,
            },
            min_items: nested.min_items,
            max_items: nested.max_items,
        })
        .collect();
    out.blocks[index].attributes = attributes;
    out.blocks[index].block_types = block_types;
    index as u32
}

fn attribute(out: &mut wit::Schema, a: &tfwasm_model::Attribute) -> wit::Attribute {
    let ty = match &a.ty {
        AttributeType::Type(ty) => wit::AttributeType::TypeJson(ty.to_json_string()),
        AttributeType::Nested(object) => wit::AttributeType::Nested(push_object(out, object)),
    };
    let mut flags = wit::AttributeFlags::empty();
    for (on, flag) in [
        (a.required, wit::AttributeFlags::REQUIRED),
        (a.optional, wit::AttributeFlags::OPTIONAL),
        (a.computed, wit::AttributeFlags::COMPUTED),
        (a.sensitive, wit::AttributeFlags::SENSITIVE),
        (a.deprecated, wit::AttributeFlags::DEPRECATED),
        (a.write_only, wit::AttributeFlags::WRITE_ONLY),
    ] {
        if on {
            flags = wit::AttributeFlags::from_bits_retain(flags.bits() | flag.bits());
        }
    }
    wit::Attribute {
        name: a.name.clone(),
        type_: ty,
        description: a.description.clone(),
        description_kind: kind(a.description_kind),
        flags,
        deprecation_message: a.deprecation_message.clone(),
    }
}

fn push_object(out: &mut wit::Schema, object: &NestedObject) -> u32 {
    let index = out.objects.len();
    out.objects.push(wit::NestedObject {
        attributes: Vec::new(),
        nesting: match object.nesting {
            ObjectNesting::Single => wit::ObjectNesting::Single,
            ObjectNesting::List => wit::ObjectNesting::List,
            ObjectNesting::Set => wit::ObjectNesting::Set,
            ObjectNesting::Map => wit::ObjectNesting::Map,
        },
    });
    let attributes = object
        .attributes
        .iter()
        .map(|a| attribute(out, a))
        .collect();
    out.objects[index].attributes = attributes;
    index as u32
}

// ---- helpers -------------------------------------------------------------------------

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
    let provider_config = match ctx.config {
        Some(bytes) => decode(&bytes, &c.provider_type, "provider configuration")?,
        None => Value::Null,
    };
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
    (!tfwasm_contract::is_empty_identity(&value)).then_some(value)
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

// ---- raw hooks -----------------------------------------------------------------------

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

// ---- exports -------------------------------------------------------------------------

/// `get-schema`.
pub fn get_schema(c: &Catalog) -> wit::ProviderSchema {
    wit::ProviderSchema {
        provider: to_wit_schema(&c.provider_schema.to_wire()),
        provider_meta: c.meta.as_ref().map(|(s, _)| to_wit_schema(&s.to_wire())),
        resources: c
            .resources
            .iter()
            .map(|r| wit::NamedSchema {
                type_name: r.item.type_name().to_owned(),
                schema: to_wit_schema(&r.schema().to_wire()),
            })
            .collect(),
        data_sources: c
            .data_sources
            .iter()
            .map(|d| wit::NamedSchema {
                type_name: d.item.type_name().to_owned(),
                schema: to_wit_schema(&d.schema().to_wire()),
            })
            .collect(),
        ephemeral_resources: c
            .ephemeral_resources
            .iter()
            .map(|e| wit::NamedSchema {
                type_name: e.item.type_name().to_owned(),
                schema: to_wit_schema(&e.schema().to_wire()),
            })
            .collect(),
        functions: c
            .functions
            .iter()
            .map(|f| wit::NamedFunction {
                name: f.name().to_owned(),
                function: to_wit_function(&f.signature()),
            })
            .collect(),
        resource_identities: c
            .resources
            .iter()
            .filter_map(|r| {
                let (identity, _) = r.identity()?;
                Some(wit::NamedIdentitySchema {
                    type_name: r.item.type_name().to_owned(),
                    schema: to_wit_identity(&identity.to_wire()),
                })
            })
            .collect(),
        // What `upgrade_resource_state` does at the current version is exactly this decode.
        host_decodes_current_state: true,
        diagnostics: behaviour_diagnostics(c),
    }
}

/// Schema settings that could never take effect, as errors naming the type and path, so an
/// author sees them at the first `terraform plan` (and `check_schemas` in a unit test).
fn behaviour_diagnostics(c: &Catalog) -> Vec<wit::Diagnostic> {
    let owners = std::iter::once(("provider", &c.provider_schema))
        .chain(c.resources.iter().map(|r| (r.item.type_name(), r.schema())))
        .chain(
            c.data_sources
                .iter()
                .map(|d| (d.item.type_name(), d.schema())),
        )
        .chain(
            c.ephemeral_resources
                .iter()
                .map(|e| (e.item.type_name(), e.schema())),
        );
    owners
        .flat_map(|(owner, schema)| {
            crate::schema::behaviour_problems(schema)
                .into_iter()
                .map(move |problem| {
                    to_wit_diagnostic(&Diagnostic::error(
                        "Invalid provider schema",
                        format!("{owner}{problem}; this is a bug in the provider."),
                    ))
                })
        })
        .collect()
}

fn to_wit_identity(s: &tfwasm_model::rpc::IdentitySchema) -> wit::IdentitySchema {
    wit::IdentitySchema {
        version: s.version,
        attributes: s
            .attributes
            .iter()
            .map(|a| wit::IdentityAttribute {
                name: a.name.clone(),
                type_json: a.ty.to_json_string(),
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

fn to_wit_param(p: &Param) -> wit::FunctionParameter {
    wit::FunctionParameter {
        name: p.name.clone(),
        type_json: p.ty.to_json_string(),
        allow_null: p.allow_null,
        allow_unknown: p.allow_unknown,
        description: p.description.clone(),
        description_kind: kind(p.description_kind),
    }
}

/// A function signature in WIT form.
pub fn to_wit_function(s: &Signature) -> wit::Function {
    wit::Function {
        parameters: s.parameters.iter().map(to_wit_param).collect(),
        variadic_parameter: s.variadic.as_ref().map(to_wit_param),
        return_type_json: s.return_type.to_json_string(),
        summary: s.summary.clone(),
        description: s.description.clone(),
        description_kind: kind(s.description_kind),
        deprecation_message: s.deprecation_message.clone(),
    }
}

/// `call-function`: decodes each argument with its parameter's type, runs the function and
/// encodes the result with the return type. Problems the SDK finds name the argument.
pub fn call_function(
    c: &Catalog,
    _ctx: wit::ProviderContext,
    name: String,
    arguments: Vec<Vec<u8>>,
) -> Result<Vec<u8>, wit::FunctionError> {
    crate::log::reset_masks();
    let error = |text: String, argument: Option<usize>| wit::FunctionError {
        text,
        argument: argument.and_then(|i| u32::try_from(i).ok()),
    };
    let function = c
        .functions
        .iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| error(tfwasm_model::rpc::no_such_function(&name), None))?;
    let signature = function.signature();
    let positional = signature.parameters.len();
    let takes = format!(
        "{}{positional} argument{}",
        if signature.variadic.is_some() {
            "at least "
        } else {
            ""
        },
        if positional == 1 { "" } else { "s" }
    );
    if arguments.len() < positional
        || (signature.variadic.is_none() && arguments.len() > positional)
    {
        return Err(error(
            format!("{name} takes {takes}, got {}", arguments.len()),
            None,
        ));
    }
    // The count is right, so every argument has its parameter: positional ones in order,
    // then the variadic one for the rest.
    let params = signature
        .parameters
        .iter()
        .chain(signature.variadic.iter().cycle());
    let mut values = Vec::with_capacity(arguments.len());
    for (index, (bytes, param)) in arguments.iter().zip(params).enumerate() {
        let value = decode(bytes, &param.ty, &format!("argument {:?}", param.name))
            .map_err(|d| error(d.detail, Some(index)))?;
        values.push(value);
    }
    let args = Arguments { values, positional };
    let result = function.call(&args).map_err(|e| wit::FunctionError {
        text: e.text,
        argument: e.argument,
    })?;
    encode(&result, &signature.return_type, "function result").map_err(|d| error(d.detail, None))
}

/// `validate-provider-config`.
pub fn validate_provider_config(c: &Catalog, config: Vec<u8>) -> Diags {
    run_diags(|| {
        let config = decode(&config, &c.provider_type, "provider configuration")?;
        Ok(c.provider.validate_config(&config))
    })
}

/// `configure-provider`.
pub fn configure_provider(c: &Catalog, ctx: wit::ProviderContext) -> Diags {
    run_diags(|| Ok(c.provider.configure(&context(c, ctx)?)))
}

/// `validate-resource-config`.
pub fn validate_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(resource.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// `validate-data-resource-config`.
pub fn validate_data_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_data_source(c, &req.type_name)?;
        let (source, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(source.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// `upgrade-resource-state`. State at the current version is decoded straight from JSON;
/// older versions go to the resource's upgrader for that version.
pub fn upgrade_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::UpgradeRequest,
) -> wit::UpgradeResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let json: serde_json::Value = serde_json::from_slice(&req.raw_state_json).map_err(|e| {
            Diagnostic::error(
                "Unable to read stored state",
                format!("The stored state is not valid JSON: {e}."),
            )
        })?;
        let value = if req.version == schema.version {
            codec::json::decode(&json, ty).map_err(|e| {
                Diagnostic::error("Unable to read stored state", format!("{e}.")).at(e.path.clone())
            })?
        } else if req.version > schema.version {
            return Err(Diagnostic::error(
                "Resource state written by a newer provider",
                format!(
                    "The {} state has schema version {} but this provider only knows up to {}; upgrade the provider.",
                    req.type_name, req.version, schema.version
                ),
            ));
        } else {
            let ctx = context(c, ctx)?;
            let mut upgraders = resource.upgraders();
            let Some(upgrader) = upgraders.remove(&req.version) else {
                let known: Vec<i64> = upgraders.keys().copied().collect();
                return Err(Diagnostic::error(
                    "Unable to upgrade resource state",
                    format!(
                        "{} has no upgrader from schema version {} to {} (upgraders exist for versions {known:?}).",
                        req.type_name, req.version, schema.version
                    ),
                ));
            };
            let prior_value = match &upgrader.prior_schema {
                Some(prior) => codec::json::decode(&json, &prior.value_type()).map_err(|e| {
                    Diagnostic::error(
                        "Unable to read stored state",
                        format!(
                            "The {} state does not match its schema version {}: {e}.",
                            req.type_name, req.version
                        ),
                    )
                    .at(e.path.clone())
                })?,
                None => Value::Null,
            };
            let prior = crate::PriorState {
                version: req.version,
                raw: json,
                value: prior_value,
            };
            let upgraded = (upgrader.upgrade)(&ctx, &prior)?;
            // Unknowns in upgraded state are always a bug (Terraform ≥ 1.8 rejects them).
            if let Some(path) = tfwasm_contract::check_wholly_known(&upgraded)
                .into_iter()
                .next()
            {
                return Err(Diagnostic::error(
                    "Provider returned an unknown value in upgraded state",
                    format!(
                        "The upgrader of {} from version {} left {path}; upgraded state must be wholly known.",
                        req.type_name, req.version
                    ),
                ));
            }
            upgraded
        };
        encode(&value, ty, "upgraded state")
    })();
    match result {
        Ok(state) => wit::UpgradeResponse {
            upgraded_state: state,
            diagnostics: Vec::new(),
        },
        Err(d) => wit::UpgradeResponse {
            upgraded_state: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `move-resource-state`: the first of the target type's movers that takes the source
/// returns the target state, which must be wholly known. The target's private data is what
/// the mover sets (`Context::set_private`); the source's, written by whichever provider
/// owned it, is not carried over.
pub fn move_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::MoveRequest,
) -> wit::MoveResponse {
    let result = (|| {
        let entry = find_resource(c, &req.target_type_name)?;
        let (resource, ty) = (&entry.item, entry.ty());
        let raw: serde_json::Value =
            serde_json::from_slice(&req.source_state_json).map_err(|e| {
                Diagnostic::error(
                    "Unable to read the moved state",
                    format!("The stored state of the source is not valid JSON: {e}."),
                )
            })?;
        let ctx = context(c, ctx)?;
        let mut source = crate::MoveSource {
            provider_address: req.source_provider_address.clone(),
            type_name: req.source_type_name.clone(),
            schema_version: req.source_schema_version,
            raw,
            value: Value::Null,
            identity: req
                .source_identity_json
                .as_deref()
                .and_then(|json| serde_json::from_slice(json).ok())
                .map(|json| (json, req.source_identity_version)),
        };
        for mover in resource.movers() {
            source.value = match &mover.source {
                Some((type_name, schema)) => {
                    if *type_name != source.type_name || schema.version != source.schema_version {
                        continue;
                    }
                    match codec::json::decode(&source.raw, &schema.value_type()) {
                        Ok(value) => value,
                        // Same name, other shape (another provider's type): not this mover's.
                        Err(_) => continue,
                    }
                }
                None => Value::Null,
            };
            let Some(moved) = (mover.mover)(&ctx, &source)? else {
                continue;
            };
            if let Some(path) = tfwasm_contract::check_wholly_known(&moved)
                .into_iter()
                .next()
            {
                return Err(Diagnostic::error(
                    "Provider returned an unknown value in moved state",
                    format!(
                        "Moving {} to {} left {path}; a moved state must be wholly known.",
                        source.type_name, req.target_type_name
                    ),
                ));
            }
            let identity = identity_for(entry, &moved)?;
            return Ok((
                encode(&moved, ty, "moved state")?,
                save_private(&ctx),
                identity,
            ));
        }
        Err(Diagnostic::error(
            "Unable to Move Resource State",
            format!(
                "{} cannot be moved from {} of {} (schema version {}): no state mover of {} accepts it.",
                req.target_type_name,
                req.source_type_name,
                req.source_provider_address,
                req.source_schema_version,
                req.target_type_name
            ),
        ))
    })();
    match result {
        Ok((state, private, identity)) => wit::MoveResponse {
            target_state: state,
            target_private: private,
            diagnostics: Vec::new(),
            target_identity: identity,
        },
        Err(d) => wit::MoveResponse {
            target_state: Vec::new(),
            target_private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            target_identity: None,
        },
    }
}

/// `read-resource`.
pub fn read_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ReadRequest,
) -> wit::ReadResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let state = decode(&req.current_state, ty, "current state")?;
        if state.is_null() {
            return Ok((codec::msgpack::NULL.to_vec(), req.private.clone(), None));
        }
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &state);
        load_private(&ctx, &req.private)?;
        match resource.read(&ctx, &state)? {
            Some(new_state) => {
                if crate::invariants::ENABLED {
                    invariant(crate::invariants::check_known(
                        &req.type_name,
                        "the state after read",
                        &new_state,
                    ))?;
                }
                Ok((
                    encode(&new_state, ty, "state after read")?,
                    save_private(&ctx),
                    identity_for(entry, &new_state)?,
                ))
            }
            None => Ok((codec::msgpack::NULL.to_vec(), Vec::new(), None)),
        }
    })();
    match result {
        Ok((new_state, private, new_identity)) => wit::ReadResponse {
            new_state,
            private,
            diagnostics: Vec::new(),
            deferred: deferred(),
            new_identity,
        },
        // Keep the current state on error so Terraform does not forget the object.
        Err(d) => wit::ReadResponse {
            new_state: req.current_state,
            private: req.private,
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
            new_identity: req.current_identity,
        },
    }
}

/// `plan-resource-change`.
pub fn plan_resource_change(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PlanRequest,
) -> wit::PlanResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let prior = decode(&req.prior_state, ty, "prior state")?;
        let proposed = decode(&req.proposed_new_state, ty, "proposed new state")?;
        let config = decode(&req.config, ty, "configuration")?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &config);
        crate::log::mask_sensitive(schema, &prior);
        load_private(&ctx, &req.prior_private)?;
        ctx.saved_plan_private = parse_private(&req.planned_private)?;
        let mut plan = plan_defaults(schema, prior, proposed, config);
        resource.modify_plan(&ctx, &mut plan)?;
        if crate::invariants::ENABLED {
            let block = schema.to_wire().block;
            invariant(crate::invariants::check_plan(
                &req.type_name,
                &block,
                &plan.prior,
                &plan.config,
                &plan.planned,
            ))?;
        }
        let planned = encode(&plan.planned, ty, "plan")?;
        // An update keeps the object and so its identity; a create or replacement names a
        // new object: planned only when the plan already knows all of it, as
        // terraform-plugin-framework plans none. OpenTofu stores the planned identity as
        // JSON, which cannot hold an unknown, and fails the plan on one.
        let keeps_object = !plan.prior.is_null() && plan.requires_replace.is_empty();
        let identity = match stored_identity(&req.prior_identity, entry) {
            Some(_) if keeps_object && !plan.planned.is_null() => req.prior_identity.clone(),
            _ => known_identity(entry, &plan.planned)?,
        };
        Ok((planned, plan.requires_replace, save_private(&ctx), identity))
    })();
    match result {
        Ok((planned_state, requires_replace, planned_private, planned_identity)) => {
            wit::PlanResponse {
                planned_state,
                requires_replace: requires_replace.iter().map(to_wit_path).collect(),
                planned_private,
                diagnostics: Vec::new(),
                deferred: deferred(),
                planned_identity,
            }
        }
        Err(d) => wit::PlanResponse {
            planned_state: req.proposed_new_state,
            requires_replace: Vec::new(),
            planned_private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
            planned_identity: None,
        },
    }
}

/// `apply-resource-change`: create, update or delete by which side is null.
pub fn apply_resource_change(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ApplyRequest,
) -> wit::ApplyResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let prior = decode(&req.prior_state, ty, "prior state")?;
        let planned = decode(&req.planned_state, ty, "planned state")?;
        let config = decode(&req.config, ty, "configuration")?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &config);
        crate::log::mask_sensitive(schema, &prior);
        ctx.state_type = Some(ty.clone());
        load_private(&ctx, &req.planned_private)?;
        crate::provider::LAST_REPORTED.with(|slot| slot.borrow_mut().take());
        let new_state = if planned.is_null() {
            resource.delete(&ctx, &prior)?;
            Value::Null
        } else if prior.is_null() {
            resource.create(&ctx, &planned, &config)?
        } else {
            resource.update(&ctx, &prior, &planned, &config)?
        };
        crate::log::mask_sensitive(schema, &new_state);
        let bytes = encode(&new_state, ty, "new state")?;
        let mut diagnostics = Vec::new();
        if crate::invariants::ENABLED {
            // The object exists: hand the state back with the error, never lose it.
            let block = schema.to_wire().block;
            diagnostics =
                crate::invariants::check_apply(&req.type_name, &block, &planned, &new_state);
        }
        let private = if new_state.is_null() {
            Vec::new()
        } else {
            save_private(&ctx)
        };
        let identity = identity_for(entry, &new_state)?;
        Ok((bytes, private, diagnostics, identity))
    })();
    match result {
        Ok((new_state, private, diagnostics, new_identity)) => wit::ApplyResponse {
            new_state,
            private,
            diagnostics: diags(&diagnostics),
            new_identity,
        },
        // On failure hand back the state the resource reported (the remote object exists),
        // else the prior state: the object is as it was before this apply.
        Err(d) => wit::ApplyResponse {
            new_state: crate::provider::LAST_REPORTED
                .with(|slot| slot.borrow_mut().take())
                .unwrap_or(req.prior_state),
            private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            new_identity: None,
        },
    }
}

/// `import-resource-state`.
pub fn import_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ImportRequest,
) -> wit::ImportResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, ty) = (&entry.item, entry.ty());
        let ctx = context(c, ctx)?;
        let state = match stored_identity(&req.identity, entry) {
            Some(identity) if req.id.is_empty() => resource.import_identity(&ctx, &identity)?,
            _ if req.id.is_empty() && req.identity.is_some() => {
                return Err(Diagnostic::error(
                    "Import by identity not supported",
                    format!(
                        "{} declares no identity, so it can only be imported by ID.",
                        req.type_name
                    ),
                ));
            }
            _ => resource.import(&ctx, &req.id)?,
        };
        if crate::invariants::ENABLED {
            invariant(crate::invariants::check_known(
                &req.type_name,
                "the imported state",
                &state,
            ))?;
        }
        let identity = identity_for(entry, &state)?;
        Ok((
            encode(&state, ty, "imported state")?,
            save_private(&ctx),
            identity,
        ))
    })();
    match result {
        Ok((state, private, identity)) => wit::ImportResponse {
            imported: vec![wit::ImportedResource {
                type_name: req.type_name,
                state,
                private,
                identity,
            }],
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::ImportResponse {
            imported: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}

/// `upgrade-resource-identity`: an identity at the current version is decoded as it is;
/// older ones go through the identity's upgrader for their version.
pub fn upgrade_resource_identity(
    c: &Catalog,
    _ctx: wit::ProviderContext,
    req: wit::UpgradeIdentityRequest,
) -> wit::UpgradeIdentityResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (identity, ty) = entry.identity().ok_or_else(|| {
            Diagnostic::error(
                "Resource identity not supported",
                format!(
                    "{} declares no identity, so it has none to upgrade.",
                    req.type_name
                ),
            )
        })?;
        let value = if req.version == identity.current_version() {
            codec::json::decode_bytes(&req.raw_identity_json, ty).map_err(|e| {
                Diagnostic::error(
                    "Invalid stored identity",
                    format!(
                        "The stored identity of {} does not match its identity schema: {e}.",
                        req.type_name
                    ),
                )
            })?
        } else {
            let upgrader = identity.upgrader(req.version).ok_or_else(|| {
                Diagnostic::error(
                    "Unable to upgrade resource identity",
                    format!(
                        "{} has no identity upgrader from version {} to {}; this is a bug in the provider.",
                        req.type_name,
                        req.version,
                        identity.current_version()
                    ),
                )
            })?;
            let raw: serde_json::Value = serde_json::from_slice(&req.raw_identity_json)
                .map_err(|e| Diagnostic::error("Invalid stored identity", e.to_string()))?;
            upgrader(&raw)?
        };
        encode(&value, ty, "upgraded identity")
    })();
    match result {
        Ok(identity) => wit::UpgradeIdentityResponse {
            upgraded_identity: Some(identity),
            diagnostics: Vec::new(),
        },
        Err(d) => wit::UpgradeIdentityResponse {
            upgraded_identity: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `read-data-source`.
pub fn read_data_source(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ReadDataRequest,
) -> wit::ReadDataResponse {
    let result = (|| {
        let entry = find_data_source(c, &req.type_name)?;
        let (source, ty) = (&entry.item, entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        let state = source.read(&ctx, &config)?;
        encode(&state, ty, "data source result")
    })();
    match result {
        Ok(state) => wit::ReadDataResponse {
            state,
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::ReadDataResponse {
            state: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}

// ---- ephemeral resources -------------------------------------------------------------

/// `validate-ephemeral-resource-config`.
pub fn validate_ephemeral_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let (ephemeral, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(ephemeral.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// Milliseconds since the Unix epoch (0 for times before it).
fn unix_ms(at: std::time::SystemTime) -> u64 {
    at.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `open-ephemeral-resource`: the schema's defaults fill null attributes of the
/// configuration, then the author's `open` runs.
pub fn open_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::OpenRequest,
) -> wit::OpenResponse {
    let result = (|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let (ephemeral, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let mut config = decode(&req.config, ty, "configuration")?;
        crate::log::mask_sensitive(schema, &config);
        for (attr, behaviour) in schema.attributes() {
            if let Some(default) = &behaviour.default
                && config.get(&attr.name).is_none_or(Value::is_null)
            {
                config.set(&attr.name, default.clone());
            }
        }
        let ctx = context(c, ctx)?;
        let opened = ephemeral.open(&ctx, &config)?;
        crate::log::mask_sensitive(schema, &opened.result);
        let result = encode(&opened.result, ty, "ephemeral result")?;
        Ok((result, save_private(&ctx), opened.renew_at.map(unix_ms)))
    })();
    match result {
        Ok((result, private, renew_at_unix_ms)) => wit::OpenResponse {
            result,
            private,
            renew_at_unix_ms,
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::OpenResponse {
            result: Vec::new(),
            private: Vec::new(),
            renew_at_unix_ms: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}

/// `renew-ephemeral-resource`.
pub fn renew_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PrivateRequest,
) -> wit::RenewResponse {
    let result = (|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let ctx = context(c, ctx)?;
        load_private(&ctx, &req.private)?;
        let renew_at = entry.item.renew(&ctx)?;
        Ok((save_private(&ctx), renew_at.map(unix_ms)))
    })();
    match result {
        Ok((private, renew_at_unix_ms)) => wit::RenewResponse {
            private,
            renew_at_unix_ms,
            diagnostics: Vec::new(),
        },
        Err(d) => wit::RenewResponse {
            private: req.private,
            renew_at_unix_ms: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `close-ephemeral-resource`.
pub fn close_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PrivateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let ctx = context(c, ctx)?;
        load_private(&ctx, &req.private)?;
        entry.item.close(&ctx)?;
        Ok(Vec::new())
    })
}
