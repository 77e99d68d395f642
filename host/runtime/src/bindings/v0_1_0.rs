//! `tfwasm:provider@0.1.0`, the first released WIT (frozen): its bindings, its host imports,
//! and conversions between its types and the latest version's, so the rest of the runtime
//! speaks only the latest. A 0.1.0 component has no functions.

use super::latest::exports::tfwasm::provider::{data_source, resource};
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
pub(crate) use generated::{TfwasmProvider, TfwasmProviderPre};

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

pub(super) fn context(ctx: &new::ProviderContext) -> old::ProviderContext {
    old::ProviderContext {
        terraform_version: ctx.terraform_version.clone(),
        config: ctx.config.clone(),
    }
}

pub(super) fn validate_request(req: &new::ValidateRequest) -> old::ValidateRequest {
    old::ValidateRequest {
        type_name: req.type_name.clone(),
        config: req.config.clone(),
    }
}

pub(super) fn upgrade_request(req: &resource::UpgradeRequest) -> old::UpgradeRequest {
    old::UpgradeRequest {
        type_name: req.type_name.clone(),
        version: req.version,
        raw_state_json: req.raw_state_json.clone(),
    }
}

pub(super) fn read_request(req: &resource::ReadRequest) -> old::ReadRequest {
    old::ReadRequest {
        type_name: req.type_name.clone(),
        current_state: req.current_state.clone(),
        private: req.private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

pub(super) fn plan_request(req: &resource::PlanRequest) -> old::PlanRequest {
    old::PlanRequest {
        type_name: req.type_name.clone(),
        prior_state: req.prior_state.clone(),
        proposed_new_state: req.proposed_new_state.clone(),
        config: req.config.clone(),
        prior_private: req.prior_private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

pub(super) fn apply_request(req: &resource::ApplyRequest) -> old::ApplyRequest {
    old::ApplyRequest {
        type_name: req.type_name.clone(),
        prior_state: req.prior_state.clone(),
        planned_state: req.planned_state.clone(),
        config: req.config.clone(),
        planned_private: req.planned_private.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

pub(super) fn import_request(req: &resource::ImportRequest) -> old::ImportRequest {
    old::ImportRequest {
        type_name: req.type_name.clone(),
        id: req.id.clone(),
    }
}

pub(super) fn read_data_request(req: &data_source::ReadDataRequest) -> old::ReadDataRequest {
    old::ReadDataRequest {
        type_name: req.type_name.clone(),
        config: req.config.clone(),
        provider_meta: req.provider_meta.clone(),
    }
}

// Responses: 0.1.0 → latest.

pub(super) fn diagnostics(list: Vec<old::Diagnostic>) -> Vec<new::Diagnostic> {
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

pub(super) fn upgrade_response(r: old::UpgradeResponse) -> resource::UpgradeResponse {
    resource::UpgradeResponse {
        upgraded_state: r.upgraded_state,
        diagnostics: diagnostics(r.diagnostics),
    }
}

pub(super) fn read_response(r: old::ReadResponse) -> resource::ReadResponse {
    resource::ReadResponse {
        new_state: r.new_state,
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
        new_identity: None,
    }
}

pub(super) fn plan_response(r: old::PlanResponse) -> resource::PlanResponse {
    resource::PlanResponse {
        planned_state: r.planned_state,
        requires_replace: r.requires_replace.into_iter().map(path).collect(),
        planned_private: r.planned_private,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
        planned_identity: None,
    }
}

pub(super) fn apply_response(r: old::ApplyResponse) -> resource::ApplyResponse {
    resource::ApplyResponse {
        new_state: r.new_state,
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        new_identity: None,
    }
}

pub(super) fn import_response(r: old::ImportResponse) -> resource::ImportResponse {
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

pub(super) fn read_data_response(r: old::ReadDataResponse) -> data_source::ReadDataResponse {
    data_source::ReadDataResponse {
        state: r.state,
        diagnostics: diagnostics(r.diagnostics),
        deferred: None,
    }
}

/// A 0.1.0 schema in the latest form: the same records, and no functions.
pub(super) fn provider_schema(s: old::ProviderSchema) -> new::ProviderSchema {
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
