//! The data source family.

use tfwasm_model::rpc::{
    DataSourceServer, DynamicValue, ReadDataSourceRequest, ReadDataSourceResponse,
    ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Rpc};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings::Exports as _;
use crate::bindings::{data_source, wit};

impl DataSourceServer for WasmProvider {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ValidateRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        self.call(
            Rpc::ValidateDataResourceConfig,
            &subject,
            move |store, guest| {
                Box::pin(async move {
                    guest
                        .validate_data_resource_config(store, &ctx, &wreq)
                        .await
                })
            },
        )
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let ctx = self.context_for(req.client_capabilities);
        let subject = req.type_name.clone();
        let wreq = data_source::ReadDataRequest {
            type_name: req.type_name,
            config: bytes(req.config),
            provider_meta: bytes(req.provider_meta),
        };
        match self
            .call(Rpc::ReadDataSource, &subject, move |store, guest| {
                Box::pin(async move { guest.read_data_source(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => ReadDataSourceResponse {
                state: DynamicValue::from_msgpack(resp.state),
                diagnostics: diagnostics(resp.diagnostics),
                deferred: crate::bindings::deferred(resp.deferred),
            },
            Err(e) => ReadDataSourceResponse {
                state: DynamicValue::default(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                deferred: None,
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::data_source::ReadDataResponse {
    fn largest_value(&self) -> usize {
        self.state.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
