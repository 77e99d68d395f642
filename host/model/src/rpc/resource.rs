//! The managed resource family: validation, state upgrades, read, plan, apply and import.

use std::future::Future;

use super::{ClientCapabilities, DeferredReason, DynamicValue, RawState, ValidateConfigRequest};
use crate::{AttributePath, Diagnostics};

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_resource {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Resource {
        ValidateResourceConfig {
            guest: true,
            wire: derived,
            method: [validate_resource_config(req: ValidateConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics },
        }
        UpgradeResourceState {
            guest: true,
            wire: derived,
            method: [upgrade_resource_state(req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, version: Plain, raw_state: RawState },
            response: { upgraded_state: Object, diagnostics: Diagnostics },
        }
        ReadResource {
            guest: true,
            wire: derived,
            method: [read_resource(req: ReadResourceRequest) -> ReadResourceResponse],
            subject: |req| &req.type_name,
            request: {
                type_name: Plain, current_state: Object, private: Private,
                provider_meta: ProviderMeta, client_capabilities: Plain, current_identity: Identity,
            },
            response: {
                new_state: Object, diagnostics: Diagnostics, private: Private, deferred: Plain,
                new_identity: Identity,
            },
        }
        PlanResourceChange {
            guest: true,
            wire: derived,
            method: [plan_resource_change(req: PlanResourceChangeRequest) -> PlanResourceChangeResponse],
            subject: |req| &req.type_name,
            request: {
                type_name: Plain, prior_state: Object, proposed_new_state: Object, config: Object,
                prior_private: Private, provider_meta: ProviderMeta, client_capabilities: Plain,
                prior_identity: Identity, planned_private: Private,
            },
            response: {
                planned_state: Object, requires_replace: Paths, planned_private: Private,
                diagnostics: Diagnostics, deferred: Plain, planned_identity: Identity,
            },
        }
        ApplyResourceChange {
            guest: true,
            wire: derived,
            method: [apply_resource_change(req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse],
            subject: |req| &req.type_name,
            request: {
                type_name: Plain, prior_state: Object, planned_state: Object, config: Object,
                planned_private: Private, provider_meta: ProviderMeta, planned_identity: Identity,
            },
            response: { new_state: Object, private: Private, diagnostics: Diagnostics, new_identity: Identity },
        }
        ImportResourceState {
            guest: true,
            wire: derived,
            method: [import_resource_state(req: ImportResourceStateRequest) -> ImportResourceStateResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, id: ImportId, client_capabilities: Plain, identity: Identity },
            response: { imported_resources: Imported, diagnostics: Diagnostics, deferred: Plain },
        }
    } } };
}

/// UpgradeResourceState: called for every resource read from state, even at the same version.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UpgradeResourceStateRequest {
    /// Resource type.
    pub type_name: String,
    /// Schema version the state was written with.
    pub version: i64,
    /// The stored state.
    pub raw_state: RawState,
}

/// The state in the current schema.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UpgradeResourceStateResponse {
    /// Upgraded state; must be wholly known and match the current schema.
    pub upgraded_state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// ReadResource (refresh).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadResourceRequest {
    /// Resource type.
    pub type_name: String,
    /// State as last recorded.
    pub current_state: DynamicValue,
    /// Provider-private data stored beside the state.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// `provider_meta` block of the calling module, if the provider declares one.
    pub provider_meta: DynamicValue,
    /// What the client supports (Terraform >= 1.9 sends it with this call).
    pub client_capabilities: ClientCapabilities,
    /// The identity stored with the state (Terraform >= 1.12, resource types with an
    /// identity); `None` when the client sent none.
    pub current_identity: Option<DynamicValue>,
}

/// The refreshed state; null means the object is gone.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadResourceResponse {
    /// Current state, or null when the remote object no longer exists.
    pub new_state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Updated private data.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// Set when the provider defers this change to a later run (only if the client allows it).
    pub deferred: Option<DeferredReason>,
    /// The object's identity; the same as the current one for the same object.
    pub new_identity: Option<DynamicValue>,
}

/// PlanResourceChange.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanResourceChangeRequest {
    /// Resource type.
    pub type_name: String,
    /// Prior state; null on create.
    pub prior_state: DynamicValue,
    /// Terraform's proposal: config merged with prior state for computed attributes.
    pub proposed_new_state: DynamicValue,
    /// The configuration; null on destroy.
    pub config: DynamicValue,
    /// Private data of the prior state.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub prior_private: Vec<u8>,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
    /// What the client supports (Terraform >= 1.9 sends it with this call).
    pub client_capabilities: ClientCapabilities,
    /// The identity stored with the prior state.
    pub prior_identity: Option<DynamicValue>,
    /// When Terraform plans again during apply, the private data of the saved plan (clients
    /// with `store_planned_private`, tfplugin6.11); empty otherwise.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub planned_private: Vec<u8>,
}

/// The planned new state.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanResourceChangeResponse {
    /// Planned state; unknown where apply will decide.
    pub planned_state: DynamicValue,
    /// Attributes whose change forces replacement.
    pub requires_replace: Vec<AttributePath>,
    /// Private data to hand to apply.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub planned_private: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Set when the provider defers this change to a later run (only if the client allows it).
    pub deferred: Option<DeferredReason>,
    /// The planned identity: the prior one on update; may hold unknowns on create.
    pub planned_identity: Option<DynamicValue>,
}

/// ApplyResourceChange.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApplyResourceChangeRequest {
    /// Resource type.
    pub type_name: String,
    /// Prior state; null on create.
    pub prior_state: DynamicValue,
    /// Planned state; null on delete.
    pub planned_state: DynamicValue,
    /// Configuration; null on delete.
    pub config: DynamicValue,
    /// Private data from the plan.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub planned_private: Vec<u8>,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
    /// The identity from the plan.
    pub planned_identity: Option<DynamicValue>,
}

/// The new state after apply.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApplyResourceChangeResponse {
    /// New state: wholly known; null after delete. Returned even with errors when the remote
    /// object exists, so that nothing is lost.
    pub new_state: DynamicValue,
    /// Private data to store.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// The object's identity, wholly known.
    pub new_identity: Option<DynamicValue>,
}

/// ImportResourceState.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportResourceStateRequest {
    /// Resource type.
    pub type_name: String,
    /// The import ID the user gave; empty when importing by identity.
    pub id: String,
    /// What the client supports (Terraform >= 1.9 sends it with this call).
    pub client_capabilities: ClientCapabilities,
    /// The identity to import by (an `import` block's `identity`, Terraform >= 1.12); the
    /// attributes not given are null.
    pub identity: Option<DynamicValue>,
}

/// One imported object.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportedResource {
    /// Its resource type (must be set).
    pub type_name: String,
    /// Its state.
    pub state: DynamicValue,
    /// Its private data.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// Its identity, wholly known.
    pub identity: Option<DynamicValue>,
}

/// The imported objects.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportResourceStateResponse {
    /// Imported objects (Terraform accepts exactly one).
    pub imported_resources: Vec<ImportedResource>,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Set when the provider defers this change to a later run (only if the client allows it).
    pub deferred: Option<DeferredReason>,
}

/// ValidateResourceConfig, UpgradeResourceState, ReadResource, PlanResourceChange,
/// ApplyResourceChange and ImportResourceState.
pub trait ResourceServer: Send + Sync + 'static {
    /// ValidateResourceConfig.
    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// UpgradeResourceState.
    fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> impl Future<Output = UpgradeResourceStateResponse> + Send;

    /// ReadResource.
    fn read_resource(
        &self,
        req: ReadResourceRequest,
    ) -> impl Future<Output = ReadResourceResponse> + Send;

    /// PlanResourceChange.
    fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> impl Future<Output = PlanResourceChangeResponse> + Send;

    /// ApplyResourceChange.
    fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> impl Future<Output = ApplyResourceChangeResponse> + Send;

    /// ImportResourceState.
    fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> impl Future<Output = ImportResourceStateResponse> + Send;
}
