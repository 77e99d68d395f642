//! The action family: ValidateActionConfig, PlanAction and InvokeAction, for components that
//! export WIT 0.3.0's `action` (only they declare action schemas, so Terraform asks no
//! other). An invocation's progress goes to the request's sink as the guest reports it.

use tfwasm_model::rpc::{
    ActionServer, InvokeActionRequest, PlanActionRequest, PlanActionResponse,
    ValidateActionConfigRequest,
};
use tfwasm_model::{Diagnostics, Rpc};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings;

/// The error of a call to a component without the export.
fn not_exported() -> wasmtime::Error {
    wasmtime::Error::msg("the component does not export tfwasm:provider/action@0.3.0")
}

impl ActionServer for WasmProvider {
    async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        let (type_name, config) = (req.type_name, bytes(req.config));
        self.call(Rpc::ValidateActionConfig, &subject, move |store, guest| {
            Box::pin(async move {
                match guest.action() {
                    Some(export) => {
                        (export.call_validate_action_config(store, &type_name, &config)).await
                    }
                    None => Err(not_exported()),
                }
            })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn plan_action(&self, req: PlanActionRequest) -> PlanActionResponse {
        let ctx = self.context();
        let subject = req.action_type.clone();
        let (type_name, config) = (req.action_type, bytes(req.config));
        match self
            .call(Rpc::PlanAction, &subject, move |store, guest| {
                Box::pin(async move {
                    match guest.action() {
                        Some(export) => {
                            (export.call_plan_action(store, &ctx, &type_name, &config)).await
                        }
                        None => Err(not_exported()),
                    }
                })
            })
            .await
        {
            Ok(resp) => PlanActionResponse {
                diagnostics: diagnostics(resp.diagnostics),
                deferred: bindings::deferred(resp.deferred),
            },
            Err(e) => PlanActionResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                deferred: None,
            },
        }
    }

    async fn invoke_action(&self, req: InvokeActionRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.action_type.clone();
        let (type_name, config, progress) = (req.action_type, bytes(req.config), req.progress);
        self.call(Rpc::InvokeAction, &subject, move |store, guest| {
            Box::pin(async move {
                let Some(export) = guest.action() else {
                    return Err(not_exported());
                };
                store.data_mut().progress = crate::action_progress::ActionProgress::to(progress);
                let answer = export
                    .call_invoke_action(&mut *store, &ctx, &type_name, &config)
                    .await;
                // The sink goes with the call: whoever streams the progress ends with it.
                store.data_mut().progress = Default::default();
                answer
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
impl ReturnedValues for crate::bindings::action::PlanActionResponse {
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
