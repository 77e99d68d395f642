//! The config generation family (tfplugin6.10, Terraform 1.14): GenerateResourceConfig, the
//! configuration `terraform plan -generate-config-out` writes for an imported object.
//! Announced with the `generate_resource_config` capability; without it Terraform derives
//! the configuration from the state itself.

use std::future::Future;

use super::DynamicValue;
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_config_generation {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] ConfigGeneration {
        GenerateResourceConfig {
            guest: true,
            wire: derived,
            method: [generate_resource_config(req: GenerateResourceConfigRequest) -> GenerateResourceConfigResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, state: Object },
            response: { config: Object, diagnostics: Diagnostics },
        }
    } } };
}

/// GenerateResourceConfig: an imported object's state, to become its configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GenerateResourceConfigRequest {
    /// Resource type.
    pub type_name: String,
    /// The object's state (wholly known).
    pub state: DynamicValue,
}

/// The generated configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GenerateResourceConfigResponse {
    /// Configuration of the resource's schema: wholly known, null for every computed-only
    /// attribute.
    pub config: DynamicValue,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// GenerateResourceConfig.
///
/// A provider that generates no configuration implements [`NoConfigGeneration`] instead; it
/// then does not announce the capability, and Terraform generates the configuration itself.
pub trait ConfigGenerationServer: Send + Sync + 'static {
    /// Whether to announce `generate_resource_config`.
    fn generates_config(&self) -> bool;

    /// GenerateResourceConfig.
    fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> impl Future<Output = GenerateResourceConfigResponse> + Send;
}

/// Marks a provider that generates no configuration.
pub trait NoConfigGeneration: Send + Sync + 'static {}

impl<T: NoConfigGeneration> ConfigGenerationServer for T {
    fn generates_config(&self) -> bool {
        false
    }

    async fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> GenerateResourceConfigResponse {
        GenerateResourceConfigResponse {
            diagnostics: vec![crate::Diagnostic::error(
                "Generate Resource Config Not Supported",
                format!(
                    "This provider does not generate configuration for {:?}; Terraform generates it from the state when the provider does not announce generate_resource_config.",
                    req.type_name
                ),
            )],
            ..Default::default()
        }
    }
}
