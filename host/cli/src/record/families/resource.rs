//! The resource family.

use serde_json::Value as Json;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ImportResourceStateRequest,
    ImportResourceStateResponse, PlanResourceChangeRequest, PlanResourceChangeResponse,
    ReadResourceRequest, ReadResourceResponse, ResourceServer, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{run, run_diagnostics};
use crate::record::Recorded;

impl<P: Provider> ResourceServer for Recorded<P> {
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.diagnostics("ValidateResourceConfig", &subject, req, |req| {
            self.inner.validate_resource_config(req)
        })
        .await
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let subject = req.type_name.clone();
        self.exchange("UpgradeResourceState", &subject, req, |req| {
            self.inner.upgrade_resource_state(req)
        })
        .await
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let subject = req.type_name.clone();
        self.exchange("ReadResource", &subject, req, |req| {
            self.inner.read_resource(req)
        })
        .await
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let subject = req.type_name.clone();
        self.exchange("PlanResourceChange", &subject, req, |req| {
            self.inner.plan_resource_change(req)
        })
        .await
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let subject = req.type_name.clone();
        self.exchange("ApplyResourceChange", &subject, req, |req| {
            self.inner.apply_resource_change(req)
        })
        .await
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let subject = req.type_name.clone();
        self.exchange("ImportResourceState", &subject, req, |req| {
            self.inner.import_resource_state(req)
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
        "ValidateResourceConfig" => {
            run_diagnostics(request, |req| provider.validate_resource_config(req)).await
        }
        "UpgradeResourceState" => run(request, |req| provider.upgrade_resource_state(req)).await,
        "ReadResource" => run(request, |req| provider.read_resource(req)).await,
        "PlanResourceChange" => run(request, |req| provider.plan_resource_change(req)).await,
        "ApplyResourceChange" => run(request, |req| provider.apply_resource_change(req)).await,
        "ImportResourceState" => run(request, |req| provider.import_resource_state(req)).await,
        _ => return None,
    })
}
