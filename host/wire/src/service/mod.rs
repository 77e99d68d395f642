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

/// The family modules by their family's name in the RPC table, for the derived routes.
mod families {
    pub(super) use super::{
        action as Action, config_generation as ConfigGeneration, data_source as DataSource,
        ephemeral as Ephemeral, function as Function, identity as Identity, list as List,
        moves as Move, provider as Provider, resource as Resource, state_store as StateStore,
    };
}

/// The tonic service from the RPC table: an RPC whose entry says `wire: derived` is routed to
/// the function of the same name in its family's module, which converts the request, calls
/// the provider and converts the answer; the others (streams, and those that keep state in
/// the service) are the methods handed in. A table RPC that tonic's trait has no method for,
/// or one it has that is neither derived nor handed in, is a compile error.
macro_rules! grpc_service {
    (@routes [$($by_hand:tt)*] [$($routes:tt)*]
        $name:ident { family: $family:ident, guest: $guest:literal, wire: derived,
            method: [$method:ident $($signature:tt)*], $($entry:tt)* }
        $($rest:tt)*
    ) => {
        grpc_service! { @routes [$($by_hand)*] [$($routes)* ($family $method)] $($rest)* }
    };
    (@routes [$($by_hand:tt)*] [$($routes:tt)*]
        $name:ident { family: $family:ident, guest: $guest:literal, wire: by_hand, $($entry:tt)* }
        $($rest:tt)*
    ) => {
        grpc_service! { @routes [$($by_hand)*] [$($routes)*] $($rest)* }
    };
    (@routes [$($by_hand:tt)*] [$(($family:ident $method:ident))*]) => {
        #[tonic::async_trait]
        impl<P: Provider> pb::provider_server::Provider for ProviderService<P> {
            $($by_hand)*

            $(
                async fn $method(
                    &self,
                    req: Request<pb::$method::Request>,
                ) -> Result<Response<pb::$method::Response>, Status> {
                    Ok(Response::new(
                        families::$family::$method(&*self.provider, req.into_inner()).await,
                    ))
                }
            )*
        }
    };
    ([$($by_hand:tt)*] $($entries:tt)*) => {
        grpc_service! { @routes [$($by_hand)*] [] $($entries)* }
    };
}

tfwasm_model::rpc_table!(grpc_service [
    async fn get_metadata(
        &self,
        _req: Request<pb::get_metadata::Request>,
    ) -> Result<Response<pb::get_metadata::Response>, Status> {
        Ok(Response::new(provider::get_metadata(&*self.provider).await))
    }

    async fn stop_provider(
        &self,
        _req: Request<pb::stop_provider::Request>,
    ) -> Result<Response<pb::stop_provider::Response>, Status> {
        Ok(Response::new(provider::stop_provider(&*self.provider).await))
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

    // The protocol names its messages `ValidateStateStore`, not after the method.
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
]);
