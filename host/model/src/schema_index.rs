//! [`SchemaIndex`]: a provider's schemas with the value types every layer works out of them,
//! built once per process and shared (the runtime builds it from the guest's one schema call;
//! the contract checks and the recording ask for it through
//! [`ProviderServer::schema_index`](crate::ProviderServer::schema_index)), where each layer
//! used to copy the schemas and rebuild the types itself.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::rpc::{Function, IdentitySchema, Provider};
use crate::{Layout, ProviderSchema, Schema, Type};

/// A provider's schemas, function signatures and identity schemas, with each object's value
/// type and each resource type's [`Layout`].
#[derive(Debug, Clone, Default)]
pub struct SchemaIndex {
    /// Provider, resource, data source and ephemeral resource schemas.
    pub provider: ProviderSchema,
    /// Function signatures by name.
    pub functions: BTreeMap<String, Function>,
    /// Identity schemas by resource type.
    pub identities: BTreeMap<String, IdentitySchema>,
    /// Per resource type: its value type, and where its names sit in its values (one map, so
    /// a type indexed has both).
    resources: HashMap<String, (Type, Layout)>,
    data_source_types: HashMap<String, Type>,
    ephemeral_types: HashMap<String, Type>,
    list_types: HashMap<String, Type>,
    identity_types: HashMap<String, Type>,
}

impl SchemaIndex {
    /// Indexes the schemas, working out every object's value type, and every resource type's
    /// layout, once.
    pub fn new(
        provider: ProviderSchema,
        functions: BTreeMap<String, Function>,
        identities: BTreeMap<String, IdentitySchema>,
    ) -> SchemaIndex {
        let types = |schemas: &BTreeMap<String, Schema>| {
            (schemas.iter())
                .map(|(name, s)| (name.clone(), s.block.implied_type()))
                .collect()
        };
        SchemaIndex {
            resources: (provider.resources.iter())
                .map(|(name, s)| (name.clone(), (s.block.implied_type(), Layout::of(&s.block))))
                .collect(),
            data_source_types: types(&provider.data_sources),
            ephemeral_types: types(&provider.ephemeral_resources),
            list_types: types(&provider.list_resources),
            identity_types: (identities.iter())
                .map(|(name, s)| (name.clone(), s.implied_type()))
                .collect(),
            provider,
            functions,
            identities,
        }
    }

    /// The value type of the resource type `name`.
    pub fn resource_type(&self, name: &str) -> Option<&Type> {
        self.resources.get(name).map(|(ty, _)| ty)
    }

    /// The value type of the resource type `name`, and where its names sit in its values.
    pub fn resource_type_and_layout(&self, name: &str) -> Option<(&Type, &Layout)> {
        self.resources.get(name).map(|(ty, layout)| (ty, layout))
    }

    /// The value type of the data source `name`.
    pub fn data_source_type(&self, name: &str) -> Option<&Type> {
        self.data_source_types.get(name)
    }

    /// The value type of the ephemeral resource type `name`.
    pub fn ephemeral_type(&self, name: &str) -> Option<&Type> {
        self.ephemeral_types.get(name)
    }

    /// The value type of the `config` of the list resource type `name`.
    pub fn list_config_type(&self, name: &str) -> Option<&Type> {
        self.list_types.get(name)
    }

    /// The identity value type of the resource type `name`, if it declares an identity.
    pub fn identity_type(&self, name: &str) -> Option<&Type> {
        self.identity_types.get(name)
    }
}

/// The index of `provider`'s schemas: the one it keeps, else built from its schema answers
/// (a provider that keeps none, such as a test fake).
pub async fn index_of<P: Provider>(provider: &P) -> Arc<SchemaIndex> {
    if let Some(index) = provider.schema_index().await {
        return index;
    }
    let schema = provider.get_provider_schema().await;
    let functions = provider.get_functions().await.functions;
    let identities = provider
        .get_resource_identity_schemas()
        .await
        .identity_schemas;
    Arc::new(SchemaIndex::new(schema, functions, identities))
}
