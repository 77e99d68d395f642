//! The config generation family: a generated configuration fits the resource's schema, is
//! wholly known and sets no computed-only attribute.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    ConfigGenerationServer, GenerateResourceConfigRequest, GenerateResourceConfigResponse,
};

use super::{Checked, decode_result};
use crate::Violations;
use crate::decodings::Of;

impl<P: Provider> ConfigGenerationServer for Checked<P> {
    fn generates_config(&self) -> bool {
        self.inner.generates_config()
    }

    async fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> GenerateResourceConfigResponse {
        let type_name = req.type_name.clone();
        let mut resp = self.inner.generate_resource_config(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        if let Some((schema, ty)) = self.resource(&type_name).await {
            let violations = match decode_result(&resp.config, ty) {
                Ok(config) => {
                    let found = crate::check_generated_config(&schema.block, &config);
                    self.hand_on(Of::Resource(&type_name), &resp.config, config);
                    found
                }
                Err(v) => Violations::from(vec![v]),
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid configuration",
                "GenerateResourceConfig",
                &type_name,
                violations,
            ));
        }
        resp
    }
}
