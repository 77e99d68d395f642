//! The ephemeral resource family: validate, open, renew, close.

use std::time::SystemTime;

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    ClientCapabilities, CloseEphemeralResourceRequest, OpenEphemeralResourceRequest,
    RenewEphemeralResourceRequest, ValidateConfigRequest,
};

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn validate_ephemeral_resource_config<P: Provider>(
    p: &P,
    req: pb::validate_ephemeral_resource_config::Request,
) -> pb::validate_ephemeral_resource_config::Response {
    let diagnostics = p
        .validate_ephemeral_resource_config(ValidateConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            client_capabilities: ClientCapabilities::default(),
        })
        .await;
    pb::validate_ephemeral_resource_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn open_ephemeral_resource<P: Provider>(
    p: &P,
    req: pb::open_ephemeral_resource::Request,
) -> pb::open_ephemeral_resource::Response {
    let caps = req.client_capabilities.unwrap_or_default();
    let resp = p
        .open_ephemeral_resource(OpenEphemeralResourceRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            client_capabilities: convert::client_capabilities(Some(caps)),
        })
        .await;
    pb::open_ephemeral_resource::Response {
        diagnostics: convert::diagnostics(resp.diagnostics),
        renew_at: resp.renew_at.map(timestamp),
        result: convert::to_dynamic_value(resp.result),
        private: Some(resp.private),
        deferred: convert::deferred(resp.deferred),
    }
}

pub(super) async fn renew_ephemeral_resource<P: Provider>(
    p: &P,
    req: pb::renew_ephemeral_resource::Request,
) -> pb::renew_ephemeral_resource::Response {
    let resp = p
        .renew_ephemeral_resource(RenewEphemeralResourceRequest {
            type_name: req.type_name,
            private: req.private.unwrap_or_default(),
        })
        .await;
    pb::renew_ephemeral_resource::Response {
        diagnostics: convert::diagnostics(resp.diagnostics),
        renew_at: resp.renew_at.map(timestamp),
        private: Some(resp.private),
    }
}

pub(super) async fn close_ephemeral_resource<P: Provider>(
    p: &P,
    req: pb::close_ephemeral_resource::Request,
) -> pb::close_ephemeral_resource::Response {
    let diagnostics = p
        .close_ephemeral_resource(CloseEphemeralResourceRequest {
            type_name: req.type_name,
            private: req.private.unwrap_or_default(),
        })
        .await;
    pb::close_ephemeral_resource::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

fn timestamp(at: SystemTime) -> prost_types::Timestamp {
    prost_types::Timestamp::from(at)
}
