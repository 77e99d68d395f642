//! Schemas of providers, resources and data sources, and the value types they imply.

use std::collections::BTreeMap;

use crate::{Diagnostic, Type};

/// Whether a description is plain text or markdown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StringKind {
    /// Plain text.
    #[default]
    Plain,
    /// Markdown.
    Markdown,
}

/// A versioned schema: the top-level block of a provider, resource or data source.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Schema {
    /// Schema version; state written with an older version goes through UpgradeResourceState.
    pub version: i64,
    /// The top-level block.
    pub block: Block,
}

/// A block: attributes plus nested block types.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Block {
    /// Attributes, in declaration order.
    pub attributes: Vec<Attribute>,
    /// Nested block types, in declaration order.
    pub block_types: Vec<NestedBlock>,
    /// Human-readable description.
    pub description: String,
    /// Format of `description`.
    pub description_kind: StringKind,
    /// The whole block is deprecated.
    pub deprecated: bool,
    /// With `deprecated`: what to use instead (Terraform >= 1.15 shows it).
    pub deprecation_message: String,
    /// As a nested block: the provider may set it when the configuration leaves it out
    /// (tfplugin6.11, behind the client's `computed_blocks_allowed`).
    pub computed: bool,
}

/// What an attribute holds: a plain type or nested attributes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum AttributeType {
    /// A value of a cty type.
    Type(Type),
    /// Nested attributes (protocol 6 "nested_type").
    Nested(NestedObject),
}

/// One attribute of a block or nested object.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Attribute {
    /// Name, `^[a-z0-9_]+$`.
    pub name: String,
    /// Type or nested attributes.
    pub ty: AttributeType,
    /// Human-readable description.
    pub description: String,
    /// Format of `description`.
    pub description_kind: StringKind,
    /// Must be set in configuration.
    pub required: bool,
    /// May be set in configuration.
    pub optional: bool,
    /// The provider may set it.
    pub computed: bool,
    /// Terraform hides the value in output.
    pub sensitive: bool,
    /// Deprecated; Terraform warns when it is set.
    pub deprecated: bool,
    /// What to use instead, shown by Terraform >= 1.15 (tfplugin6.10); may be empty.
    pub deprecation_message: String,
    /// Never stored in state or plan (protocol 6.8).
    pub write_only: bool,
}

impl Attribute {
    /// An attribute of a plain type with every flag off; set the flags you need.
    pub fn new(name: impl Into<String>, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            ty: AttributeType::Type(ty),
            description: String::new(),
            description_kind: StringKind::Plain,
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            deprecated: false,
            deprecation_message: String::new(),
            write_only: false,
        }
    }

    /// The type values of this attribute have on the wire.
    pub fn implied_type(&self) -> Type {
        self.implied_type_ref().into_owned()
    }

    /// [`Attribute::implied_type`], borrowed where the attribute declares its type: checks
    /// that visit an attribute once per element need not copy a large type each time.
    pub fn implied_type_ref(&self) -> std::borrow::Cow<'_, Type> {
        match &self.ty {
            AttributeType::Type(ty) => std::borrow::Cow::Borrowed(ty),
            AttributeType::Nested(object) => std::borrow::Cow::Owned(object.implied_type()),
        }
    }
}

/// Nesting of nested attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObjectNesting {
    /// One object.
    Single,
    /// A list of objects.
    List,
    /// A set of objects.
    Set,
    /// A map of objects.
    Map,
}

/// The content of a nested attribute.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NestedObject {
    /// The nested attributes.
    pub attributes: Vec<Attribute>,
    /// How the objects are nested.
    pub nesting: ObjectNesting,
}

impl NestedObject {
    /// The wire type of a nested attribute.
    pub fn implied_type(&self) -> Type {
        let object = Type::Object(
            self.attributes
                .iter()
                .map(|a| (a.name.clone(), a.implied_type()))
                .collect(),
        );
        match self.nesting {
            ObjectNesting::Single => object,
            ObjectNesting::List => Type::list(object),
            ObjectNesting::Set => Type::set(object),
            ObjectNesting::Map => Type::map(object),
        }
    }
}

/// Nesting of nested blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockNesting {
    /// Zero or one block; null when absent.
    Single,
    /// Zero or more blocks in order.
    List,
    /// Zero or more distinct blocks.
    Set,
    /// Blocks with labels.
    Map,
    /// Exactly one block that is never null; absent means all attributes null.
    Group,
}

/// A nested block type.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NestedBlock {
    /// The block type name as written in configuration.
    pub type_name: String,
    /// The block's content.
    pub block: Block,
    /// How blocks of this type nest.
    pub nesting: BlockNesting,
    /// Minimum number of blocks (list and set).
    pub min_items: i64,
    /// Maximum number of blocks (list and set; 0 means no limit).
    pub max_items: i64,
}

impl NestedBlock {
    /// The wire type of this block type's value. List and map blocks whose content
    /// contains `dynamic` become tuples and objects, so their slot is `dynamic`.
    pub fn implied_type(&self) -> Type {
        let object = self.block.implied_type();
        match self.nesting {
            BlockNesting::Single | BlockNesting::Group => object,
            BlockNesting::List if object.has_dynamic() => Type::Dynamic,
            BlockNesting::List => Type::list(object),
            BlockNesting::Set => Type::set(object),
            BlockNesting::Map if object.has_dynamic() => Type::Dynamic,
            BlockNesting::Map => Type::map(object),
        }
    }
}

impl Block {
    /// The object type of values of this block.
    pub fn implied_type(&self) -> Type {
        let mut attrs: BTreeMap<String, Type> = self
            .attributes
            .iter()
            .map(|a| (a.name.clone(), a.implied_type()))
            .collect();
        for nested in &self.block_types {
            attrs.insert(nested.type_name.clone(), nested.implied_type());
        }
        Type::Object(attrs)
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The nested block type named `name`.
    pub fn block_type(&self, name: &str) -> Option<&NestedBlock> {
        self.block_types.iter().find(|b| b.type_name == name)
    }
}

/// Everything GetProviderSchema returns.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProviderSchema {
    /// The provider's own configuration block.
    pub provider: Schema,
    /// The `provider_meta` block schema, if the provider declares one.
    pub provider_meta: Option<Schema>,
    /// Managed resource types by full type name.
    pub resources: BTreeMap<String, Schema>,
    /// Data source types by full type name.
    pub data_sources: BTreeMap<String, Schema>,
    /// Ephemeral resource types by full type name.
    pub ephemeral_resources: BTreeMap<String, Schema>,
    /// List resource types (tfplugin6.10, `terraform query`) by the managed resource type
    /// they list: the schema of a `list` block's `config`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub list_resources: BTreeMap<String, Schema>,
    /// Action types (tfplugin6.10, Terraform 1.14's `action` blocks): the schema of an
    /// `action` block's `config`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub actions: BTreeMap<String, Schema>,
    /// State store types (Terraform 1.15's `state_store` block): the block's configuration.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub state_stores: BTreeMap<String, Schema>,
    /// Problems found while producing the schema.
    pub diagnostics: Vec<Diagnostic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_with(attrs: Vec<Attribute>) -> Block {
        Block {
            attributes: attrs,
            ..Block::default()
        }
    }

    #[test]
    fn implied_types_follow_nesting() {
        let inner = block_with(vec![Attribute::new("x", Type::String)]);
        let mut root = block_with(vec![Attribute::new("id", Type::String)]);
        for (name, nesting) in [
            ("single", BlockNesting::Single),
            ("group", BlockNesting::Group),
            ("list", BlockNesting::List),
            ("set", BlockNesting::Set),
            ("map", BlockNesting::Map),
        ] {
            root.block_types.push(NestedBlock {
                type_name: name.into(),
                block: inner.clone(),
                nesting,
                min_items: 0,
                max_items: 0,
            });
        }
        let obj = Type::object([("x", Type::String)]);
        assert_eq!(
            root.implied_type(),
            Type::object([
                ("id", Type::String),
                ("single", obj.clone()),
                ("group", obj.clone()),
                ("list", Type::list(obj.clone())),
                ("set", Type::set(obj.clone())),
                ("map", Type::map(obj)),
            ])
        );
    }

    #[test]
    fn dynamic_list_blocks_become_dynamic() {
        let block = NestedBlock {
            type_name: "b".into(),
            block: block_with(vec![Attribute::new("d", Type::Dynamic)]),
            nesting: BlockNesting::List,
            min_items: 0,
            max_items: 0,
        };
        assert_eq!(block.implied_type(), Type::Dynamic);
    }
}
