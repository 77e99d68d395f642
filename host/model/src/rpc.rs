//! The provider lifecycle as Rust types: one request/response pair per tfplugin6 RPC and the
//! [`Provider`] trait that the gRPC layer serves and the Wasm runtime implements.
//!
//! Values stay encoded ([`DynamicValue`]) so that forwarding a call costs no decoding; a
//! layer that needs to look inside (the contract checks) decodes once with the schema.

use std::collections::BTreeMap;
use std::future::Future;

use crate::codec::{self, CodecError};
use crate::{AttributePath, Diagnostics, ProviderSchema, Type, Value};

/// An encoded value as it travels in a request or response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicValue {
    /// go-cty msgpack encoding; what Terraform always sends.
    pub msgpack: Vec<u8>,
    /// go-cty JSON encoding; used only when `msgpack` is empty.
    pub json: Vec<u8>,
}

impl DynamicValue {
    /// A value given as msgpack bytes.
    pub fn from_msgpack(bytes: Vec<u8>) -> DynamicValue {
        DynamicValue {
            msgpack: bytes,
            json: Vec::new(),
        }
    }

    /// The msgpack encoding of null.
    pub fn null() -> DynamicValue {
        DynamicValue::from_msgpack(codec::msgpack::NULL.to_vec())
    }

    /// Encodes `value` as msgpack against `ty`.
    pub fn encode(value: &Value, ty: &Type) -> Result<DynamicValue, CodecError> {
        codec::msgpack::encode(value, ty).map(DynamicValue::from_msgpack)
    }

    /// Decodes against `ty`: msgpack if present, else JSON, else null (as Terraform does).
    pub fn decode(&self, ty: &Type) -> Result<Value, CodecError> {
        if !self.msgpack.is_empty() {
            codec::msgpack::decode(&self.msgpack, ty)
        } else if !self.json.is_empty() {
            codec::json::decode_bytes(&self.json, ty)
        } else {
            Ok(Value::Null)
        }
    }
}

/// Stored state to upgrade, as the state file holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawState {
    /// The JSON `attributes` object, written with the schema version that stored it.
    pub json: Vec<u8>,
    /// Pre-0.12 flatmap state; providers of this era never see it.
    pub flatmap: BTreeMap<String, String>,
}

/// Optional protocol features the provider supports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerCapabilities {
    /// Terraform should call PlanResourceChange for destroys too.
    pub plan_destroy: bool,
    /// Terraform may use a cached schema instead of calling GetProviderSchema.
    pub get_provider_schema_optional: bool,
    /// The provider implements MoveResourceState.
    pub move_resource_state: bool,
}

/// Features the client (Terraform/OpenTofu) announced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// The client can handle deferred changes.
    pub deferral_allowed: bool,
    /// The client handles write-only attributes.
    pub write_only_attributes_allowed: bool,
}

/// ConfigureProvider: the provider block's configuration (may contain unknowns during plan).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigureProviderRequest {
    /// Version of the calling Terraform/OpenTofu.
    pub terraform_version: String,
    /// The provider configuration.
    pub config: DynamicValue,
    /// What the client supports.
    pub client_capabilities: ClientCapabilities,
}

/// ValidateResourceConfig / ValidateDataResourceConfig.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidateConfigRequest {
    /// Resource or data source type.
    pub type_name: String,
    /// Its configuration; may contain unknowns.
    pub config: DynamicValue,
}

/// UpgradeResourceState: called for every resource read from state, even at the same version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpgradeResourceStateRequest {
    /// Resource type.
    pub type_name: String,
    /// Schema version the state was written with.
    pub version: i64,
    /// The stored state.
    pub raw_state: RawState,
}

/// The state in the current schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpgradeResourceStateResponse {
    /// Upgraded state; must be wholly known and match the current schema.
    pub upgraded_state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// ReadResource (refresh).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadResourceRequest {
    /// Resource type.
    pub type_name: String,
    /// State as last recorded.
    pub current_state: DynamicValue,
    /// Provider-private data stored beside the state.
    pub private: Vec<u8>,
    /// `provider_meta` block of the calling module, if the provider declares one.
    pub provider_meta: DynamicValue,
}

/// The refreshed state; null means the object is gone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadResourceResponse {
    /// Current state, or null when the remote object no longer exists.
    pub new_state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Updated private data.
    pub private: Vec<u8>,
}

/// PlanResourceChange.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    pub prior_private: Vec<u8>,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
}

/// The planned new state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanResourceChangeResponse {
    /// Planned state; unknown where apply will decide.
    pub planned_state: DynamicValue,
    /// Attributes whose change forces replacement.
    pub requires_replace: Vec<AttributePath>,
    /// Private data to hand to apply.
    pub planned_private: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// ApplyResourceChange.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    pub planned_private: Vec<u8>,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
}

/// The new state after apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyResourceChangeResponse {
    /// New state: wholly known; null after delete. Returned even with errors when the remote
    /// object exists, so that nothing is lost.
    pub new_state: DynamicValue,
    /// Private data to store.
    pub private: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// ImportResourceState.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportResourceStateRequest {
    /// Resource type.
    pub type_name: String,
    /// The import ID the user gave.
    pub id: String,
}

/// One imported object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportedResource {
    /// Its resource type (must be set).
    pub type_name: String,
    /// Its state.
    pub state: DynamicValue,
    /// Its private data.
    pub private: Vec<u8>,
}

/// The imported objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportResourceStateResponse {
    /// Imported objects (Terraform accepts exactly one).
    pub imported_resources: Vec<ImportedResource>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// ReadDataSource.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadDataSourceRequest {
    /// Data source type.
    pub type_name: String,
    /// Its (wholly known) configuration.
    pub config: DynamicValue,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
}

/// The data source's result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadDataSourceResponse {
    /// Result: wholly known, non-null.
    pub state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// A tfplugin6 provider, as the gRPC layer serves it. Implemented by the Wasm runtime (and by
/// test fakes); the contract layer wraps one to check every response.
///
/// Methods never fail as Rust errors: every problem, including a guest trap, becomes a
/// diagnostic in the response, so Terraform shows it to the user and the server keeps serving.
pub trait Provider: Send + Sync + 'static {
    /// GetProviderSchema. Called first by every new provider process.
    fn get_provider_schema(&self) -> impl Future<Output = ProviderSchema> + Send;

    /// Capabilities announced in GetProviderSchema and GetMetadata.
    fn server_capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::default()
    }

    /// ValidateProviderConfig.
    fn validate_provider_config(
        &self,
        config: DynamicValue,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// ConfigureProvider. Later calls of this process run with this configuration.
    fn configure_provider(
        &self,
        req: ConfigureProviderRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// ValidateResourceConfig.
    fn validate_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// ValidateDataResourceConfig.
    fn validate_data_resource_config(
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

    /// ReadDataSource.
    fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> impl Future<Output = ReadDataSourceResponse> + Send;

    /// StopProvider: cancel in-flight work promptly. `Err` carries a message for Terraform.
    fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send;
}
