//! The ephemeral resource family.

use serde_json::Value as Json;
use tfwasm_model::rpc::{
    CloseEphemeralResourceRequest, EphemeralServer, OpenEphemeralResourceRequest,
    OpenEphemeralResourceResponse, RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
    ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{run, run_diagnostics};
use crate::record::Recorded;

impl<P: Provider> EphemeralServer for Recorded<P> {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.diagnostics("ValidateEphemeralResourceConfig", &subject, req, |req| {
            self.inner.validate_ephemeral_resource_config(req)
        })
        .await
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let subject = req.type_name.clone();
        self.exchange("OpenEphemeralResource", &subject, req, |req| {
            self.inner.open_ephemeral_resource(req)
        })
        .await
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        let subject = req.type_name.clone();
        self.exchange("RenewEphemeralResource", &subject, req, |req| {
            self.inner.renew_ephemeral_resource(req)
        })
        .await
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.diagnostics("CloseEphemeralResource", &subject, req, |req| {
            self.inner.close_ephemeral_resource(req)
        })
        .await
    }
}

pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: &Json,
) -> Option<Result<Json, serde_json::Error>> {
    Some(match rpc {
        "ValidateEphemeralResourceConfig" => {
            run_diagnostics(request, |req| {
                provider.validate_ephemeral_resource_config(req)
            })
            .await
        }
        "OpenEphemeralResource" => run(request, |req| provider.open_ephemeral_resource(req)).await,
        "RenewEphemeralResource" => {
            run(request, |req| provider.renew_ephemeral_resource(req)).await
        }
        "CloseEphemeralResource" => {
            run_diagnostics(request, |req| provider.close_ephemeral_resource(req)).await
        }
        _ => return None,
    })
}
