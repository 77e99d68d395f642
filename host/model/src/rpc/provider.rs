//! The provider family: schema, the provider block's validation and configuration, and
//! StopProvider. Every provider implements it.

use std::future::Future;
use std::sync::Arc;

use super::{ClientCapabilities, DynamicValue};
use crate::schema_index::SchemaIndex;
use crate::{Diagnostics, ProviderSchema};

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_provider {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Provider {
        GetProviderSchema {
            guest: true,
            wire: derived,
            method: [get_provider_schema() -> ProviderSchema; NoRequest {}],
            subject: |_req| "",
            request: {},
            response: {
                provider: Plain, provider_meta: Plain, resources: Plain, data_sources: Plain,
                ephemeral_resources: Plain, diagnostics: Diagnostics,
            },
        }
        ValidateProviderConfig {
            guest: true,
            wire: derived,
            method: [validate_provider_config(config: DynamicValue) -> Diagnostics; ValidateProviderConfigRequest { config }],
            subject: |_req| "",
            request: { config: Object },
            response: { diagnostics: Diagnostics },
        }
        ConfigureProvider {
            guest: true,
            wire: derived,
            method: [configure_provider(req: ConfigureProviderRequest) -> Diagnostics],
            subject: |_req| "",
            request: { terraform_version: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics },
        }
    } } };
}

/// ConfigureProvider: the provider block's configuration (may contain unknowns during plan).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConfigureProviderRequest {
    /// Version of the calling Terraform/OpenTofu.
    pub terraform_version: String,
    /// The provider configuration.
    pub config: DynamicValue,
    /// What the client supports.
    pub client_capabilities: ClientCapabilities,
}

/// GetProviderSchema, ValidateProviderConfig, ConfigureProvider and StopProvider.
///
/// Methods never fail as Rust errors: every problem, including a guest trap, becomes a
/// diagnostic in the response, so Terraform shows it to the user and the server keeps serving.
pub trait ProviderServer: Send + Sync + 'static {
    /// GetProviderSchema (resources and data sources; functions come from
    /// [`FunctionServer::get_functions`](super::FunctionServer::get_functions)). Called first
    /// by every new provider process unless the client cached the schema.
    fn get_provider_schema(&self) -> impl Future<Output = ProviderSchema> + Send;

    /// Whether Terraform should send destroys through PlanResourceChange
    /// (the `plan_destroy` capability).
    fn plans_destroy(&self) -> bool;

    /// ValidateProviderConfig.
    fn validate_provider_config(
        &self,
        config: DynamicValue,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// ConfigureProvider. Later calls of this process run with this configuration.
    fn configure_provider(
        &self,
        req: ConfigureProviderRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// StopProvider: cancel in-flight work promptly. `Err` carries a message for Terraform.
    fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send;

    /// The schemas indexed, when this provider keeps them (the runtime does, from its one
    /// schema call). A wrapper answers its inner provider's, so a process builds one index
    /// ([`index_of`](crate::schema_index::index_of) builds one for a provider that keeps none).
    fn schema_index(&self) -> impl Future<Output = Option<Arc<SchemaIndex>>> + Send {
        async { None }
    }
}
