//! The identity family.

use serde_json::Value as Json;
use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    GetResourceIdentitySchemasResponse, IdentityServer, UpgradeResourceIdentityRequest,
    UpgradeResourceIdentityResponse,
};

use super::{Nothing, run};
use crate::record::Recorded;

impl<P: Provider> IdentityServer for Recorded<P> {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        self.exchange("GetResourceIdentitySchemas", "", Nothing {}, |_| {
            self.inner.get_resource_identity_schemas()
        })
        .await
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        let subject = req.type_name.clone();
        self.exchange("UpgradeResourceIdentity", &subject, req, |req| {
            self.inner.upgrade_resource_identity(req)
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
        "GetResourceIdentitySchemas" => {
            run(request, |Nothing {}| {
                provider.get_resource_identity_schemas()
            })
            .await
        }
        "UpgradeResourceIdentity" => {
            run(request, |req| provider.upgrade_resource_identity(req)).await
        }
        _ => return None,
    })
}
