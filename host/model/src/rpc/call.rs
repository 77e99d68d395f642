//! One RPC as a type: [`Call`], implemented by a marker per RPC in [`calls`](super::calls),
//! generated from the RPC table (each family's entries, gathered by `rpc/table.rs`), so a
//! wrapper handles every RPC with one generic function instead of one hand-written copy each.

use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{DynamicValue, Provider};
use crate::Rpc;

/// The family an RPC belongs to: which trait serves it, and whose schema its objects use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// [`ProviderServer`](super::ProviderServer): objects of the provider block's schema.
    Provider,
    /// [`ResourceServer`](super::ResourceServer): objects of the resource type's schema.
    Resource,
    /// [`DataSourceServer`](super::DataSourceServer): of the data source's schema.
    DataSource,
    /// [`FunctionServer`](super::FunctionServer): values of the function's signature.
    Function,
    /// [`MoveServer`](super::MoveServer): objects of the target resource type's schema.
    Move,
    /// [`IdentityServer`](super::IdentityServer): identities of the resource type.
    Identity,
    /// [`EphemeralServer`](super::EphemeralServer): of the ephemeral resource's schema.
    Ephemeral,
    /// [`ConfigGenerationServer`](super::ConfigGenerationServer): of the resource type's
    /// schema.
    ConfigGeneration,
    /// [`ListServer`](super::ListServer): a `list` block's `config` of the list resource's
    /// schema; listed objects of the resource type's.
    List,
    /// [`ActionServer`](super::ActionServer): an `action` block's `config` of the action's
    /// schema.
    Action,
    /// [`StateStoreServer`](super::StateStoreServer): a `state_store` block's configuration
    /// of the store's schema; states as opaque bytes.
    StateStore,
}

/// What one field of an RPC message holds, which decides what a recording may keep of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// No value: names, versions, capabilities, diagnostics, schemas.
    Plain,
    /// An object (configuration or state) of the subject's schema in the RPC's family.
    Object,
    /// An object of the provider's `provider_meta` schema.
    ProviderMeta,
    /// A resource identity of the subject's identity schema.
    Identity,
    /// Opaque bytes the provider keeps anything in; never kept.
    Private,
    /// Stored state JSON of the subject, of an older schema version.
    RawState,
    /// Stored identity JSON of the subject, of an older identity version.
    RawIdentity,
    /// State or identity of a type no schema of this provider describes; never kept.
    Foreign,
    /// The operator's import ID.
    ImportId,
    /// A function's arguments; never kept.
    Arguments,
    /// A function's result; its shape kept, never its values.
    FunctionResult,
    /// An ephemeral resource's value; its shape kept, never its values.
    EphemeralResult,
    /// Imported objects, each naming its own type, with the fields of [`IMPORTED_FIELDS`].
    Imported,
    /// Diagnostics: a message may quote values (a contract violation quotes configured and
    /// planned ones), and its path the keys of a map.
    Diagnostics,
    /// Attribute paths, which may hold the keys of a map.
    Paths,
    /// A function's error: its text may quote the arguments or the result, which are never
    /// kept; which argument it names is no value.
    FunctionError,
    /// Listed objects (identities, states, display names); only how many is kept.
    ListEvents,
}

/// The fields of each [`ImportedResource`](super::ImportedResource).
pub const IMPORTED_FIELDS: &[(&str, Field)] = &[
    ("type_name", Field::Plain),
    ("state", Field::Object),
    ("private", Field::Private),
    ("identity", Field::Identity),
];

/// One RPC: its request and response types and how to call it on any [`Provider`].
pub trait Call: 'static {
    /// Which RPC this is.
    const RPC: Rpc;
    /// Its request (for RPCs that take nothing, [`NoRequest`]).
    type Request: Serialize + DeserializeOwned + Default + Send + 'static;
    /// Its response.
    type Response: Serialize + DeserializeOwned + Default + Send + 'static;

    /// What the call is about: the resource, data source or function name (for
    /// MoveResourceState, the target type); empty for the provider's own RPCs.
    fn subject(req: &Self::Request) -> &str;

    /// Calls the RPC's method of `provider`.
    fn call<P: Provider>(
        provider: &P,
        req: Self::Request,
    ) -> impl Future<Output = Self::Response> + Send;
}

/// Code generic over one RPC, reached from an [`Rpc`] by [`Rpc::visit`].
pub trait CallVisitor {
    /// What the visit gives.
    type Output;
    /// Runs with `C` the visited RPC's marker.
    fn visit<C: Call>(self) -> Self::Output;
}

/// The request of the RPCs that take nothing (`{}` in a recording).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoRequest {}

/// ValidateProviderConfig's request: the provider block's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidateProviderConfigRequest {
    /// The configuration; may contain unknowns.
    pub config: DynamicValue,
}
