//! The resource family: validation, upgrade, read, plan, apply, import.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ImportResourceStateRequest, PlanResourceChangeRequest,
    ReadResourceRequest, UpgradeResourceStateRequest, ValidateConfigRequest,
};

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn validate_resource_config<P: Provider>(
    p: &P,
    req: pb::validate_resource_config::Request,
) -> pb::validate_resource_config::Response {
    let diagnostics = p
        .validate_resource_config(ValidateConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
        })
        .await;
    pb::validate_resource_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn upgrade_resource_state<P: Provider>(
    p: &P,
    req: pb::upgrade_resource_state::Request,
) -> pb::upgrade_resource_state::Response {
    let resp = p
        .upgrade_resource_state(UpgradeResourceStateRequest {
            type_name: req.type_name,
            version: req.version,
            raw_state: convert::raw_state(req.raw_state),
        })
        .await;
    pb::upgrade_resource_state::Response {
        upgraded_state: convert::to_dynamic_value(resp.upgraded_state),
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}

pub(super) async fn read_resource<P: Provider>(
    p: &P,
    req: pb::read_resource::Request,
) -> pb::read_resource::Response {
    let resp = p
        .read_resource(ReadResourceRequest {
            type_name: req.type_name,
            current_state: convert::dynamic_value(req.current_state),
            private: req.private,
            provider_meta: convert::dynamic_value(req.provider_meta),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
            current_identity: convert::identity(req.current_identity),
        })
        .await;
    pb::read_resource::Response {
        new_state: convert::to_dynamic_value(resp.new_state),
        diagnostics: convert::diagnostics(resp.diagnostics),
        private: resp.private,
        deferred: convert::deferred(resp.deferred),
        new_identity: convert::to_identity(resp.new_identity),
    }
}

pub(super) async fn plan_resource_change<P: Provider>(
    p: &P,
    req: pb::plan_resource_change::Request,
) -> pb::plan_resource_change::Response {
    let resp = p
        .plan_resource_change(PlanResourceChangeRequest {
            type_name: req.type_name,
            prior_state: convert::dynamic_value(req.prior_state),
            proposed_new_state: convert::dynamic_value(req.proposed_new_state),
            config: convert::dynamic_value(req.config),
            prior_private: req.prior_private,
            provider_meta: convert::dynamic_value(req.provider_meta),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
            prior_identity: convert::identity(req.prior_identity),
            planned_private: req.planned_private,
        })
        .await;
    pb::plan_resource_change::Response {
        planned_state: convert::to_dynamic_value(resp.planned_state),
        requires_replace: resp
            .requires_replace
            .iter()
            .map(convert::attribute_path)
            .collect(),
        planned_private: resp.planned_private,
        diagnostics: convert::diagnostics(resp.diagnostics),
        deferred: convert::deferred(resp.deferred),
        planned_identity: convert::to_identity(resp.planned_identity),
        ..Default::default()
    }
}

pub(super) async fn apply_resource_change<P: Provider>(
    p: &P,
    req: pb::apply_resource_change::Request,
) -> pb::apply_resource_change::Response {
    let resp = p
        .apply_resource_change(ApplyResourceChangeRequest {
            type_name: req.type_name,
            prior_state: convert::dynamic_value(req.prior_state),
            planned_state: convert::dynamic_value(req.planned_state),
            config: convert::dynamic_value(req.config),
            planned_private: req.planned_private,
            provider_meta: convert::dynamic_value(req.provider_meta),
            planned_identity: convert::identity(req.planned_identity),
        })
        .await;
    pb::apply_resource_change::Response {
        new_state: convert::to_dynamic_value(resp.new_state),
        private: resp.private,
        diagnostics: convert::diagnostics(resp.diagnostics),
        new_identity: convert::to_identity(resp.new_identity),
        ..Default::default()
    }
}

pub(super) async fn import_resource_state<P: Provider>(
    p: &P,
    req: pb::import_resource_state::Request,
) -> pb::import_resource_state::Response {
    let resp = p
        .import_resource_state(ImportResourceStateRequest {
            type_name: req.type_name,
            id: req.id,
            client_capabilities: convert::client_capabilities(req.client_capabilities),
            identity: convert::identity(req.identity),
        })
        .await;
    pb::import_resource_state::Response {
        imported_resources: resp
            .imported_resources
            .into_iter()
            .map(|r| pb::import_resource_state::ImportedResource {
                type_name: r.type_name,
                state: convert::to_dynamic_value(r.state),
                private: r.private,
                identity: convert::to_identity(r.identity),
            })
            .collect(),
        diagnostics: convert::diagnostics(resp.diagnostics),
        deferred: convert::deferred(resp.deferred),
    }
}
