//! The provider lifecycle as Rust types: one request/response pair per tfplugin6 RPC, grouped
//! in RPC families as terraform-plugin-go's `tfprotov6` groups them, one trait per family:
//! [`ProviderServer`], [`ResourceServer`], [`DataSourceServer`], [`FunctionServer`],
//! [`MoveServer`], [`IdentityServer`], [`EphemeralServer`], [`ConfigGenerationServer`],
//! [`ListServer`], [`ActionServer`], [`StateStoreServer`].
//! [`Provider`] is all of them: what the gRPC layer serves, the Wasm runtime implements and
//! the contract checks wrap. Optional families have a marker trait (e.g. [`NoFunctions`]) that
//! answers "not supported" for a provider without them; a wrapper implements the family itself
//! and so cannot silently forget an RPC.
//!
//! Values stay encoded ([`DynamicValue`]) so that forwarding a call costs no decoding; a
//! layer that needs to look inside (the contract checks) decodes once with the schema.

use std::collections::BTreeMap;

mod action;
mod call;
pub mod calls;
mod config_generation;
mod data_source;
mod ephemeral;
pub mod forms;
mod function;
mod handler;
mod identity;
mod list;
mod moves;
mod provider;
mod resource;
mod state_store;
pub(crate) mod table;

pub use call::{
    Call, CallVisitor, Family, Field, IMPORTED_FIELDS, NoRequest, ValidateProviderConfigRequest,
};
pub use handler::{Handled, Handler};
// Each family module is the one place its RPCs are declared (messages, trait, table
// entries): everything public in it is this module's.
pub use action::*;
pub use config_generation::*;
pub use data_source::*;
pub use ephemeral::*;
pub use function::*;
pub use identity::*;
pub use list::*;
pub use moves::*;
pub use provider::*;
pub use resource::*;
pub use state_store::*;

/// The family traits, for code that calls RPCs on a [`Provider`] without implementing one:
/// `use tfwasm_model::rpc::prelude::*;`.
pub mod prelude {
    pub use super::{
        ActionServer as _, ConfigGenerationServer as _, DataSourceServer as _,
        EphemeralServer as _, FunctionServer as _, IdentityServer as _, ListServer as _,
        MoveServer as _, ProviderServer as _, ResourceServer as _, StateStoreServer as _,
    };
}

use crate::codec::{self, CodecError};
use crate::{Type, Value};

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

    /// Whether this is null in either encoding, or empty (as a missing value is sent): the
    /// prior state of a create, the planned state of a destroy.
    pub fn is_null(&self) -> bool {
        if self.msgpack.is_empty() {
            self.json.is_empty() || self.json.trim_ascii() == b"null"
        } else {
            self.msgpack == codec::msgpack::NULL
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerCapabilities {
    /// Terraform should call PlanResourceChange for destroys too.
    pub plan_destroy: bool,
    /// Terraform may use a cached schema instead of calling GetProviderSchema.
    pub get_provider_schema_optional: bool,
    /// The provider implements MoveResourceState.
    pub move_resource_state: bool,
    /// The provider implements GenerateResourceConfig (tfplugin6.10).
    pub generate_resource_config: bool,
}

/// Why a provider deferred a change to a later run (Terraform 1.9, behind `deferral_allowed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DeferredReason {
    /// No reason given.
    Unknown,
    /// The resource's configuration has unknown values the provider needs.
    ResourceConfigUnknown,
    /// The provider's configuration has unknown values it needs.
    ProviderConfigUnknown,
    /// Something the change needs does not exist yet.
    AbsentPrereq,
}

/// Features the client (Terraform/OpenTofu) announced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientCapabilities {
    /// The client can handle deferred changes.
    pub deferral_allowed: bool,
    /// The client handles write-only attributes.
    pub write_only_attributes_allowed: bool,
    /// The client keeps a plan's private data and sends it back when it plans again during
    /// apply ([`PlanResourceChangeRequest::planned_private`]; tfplugin6.11).
    pub store_planned_private: bool,
    /// The client accepts plans that set [`Block::computed`](crate::Block::computed)
    /// blocks the configuration leaves out (tfplugin6.11).
    pub computed_blocks_allowed: bool,
}

/// ValidateResourceConfig / ValidateDataResourceConfig.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidateConfigRequest {
    /// Resource or data source type.
    pub type_name: String,
    /// Its configuration; may contain unknowns.
    pub config: DynamicValue,
    /// What the client supports (sent with ValidateResourceConfig by Terraform >= 1.11;
    /// all false otherwise).
    pub client_capabilities: ClientCapabilities,
}

/// A whole tfplugin6 provider: every RPC family. Implemented by the Wasm runtime (and by test
/// fakes and benchmark baselines); the contract layer wraps one to check every response.
pub trait Provider:
    ProviderServer
    + ResourceServer
    + DataSourceServer
    + FunctionServer
    + MoveServer
    + IdentityServer
    + EphemeralServer
    + ConfigGenerationServer
    + ListServer
    + ActionServer
    + StateStoreServer
{
}

impl<T> Provider for T where
    T: ProviderServer
        + ResourceServer
        + DataSourceServer
        + FunctionServer
        + MoveServer
        + IdentityServer
        + EphemeralServer
        + ConfigGenerationServer
        + ListServer
        + ActionServer
        + StateStoreServer
{
}

/// The capabilities a provider announces, derived from what it implements, so a capability
/// cannot be announced without the RPCs behind it.
pub fn server_capabilities<P: Provider>(provider: &P) -> ServerCapabilities {
    ServerCapabilities {
        plan_destroy: provider.plans_destroy(),
        // Every layer works its schema out lazily, so a client that cached the schema may
        // start with any RPC.
        get_provider_schema_optional: true,
        move_resource_state: provider.moves_state(),
        generate_resource_config: provider.generates_config(),
    }
}
