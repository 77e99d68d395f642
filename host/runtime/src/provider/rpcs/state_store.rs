//! The state store family, for components that export WIT 0.3.0's `state-store` (only they
//! declare state store schemas). ConfigureStateStore's accepted configuration is kept here
//! and sent with every later call of the store.

use tfwasm_model::rpc::{
    ConfigureStateStoreRequest, ConfigureStateStoreResponse, GetStatesRequest, GetStatesResponse,
    LockStateRequest, LockStateResponse, ReadStateResponse, StateRequest, StateStoreServer,
    UnlockStateRequest, ValidateStateStoreConfigRequest, WriteStateRequest,
};
use tfwasm_model::{Diagnostic, Diagnostics, Rpc, has_error};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings::state_store::Store;

/// The chunk size answered when the client proposes none: Terraform's own default.
const DEFAULT_CHUNK: i64 = 8 << 20;
/// The largest chunk size answered (Terraform accepts up to 128 MiB).
const MAX_CHUNK: i64 = 8 << 20;

/// The error of a call to a component without the export.
fn not_exported() -> wasmtime::Error {
    wasmtime::Error::msg("the component does not export tfwasm:provider/state-store@0.3.0")
}

impl WasmProvider {
    /// The store `type_name` as configured, or the error saying it is not.
    fn store(&self, type_name: &str) -> Result<Store, Diagnostics> {
        let configs = self.store_configs.read().unwrap_or_else(|p| p.into_inner());
        match configs.get(type_name) {
            Some(config) => Ok(Store {
                type_name: type_name.to_owned(),
                config: config.clone(),
            }),
            None => Err(vec![Diagnostic::error(
                "State store not configured",
                format!(
                    "The state store {:?} was used before ConfigureStateStore accepted a configuration for it.",
                    tfwasm_model::quote::escaped(type_name)
                ),
            )]),
        }
    }
}

impl StateStoreServer for WasmProvider {
    async fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        let subject = req.type_name.clone();
        let (type_name, config) = (req.type_name, bytes(req.config));
        self.call(Rpc::ValidateStateStoreConfig, &subject, move |s, guest| {
            Box::pin(async move {
                let export = guest.state_store().ok_or_else(not_exported)?;
                export
                    .call_validate_state_store_config(s, &type_name, &config)
                    .await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> ConfigureStateStoreResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let store = Store {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        let kept = store.clone();
        let diagnostics = self
            .call(Rpc::ConfigureStateStore, &subject, move |s, guest| {
                Box::pin(async move {
                    let export = guest.state_store().ok_or_else(not_exported)?;
                    export.call_configure_state_store(s, &ctx, &store).await
                })
            })
            .await
            .map_or_else(
                |e| vec![self.call_diagnostic(&e.error, &subject)],
                diagnostics,
            );
        if !has_error(&diagnostics) {
            (self
                .store_configs
                .write()
                .unwrap_or_else(|p| p.into_inner()))
            .insert(kept.type_name, kept.config);
        }
        let proposed = if req.chunk_size > 0 {
            req.chunk_size
        } else {
            DEFAULT_CHUNK
        };
        ConfigureStateStoreResponse {
            diagnostics,
            chunk_size: proposed.min(MAX_CHUNK),
        }
    }

    async fn read_state(&self, req: StateRequest) -> ReadStateResponse {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => {
                return ReadStateResponse {
                    diagnostics,
                    ..Default::default()
                };
            }
        };
        let subject = req.type_name;
        let id = req.state_id;
        match self
            .call(Rpc::ReadStateBytes, &subject, move |s, guest| {
                Box::pin(async move {
                    let export = guest.state_store().ok_or_else(not_exported)?;
                    export.call_read_state(s, &ctx, &store, &id).await
                })
            })
            .await
        {
            Ok(resp) => ReadStateResponse {
                bytes: resp.state.unwrap_or_default(),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => ReadStateResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }

    async fn write_state(&self, req: WriteStateRequest) -> Diagnostics {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => return diagnostics,
        };
        let subject = req.type_name;
        let (id, state) = (req.state_id, req.bytes);
        self.call(Rpc::WriteStateBytes, &subject, move |s, guest| {
            Box::pin(async move {
                let export = guest.state_store().ok_or_else(not_exported)?;
                export.call_write_state(s, &ctx, &store, &id, &state).await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn lock_state(&self, req: LockStateRequest) -> LockStateResponse {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => {
                return LockStateResponse {
                    diagnostics,
                    ..Default::default()
                };
            }
        };
        let subject = req.type_name;
        let (id, operation) = (req.state_id, req.operation);
        match self
            .call(Rpc::LockState, &subject, move |s, guest| {
                Box::pin(async move {
                    let export = guest.state_store().ok_or_else(not_exported)?;
                    export
                        .call_lock_state(s, &ctx, &store, &id, &operation)
                        .await
                })
            })
            .await
        {
            Ok(resp) => LockStateResponse {
                lock_id: resp.lock_id,
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => LockStateResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }

    async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => return diagnostics,
        };
        let subject = req.type_name;
        let (id, lock_id) = (req.state_id, req.lock_id);
        self.call(Rpc::UnlockState, &subject, move |s, guest| {
            Box::pin(async move {
                let export = guest.state_store().ok_or_else(not_exported)?;
                export
                    .call_unlock_state(s, &ctx, &store, &id, &lock_id)
                    .await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn get_states(&self, req: GetStatesRequest) -> GetStatesResponse {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => {
                return GetStatesResponse {
                    diagnostics,
                    ..Default::default()
                };
            }
        };
        let subject = req.type_name;
        match self
            .call(Rpc::GetStates, &subject, move |s, guest| {
                Box::pin(async move {
                    let export = guest.state_store().ok_or_else(not_exported)?;
                    export.call_get_states(s, &ctx, &store).await
                })
            })
            .await
        {
            Ok(resp) => GetStatesResponse {
                state_ids: resp.state_ids,
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => GetStatesResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }

    async fn delete_state(&self, req: StateRequest) -> Diagnostics {
        let ctx = self.context();
        let store = match self.store(&req.type_name) {
            Ok(store) => store,
            Err(diagnostics) => return diagnostics,
        };
        let subject = req.type_name;
        let id = req.state_id;
        self.call(Rpc::DeleteState, &subject, move |s, guest| {
            Box::pin(async move {
                let export = guest.state_store().ok_or_else(not_exported)?;
                export.call_delete_state(s, &ctx, &store, &id).await
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::state_store::ReadResponse {
    fn largest_value(&self) -> usize {
        self.state.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::state_store::LockResponse {
    fn cap_lists(&mut self) {
        use crate::answer_caps::MAX_LOCK_ID_BYTES;
        // Cut or escaped, it would no longer unlock: refused whole, as one that would drive
        // the terminal Terraform shows it on.
        if self.lock_id.len() > MAX_LOCK_ID_BYTES
            || self
                .lock_id
                .chars()
                .any(tfwasm_model::quote::is_hidden_char)
        {
            self.lock_id = String::new();
            self.diagnostics.push(crate::bindings::wit::Diagnostic {
                severity: crate::bindings::wit::Severity::Error,
                summary: "Provider answered an oversized lock ID".into(),
                detail: format!(
                    "The state store answered a lock ID of more than {MAX_LOCK_ID_BYTES} bytes or with control characters. This is a provider bug."
                ),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::state_store::StatesResponse {
    fn cap_lists(&mut self) {
        use crate::answer_caps::{MAX_STATE_ID_BYTES, MAX_STATES};
        let listed = self.state_ids.len();
        // Terraform prints them (`workspace list`) and sends them back: a control character
        // is refused, not escaped.
        self.state_ids.retain(|id| {
            id.len() <= MAX_STATE_ID_BYTES && !id.chars().any(tfwasm_model::quote::is_hidden_char)
        });
        if listed > MAX_STATES || self.state_ids.len() < listed {
            self.state_ids.truncate(MAX_STATES);
            self.diagnostics.push(crate::bindings::wit::Diagnostic {
                severity: crate::bindings::wit::Severity::Error,
                summary: "Provider listed too many states".into(),
                detail: format!(
                    "The state store listed {listed} states, or state IDs longer than {MAX_STATE_ID_BYTES} bytes or with control characters; tfwasm passes on at most {MAX_STATES}, none of those. This is a provider bug."
                ),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
