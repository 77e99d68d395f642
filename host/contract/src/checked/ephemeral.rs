//! The ephemeral resource family: an opened value fits its schema and is not null.

use tfwasm_model::rpc::{
    CloseEphemeralResourceRequest, EphemeralServer, OpenEphemeralResourceRequest,
    OpenEphemeralResourceResponse, RenewEphemeralResourceRequest, RenewEphemeralResourceResponse,
    ValidateConfigRequest,
};
use tfwasm_model::{AttributePath, Diagnostics, Provider, Value};

use super::{Checked, decode_result};
use crate::decodings::Of;
use crate::{Violation, Violations};

impl<P: Provider> EphemeralServer for Checked<P> {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.inner.validate_ephemeral_resource_config(req).await
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let type_name = req.type_name.clone();
        let allowed = req.client_capabilities.deferral_allowed;
        let mut resp = self.inner.open_ephemeral_resource(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "OpenEphemeralResource",
            &type_name,
        );
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        if let Some(ty) = self.ephemeral_type(&type_name).await {
            let violations = match decode_result(&resp.result, ty) {
                Ok(Value::Null) => Violations::from(vec![Violation {
                    path: AttributePath::root(),
                    message: "an opened ephemeral resource must not be null".into(),
                }]),
                Ok(opened) => {
                    self.hand_on(Of::EphemeralResource(&type_name), &resp.result, opened);
                    Violations::new()
                }
                Err(v) => Violations::from(vec![v]),
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid object",
                "OpenEphemeralResource",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.inner.renew_ephemeral_resource(req).await
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        self.inner.close_ephemeral_resource(req).await
    }
}
