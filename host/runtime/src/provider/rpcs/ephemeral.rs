//! The ephemeral resource family.

use std::time::{Duration, SystemTime};

use tfwasm_model::rpc::{
    CloseEphemeralResourceRequest, DynamicValue, EphemeralServer, OpenEphemeralResourceRequest,
    OpenEphemeralResourceResponse, RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
    ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Rpc};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings::Exports as _;
use crate::bindings::{ephemeral, wit};

fn renew_at(unix_ms: Option<u64>) -> Option<SystemTime> {
    unix_ms.and_then(|ms| SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(ms)))
}

impl EphemeralServer for WasmProvider {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ValidateRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        self.call(
            Rpc::ValidateEphemeralResourceConfig,
            &subject,
            move |store, guest| {
                Box::pin(async move {
                    guest
                        .validate_ephemeral_resource_config(store, &ctx, &wreq)
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

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let ctx = self.context_for(req.client_capabilities);
        let subject = req.type_name.clone();
        let wreq = ephemeral::OpenRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        match self
            .call(Rpc::OpenEphemeralResource, &subject, move |store, guest| {
                Box::pin(async move { guest.open_ephemeral_resource(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => OpenEphemeralResourceResponse {
                result: DynamicValue::from_msgpack(resp.result),
                private: resp.private,
                renew_at: renew_at(resp.renew_at_unix_ms),
                diagnostics: diagnostics(resp.diagnostics),
                deferred: crate::bindings::deferred(resp.deferred),
            },
            Err(e) => OpenEphemeralResourceResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = ephemeral::PrivateRequest {
            type_name: req.type_name,
            private: req.private,
        };
        match self
            .call(
                Rpc::RenewEphemeralResource,
                &subject,
                move |store, guest| {
                    Box::pin(
                        async move { guest.renew_ephemeral_resource(store, &ctx, &wreq).await },
                    )
                },
            )
            .await
        {
            Ok(resp) => RenewEphemeralResourceResponse {
                private: resp.private,
                renew_at: renew_at(resp.renew_at_unix_ms),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => RenewEphemeralResourceResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..Default::default()
            },
        }
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = ephemeral::PrivateRequest {
            type_name: req.type_name,
            private: req.private,
        };
        self.call(
            Rpc::CloseEphemeralResource,
            &subject,
            move |store, guest| {
                Box::pin(async move { guest.close_ephemeral_resource(store, &ctx, &wreq).await })
            },
        )
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::ephemeral::OpenResponse {
    fn largest_value(&self) -> usize {
        self.result.len().max(self.private.len())
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::ephemeral::RenewResponse {
    fn largest_value(&self) -> usize {
        self.private.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
