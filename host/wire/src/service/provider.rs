//! The provider family: metadata, schema, the provider block, StopProvider.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{ConfigureProviderRequest, server_capabilities};

use super::function::functions;
use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn get_metadata<P: Provider>(p: &P) -> pb::get_metadata::Response {
    let schema = p.get_provider_schema().await;
    let functions = p.get_functions().await;
    let mut diagnostics = schema.diagnostics;
    diagnostics.extend(functions.diagnostics);
    pb::get_metadata::Response {
        server_capabilities: Some(convert::server_capabilities(server_capabilities(p))),
        diagnostics: convert::diagnostics(diagnostics),
        data_sources: schema
            .data_sources
            .into_keys()
            .map(|type_name| pb::get_metadata::DataSourceMetadata { type_name })
            .collect(),
        resources: schema
            .resources
            .into_keys()
            .map(|type_name| pb::get_metadata::ResourceMetadata { type_name })
            .collect(),
        functions: functions
            .functions
            .into_keys()
            .map(|name| pb::get_metadata::FunctionMetadata { name })
            .collect(),
        ephemeral_resources: schema
            .ephemeral_resources
            .into_keys()
            .map(|type_name| pb::get_metadata::EphemeralMetadata { type_name })
            .collect(),
        list_resources: schema
            .list_resources
            .into_keys()
            .map(|type_name| pb::get_metadata::ListResourceMetadata { type_name })
            .collect(),
        state_stores: schema
            .state_stores
            .keys()
            .map(|type_name| pb::get_metadata::StateStoreMetadata {
                type_name: type_name.clone(),
            })
            .collect(),
        actions: schema
            .actions
            .into_keys()
            .map(|type_name| pb::get_metadata::ActionMetadata { type_name })
            .collect(),
    }
}

pub(super) async fn get_provider_schema<P: Provider>(
    p: &P,
    _req: pb::get_provider_schema::Request,
) -> pb::get_provider_schema::Response {
    let schema = p.get_provider_schema().await;
    let (functions, function_diagnostics) = functions(p).await;
    let mut diagnostics = schema.diagnostics;
    diagnostics.extend(function_diagnostics);
    pb::get_provider_schema::Response {
        // Always a provider schema with a block: Terraform 1.0.3 rejects a missing one.
        provider: Some(convert::schema(&schema.provider)),
        resource_schemas: schema
            .resources
            .iter()
            .map(|(k, v)| (k.clone(), convert::schema(v)))
            .collect(),
        data_source_schemas: schema
            .data_sources
            .iter()
            .map(|(k, v)| (k.clone(), convert::schema(v)))
            .collect(),
        ephemeral_resource_schemas: schema
            .ephemeral_resources
            .iter()
            .map(|(k, v)| (k.clone(), convert::schema(v)))
            .collect(),
        list_resource_schemas: schema
            .list_resources
            .iter()
            .map(|(k, v)| (k.clone(), convert::schema(v)))
            .collect(),
        state_store_schemas: schema
            .state_stores
            .iter()
            .map(|(k, v)| (k.clone(), convert::schema(v)))
            .collect(),
        action_schemas: schema
            .actions
            .iter()
            .map(|(k, v)| {
                let schema = Some(convert::schema(v));
                (k.clone(), pb::ActionSchema { schema })
            })
            .collect(),
        functions,
        diagnostics: convert::diagnostics(diagnostics),
        provider_meta: schema.provider_meta.as_ref().map(convert::schema),
        server_capabilities: Some(convert::server_capabilities(server_capabilities(p))),
    }
}

pub(super) async fn validate_provider_config<P: Provider>(
    p: &P,
    req: pb::validate_provider_config::Request,
) -> pb::validate_provider_config::Response {
    let diagnostics = p
        .validate_provider_config(convert::dynamic_value(req.config))
        .await;
    pb::validate_provider_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn configure_provider<P: Provider>(
    p: &P,
    req: pb::configure_provider::Request,
) -> pb::configure_provider::Response {
    let diagnostics = p
        .configure_provider(ConfigureProviderRequest {
            terraform_version: req.terraform_version,
            config: convert::dynamic_value(req.config),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
        })
        .await;
    pb::configure_provider::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn stop_provider<P: Provider>(p: &P) -> pb::stop_provider::Response {
    pb::stop_provider::Response {
        error: p.stop_provider().await.err().unwrap_or_default(),
    }
}
