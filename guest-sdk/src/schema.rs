//! Declaring schemas: attributes with their planning behaviour.

use tfwasm_model::{Attribute, Block, NestedBlock, Schema, StringKind, Type, Value};

use crate::validate::{AttrValidator, ResourceValidator};

/// How the SDK plans an attribute, beyond what the wire schema says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanBehaviour {
    /// A change of this attribute replaces the resource.
    pub requires_replace: bool,
    /// On update, keep the prior value instead of planning unknown (for values that never
    /// change once set, such as IDs).
    pub use_state_for_unknown: bool,
    /// Value planned when the configuration leaves the attribute null.
    pub default: Option<Value>,
}

/// One attribute under construction. Start with a type constructor, then chain flags.
///
/// ```
/// use tfwasm_sdk::Attr;
/// let length = Attr::number("length").required().requires_replace().description("Length of the string.");
/// ```
#[derive(Debug, Clone)]
pub struct Attr {
    pub(crate) wire: Attribute,
    pub(crate) plan: PlanBehaviour,
    pub(crate) validators: Vec<AttrValidator>,
}

impl Attr {
    /// An attribute of any cty type.
    pub fn of_type(name: &str, ty: Type) -> Attr {
        Attr {
            wire: Attribute::new(name, ty),
            plan: PlanBehaviour::default(),
            validators: Vec::new(),
        }
    }
    /// A string attribute.
    pub fn string(name: &str) -> Attr {
        Attr::of_type(name, Type::String)
    }
    /// A number attribute.
    pub fn number(name: &str) -> Attr {
        Attr::of_type(name, Type::Number)
    }
    /// A bool attribute.
    pub fn bool(name: &str) -> Attr {
        Attr::of_type(name, Type::Bool)
    }
    /// A `map(element)` attribute.
    pub fn map(name: &str, element: Type) -> Attr {
        Attr::of_type(name, Type::map(element))
    }
    /// A `list(element)` attribute.
    pub fn list(name: &str, element: Type) -> Attr {
        Attr::of_type(name, Type::list(element))
    }
    /// A `set(element)` attribute.
    pub fn set(name: &str, element: Type) -> Attr {
        Attr::of_type(name, Type::set(element))
    }

    /// Must be set in configuration.
    pub fn required(mut self) -> Attr {
        self.wire.required = true;
        self
    }
    /// May be set in configuration.
    pub fn optional(mut self) -> Attr {
        self.wire.optional = true;
        self
    }
    /// Set by the provider.
    pub fn computed(mut self) -> Attr {
        self.wire.computed = true;
        self
    }
    /// Hidden in Terraform's output.
    pub fn sensitive(mut self) -> Attr {
        self.wire.sensitive = true;
        self
    }
    /// Deprecated: Terraform warns when it is set.
    pub fn deprecated(mut self) -> Attr {
        self.wire.deprecated = true;
        self
    }
    /// Plain-text description.
    pub fn description(mut self, text: &str) -> Attr {
        self.wire.description = text.to_owned();
        self.wire.description_kind = StringKind::Plain;
        self
    }
    /// Markdown description.
    pub fn markdown_description(mut self, text: &str) -> Attr {
        self.wire.description = text.to_owned();
        self.wire.description_kind = StringKind::Markdown;
        self
    }
    /// Changing this attribute replaces the resource.
    pub fn requires_replace(mut self) -> Attr {
        self.plan.requires_replace = true;
        self
    }
    /// On update, keep the prior state's value instead of planning an unknown.
    pub fn use_state_for_unknown(mut self) -> Attr {
        self.plan.use_state_for_unknown = true;
        self
    }
    /// Planned when configuration leaves it null. Makes the attribute optional and computed.
    pub fn default(mut self, value: impl Into<Value>) -> Attr {
        self.wire.optional = true;
        self.wire.computed = true;
        self.plan.default = Some(value.into());
        self
    }

    /// Adds a validator (see [`crate::validate`]); it runs on known, non-null values.
    pub fn validate(mut self, validator: AttrValidator) -> Attr {
        self.validators.push(validator);
        self
    }

    /// The attribute's name.
    pub fn name(&self) -> &str {
        &self.wire.name
    }
}

/// The schema of a resource, data source or provider: attributes with planning behaviour,
/// plus nested blocks.
#[derive(Debug, Clone, Default)]
pub struct ResourceSchema {
    /// Schema version; bump it when stored state needs an upgrade.
    pub version: i64,
    /// Description of the resource.
    pub description: String,
    pub(crate) attributes: Vec<Attr>,
    pub(crate) blocks: Vec<NestedBlock>,
    pub(crate) validators: Vec<ResourceValidator>,
}

impl ResourceSchema {
    /// An empty schema at version 0.
    pub fn new() -> ResourceSchema {
        ResourceSchema::default()
    }
    /// Sets the schema version.
    pub fn version(mut self, version: i64) -> ResourceSchema {
        self.version = version;
        self
    }
    /// Sets the description.
    pub fn description(mut self, text: &str) -> ResourceSchema {
        self.description = text.to_owned();
        self
    }
    /// Adds an attribute.
    pub fn attr(mut self, attr: Attr) -> ResourceSchema {
        self.attributes.push(attr);
        self
    }
    /// Adds a check across attributes (see [`crate::validate`]).
    pub fn validate(mut self, validator: ResourceValidator) -> ResourceSchema {
        self.validators.push(validator);
        self
    }

    /// Runs every attribute and resource validator on a configuration object.
    pub fn check_config(&self, config: &Value) -> Vec<tfwasm_model::Diagnostic> {
        let mut out: Vec<_> = self
            .attributes
            .iter()
            .flat_map(|a| {
                a.validators.iter().filter_map(|v| {
                    v.check(
                        &a.wire.name,
                        config.get(&a.wire.name).unwrap_or(&Value::Null),
                    )
                })
            })
            .collect();
        out.extend(self.validators.iter().flat_map(|v| v.check(config)));
        out
    }

    /// Adds a nested block type.
    pub fn block(mut self, block: NestedBlock) -> ResourceSchema {
        self.blocks.push(block);
        self
    }

    /// The wire schema Terraform sees.
    pub fn to_wire(&self) -> Schema {
        Schema {
            version: self.version,
            block: Block {
                attributes: self.attributes.iter().map(|a| a.wire.clone()).collect(),
                block_types: self.blocks.clone(),
                description: self.description.clone(),
                description_kind: StringKind::Plain,
                deprecated: false,
            },
        }
    }

    /// The object type of values of this schema.
    pub fn value_type(&self) -> Type {
        self.to_wire().block.implied_type()
    }

    /// Attributes with their planning behaviour.
    pub fn attributes(&self) -> impl Iterator<Item = (&Attribute, &PlanBehaviour)> {
        self.attributes.iter().map(|a| (&a.wire, &a.plan))
    }

    /// An object of this schema's type with every attribute null.
    pub fn null_object(&self) -> Value {
        Value::null_object_of(&self.value_type())
    }
}
