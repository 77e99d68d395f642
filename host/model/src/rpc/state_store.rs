//! The state store family (tfplugin6.10–6.11, Terraform 1.15's `state_store` block, behind
//! experiments): a provider keeps Terraform's state, by state ID (the workspace), with locks.
//!
//! tfplugin6 moves a state in chunks of a negotiated size (ReadStateBytes streams them,
//! WriteStateBytes receives them). Here a call moves a whole state: whoever serves the
//! protocol chunks and reassembles it, checking the ranges, so a provider never holds a
//! partly written state between calls. The store's configuration (ConfigureStateStore's) is
//! kept by the host and sent with every call, so the provider keeps nothing either.

use std::future::Future;

use super::DynamicValue;
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_state_store {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] StateStore {
        ValidateStateStoreConfig {
            guest: true,
            wire: by_hand,
            method: [validate_state_store_config(req: ValidateStateStoreConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object },
            response: { diagnostics: Diagnostics },
        }
        ConfigureStateStore {
            guest: true,
            wire: by_hand,
            method: [configure_state_store(req: ConfigureStateStoreRequest) -> ConfigureStateStoreResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, chunk_size: Plain },
            response: { diagnostics: Diagnostics, chunk_size: Plain },
        }
        ReadStateBytes {
            guest: true,
            wire: by_hand,
            method: [read_state(req: StateRequest) -> ReadStateResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state_id: Plain },
            response: { bytes: Private, diagnostics: Diagnostics },
        }
        WriteStateBytes {
            guest: true,
            wire: by_hand,
            method: [write_state(req: WriteStateRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state_id: Plain, bytes: Private },
            response: { diagnostics: Diagnostics },
        }
        LockState {
            guest: true,
            wire: derived,
            method: [lock_state(req: LockStateRequest) -> LockStateResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state_id: Plain, operation: Plain },
            response: { lock_id: Plain, diagnostics: Diagnostics },
        }
        UnlockState {
            guest: true,
            wire: derived,
            method: [unlock_state(req: UnlockStateRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state_id: Plain, lock_id: Plain },
            response: { diagnostics: Diagnostics },
        }
        GetStates {
            guest: true,
            wire: derived,
            method: [get_states(req: GetStatesRequest) -> GetStatesResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain },
            response: { state_ids: Plain, diagnostics: Diagnostics },
        }
        DeleteState {
            guest: true,
            wire: derived,
            method: [delete_state(req: StateRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state_id: Plain },
            response: { diagnostics: Diagnostics },
        }
    } } };
}

/// The largest state moved, either way: what one guest call may answer with (the runtime's
/// value bound), so a state written can always be read back.
pub const MAX_STATE_BYTES: usize = 16 << 20;

/// ValidateStateStoreConfig: a `state_store` block's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidateStateStoreConfigRequest {
    /// The state store type.
    pub type_name: String,
    /// Its configuration; may contain unknowns.
    pub config: DynamicValue,
}

/// ConfigureStateStore.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConfigureStateStoreRequest {
    /// The state store type.
    pub type_name: String,
    /// Its configuration (wholly known).
    pub config: DynamicValue,
    /// The chunk size the client proposes for moving states.
    pub chunk_size: i64,
}

/// ConfigureStateStore's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConfigureStateStoreResponse {
    /// Problems.
    pub diagnostics: Diagnostics,
    /// The chunk size agreed on.
    pub chunk_size: i64,
}

/// A request about one state of a configured store.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateRequest {
    /// The store.
    pub type_name: String,
    /// The state's ID (the workspace name).
    pub state_id: String,
}

/// ReadStateBytes' answer: the whole state.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadStateResponse {
    /// The state file's bytes; empty when there is none yet.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub bytes: Vec<u8>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// WriteStateBytes: the whole state, reassembled.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WriteStateRequest {
    /// The store.
    pub type_name: String,
    /// The state's ID.
    pub state_id: String,
    /// The state file's bytes.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub bytes: Vec<u8>,
}

/// LockState.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LockStateRequest {
    /// The store.
    pub type_name: String,
    /// The state's ID.
    pub state_id: String,
    /// What the lock is taken for (plan, apply, refresh...).
    pub operation: String,
}

/// LockState's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LockStateResponse {
    /// The lock's ID, which unlocking takes.
    pub lock_id: String,
    /// Problems (a lock held by someone else, saying who).
    pub diagnostics: Diagnostics,
}

/// UnlockState.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnlockStateRequest {
    /// The store.
    pub type_name: String,
    /// The state's ID.
    pub state_id: String,
    /// The ID LockState answered.
    pub lock_id: String,
}

/// GetStates.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GetStatesRequest {
    /// The store.
    pub type_name: String,
}

/// GetStates' answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GetStatesResponse {
    /// The IDs of the states the store holds.
    pub state_ids: Vec<String>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// The state store family.
///
/// A provider without state stores implements [`NoStateStores`] instead: it declares no
/// state store schema, so Terraform sends it none of these.
pub trait StateStoreServer: Send + Sync + 'static {
    /// ValidateStateStoreConfig.
    fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;
    /// ConfigureStateStore: the configuration every later call of the store uses.
    fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> impl Future<Output = ConfigureStateStoreResponse> + Send;
    /// ReadStateBytes, whole.
    fn read_state(&self, req: StateRequest) -> impl Future<Output = ReadStateResponse> + Send;
    /// WriteStateBytes, whole.
    fn write_state(&self, req: WriteStateRequest) -> impl Future<Output = Diagnostics> + Send;
    /// LockState.
    fn lock_state(&self, req: LockStateRequest) -> impl Future<Output = LockStateResponse> + Send;
    /// UnlockState.
    fn unlock_state(&self, req: UnlockStateRequest) -> impl Future<Output = Diagnostics> + Send;
    /// GetStates.
    fn get_states(&self, req: GetStatesRequest) -> impl Future<Output = GetStatesResponse> + Send;
    /// DeleteState.
    fn delete_state(&self, req: StateRequest) -> impl Future<Output = Diagnostics> + Send;
}

/// Marks a provider without state stores.
pub trait NoStateStores: Send + Sync + 'static {}

/// The error a provider without state stores answers with.
fn no_store(type_name: &str) -> Diagnostics {
    vec![crate::Diagnostic::error(
        "State Store Not Supported",
        format!("This provider has no state store of type {type_name:?}."),
    )]
}

impl<T: NoStateStores> StateStoreServer for T {
    async fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        no_store(&req.type_name)
    }
    async fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> ConfigureStateStoreResponse {
        ConfigureStateStoreResponse {
            diagnostics: no_store(&req.type_name),
            chunk_size: 0,
        }
    }
    async fn read_state(&self, req: StateRequest) -> ReadStateResponse {
        ReadStateResponse {
            diagnostics: no_store(&req.type_name),
            ..Default::default()
        }
    }
    async fn write_state(&self, req: WriteStateRequest) -> Diagnostics {
        no_store(&req.type_name)
    }
    async fn lock_state(&self, req: LockStateRequest) -> LockStateResponse {
        LockStateResponse {
            diagnostics: no_store(&req.type_name),
            ..Default::default()
        }
    }
    async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
        no_store(&req.type_name)
    }
    async fn get_states(&self, req: GetStatesRequest) -> GetStatesResponse {
        GetStatesResponse {
            diagnostics: no_store(&req.type_name),
            ..Default::default()
        }
    }
    async fn delete_state(&self, req: StateRequest) -> Diagnostics {
        no_store(&req.type_name)
    }
}
