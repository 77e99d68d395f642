//! The state store family: a lock taken has an ID (unlocking takes it); the rest passes
//! through (the wire checks every chunk's range, so a state arrives exactly as sent).

use tfwasm_model::rpc::{
    ConfigureStateStoreRequest, ConfigureStateStoreResponse, GetStatesRequest, GetStatesResponse,
    LockStateRequest, LockStateResponse, ReadStateResponse, StateRequest, StateStoreServer,
    UnlockStateRequest, ValidateStateStoreConfigRequest, WriteStateRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::Checked;
use crate::{Violation, Violations};

impl<P: Provider> StateStoreServer for Checked<P> {
    async fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        self.inner.validate_state_store_config(req).await
    }

    async fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> ConfigureStateStoreResponse {
        self.inner.configure_state_store(req).await
    }

    async fn read_state(&self, req: StateRequest) -> ReadStateResponse {
        self.inner.read_state(req).await
    }

    async fn write_state(&self, req: WriteStateRequest) -> Diagnostics {
        self.inner.write_state(req).await
    }

    async fn lock_state(&self, req: LockStateRequest) -> LockStateResponse {
        let type_name = req.type_name.clone();
        let mut resp = self.inner.lock_state(req).await;
        if !tfwasm_model::has_error(&resp.diagnostics) && resp.lock_id.is_empty() {
            resp.diagnostics.extend(self.diagnostics(
                "Provider took a lock without an ID",
                "LockState",
                &type_name,
                Violations::from(vec![Violation {
                    path: tfwasm_model::AttributePath::root(),
                    message: "took the lock but answered no lock ID; unlocking takes it".into(),
                }]),
            ));
        }
        resp
    }

    async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
        self.inner.unlock_state(req).await
    }

    async fn get_states(&self, req: GetStatesRequest) -> GetStatesResponse {
        self.inner.get_states(req).await
    }

    async fn delete_state(&self, req: StateRequest) -> Diagnostics {
        self.inner.delete_state(req).await
    }
}
