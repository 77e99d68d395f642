//! The data source family: validation and read.

use std::future::Future;

use super::{ClientCapabilities, DeferredReason, DynamicValue, ValidateConfigRequest};
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_data_source {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] DataSource {
        ValidateDataResourceConfig {
            guest: true,
            wire: derived,
            method: [validate_data_resource_config(req: ValidateConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics },
        }
        ReadDataSource {
            guest: true,
            wire: derived,
            method: [read_data_source(req: ReadDataSourceRequest) -> ReadDataSourceResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, provider_meta: ProviderMeta, client_capabilities: Plain },
            response: { state: Object, diagnostics: Diagnostics, deferred: Plain },
        }
    } } };
}

/// ReadDataSource.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadDataSourceRequest {
    /// Data source type.
    pub type_name: String,
    /// Its (wholly known) configuration.
    pub config: DynamicValue,
    /// `provider_meta` of the calling module.
    pub provider_meta: DynamicValue,
    /// What the client supports (Terraform >= 1.9 sends it with this call).
    pub client_capabilities: ClientCapabilities,
}

/// The data source's result.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadDataSourceResponse {
    /// Result: wholly known, non-null.
    pub state: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Set when the provider defers this change to a later run (only if the client allows it).
    pub deferred: Option<DeferredReason>,
}

/// ValidateDataResourceConfig and ReadDataSource.
pub trait DataSourceServer: Send + Sync + 'static {
    /// ValidateDataResourceConfig.
    fn validate_data_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// ReadDataSource.
    fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> impl Future<Output = ReadDataSourceResponse> + Send;
}
