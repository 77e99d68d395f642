//! The list resource family (tfplugin6.10, Terraform 1.14's `terraform query`): a `list`
//! block names a managed resource type and a `config` of the list resource's own schema;
//! the provider answers with the existing objects of that type, each by its resource
//! identity, a display name and (when asked) its state.
//!
//! tfplugin6 streams the objects. Here a call answers one **page**, and whoever serves the
//! stream asks for the next page with the page's `next` cursor: the guest keeps no state
//! between calls (the cursor carries its place, such as an API's next-page link), a page is
//! bounded like any answer, and a listing of any length is never held whole anywhere.

use std::future::Future;

use super::DynamicValue;
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_list {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] List {
        ValidateListResourceConfig {
            guest: true,
            wire: derived,
            method: [validate_list_resource_config(req: ValidateListResourceConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object },
            response: { diagnostics: Diagnostics },
        }
        ListResource {
            guest: true,
            wire: by_hand,
            method: [list_resource(req: ListResourceRequest) -> ListResourcePage],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object, include_resource_object: Plain, limit: Plain, cursor: Private },
            response: { events: ListEvents, next: Private, diagnostics: Diagnostics },
        }
    } } };
}

/// ValidateListResourceConfig: a `list` block's `config`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidateListResourceConfigRequest {
    /// The list resource type (a managed resource type's name).
    pub type_name: String,
    /// The `config` block, of the list resource's schema; may contain unknowns.
    pub config: DynamicValue,
}

/// ListResource, one page of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListResourceRequest {
    /// The list resource type.
    pub type_name: String,
    /// The `config` block, of the list resource's schema (wholly known).
    pub config: DynamicValue,
    /// Whether each event carries the object's state too.
    pub include_resource_object: bool,
    /// The most objects Terraform takes from the whole listing.
    pub limit: i64,
    /// Where this page starts: `None` for the first, else the `next` of the page before.
    pub cursor: Option<Vec<u8>>,
}

/// One listed object.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListResourceEvent {
    /// Its resource identity, of the resource type's identity schema.
    pub identity: DynamicValue,
    /// How Terraform shows it.
    pub display_name: String,
    /// Its state, of the resource type's schema: only when the request asked for it.
    pub resource_object: Option<DynamicValue>,
    /// Problems with this object (or, in an event without an identity, with the listing).
    pub diagnostics: Diagnostics,
}

/// One page of a listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListResourcePage {
    /// The objects of this page, in order.
    pub events: Vec<ListResourceEvent>,
    /// Where the next page starts; `None` when this was the last.
    pub next: Option<Vec<u8>>,
    /// Problems with the listing as a whole (sent as an event of diagnostics only).
    pub diagnostics: Diagnostics,
}

/// ValidateListResourceConfig and ListResource.
///
/// A provider without list resources implements [`NoListResources`] instead: it declares no
/// list resource schema, so Terraform sends it neither.
pub trait ListServer: Send + Sync + 'static {
    /// ValidateListResourceConfig.
    fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// One page of ListResource.
    fn list_resource(
        &self,
        req: ListResourceRequest,
    ) -> impl Future<Output = ListResourcePage> + Send;
}

/// Marks a provider without list resources.
pub trait NoListResources: Send + Sync + 'static {}

/// The error a provider without list resources answers with.
fn not_listed(type_name: &str) -> Diagnostics {
    vec![crate::Diagnostic::error(
        "List Resource Not Supported",
        format!("This provider lists no resources of type {type_name:?}."),
    )]
}

impl<T: NoListResources> ListServer for T {
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        not_listed(&req.type_name)
    }

    async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
        ListResourcePage {
            diagnostics: not_listed(&req.type_name),
            ..ListResourcePage::default()
        }
    }
}
