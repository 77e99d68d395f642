//! The list resource family: ListResource a page at a time and ValidateListResourceConfig,
//! for components that export WIT 0.3.0's `list-resource` (only they declare list resource
//! schemas, so Terraform asks no other).

use tfwasm_model::rpc::{
    DynamicValue, ListResourceEvent, ListResourcePage, ListResourceRequest, ListServer,
    ValidateListResourceConfigRequest,
};
use tfwasm_model::{Diagnostics, Rpc};

use super::super::WasmProvider;
use super::{bytes, diagnostics};
use crate::bindings::list_resource::ListRequest;

/// The error of a call to a component without the export (Terraform only lists types the
/// schema declares, so only a client that ignores the schema gets it).
fn not_exported() -> wasmtime::Error {
    wasmtime::Error::msg("the component does not export tfwasm:provider/list-resource@0.3.0")
}

impl ListServer for WasmProvider {
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        let subject = req.type_name.clone();
        let config = bytes(req.config);
        let type_name = req.type_name;
        self.call(
            Rpc::ValidateListResourceConfig,
            &subject,
            move |store, guest| {
                Box::pin(async move {
                    match guest.list_resource() {
                        Some(export) => {
                            (export.call_validate_list_resource_config(store, &type_name, &config))
                                .await
                        }
                        None => Err(not_exported()),
                    }
                })
            },
        )
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = ListRequest {
            type_name: req.type_name,
            config: bytes(req.config),
            include_resource_object: req.include_resource_object,
            limit: req.limit,
            cursor: req.cursor,
        };
        match self
            .call(Rpc::ListResource, &subject, move |store, guest| {
                Box::pin(async move {
                    match guest.list_resource() {
                        Some(export) => export.call_list_resource(store, &ctx, &wreq).await,
                        None => Err(not_exported()),
                    }
                })
            })
            .await
        {
            Ok(page) => ListResourcePage {
                events: (page.objects.into_iter())
                    .map(|listed| ListResourceEvent {
                        identity: DynamicValue::from_msgpack(listed.identity),
                        display_name: listed.display_name,
                        resource_object: listed.resource_object.map(DynamicValue::from_msgpack),
                        diagnostics: diagnostics(listed.diagnostics),
                    })
                    .collect(),
                next: page.next,
                diagnostics: diagnostics(page.diagnostics),
            },
            Err(e) => ListResourcePage {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..ListResourcePage::default()
            },
        }
    }
}
