//! The config generation family: GenerateResourceConfig, announced for components that
//! export WIT 0.3.0's `config-generation`.

use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    ConfigGenerationServer, DynamicValue, GenerateResourceConfigRequest,
    GenerateResourceConfigResponse,
};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings::config_generation::GenerateRequest;

impl ConfigGenerationServer for WasmProvider {
    fn generates_config(&self) -> bool {
        self.families().config_generation
    }

    async fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> GenerateResourceConfigResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = GenerateRequest {
            type_name: req.type_name,
            state: bytes(req.state),
        };
        match self
            .call(Rpc::GenerateResourceConfig, &subject, move |store, guest| {
                Box::pin(async move {
                    match guest.config_generation() {
                        Some(export) => export.call_generate_resource_config(store, &ctx, &wreq).await,
                        None => Err(wasmtime::Error::msg(
                            "the component does not export tfwasm:provider/config-generation@0.3.0",
                        )),
                    }
                })
            })
            .await
        {
            Ok(resp) => GenerateResourceConfigResponse {
                config: DynamicValue::from_msgpack(resp.config),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => GenerateResourceConfigResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::config_generation::GenerateResponse {
    fn largest_value(&self) -> usize {
        self.config.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
