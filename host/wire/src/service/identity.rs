//! The identity family: GetResourceIdentitySchemas, UpgradeResourceIdentity.

use tfwasm_model::Provider;
use tfwasm_model::rpc::UpgradeResourceIdentityRequest;

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn get_resource_identity_schemas<P: Provider>(
    p: &P,
    _req: pb::get_resource_identity_schemas::Request,
) -> pb::get_resource_identity_schemas::Response {
    let resp = p.get_resource_identity_schemas().await;
    pb::get_resource_identity_schemas::Response {
        identity_schemas: resp
            .identity_schemas
            .into_iter()
            .map(|(name, schema)| (name, convert::identity_schema(&schema)))
            .collect(),
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}

pub(super) async fn upgrade_resource_identity<P: Provider>(
    p: &P,
    req: pb::upgrade_resource_identity::Request,
) -> pb::upgrade_resource_identity::Response {
    let resp = p
        .upgrade_resource_identity(UpgradeResourceIdentityRequest {
            type_name: req.type_name,
            version: req.version,
            raw_identity: convert::raw_state(req.raw_identity),
        })
        .await;
    pb::upgrade_resource_identity::Response {
        upgraded_identity: convert::to_identity(resp.upgraded_identity),
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}
