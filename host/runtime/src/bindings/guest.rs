//! [`Guest`]: an instance of a component of any supported WIT version, with one method per
//! export in the latest version's types. Older versions convert on the way in and out
//! (Zed's extension host does the same), so the rest of the runtime knows one version.

use wasmtime::component::{Component, InstancePre};
use wasmtime::{Engine, Store};

use super::latest::exports::tfwasm::provider::{data_source, ephemeral, function, resource};
use super::latest::tfwasm::provider::types as wit;
use super::{latest, v0_1_0};
use crate::state::StoreState;

/// A WIT version tfwasm serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WitVersion {
    /// `tfwasm:provider@0.1.0`: resources and data sources.
    V0_1_0,
    /// `tfwasm:provider@0.2.0`: adds functions, moves, ephemeral resources, write-only
    /// attributes, deferral and resource identity.
    V0_2_0,
}

impl WitVersion {
    /// Newest first.
    pub const ALL: [WitVersion; 2] = [WitVersion::V0_2_0, WitVersion::V0_1_0];

    /// `0.1.0`, `0.2.0`.
    pub fn as_str(self) -> &'static str {
        match self {
            WitVersion::V0_1_0 => "0.1.0",
            WitVersion::V0_2_0 => "0.2.0",
        }
    }

    /// The version whose `provider` interface `component` exports, if any.
    pub fn of(component: &Component, engine: &Engine) -> Option<WitVersion> {
        let exports: Vec<String> = component
            .component_type()
            .exports(engine)
            .map(|(name, _)| name.to_owned())
            .collect();
        WitVersion::ALL.into_iter().find(|v| {
            let wanted = format!("tfwasm:provider/provider@{}", v.as_str());
            exports.contains(&wanted)
        })
    }
}

/// A pre-linked component of a known version.
pub(crate) enum GuestPre {
    /// 0.1.0.
    V0_1_0(v0_1_0::TfwasmProviderPre<StoreState>),
    /// The latest.
    Latest(latest::TfwasmProviderPre<StoreState>),
}

impl GuestPre {
    /// Checks `pre` against the bindings of `version`.
    pub fn new(version: WitVersion, pre: InstancePre<StoreState>) -> wasmtime::Result<GuestPre> {
        Ok(match version {
            WitVersion::V0_1_0 => GuestPre::V0_1_0(v0_1_0::TfwasmProviderPre::new(pre)?),
            WitVersion::V0_2_0 => GuestPre::Latest(latest::TfwasmProviderPre::new(pre)?),
        })
    }

    /// A fresh instance.
    pub async fn instantiate_async(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Guest> {
        Ok(match self {
            GuestPre::V0_1_0(pre) => Guest::V0_1_0(pre.instantiate_async(store).await?),
            GuestPre::Latest(pre) => Guest::Latest(pre.instantiate_async(store).await?),
        })
    }

    /// The component's WIT version.
    pub fn version(&self) -> WitVersion {
        match self {
            GuestPre::V0_1_0(_) => WitVersion::V0_1_0,
            GuestPre::Latest(_) => WitVersion::V0_2_0,
        }
    }
}

/// An instance of a component.
pub(crate) enum Guest {
    /// 0.1.0.
    V0_1_0(v0_1_0::TfwasmProvider),
    /// The latest.
    Latest(latest::TfwasmProvider),
}

type Result<T> = wasmtime::Result<T>;
type S<'a> = &'a mut Store<StoreState>;

impl Guest {
    /// `provider.get-schema`.
    pub async fn get_schema(&self, store: S<'_>) -> Result<wit::ProviderSchema> {
        match self {
            Guest::Latest(g) => g.tfwasm_provider_provider().call_get_schema(store).await,
            Guest::V0_1_0(g) => {
                let s = g.tfwasm_provider_provider().call_get_schema(store).await?;
                Ok(v0_1_0::provider_schema(s))
            }
        }
    }

    /// `provider.validate-provider-config`.
    pub async fn validate_provider_config(
        &self,
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_provider()
                    .call_validate_provider_config(store, config)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_validate_provider_config(store, config)
                .await
                .map(v0_1_0::diagnostics),
        }
    }

    /// `provider.configure-provider`.
    pub async fn configure_provider(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_provider()
                    .call_configure_provider(store, ctx)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_configure_provider(store, &v0_1_0::context(ctx))
                .await
                .map(v0_1_0::diagnostics),
        }
    }

    /// `resource.validate-resource-config`.
    pub async fn validate_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_validate_resource_config(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_validate_resource_config(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::validate_request(req),
                )
                .await
                .map(v0_1_0::diagnostics),
        }
    }

    /// `resource.upgrade-resource-state`.
    pub async fn upgrade_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeRequest,
    ) -> Result<resource::UpgradeResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_upgrade_resource_state(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_upgrade_resource_state(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::upgrade_request(req),
                )
                .await
                .map(v0_1_0::upgrade_response),
        }
    }

    /// `resource.read-resource`.
    pub async fn read_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ReadRequest,
    ) -> Result<resource::ReadResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_read_resource(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_read_resource(store, &v0_1_0::context(ctx), &v0_1_0::read_request(req))
                .await
                .map(v0_1_0::read_response),
        }
    }

    /// `resource.plan-resource-change`.
    pub async fn plan_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::PlanRequest,
    ) -> Result<resource::PlanResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_plan_resource_change(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_plan_resource_change(store, &v0_1_0::context(ctx), &v0_1_0::plan_request(req))
                .await
                .map(v0_1_0::plan_response),
        }
    }

    /// `resource.apply-resource-change`.
    pub async fn apply_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ApplyRequest,
    ) -> Result<resource::ApplyResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_apply_resource_change(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_apply_resource_change(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::apply_request(req),
                )
                .await
                .map(v0_1_0::apply_response),
        }
    }

    /// `resource.import-resource-state`.
    pub async fn import_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ImportRequest,
    ) -> Result<resource::ImportResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_import_resource_state(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_import_resource_state(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::import_request(req),
                )
                .await
                .map(v0_1_0::import_response),
        }
    }

    /// `resource.move-resource-state`. 0.1.0 components have none; the host does not
    /// announce the capability for them, so Terraform reports the move itself.
    pub async fn move_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::MoveRequest,
    ) -> Result<resource::MoveResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_move_resource_state(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(resource::MoveResponse {
                target_state: Vec::new(),
                target_private: Vec::new(),
                target_identity: None,
                diagnostics: vec![not_in_0_1_0(
                    "Move Resource State Not Supported",
                    &format!("cannot move state to {}", req.target_type_name),
                )],
            }),
        }
    }

    /// `resource.upgrade-resource-identity`. A 0.1.0 component declares no identity, so
    /// Terraform has none to upgrade; a client that asks anyway is told so.
    pub async fn upgrade_resource_identity(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> Result<resource::UpgradeIdentityResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_resource()
                    .call_upgrade_resource_identity(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(resource::UpgradeIdentityResponse {
                upgraded_identity: None,
                diagnostics: vec![not_in_0_1_0(
                    "Resource identity not supported",
                    &format!("has no resource identities (asked for {:?})", req.type_name),
                )],
            }),
        }
    }

    /// `data-source.validate-data-resource-config`.
    pub async fn validate_data_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_data_source()
                    .call_validate_data_resource_config(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_validate_data_resource_config(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::validate_request(req),
                )
                .await
                .map(v0_1_0::diagnostics),
        }
    }

    /// `data-source.read-data-source`.
    pub async fn read_data_source(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &data_source::ReadDataRequest,
    ) -> Result<data_source::ReadDataResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_data_source()
                    .call_read_data_source(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(g) => g
                .tfwasm_provider_provider()
                .call_read_data_source(
                    store,
                    &v0_1_0::context(ctx),
                    &v0_1_0::read_data_request(req),
                )
                .await
                .map(v0_1_0::read_data_response),
        }
    }

    /// `ephemeral.validate-ephemeral-resource-config`. A 0.1.0 component lists no ephemeral
    /// resources, so Terraform never calls these for it; if a client does, the answer names
    /// the WIT version.
    pub async fn validate_ephemeral_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_ephemeral()
                    .call_validate_ephemeral_resource_config(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(vec![no_ephemeral(&req.type_name)]),
        }
    }

    /// `ephemeral.open-ephemeral-resource`.
    pub async fn open_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> Result<ephemeral::OpenResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_ephemeral()
                    .call_open_ephemeral_resource(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(ephemeral::OpenResponse {
                result: Vec::new(),
                private: Vec::new(),
                renew_at_unix_ms: None,
                diagnostics: vec![no_ephemeral(&req.type_name)],
                deferred: None,
            }),
        }
    }

    /// `ephemeral.renew-ephemeral-resource`.
    pub async fn renew_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<ephemeral::RenewResponse> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_ephemeral()
                    .call_renew_ephemeral_resource(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(ephemeral::RenewResponse {
                private: Vec::new(),
                renew_at_unix_ms: None,
                diagnostics: vec![no_ephemeral(&req.type_name)],
            }),
        }
    }

    /// `ephemeral.close-ephemeral-resource`.
    pub async fn close_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_ephemeral()
                    .call_close_ephemeral_resource(store, ctx, req)
                    .await
            }
            Guest::V0_1_0(_) => Ok(vec![no_ephemeral(&req.type_name)]),
        }
    }

    /// `function.call-function`. A 0.1.0 component has no functions: the host never lists
    /// any for it, and a call answers as for an unknown name.
    pub async fn call_function(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        name: &str,
        arguments: &[Vec<u8>],
    ) -> Result<std::result::Result<Vec<u8>, function::FunctionError>> {
        match self {
            Guest::Latest(g) => {
                g.tfwasm_provider_function()
                    .call_call_function(store, ctx, name, arguments)
                    .await
            }
            Guest::V0_1_0(_) => Ok(Err(function::FunctionError {
                text: tfwasm_model::rpc::no_such_function(name),
                argument: None,
            })),
        }
    }
}

/// The answer of a 0.1.0 component to an ephemeral resource call.
fn no_ephemeral(type_name: &str) -> wit::Diagnostic {
    not_in_0_1_0(
        "Unknown ephemeral resource type",
        &format!("has no ephemeral resources (asked for {type_name:?})"),
    )
}

/// An error for a call a 0.1.0 component cannot answer: `what` completes "This provider
/// was built against tfwasm:provider@0.1.0, which …".
fn not_in_0_1_0(summary: &str, what: &str) -> wit::Diagnostic {
    wit::Diagnostic {
        severity: wit::Severity::Error,
        summary: summary.into(),
        detail: format!("This provider was built against tfwasm:provider@0.1.0, which {what}."),
        attribute: Vec::new(),
    }
}
