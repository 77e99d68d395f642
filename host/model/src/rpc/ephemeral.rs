//! The ephemeral resource family (tfplugin6.7, Terraform 1.10): values that exist only while
//! Terraform runs (a secret, a token), opened, renewed and closed in one command and never
//! stored in state or plan files.

use std::future::Future;
use std::time::SystemTime;

use super::{ClientCapabilities, DeferredReason, DynamicValue, ValidateConfigRequest};
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_ephemeral {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Ephemeral {
        ValidateEphemeralResourceConfig {
            guest: true,
            wire: derived,
            method: [validate_ephemeral_resource_config(req: ValidateConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics },
        }
        OpenEphemeralResource {
            guest: true,
            wire: derived,
            method: [open_ephemeral_resource(req: OpenEphemeralResourceRequest) -> OpenEphemeralResourceResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, client_capabilities: Plain },
            response: {
                result: EphemeralResult, private: Private, renew_at: Plain, diagnostics: Diagnostics,
                deferred: Plain,
            },
        }
        RenewEphemeralResource {
            guest: true,
            wire: derived,
            method: [renew_ephemeral_resource(req: RenewEphemeralResourceRequest) -> RenewEphemeralResourceResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, private: Private },
            response: { private: Private, renew_at: Plain, diagnostics: Diagnostics },
        }
        CloseEphemeralResource {
            guest: true,
            wire: derived,
            method: [close_ephemeral_resource(req: CloseEphemeralResourceRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, private: Private },
            response: { diagnostics: Diagnostics },
        }
    } } };
}

/// OpenEphemeralResource.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpenEphemeralResourceRequest {
    /// Ephemeral resource type.
    pub type_name: String,
    /// Its configuration (wholly known: Terraform does not open with unknowns).
    pub config: DynamicValue,
    /// What the client supports.
    pub client_capabilities: ClientCapabilities,
}

/// The opened resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpenEphemeralResourceResponse {
    /// The value: the configuration with computed attributes filled in.
    pub result: DynamicValue,
    /// Provider data for renew and close; never shown or stored.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// When Terraform should call RenewEphemeralResource, if ever.
    pub renew_at: Option<SystemTime>,
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Set when the provider defers this change to a later run (only if the client allows it).
    pub deferred: Option<DeferredReason>,
}

/// RenewEphemeralResource.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RenewEphemeralResourceRequest {
    /// Ephemeral resource type.
    pub type_name: String,
    /// Private data from open or the last renew.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
}

/// The renewal.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RenewEphemeralResourceResponse {
    /// Updated private data.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
    /// When to renew next, if ever.
    pub renew_at: Option<SystemTime>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// CloseEphemeralResource.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CloseEphemeralResourceRequest {
    /// Ephemeral resource type.
    pub type_name: String,
    /// Private data from open or the last renew.
    #[serde(with = "crate::rpc::forms::bytes")]
    pub private: Vec<u8>,
}

/// ValidateEphemeralResourceConfig, OpenEphemeralResource, RenewEphemeralResource and
/// CloseEphemeralResource. Schemas come with the provider schema
/// ([`ProviderSchema::ephemeral_resources`](crate::ProviderSchema::ephemeral_resources)).
///
/// A provider without ephemeral resources implements [`NoEphemeralResources`] instead.
pub trait EphemeralServer: Send + Sync + 'static {
    /// ValidateEphemeralResourceConfig.
    fn validate_ephemeral_resource_config(
        &self,
        req: ValidateConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// OpenEphemeralResource.
    fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> impl Future<Output = OpenEphemeralResourceResponse> + Send;

    /// RenewEphemeralResource.
    fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> impl Future<Output = RenewEphemeralResourceResponse> + Send;

    /// CloseEphemeralResource.
    fn close_ephemeral_resource(
        &self,
        req: CloseEphemeralResourceRequest,
    ) -> impl Future<Output = Diagnostics> + Send;
}

/// Marks a provider without ephemeral resources: it lists none, and every call is an error
/// naming the type.
pub trait NoEphemeralResources: Send + Sync + 'static {}

fn none(type_name: &str) -> Diagnostics {
    vec![crate::Diagnostic::error(
        "Unknown ephemeral resource type",
        format!("This provider has no ephemeral resource type {type_name:?}."),
    )]
}

impl<T: NoEphemeralResources> EphemeralServer for T {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        none(&req.type_name)
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        OpenEphemeralResourceResponse {
            diagnostics: none(&req.type_name),
            ..Default::default()
        }
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse {
            diagnostics: none(&req.type_name),
            ..Default::default()
        }
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        none(&req.type_name)
    }
}
