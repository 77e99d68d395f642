//! The move family: MoveResourceState.

use tfwasm_model::Provider;
use tfwasm_model::rpc::MoveResourceStateRequest;

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn move_resource_state<P: Provider>(
    p: &P,
    req: pb::move_resource_state::Request,
) -> pb::move_resource_state::Response {
    let resp = p
        .move_resource_state(MoveResourceStateRequest {
            source_provider_address: req.source_provider_address,
            source_type_name: req.source_type_name,
            source_schema_version: req.source_schema_version,
            source_state: convert::raw_state(req.source_state),
            target_type_name: req.target_type_name,
            source_private: req.source_private,
            source_identity: req.source_identity.map(|raw| convert::raw_state(Some(raw))),
            source_identity_schema_version: req.source_identity_schema_version,
        })
        .await;
    pb::move_resource_state::Response {
        target_state: convert::to_dynamic_value(resp.target_state),
        diagnostics: convert::diagnostics(resp.diagnostics),
        target_private: resp.target_private,
        target_identity: convert::to_identity(resp.target_identity),
    }
}
