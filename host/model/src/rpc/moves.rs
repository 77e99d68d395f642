//! The move family (tfplugin6.5, Terraform 1.8): MoveResourceState, for `moved` blocks whose
//! source is another resource type (possibly of another provider). Announced with the
//! `move_resource_state` capability.

use std::future::Future;

use super::{DynamicValue, RawState};
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_moves {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Move {
        MoveResourceState {
            guest: true,
            wire: derived,
            method: [move_resource_state(req: MoveResourceStateRequest) -> MoveResourceStateResponse],
            subject: |req| &req.target_type_name,
            request: {
                source_provider_address: Plain, source_type_name: Plain, source_schema_version: Plain,
                source_state: Foreign, target_type_name: Plain, source_private: Private,
                source_identity: Foreign, source_identity_schema_version: Plain,
            },
            response: {
                target_state: Object, target_private: Private, diagnostics: Diagnostics,
                target_identity: Identity,
            },
        }
    } } };
}

/// MoveResourceState: the source's stored state, to become a state of the target type.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveResourceStateRequest {
    /// Provider address of the source, e.g. `registry.terraform.io/hashicorp/random`.
    pub source_provider_address: String,
    /// Resource type of the source.
    pub source_type_name: String,
    /// Schema version the source state was written with.
    pub source_schema_version: i64,
    /// The source state, as the state file holds it (JSON).
    pub source_state: RawState,
    /// Resource type to move to; one of this provider's.
    pub target_type_name: String,
    /// The source's private data.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub source_private: Vec<u8>,
    /// The source's stored identity (JSON), if it has one (Terraform >= 1.12).
    pub source_identity: Option<RawState>,
    /// Identity schema version the source identity was written with.
    pub source_identity_schema_version: i64,
}

/// The moved state.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveResourceStateResponse {
    /// State of the target type: wholly known, in the target's current schema.
    pub target_state: DynamicValue,
    /// Private data of the target.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub target_private: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Identity of the target, wholly known (target types with an identity).
    pub target_identity: Option<DynamicValue>,
}

/// MoveResourceState.
///
/// A provider that moves nothing implements [`NoMoves`] instead; it then does not announce
/// the capability, and Terraform reports the unsupported move itself.
pub trait MoveServer: Send + Sync + 'static {
    /// Whether to announce `move_resource_state`.
    fn moves_state(&self) -> bool;

    /// MoveResourceState.
    fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> impl Future<Output = MoveResourceStateResponse> + Send;
}

/// Marks a provider that supports no cross-type moves.
pub trait NoMoves: Send + Sync + 'static {}

impl<T: NoMoves> MoveServer for T {
    fn moves_state(&self) -> bool {
        false
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        MoveResourceStateResponse {
            diagnostics: vec![crate::Diagnostic::error(
                "Move Resource State Not Supported",
                format!(
                    "This provider cannot move state from {} {:?} to {:?}.",
                    req.source_provider_address, req.source_type_name, req.target_type_name
                ),
            )],
            ..Default::default()
        }
    }
}
