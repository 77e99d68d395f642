//! The ephemeral resource family.

use serde_json::Value as Json;
use tfwasm_model::rpc::{
    CloseEphemeralResourceRequest, EphemeralServer, OpenEphemeralResourceRequest,
    OpenEphemeralResourceResponse, RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
    ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{DiagnosticsOnly, run};
use crate::record::Recorded;

impl<P: Provider> EphemeralServer for Recorded<P> {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.exchange(
            "ValidateEphemeralResourceConfig",
            &subject,
            req,
            |req| async {
                DiagnosticsOnly {
                    diagnostics: self.inner.validate_ephemeral_resource_config(req).await,
                }
            },
        )
        .await
        .diagnostics
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
        self.exchange("CloseEphemeralResource", &subject, req, |req| async {
            DiagnosticsOnly {
                diagnostics: self.inner.close_ephemeral_resource(req).await,
            }
        })
        .await
        .diagnostics
    }
}

pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: &Json,
) -> Option<Result<Json, serde_json::Error>> {
    Some(match rpc {
        "ValidateEphemeralResourceConfig" => {
            run(request, |req| async move {
                DiagnosticsOnly {
                    diagnostics: provider.validate_ephemeral_resource_config(req).await,
                }
            })
            .await
        }
        "OpenEphemeralResource" => run(request, |req| provider.open_ephemeral_resource(req)).await,
        "RenewEphemeralResource" => {
            run(request, |req| provider.renew_ephemeral_resource(req)).await
        }
        "CloseEphemeralResource" => {
            run(request, |req| async move {
                DiagnosticsOnly {
                    diagnostics: provider.close_ephemeral_resource(req).await,
                }
            })
            .await
        }
        _ => return None,
    })
}
