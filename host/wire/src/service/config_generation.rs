//! The config generation family: GenerateResourceConfig.

use tfwasm_model::Provider;
use tfwasm_model::rpc::GenerateResourceConfigRequest;

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn generate_resource_config<P: Provider>(
    p: &P,
    req: pb::generate_resource_config::Request,
) -> pb::generate_resource_config::Response {
    let resp = p
        .generate_resource_config(GenerateResourceConfigRequest {
            type_name: req.type_name,
            state: convert::dynamic_value(req.state),
        })
        .await;
    pb::generate_resource_config::Response {
        config: convert::to_dynamic_value(resp.config),
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}
