//! The identity family: identity schemas are forwarded; an upgraded identity fits the
//! current identity schema and is wholly known.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    GetResourceIdentitySchemasResponse, IdentityServer, UpgradeResourceIdentityRequest,
    UpgradeResourceIdentityResponse,
};

use super::Checked;
use crate::IdentityRole;

impl<P: Provider> IdentityServer for Checked<P> {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        self.inner.get_resource_identity_schemas().await
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        let type_name = req.type_name.clone();
        let mut resp = self.inner.upgrade_resource_identity(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        let violations = self
            .check_identity(
                &type_name,
                true,
                &mut resp.upgraded_identity,
                IdentityRole::Final,
                None,
            )
            .await;
        resp.diagnostics.extend(self.diagnostics(
            "Invalid resource identity upgrade",
            "UpgradeResourceIdentity",
            &type_name,
            violations,
        ));
        resp
    }
}
