//! The data source family: validation and read.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{ClientCapabilities, ReadDataSourceRequest, ValidateConfigRequest};

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn validate_data_resource_config<P: Provider>(
    p: &P,
    req: pb::validate_data_resource_config::Request,
) -> pb::validate_data_resource_config::Response {
    let diagnostics = p
        .validate_data_resource_config(ValidateConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            client_capabilities: ClientCapabilities::default(),
        })
        .await;
    pb::validate_data_resource_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn read_data_source<P: Provider>(
    p: &P,
    req: pb::read_data_source::Request,
) -> pb::read_data_source::Response {
    let resp = p
        .read_data_source(ReadDataSourceRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            provider_meta: convert::dynamic_value(req.provider_meta),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
        })
        .await;
    pb::read_data_source::Response {
        state: convert::to_dynamic_value(resp.state),
        diagnostics: convert::diagnostics(resp.diagnostics),
        deferred: convert::deferred(resp.deferred),
    }
}
