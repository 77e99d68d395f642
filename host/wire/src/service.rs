//! The tfplugin6 `Provider` gRPC service, serving any [`tfwasm_model::Provider`].
//!
//! Forwarded RPCs convert the request to the model, call the provider, and convert back; all
//! problems travel as diagnostics. RPCs tfwasm does not implement yet answer `Unimplemented`
//! with a message saying so (Terraform shows "Unsupported plugin method"); Terraform never
//! calls them unless the schema announces the matching feature, which tfwasm does not.

use std::pin::Pin;

use futures::Stream;
use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ConfigureProviderRequest, ImportResourceStateRequest,
    PlanResourceChangeRequest, ReadDataSourceRequest, ReadResourceRequest,
    UpgradeResourceStateRequest, ValidateConfigRequest,
};
use tonic::{Request, Response, Status, Streaming};

use crate::convert;
use crate::proto::tfplugin6 as pb;

/// Largest message accepted or sent: 256 MiB, as terraform-plugin-go allows.
pub const MAX_MESSAGE_SIZE: usize = 256 << 20;

/// The gRPC service around a provider.
pub struct ProviderService<P> {
    provider: P,
}

impl<P: Provider> ProviderService<P> {
    /// Wraps `provider`.
    pub fn new(provider: P) -> ProviderService<P> {
        ProviderService { provider }
    }

    /// The tonic server for this service, with message limits raised to 256 MiB.
    pub fn into_server(self) -> pb::provider_server::ProviderServer<ProviderService<P>> {
        pb::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }
}

fn not_yet(rpc: &str) -> Status {
    Status::unimplemented(format!(
        "tfwasm does not implement {rpc} yet; the provider does not announce the feature that needs it"
    ))
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl<P: Provider> pb::provider_server::Provider for ProviderService<P> {
    async fn get_metadata(
        &self,
        _req: Request<pb::get_metadata::Request>,
    ) -> Result<Response<pb::get_metadata::Response>, Status> {
        let schema = self.provider.get_provider_schema().await;
        Ok(Response::new(pb::get_metadata::Response {
            server_capabilities: Some(convert::server_capabilities(
                self.provider.server_capabilities(),
            )),
            diagnostics: convert::diagnostics(schema.diagnostics),
            data_sources: schema
                .data_sources
                .keys()
                .map(|name| pb::get_metadata::DataSourceMetadata {
                    type_name: name.clone(),
                })
                .collect(),
            resources: schema
                .resources
                .keys()
                .map(|name| pb::get_metadata::ResourceMetadata {
                    type_name: name.clone(),
                })
                .collect(),
            ..Default::default()
        }))
    }

    async fn get_provider_schema(
        &self,
        _req: Request<pb::get_provider_schema::Request>,
    ) -> Result<Response<pb::get_provider_schema::Response>, Status> {
        let schema = self.provider.get_provider_schema().await;
        Ok(Response::new(pb::get_provider_schema::Response {
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
            diagnostics: convert::diagnostics(schema.diagnostics),
            provider_meta: schema.provider_meta.as_ref().map(convert::schema),
            server_capabilities: Some(convert::server_capabilities(
                self.provider.server_capabilities(),
            )),
            ..Default::default()
        }))
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Result<Response<pb::validate_provider_config::Response>, Status> {
        let config = convert::dynamic_value(req.into_inner().config);
        let diagnostics = self.provider.validate_provider_config(config).await;
        Ok(Response::new(pb::validate_provider_config::Response {
            diagnostics: convert::diagnostics(diagnostics),
        }))
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Result<Response<pb::validate_resource_config::Response>, Status> {
        let req = req.into_inner();
        let diagnostics = self
            .provider
            .validate_resource_config(ValidateConfigRequest {
                type_name: req.type_name,
                config: convert::dynamic_value(req.config),
            })
            .await;
        Ok(Response::new(pb::validate_resource_config::Response {
            diagnostics: convert::diagnostics(diagnostics),
        }))
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Result<Response<pb::validate_data_resource_config::Response>, Status> {
        let req = req.into_inner();
        let diagnostics = self
            .provider
            .validate_data_resource_config(ValidateConfigRequest {
                type_name: req.type_name,
                config: convert::dynamic_value(req.config),
            })
            .await;
        Ok(Response::new(pb::validate_data_resource_config::Response {
            diagnostics: convert::diagnostics(diagnostics),
        }))
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .upgrade_resource_state(UpgradeResourceStateRequest {
                type_name: req.type_name,
                version: req.version,
                raw_state: convert::raw_state(req.raw_state),
            })
            .await;
        Ok(Response::new(pb::upgrade_resource_state::Response {
            upgraded_state: convert::to_dynamic_value(resp.upgraded_state),
            diagnostics: convert::diagnostics(resp.diagnostics),
        }))
    }

    async fn get_resource_identity_schemas(
        &self,
        _req: Request<pb::get_resource_identity_schemas::Request>,
    ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
        // Terraform and OpenTofu read Unimplemented as "no resource identity".
        Err(not_yet("GetResourceIdentitySchemas"))
    }

    async fn upgrade_resource_identity(
        &self,
        _req: Request<pb::upgrade_resource_identity::Request>,
    ) -> Result<Response<pb::upgrade_resource_identity::Response>, Status> {
        Err(not_yet("UpgradeResourceIdentity"))
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Result<Response<pb::configure_provider::Response>, Status> {
        let req = req.into_inner();
        let caps = req.client_capabilities.unwrap_or_default();
        let diagnostics = self
            .provider
            .configure_provider(ConfigureProviderRequest {
                terraform_version: req.terraform_version,
                config: convert::dynamic_value(req.config),
                client_capabilities: tfwasm_model::rpc::ClientCapabilities {
                    deferral_allowed: caps.deferral_allowed,
                    write_only_attributes_allowed: caps.write_only_attributes_allowed,
                },
            })
            .await;
        Ok(Response::new(pb::configure_provider::Response {
            diagnostics: convert::diagnostics(diagnostics),
        }))
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Result<Response<pb::read_resource::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .read_resource(ReadResourceRequest {
                type_name: req.type_name,
                current_state: convert::dynamic_value(req.current_state),
                private: req.private,
                provider_meta: convert::dynamic_value(req.provider_meta),
            })
            .await;
        Ok(Response::new(pb::read_resource::Response {
            new_state: convert::to_dynamic_value(resp.new_state),
            diagnostics: convert::diagnostics(resp.diagnostics),
            private: resp.private,
            ..Default::default()
        }))
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .plan_resource_change(PlanResourceChangeRequest {
                type_name: req.type_name,
                prior_state: convert::dynamic_value(req.prior_state),
                proposed_new_state: convert::dynamic_value(req.proposed_new_state),
                config: convert::dynamic_value(req.config),
                prior_private: req.prior_private,
                provider_meta: convert::dynamic_value(req.provider_meta),
            })
            .await;
        Ok(Response::new(pb::plan_resource_change::Response {
            planned_state: convert::to_dynamic_value(resp.planned_state),
            requires_replace: resp
                .requires_replace
                .iter()
                .map(convert::attribute_path)
                .collect(),
            planned_private: resp.planned_private,
            diagnostics: convert::diagnostics(resp.diagnostics),
            ..Default::default()
        }))
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .apply_resource_change(ApplyResourceChangeRequest {
                type_name: req.type_name,
                prior_state: convert::dynamic_value(req.prior_state),
                planned_state: convert::dynamic_value(req.planned_state),
                config: convert::dynamic_value(req.config),
                planned_private: req.planned_private,
                provider_meta: convert::dynamic_value(req.provider_meta),
            })
            .await;
        Ok(Response::new(pb::apply_resource_change::Response {
            new_state: convert::to_dynamic_value(resp.new_state),
            private: resp.private,
            diagnostics: convert::diagnostics(resp.diagnostics),
            ..Default::default()
        }))
    }

    async fn import_resource_state(
        &self,
        req: Request<pb::import_resource_state::Request>,
    ) -> Result<Response<pb::import_resource_state::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .import_resource_state(ImportResourceStateRequest {
                type_name: req.type_name,
                id: req.id,
            })
            .await;
        Ok(Response::new(pb::import_resource_state::Response {
            imported_resources: resp
                .imported_resources
                .into_iter()
                .map(|r| pb::import_resource_state::ImportedResource {
                    type_name: r.type_name,
                    state: convert::to_dynamic_value(r.state),
                    private: r.private,
                    identity: None,
                })
                .collect(),
            diagnostics: convert::diagnostics(resp.diagnostics),
            deferred: None,
        }))
    }

    async fn move_resource_state(
        &self,
        _req: Request<pb::move_resource_state::Request>,
    ) -> Result<Response<pb::move_resource_state::Response>, Status> {
        Err(not_yet("MoveResourceState"))
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Result<Response<pb::read_data_source::Response>, Status> {
        let req = req.into_inner();
        let resp = self
            .provider
            .read_data_source(ReadDataSourceRequest {
                type_name: req.type_name,
                config: convert::dynamic_value(req.config),
                provider_meta: convert::dynamic_value(req.provider_meta),
            })
            .await;
        Ok(Response::new(pb::read_data_source::Response {
            state: convert::to_dynamic_value(resp.state),
            diagnostics: convert::diagnostics(resp.diagnostics),
            deferred: None,
        }))
    }

    async fn generate_resource_config(
        &self,
        _req: Request<pb::generate_resource_config::Request>,
    ) -> Result<Response<pb::generate_resource_config::Response>, Status> {
        Err(not_yet("GenerateResourceConfig"))
    }

    async fn validate_ephemeral_resource_config(
        &self,
        _req: Request<pb::validate_ephemeral_resource_config::Request>,
    ) -> Result<Response<pb::validate_ephemeral_resource_config::Response>, Status> {
        Err(not_yet("ValidateEphemeralResourceConfig"))
    }

    async fn open_ephemeral_resource(
        &self,
        _req: Request<pb::open_ephemeral_resource::Request>,
    ) -> Result<Response<pb::open_ephemeral_resource::Response>, Status> {
        Err(not_yet("OpenEphemeralResource"))
    }

    async fn renew_ephemeral_resource(
        &self,
        _req: Request<pb::renew_ephemeral_resource::Request>,
    ) -> Result<Response<pb::renew_ephemeral_resource::Response>, Status> {
        Err(not_yet("RenewEphemeralResource"))
    }

    async fn close_ephemeral_resource(
        &self,
        _req: Request<pb::close_ephemeral_resource::Request>,
    ) -> Result<Response<pb::close_ephemeral_resource::Response>, Status> {
        Err(not_yet("CloseEphemeralResource"))
    }

    type ListResourceStream = BoxStream<pb::list_resource::Event>;

    async fn list_resource(
        &self,
        _req: Request<pb::list_resource::Request>,
    ) -> Result<Response<Self::ListResourceStream>, Status> {
        Err(not_yet("ListResource"))
    }

    async fn validate_list_resource_config(
        &self,
        _req: Request<pb::validate_list_resource_config::Request>,
    ) -> Result<Response<pb::validate_list_resource_config::Response>, Status> {
        Err(not_yet("ValidateListResourceConfig"))
    }

    async fn get_functions(
        &self,
        _req: Request<pb::get_functions::Request>,
    ) -> Result<Response<pb::get_functions::Response>, Status> {
        // No provider functions yet: an empty, successful answer.
        Ok(Response::new(pb::get_functions::Response::default()))
    }

    async fn call_function(
        &self,
        req: Request<pb::call_function::Request>,
    ) -> Result<Response<pb::call_function::Response>, Status> {
        let name = req.into_inner().name;
        Ok(Response::new(pb::call_function::Response {
            result: None,
            error: Some(pb::FunctionError {
                text: format!("this provider has no function named {name:?}"),
                function_argument: None,
            }),
        }))
    }

    async fn validate_state_store_config(
        &self,
        _req: Request<pb::validate_state_store::Request>,
    ) -> Result<Response<pb::validate_state_store::Response>, Status> {
        Err(not_yet("ValidateStateStoreConfig"))
    }

    async fn configure_state_store(
        &self,
        _req: Request<pb::configure_state_store::Request>,
    ) -> Result<Response<pb::configure_state_store::Response>, Status> {
        Err(not_yet("ConfigureStateStore"))
    }

    type ReadStateBytesStream = BoxStream<pb::read_state_bytes::Response>;

    async fn read_state_bytes(
        &self,
        _req: Request<pb::read_state_bytes::Request>,
    ) -> Result<Response<Self::ReadStateBytesStream>, Status> {
        Err(not_yet("ReadStateBytes"))
    }

    async fn write_state_bytes(
        &self,
        _req: Request<Streaming<pb::write_state_bytes::RequestChunk>>,
    ) -> Result<Response<pb::write_state_bytes::Response>, Status> {
        Err(not_yet("WriteStateBytes"))
    }

    async fn get_states(
        &self,
        _req: Request<pb::get_states::Request>,
    ) -> Result<Response<pb::get_states::Response>, Status> {
        Err(not_yet("GetStates"))
    }

    async fn delete_state(
        &self,
        _req: Request<pb::delete_state::Request>,
    ) -> Result<Response<pb::delete_state::Response>, Status> {
        Err(not_yet("DeleteState"))
    }

    async fn plan_action(
        &self,
        _req: Request<pb::plan_action::Request>,
    ) -> Result<Response<pb::plan_action::Response>, Status> {
        Err(not_yet("PlanAction"))
    }

    type InvokeActionStream = BoxStream<pb::invoke_action::Event>;

    async fn invoke_action(
        &self,
        _req: Request<pb::invoke_action::Request>,
    ) -> Result<Response<Self::InvokeActionStream>, Status> {
        Err(not_yet("InvokeAction"))
    }

    async fn validate_action_config(
        &self,
        _req: Request<pb::validate_action_config::Request>,
    ) -> Result<Response<pb::validate_action_config::Response>, Status> {
        Err(not_yet("ValidateActionConfig"))
    }

    async fn stop_provider(
        &self,
        _req: Request<pb::stop_provider::Request>,
    ) -> Result<Response<pb::stop_provider::Response>, Status> {
        let error = self
            .provider
            .stop_provider()
            .await
            .err()
            .unwrap_or_default();
        Ok(Response::new(pb::stop_provider::Response { error }))
    }
}
