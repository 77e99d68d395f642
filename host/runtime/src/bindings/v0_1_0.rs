//! `tfwasm:provider@0.1.0`, the first released WIT (frozen): its bindings, its host imports,
//! and conversions between its types and the latest version's, so the rest of the runtime
//! speaks only the latest. A 0.1.0 component has no functions.

use super::guest::{Result, S};
use super::latest::exports::tfwasm::provider::{data_source, ephemeral, function, resource};
use super::latest::tfwasm::provider::types as new;
use crate::state::StoreState;

/// Generated from `wit/since_v0.1.0`; documented there.
#[allow(missing_docs)]
mod generated {
    wasmtime::component::bindgen!({
        world: "tfwasm-provider",
        path: "../../wit/since_v0.1.0",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}
use generated::tfwasm::provider::{log, progress, types as old};
pub(crate) use generated::{TfwasmProvider, TfwasmProviderIndices};

impl progress::Host for StoreState {
    async fn report_state(&mut self, state: Vec<u8>) -> wasmtime::Result<()> {
        super::latest::tfwasm::provider::progress::Host::report_state(self, state).await
    }
}

impl log::Host for StoreState {
    async fn log(
        &mut self,
        level: log::Level,
        message: String,
        fields: Vec<(String, String)>,
    ) -> wasmtime::Result<()> {
        use super::latest::tfwasm::provider::log::{Host, Level};
        let level = match level {
            log::Level::Trace => Level::Trace,
            log::Level::Debug => Level::Debug,
            log::Level::Info => Level::Info,
            log::Level::Warn => Level::Warn,
            log::Level::Error => Level::Error,
        };
        Host::log(self, level, message, fields).await
    }
}

impl old::Host for StoreState {}

// Requests: latest → 0.1.0 (fields 0.1.0 does not have are dropped: a 0.1.0 component
// declares no identity, so the identities Terraform sends are all absent or null).

fn context(ctx: &new::ProviderContext) -> old::ProviderContext {
    old::ProviderContext {
        terraform_version: ctx.terraform_version.clone(),
        config: ctx.config.clone(),
    }
}

fn validate_request(req: &new::ValidateRequest) -> old::ValidateRequest {
    old::ValidateRequest {
        type_name: req.type_name.clone(),
        config: req.config.clone(),
    }
}

fn upgrade_request(req: &resource::UpgradeRequest) -> old::UpgradeRequest {
    old::UpgradeRequest {
        type_name: req.type_name.clone(),
        version: req.version,
        raw_state_json: req.raw_state_json.clone(),
    }
}

fn read_request(req: &resource::ReadRequest) -> old::ReadRequest {
    old::ReadRequest {
        type_name: req.type_name.clone(),
        current_state: req.current_state.clone(),
        private: req.private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

fn plan_request(req: &resource::PlanRequest) -> old::PlanRequest {
    old::PlanRequest {
        type_name: req.type_name.clone(),
        prior_state: req.prior_state.clone(),
        proposed_new_state: req.proposed_new_state.clone(),
        config: req.config.clone(),
        prior_private: req.prior_private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

fn apply_request(req: &resource::ApplyRequest) -> old::ApplyRequest {
    old::ApplyRequest {
        type_name: req.type_name.clone(),
        prior_state: req.prior_state.clone(),
        planned_state: req.planned_state.clone(),
        config: req.config.clone(),
        planned_private: req.planned_private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

fn import_request(req: &resource::ImportRequest) -> old::ImportRequest {
    old::ImportRequest {
        type_name: req.type_name.clone(),
        id: req.id.clone(),
    }
}

fn read_data_request(req: &data_source::ReadDataRequest) -> old::ReadDataRequest {
    old::ReadDataRequest {
        type_name: req.type_name.clone(),
        config: req.config.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

// Responses: 0.1.0 → latest.

fn diagnostics(list: Vec<old::Diagnostic>) -> Vec<new::Diagnostic> {
    list.into_iter()
        .map(|d| new::Diagnostic {
            severity: match d.severity {
                old::Severity::Error => new::Severity::Error,
                old::Severity::Warning => new::Severity::Warning,
            },
            summary: d.summary,
            detail: d.detail,
            attribute: path(d.attribute),
        })
        .collect()
}

fn path(steps: Vec<old::PathStep>) -> Vec<new::PathStep> {
    steps
        .into_iter()
        .map(|step| match step {
            old::PathStep::AttributeName(name) => new::PathStep::AttributeName(name),
            old::PathStep::ElementKeyString(key) => new::PathStep::ElementKeyString(key),
            old::PathStep::ElementKeyInt(index) => new::PathStep::ElementKeyInt(index),
        })
        .collect()
}

fn upgrade_response(r: old::UpgradeResponse) -> resource::UpgradeResponse {
    resource::UpgradeResponse {
        upgraded_state: r.upgraded_state,
        diagnostics: diagnostics(r.diagnostics),
    }
}

fn read_response(r: old::ReadResponse) -> resource::ReadResponse {
    resource::ReadResponse {
        new_state: r.new_state,
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
        new_identity: None,
    }
}

fn plan_response(r: old::PlanResponse) -> resource::PlanResponse {
    resource::PlanResponse {
        planned_state: r.planned_state,
        requires_replace: r.requires_replace.into_iter().map(path).collect(),
        planned_private: r.planned_private,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
        planned_identity: None,
    }
}

fn apply_response(r: old::ApplyResponse) -> resource::ApplyResponse {
    resource::ApplyResponse {
        new_state: r.new_state,
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        new_identity: None,
    }
}

fn import_response(r: old::ImportResponse) -> resource::ImportResponse {
    resource::ImportResponse {
        imported: r
            .imported
            .into_iter()
            .map(|i| resource::ImportedResource {
                type_name: i.type_name,
                state: i.state,
                private: i.private,
                identity: None,
            })
            .collect(),
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
    }
}

fn read_data_response(r: old::ReadDataResponse) -> data_source::ReadDataResponse {
    data_source::ReadDataResponse {
        state: r.state,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
    }
}

/// A 0.1.0 schema in the latest form: the same records, and no functions.
fn provider_schema(s: old::ProviderSchema) -> new::ProviderSchema {
    let named = |list: Vec<old::NamedSchema>| {
        list.into_iter()
            .map(|n| new::NamedSchema {
                type_name: n.type_name,
                schema: schema(n.schema),
            })
            .collect()
    };
    new::ProviderSchema {
        provider: schema(s.provider),
        provider_meta: s.provider_meta.map(schema),
        resources: named(s.resources),
        data_sources: named(s.data_sources),
        functions: Vec::new(),
        ephemeral_resources: Vec::new(),
        resource_identities: Vec::new(),
        host_decodes_current_state: false,
        diagnostics: diagnostics(s.diagnostics),
    }
}

fn schema(s: old::Schema) -> new::Schema {
    new::Schema {
        version: s.version,
        blocks: s
            .blocks
            .into_iter()
            .map(|b| new::Block {
                attributes: b.attributes.into_iter().map(attribute).collect(),
                block_types: b
                    .block_types
                    .into_iter()
                    .map(|n| new::NestedBlock {
                        type_name: n.type_name,
                        block: n.block,
                        nesting: match n.nesting {
                            old::BlockNesting::Single => new::BlockNesting::Single,
                            old::BlockNesting::List => new::BlockNesting::List,
                            old::BlockNesting::Set => new::BlockNesting::Set,
                            old::BlockNesting::Map => new::BlockNesting::Map,
                            old::BlockNesting::Group => new::BlockNesting::Group,
                        },
                        min_items: n.min_items,
                        max_items: n.max_items,
                    })
                    .collect(),
                description: b.description,
                description_kind: string_kind(b.description_kind),
                deprecated: b.deprecated,
                deprecation_message: String::new(),
                computed: false,
            })
            .collect(),
        objects: s
            .objects
            .into_iter()
            .map(|o| new::NestedObject {
                attributes: o.attributes.into_iter().map(attribute).collect(),
                nesting: match o.nesting {
                    old::ObjectNesting::Single => new::ObjectNesting::Single,
                    old::ObjectNesting::List => new::ObjectNesting::List,
                    old::ObjectNesting::Set => new::ObjectNesting::Set,
                    old::ObjectNesting::Map => new::ObjectNesting::Map,
                },
            })
            .collect(),
    }
}

fn attribute(a: old::Attribute) -> new::Attribute {
    let mut flags = new::AttributeFlags::empty();
    for (from, to) in [
        (old::AttributeFlags::REQUIRED, new::AttributeFlags::REQUIRED),
        (old::AttributeFlags::OPTIONAL, new::AttributeFlags::OPTIONAL),
        (old::AttributeFlags::COMPUTED, new::AttributeFlags::COMPUTED),
        (
            old::AttributeFlags::SENSITIVE,
            new::AttributeFlags::SENSITIVE,
        ),
        (
            old::AttributeFlags::DEPRECATED,
            new::AttributeFlags::DEPRECATED,
        ),
        (
            old::AttributeFlags::WRITE_ONLY,
            new::AttributeFlags::WRITE_ONLY,
        ),
    ] {
        if a.flags.contains(from) {
            flags |= to;
        }
    }
    new::Attribute {
        name: a.name,
        type_: match a.type_ {
            old::AttributeType::TypeJson(json) => new::AttributeType::TypeJson(json),
            old::AttributeType::Nested(index) => new::AttributeType::Nested(index),
        },
        description: a.description,
        description_kind: string_kind(a.description_kind),
        flags,
        deprecation_message: String::new(),
    }
}

fn string_kind(kind: old::StringKind) -> new::StringKind {
    match kind {
        old::StringKind::Plain => new::StringKind::Plain,
        old::StringKind::Markdown => new::StringKind::Markdown,
    }
}

/// 0.1.0's exports that differ from the latest only in their types: the request converted
/// down, the call, the answer converted up.
macro_rules! converted {
    ($(fn $name:ident(req: &$req:ty) -> $resp:ty = $call:ident($down:ident) => $up:ident;)+) => {
        $(
            async fn $name(
                &self,
                store: S<'_>,
                ctx: &new::ProviderContext,
                req: &$req,
            ) -> Result<$resp> {
                (self.tfwasm_provider_provider())
                    .$call(store, &context(ctx), &$down(req))
                    .await
                    .map($up)
            }
        )+
    };
}

/// 0.1.0's exports in the latest types: requests converted down, answers up; what 0.1.0
/// cannot do (moves, identities, ephemeral resources, functions) answered with a diagnostic
/// naming the version, which the host never announces for it, so only a client that asks
/// anyway sees one.
impl super::Exports for TfwasmProvider {
    converted! {
        fn validate_resource_config(req: &new::ValidateRequest) -> Vec<new::Diagnostic>
            = call_validate_resource_config(validate_request) => diagnostics;
        fn upgrade_resource_state(req: &resource::UpgradeRequest) -> resource::UpgradeResponse
            = call_upgrade_resource_state(upgrade_request) => upgrade_response;
        fn read_resource(req: &resource::ReadRequest) -> resource::ReadResponse
            = call_read_resource(read_request) => read_response;
        fn plan_resource_change(req: &resource::PlanRequest) -> resource::PlanResponse
            = call_plan_resource_change(plan_request) => plan_response;
        fn apply_resource_change(req: &resource::ApplyRequest) -> resource::ApplyResponse
            = call_apply_resource_change(apply_request) => apply_response;
        fn import_resource_state(req: &resource::ImportRequest) -> resource::ImportResponse
            = call_import_resource_state(import_request) => import_response;
        fn validate_data_resource_config(req: &new::ValidateRequest) -> Vec<new::Diagnostic>
            = call_validate_data_resource_config(validate_request) => diagnostics;
        fn read_data_source(req: &data_source::ReadDataRequest) -> data_source::ReadDataResponse
            = call_read_data_source(read_data_request) => read_data_response;
    }

    async fn get_schema(&self, store: S<'_>) -> Result<new::ProviderSchema> {
        let s = self
            .tfwasm_provider_provider()
            .call_get_schema(store)
            .await?;
        Ok(provider_schema(s))
    }
    async fn validate_provider_config(
        &self,
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Result<Vec<new::Diagnostic>> {
        (self.tfwasm_provider_provider())
            .call_validate_provider_config(store, config)
            .await
            .map(diagnostics)
    }
    async fn configure_provider(
        &self,
        store: S<'_>,
        ctx: &new::ProviderContext,
    ) -> Result<Vec<new::Diagnostic>> {
        (self.tfwasm_provider_provider())
            .call_configure_provider(store, &context(ctx))
            .await
            .map(diagnostics)
    }
    /// None: the host does not announce the capability, so Terraform reports the move
    /// itself.
    async fn move_resource_state(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &resource::MoveRequest,
    ) -> Result<resource::MoveResponse> {
        Ok(resource::MoveResponse {
            target_state: Vec::new(),
            target_private: Vec::new(),
            target_identity: None,
            diagnostics: vec![not_in_0_1_0(
                "Move Resource State Not Supported",
                &format!("cannot move state to {}", req.target_type_name),
            )],
        })
    }
    /// A 0.1.0 component declares no identity, so Terraform has none to upgrade.
    async fn upgrade_resource_identity(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> Result<resource::UpgradeIdentityResponse> {
        Ok(resource::UpgradeIdentityResponse {
            upgraded_identity: None,
            diagnostics: vec![not_in_0_1_0(
                "Resource identity not supported",
                &format!("has no resource identities (asked for {:?})", req.type_name),
            )],
        })
    }
    async fn validate_ephemeral_resource_config(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &new::ValidateRequest,
    ) -> Result<Vec<new::Diagnostic>> {
        Ok(vec![no_ephemeral(&req.type_name)])
    }
    async fn open_ephemeral_resource(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> Result<ephemeral::OpenResponse> {
        Ok(ephemeral::OpenResponse {
            result: Vec::new(),
            private: Vec::new(),
            renew_at_unix_ms: None,
            diagnostics: vec![no_ephemeral(&req.type_name)],
            deferred: None,
        })
    }
    async fn renew_ephemeral_resource(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<ephemeral::RenewResponse> {
        Ok(ephemeral::RenewResponse {
            private: Vec::new(),
            renew_at_unix_ms: None,
            diagnostics: vec![no_ephemeral(&req.type_name)],
        })
    }
    async fn close_ephemeral_resource(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<Vec<new::Diagnostic>> {
        Ok(vec![no_ephemeral(&req.type_name)])
    }
    /// No functions: the host never lists any for it, and a call answers as for an unknown
    /// name.
    async fn call_function(
        &self,
        _store: S<'_>,
        _ctx: &new::ProviderContext,
        name: &str,
        _arguments: &[Vec<u8>],
    ) -> Result<std::result::Result<Vec<u8>, function::FunctionError>> {
        Ok(Err(function::FunctionError {
            text: tfwasm_model::rpc::no_such_function(name),
            argument: None,
        }))
    }
}

/// The answer of a 0.1.0 component to an ephemeral resource call.
fn no_ephemeral(type_name: &str) -> new::Diagnostic {
    not_in_0_1_0(
        "Unknown ephemeral resource type",
        &format!("has no ephemeral resources (asked for {type_name:?})"),
    )
}

/// An error for a call a 0.1.0 component cannot answer: `what` completes "This provider
/// was built against tfwasm:provider@0.1.0, which …".
fn not_in_0_1_0(summary: &str, what: &str) -> new::Diagnostic {
    new::Diagnostic {
        severity: new::Severity::Error,
        summary: summary.into(),
        detail: format!("This provider was built against tfwasm:provider@0.1.0, which {what}."),
        attribute: Vec::new(),
    }
}
