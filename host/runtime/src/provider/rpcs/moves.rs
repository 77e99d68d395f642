//! The move family: MoveResourceState, announced for components of WIT 0.2.0 and later.

use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    DynamicValue, MoveResourceStateRequest, MoveResourceStateResponse, MoveServer,
};

use super::super::WasmProvider;
use super::super::call::{ReturnedValues, ident, largest};
use super::diagnostics;
use crate::bindings::Exports as _;
use crate::bindings::{WitVersion, resource};

impl MoveServer for WasmProvider {
    fn moves_state(&self) -> bool {
        self.wit_version() != WitVersion::V0_1_0
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let ctx = self.context();
        let subject = req.target_type_name.clone();
        let wreq = resource::MoveRequest {
            source_provider_address: req.source_provider_address,
            source_type_name: req.source_type_name,
            source_schema_version: req.source_schema_version,
            source_state_json: req.source_state.json,
            target_type_name: req.target_type_name,
            source_private: req.source_private,
            source_identity_json: req.source_identity.map(|raw| raw.json),
            source_identity_version: req.source_identity_schema_version,
        };
        match self
            .call(Rpc::MoveResourceState, &subject, move |store, guest| {
                Box::pin(async move { guest.move_resource_state(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => MoveResourceStateResponse {
                target_state: DynamicValue::from_msgpack(resp.target_state),
                target_private: resp.target_private,
                diagnostics: diagnostics(resp.diagnostics),
                target_identity: resp.target_identity.map(DynamicValue::from_msgpack),
            },
            Err(e) => MoveResourceStateResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::resource::MoveResponse {
    fn largest_value(&self) -> usize {
        largest(&[
            &self.target_state,
            &self.target_private,
            ident(&self.target_identity),
        ])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
