//! The identity family (tfplugin6.9, Terraform 1.12): a resource type may declare an
//! *identity*, a small object that names its remote object (an ID, a region, ...). Terraform
//! stores it beside the state, imports by it (`import { identity = {...} }`) and lists by it.
//! The identity values themselves travel on the resource family's read, plan, apply, import
//! and move messages; this family serves the schemas and upgrades stored identities.

use std::collections::BTreeMap;
use std::future::Future;

use super::{DynamicValue, RawState};
use crate::{Diagnostics, Type, Value};

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_identity {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Identity {
        GetResourceIdentitySchemas {
            guest: false,
            wire: derived,
            method: [get_resource_identity_schemas() -> GetResourceIdentitySchemasResponse; NoRequest {}],
            subject: |_req| "",
            request: {},
            response: { identity_schemas: Plain, diagnostics: Diagnostics },
        }
        UpgradeResourceIdentity {
            guest: true,
            wire: derived,
            method: [upgrade_resource_identity(req: UpgradeResourceIdentityRequest) -> UpgradeResourceIdentityResponse],
            subject: |req| &req.type_name,
            request: { type_name: Plain, version: Plain, raw_identity: RawIdentity },
            response: { upgraded_identity: Identity, diagnostics: Diagnostics },
        }
    } } };
}

/// One attribute of an identity. Identities are flat: no nesting, no blocks.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IdentityAttribute {
    /// Name, as in a resource schema.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Must be given in an `import` block's `identity`.
    pub required_for_import: bool,
    /// May be given in an `import` block's `identity`.
    pub optional_for_import: bool,
    /// Human-readable description.
    pub description: String,
}

/// A resource type's identity schema.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct IdentitySchema {
    /// Version of the identity schema; stored identities of older versions go through
    /// UpgradeResourceIdentity.
    pub version: i64,
    /// Its attributes, in declaration order.
    pub attributes: Vec<IdentityAttribute>,
}

impl IdentitySchema {
    /// The object type of an identity value.
    pub fn implied_type(&self) -> Type {
        Type::Object(
            self.attributes
                .iter()
                .map(|a| (a.name.clone(), a.ty.clone()))
                .collect(),
        )
    }
}

/// GetResourceIdentitySchemas.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GetResourceIdentitySchemasResponse {
    /// Identity schemas by resource type; types without an identity are absent.
    pub identity_schemas: BTreeMap<String, IdentitySchema>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// UpgradeResourceIdentity: a stored identity of an older identity schema version.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UpgradeResourceIdentityRequest {
    /// Resource type.
    pub type_name: String,
    /// Identity schema version the identity was stored with.
    pub version: i64,
    /// The stored identity (JSON).
    pub raw_identity: RawState,
}

/// The identity in the current identity schema.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UpgradeResourceIdentityResponse {
    /// Upgraded identity: wholly known, of the current identity schema.
    pub upgraded_identity: Option<DynamicValue>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// GetResourceIdentitySchemas and UpgradeResourceIdentity.
///
/// A provider without identities implements [`NoIdentity`] instead: it then lists none, and
/// Terraform stores no identity for its resources.
pub trait IdentityServer: Send + Sync + 'static {
    /// GetResourceIdentitySchemas (Terraform >= 1.12 calls it after GetProviderSchema).
    fn get_resource_identity_schemas(
        &self,
    ) -> impl Future<Output = GetResourceIdentitySchemasResponse> + Send;

    /// UpgradeResourceIdentity.
    fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> impl Future<Output = UpgradeResourceIdentityResponse> + Send;
}

/// Whether an identity names nothing: null, or an object whose attributes are all null (what
/// Terraform sends for state stored before the resource type had an identity).
pub fn is_empty_identity(identity: &Value) -> bool {
    match identity {
        Value::Null => true,
        Value::Object(attrs) => attrs.values().all(Value::is_null),
        _ => false,
    }
}

/// Marks a provider whose resources have no identity.
pub trait NoIdentity: Send + Sync + 'static {}

impl<T: NoIdentity> IdentityServer for T {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        GetResourceIdentitySchemasResponse::default()
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        UpgradeResourceIdentityResponse {
            upgraded_identity: None,
            diagnostics: vec![crate::Diagnostic::error(
                "Resource identity not supported",
                format!(
                    "This provider declares no identity for {:?}, so it cannot upgrade one.",
                    req.type_name
                ),
            )],
        }
    }
}
