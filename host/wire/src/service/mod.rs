//! The tfplugin6 `Provider` gRPC service, serving any [`tfwasm_model::Provider`].
//!
//! One module per RPC family, mirroring the model's family traits: each function converts the
//! request to the model, calls the provider, and converts back (conversions shared by several
//! families live in `convert`); all problems travel as diagnostics. The tonic trait below
//! only routes. Every RPC of tfplugin6 is served: a provider without a family announces none
//! of it and answers a diagnostic, never `Unimplemented`.

mod action;
mod config_generation;
mod data_source;
mod ephemeral;
mod function;
mod identity;
mod list;
mod moves;
mod provider;
mod resource;
mod state_store;
#[cfg(test)]
mod tests;

use std::pin::Pin;

use futures::Stream;
use tfwasm_model::Provider;
use tonic::{Request, Response, Status, Streaming};

use crate::proto::tfplugin6 as pb;

/// Largest message accepted or sent: 256 MiB, as terraform-plugin-go allows.
pub const MAX_MESSAGE_SIZE: usize = 256 << 20;

/// The gRPC service around a provider.
pub struct ProviderService<P> {
    /// Shared with the streams a call returns (a listing asks for pages after the call).
    provider: std::sync::Arc<P>,
    /// The chunk size ConfigureStateStore agreed on, by state store type.
    chunk_sizes: std::sync::Mutex<std::collections::HashMap<String, usize>>,
}

impl<P: Provider> ProviderService<P> {
    /// Wraps `provider`.
    pub fn new(provider: P) -> ProviderService<P> {
        ProviderService {
            provider: std::sync::Arc::new(provider),
            chunk_sizes: Default::default(),
        }
    }

    /// The tonic server for this service, with message limits raised to 256 MiB.
    pub fn into_server(self) -> pb::provider_server::ProviderServer<ProviderService<P>> {
        pb::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl<P: Provider> pb::provider_server::Provider for ProviderService<P> {
    async fn get_metadata(
        &self,
        _req: Request<pb::get_metadata::Request>,
    ) -> Result<Response<pb::get_metadata::Response>, Status> {
        Ok(Response::new(provider::get_metadata(&*self.provider).await))
    }

    async fn get_provider_schema(
        &self,
        _req: Request<pb::get_provider_schema::Request>,
    ) -> Result<Response<pb::get_provider_schema::Response>, Status> {
        Ok(Response::new(
            provider::get_provider_schema(&*self.provider).await,
        ))
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Result<Response<pb::validate_provider_config::Response>, Status> {
        Ok(Response::new(
            provider::validate_provider_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Result<Response<pb::validate_resource_config::Response>, Status> {
        Ok(Response::new(
            resource::validate_resource_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Result<Response<pb::validate_data_resource_config::Response>, Status> {
        Ok(Response::new(
            data_source::validate_data_resource_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
        Ok(Response::new(
            resource::upgrade_resource_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn get_resource_identity_schemas(
        &self,
        _req: Request<pb::get_resource_identity_schemas::Request>,
    ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
        Ok(Response::new(
            identity::get_resource_identity_schemas(&*self.provider).await,
        ))
    }

    async fn upgrade_resource_identity(
        &self,
        req: Request<pb::upgrade_resource_identity::Request>,
    ) -> Result<Response<pb::upgrade_resource_identity::Response>, Status> {
        Ok(Response::new(
            identity::upgrade_resource_identity(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Result<Response<pb::configure_provider::Response>, Status> {
        Ok(Response::new(
            provider::configure_provider(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Result<Response<pb::read_resource::Response>, Status> {
        Ok(Response::new(
            resource::read_resource(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
        Ok(Response::new(
            resource::plan_resource_change(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
        Ok(Response::new(
            resource::apply_resource_change(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn import_resource_state(
        &self,
        req: Request<pb::import_resource_state::Request>,
    ) -> Result<Response<pb::import_resource_state::Response>, Status> {
        Ok(Response::new(
            resource::import_resource_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn move_resource_state(
        &self,
        req: Request<pb::move_resource_state::Request>,
    ) -> Result<Response<pb::move_resource_state::Response>, Status> {
        Ok(Response::new(
            moves::move_resource_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Result<Response<pb::read_data_source::Response>, Status> {
        Ok(Response::new(
            data_source::read_data_source(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn generate_resource_config(
        &self,
        req: Request<pb::generate_resource_config::Request>,
    ) -> Result<Response<pb::generate_resource_config::Response>, Status> {
        Ok(Response::new(
            config_generation::generate_resource_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: Request<pb::validate_ephemeral_resource_config::Request>,
    ) -> Result<Response<pb::validate_ephemeral_resource_config::Response>, Status> {
        Ok(Response::new(
            ephemeral::validate_ephemeral_resource_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn open_ephemeral_resource(
        &self,
        req: Request<pb::open_ephemeral_resource::Request>,
    ) -> Result<Response<pb::open_ephemeral_resource::Response>, Status> {
        Ok(Response::new(
            ephemeral::open_ephemeral_resource(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn renew_ephemeral_resource(
        &self,
        req: Request<pb::renew_ephemeral_resource::Request>,
    ) -> Result<Response<pb::renew_ephemeral_resource::Response>, Status> {
        Ok(Response::new(
            ephemeral::renew_ephemeral_resource(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn close_ephemeral_resource(
        &self,
        req: Request<pb::close_ephemeral_resource::Request>,
    ) -> Result<Response<pb::close_ephemeral_resource::Response>, Status> {
        Ok(Response::new(
            ephemeral::close_ephemeral_resource(&*self.provider, req.into_inner()).await,
        ))
    }

    type ListResourceStream = BoxStream<pb::list_resource::Event>;

    async fn list_resource(
        &self,
        req: Request<pb::list_resource::Request>,
    ) -> Result<Response<Self::ListResourceStream>, Status> {
        Ok(Response::new(list::list_resource(
            self.provider.clone(),
            req.into_inner(),
        )))
    }

    async fn validate_list_resource_config(
        &self,
        req: Request<pb::validate_list_resource_config::Request>,
    ) -> Result<Response<pb::validate_list_resource_config::Response>, Status> {
        Ok(Response::new(
            list::validate_list_resource_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn get_functions(
        &self,
        _req: Request<pb::get_functions::Request>,
    ) -> Result<Response<pb::get_functions::Response>, Status> {
        Ok(Response::new(
            function::get_functions(&*self.provider).await,
        ))
    }

    async fn call_function(
        &self,
        req: Request<pb::call_function::Request>,
    ) -> Result<Response<pb::call_function::Response>, Status> {
        Ok(Response::new(
            function::call_function(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn validate_state_store_config(
        &self,
        req: Request<pb::validate_state_store::Request>,
    ) -> Result<Response<pb::validate_state_store::Response>, Status> {
        Ok(Response::new(
            state_store::validate_state_store(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn configure_state_store(
        &self,
        req: Request<pb::configure_state_store::Request>,
    ) -> Result<Response<pb::configure_state_store::Response>, Status> {
        let req = req.into_inner();
        let type_name = req.type_name.clone();
        let (answer, chunk) = state_store::configure_state_store(&*self.provider, req).await;
        (self.chunk_sizes.lock().unwrap_or_else(|p| p.into_inner())).insert(type_name, chunk);
        Ok(Response::new(answer))
    }

    type ReadStateBytesStream = BoxStream<pb::read_state_bytes::Response>;

    async fn read_state_bytes(
        &self,
        req: Request<pb::read_state_bytes::Request>,
    ) -> Result<Response<Self::ReadStateBytesStream>, Status> {
        let req = req.into_inner();
        let chunk = (self.chunk_sizes.lock().unwrap_or_else(|p| p.into_inner()))
            .get(&req.type_name)
            .copied()
            .unwrap_or(state_store::DEFAULT_CHUNK);
        Ok(Response::new(
            state_store::read_state_bytes(&*self.provider, req, chunk).await,
        ))
    }

    async fn write_state_bytes(
        &self,
        req: Request<Streaming<pb::write_state_bytes::RequestChunk>>,
    ) -> Result<Response<pb::write_state_bytes::Response>, Status> {
        Ok(Response::new(
            state_store::write_state_bytes(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn lock_state(
        &self,
        req: Request<pb::lock_state::Request>,
    ) -> Result<Response<pb::lock_state::Response>, Status> {
        Ok(Response::new(
            state_store::lock_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn unlock_state(
        &self,
        req: Request<pb::unlock_state::Request>,
    ) -> Result<Response<pb::unlock_state::Response>, Status> {
        Ok(Response::new(
            state_store::unlock_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn get_states(
        &self,
        req: Request<pb::get_states::Request>,
    ) -> Result<Response<pb::get_states::Response>, Status> {
        Ok(Response::new(
            state_store::get_states(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn delete_state(
        &self,
        req: Request<pb::delete_state::Request>,
    ) -> Result<Response<pb::delete_state::Response>, Status> {
        Ok(Response::new(
            state_store::delete_state(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn plan_action(
        &self,
        req: Request<pb::plan_action::Request>,
    ) -> Result<Response<pb::plan_action::Response>, Status> {
        Ok(Response::new(
            action::plan_action(&*self.provider, req.into_inner()).await,
        ))
    }

    type InvokeActionStream = BoxStream<pb::invoke_action::Event>;

    async fn invoke_action(
        &self,
        req: Request<pb::invoke_action::Request>,
    ) -> Result<Response<Self::InvokeActionStream>, Status> {
        Ok(Response::new(action::invoke_action(
            self.provider.clone(),
            req.into_inner(),
        )))
    }

    async fn validate_action_config(
        &self,
        req: Request<pb::validate_action_config::Request>,
    ) -> Result<Response<pb::validate_action_config::Response>, Status> {
        Ok(Response::new(
            action::validate_action_config(&*self.provider, req.into_inner()).await,
        ))
    }

    async fn stop_provider(
        &self,
        _req: Request<pb::stop_provider::Request>,
    ) -> Result<Response<pb::stop_provider::Response>, Status> {
        Ok(Response::new(
            provider::stop_provider(&*self.provider).await,
        ))
    }
}
