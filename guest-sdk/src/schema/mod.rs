//! Declaring schemas: attributes (plain and nested), nested blocks, and how the SDK plans
//! each attribute (defaults, requires-replace rules, unknown rules, semantic equality).
//!
//! Planning behaviour (defaults, modifiers, validators, semantic equality) applies at any
//! depth: to top-level attributes, to attributes of nested attributes and to attributes of
//! nested blocks, element by element (see [`crate::PlanContext`] for the rules and how list
//! and set elements are matched to their prior elements).

use std::fmt;
use std::sync::Arc;

use tfwasm_model::{
    Attribute, AttributePath, AttributeType, Block as WireBlock, BlockNesting, Diagnostic,
    NestedBlock, NestedObject, ObjectNesting, Schema, StringKind, Type, Value,
};

use crate::expr::{ExprStep, Frame, PathExpr};
use crate::validate::{AttrValidator, ResourceValidator};

mod check;

pub(crate) use crate::place::Place;

pub use check::{behaviour_problems, check};

/// What a [`ReplaceRule::If`] function sees about one attribute.
#[derive(Debug, Clone, Copy)]
pub struct ReplaceRequest<'a> {
    /// The attribute's prior state value.
    pub prior: &'a Value,
    /// Its configured value.
    pub config: &'a Value,
    /// Its planned value.
    pub planned: &'a Value,
}

/// When a change of an attribute replaces the resource.
#[derive(Clone, Default)]
pub enum ReplaceRule {
    /// Never: the attribute updates in place.
    #[default]
    Never,
    /// Whenever the planned value differs from the prior state (`RequiresReplace`).
    Always,
    /// Only when the attribute is set in configuration and differs, so a computed value that
    /// changes on its own never forces a replacement (`RequiresReplaceIfConfigured`).
    IfConfigured,
    /// When the value differs and the function says so (`RequiresReplaceIf`); the string
    /// describes the rule for documentation.
    If(
        Arc<dyn Fn(&ReplaceRequest<'_>) -> bool + Send + Sync>,
        &'static str,
    ),
}

impl fmt::Debug for ReplaceRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplaceRule::Never => f.write_str("Never"),
            ReplaceRule::Always => f.write_str("Always"),
            ReplaceRule::IfConfigured => f.write_str("IfConfigured"),
            ReplaceRule::If(_, what) => write!(f, "If({what:?})"),
        }
    }
}

/// What an unconfigured computed attribute plans on an update that changes something.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnknownRule {
    /// Unknown ("known after apply"): the default, since any change may change it.
    #[default]
    Unknown,
    /// The prior state's value, even null (`UseStateForUnknown`).
    UseState,
    /// The prior state's value when it is not null, else unknown
    /// (`UseNonNullStateForUnknown`; safe for attributes inside objects that may be added).
    UseNonNullState,
}

pub use crate::semantic::SemanticEquals;

/// How the SDK plans an attribute, beyond what the wire schema says.
#[derive(Debug, Clone, Default)]
pub struct PlanBehaviour {
    /// When a change replaces the resource.
    pub replace: ReplaceRule,
    /// What an unconfigured computed attribute plans when the resource changes.
    pub unknown: UnknownRule,
    /// Value planned when the configuration leaves the attribute null.
    pub default: Option<Value>,
    /// Keep the prior value when the configured one means the same.
    pub semantic_equals: Option<SemanticEquals>,
    /// Warning shown when the attribute is set (with [`Attr::deprecated`]).
    pub deprecation: Option<String>,
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
    /// The attributes of a nested attribute, with their own behaviour; empty otherwise.
    pub(crate) nested: Vec<Attr>,
    /// For list and set nested attributes: the attributes that identify an element across
    /// plans (see [`Attr::match_elements_by`]).
    pub(crate) match_by: Vec<String>,
    /// The custom type of the value (see [`Attr::custom`]).
    pub(crate) custom: Option<&'static crate::custom::CustomType>,
    /// Environment variables that supply a provider setting left null (see
    /// [`Attr::env_fallback`]).
    pub(crate) env: Vec<String>,
    /// Where a value of the enclosing object holds this attribute: its place among the
    /// object's names in order ([`ResourceSchema::place`]). A hint: 0 until placed, and a
    /// lookup by it confirms the name.
    pub(crate) slot: usize,
}

impl Attr {
    /// An attribute of any cty type.
    pub fn of_type(name: &str, ty: Type) -> Attr {
        Attr {
            wire: Attribute::new(name, ty),
            plan: PlanBehaviour::default(),
            validators: Vec::new(),
            nested: Vec::new(),
            match_by: Vec::new(),
            custom: None,
            env: Vec::new(),
            slot: 0,
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
    /// An `object({...})` attribute of plain-typed attributes.
    pub fn object(name: &str, attributes: &[(&str, Type)]) -> Attr {
        Attr::of_type(
            name,
            Type::Object(
                attributes
                    .iter()
                    .map(|(n, t)| ((*n).to_owned(), t.clone()))
                    .collect(),
            ),
        )
    }
    /// A `tuple([...])` attribute.
    pub fn tuple(name: &str, elements: Vec<Type>) -> Attr {
        Attr::of_type(name, Type::Tuple(elements))
    }
    /// A string attribute of a custom type (see [`crate::custom`]): configured values are
    /// validated by the type, and values equal by its meaning plan no change, at any depth.
    pub fn custom(name: &str, ty: &'static crate::custom::CustomType) -> Attr {
        let mut attr = Attr::string(name);
        attr.custom = Some(ty);
        attr
    }
    /// The semantic equality that applies: the attribute's own, else its custom type's.
    pub(crate) fn semantic(&self) -> Option<SemanticEquals> {
        self.plan
            .semantic_equals
            .or_else(|| self.custom.and_then(|t| t.equal))
    }
    /// A `dynamic` attribute: any type, decided by the configuration.
    pub fn dynamic(name: &str) -> Attr {
        Attr::of_type(name, Type::Dynamic)
    }
    /// A nested attribute holding one object (`SingleNestedAttribute`).
    pub fn single_nested(name: &str, attributes: Vec<Attr>) -> Attr {
        Attr::nested(name, ObjectNesting::Single, attributes)
    }
    /// A nested attribute holding a list of objects (`ListNestedAttribute`).
    pub fn list_nested(name: &str, attributes: Vec<Attr>) -> Attr {
        Attr::nested(name, ObjectNesting::List, attributes)
    }
    /// A nested attribute holding a set of objects (`SetNestedAttribute`).
    pub fn set_nested(name: &str, attributes: Vec<Attr>) -> Attr {
        Attr::nested(name, ObjectNesting::Set, attributes)
    }
    /// A nested attribute holding a map of objects (`MapNestedAttribute`).
    pub fn map_nested(name: &str, attributes: Vec<Attr>) -> Attr {
        Attr::nested(name, ObjectNesting::Map, attributes)
    }
    fn nested(name: &str, nesting: ObjectNesting, attributes: Vec<Attr>) -> Attr {
        let mut wire = Attribute::new(name, Type::Dynamic);
        wire.ty = AttributeType::Nested(NestedObject {
            attributes: attributes.iter().map(|a| a.wire.clone()).collect(),
            nesting,
        });
        Attr {
            wire,
            plan: PlanBehaviour::default(),
            validators: Vec::new(),
            nested: attributes,
            match_by: Vec::new(),
            custom: None,
            env: Vec::new(),
            slot: 0,
        }
    }

    /// For a list or set nested attribute: the attributes that identify an element, so each
    /// planned element is matched to the prior element with the same values of `names` and
    /// keeps its computed values (the framework's missing "MatchElementStateForUnknown").
    /// Without it, list elements match by position and set elements by the values of their
    /// non-computed attributes.
    pub fn match_elements_by(mut self, names: &[&str]) -> Attr {
        self.match_by = names.iter().map(|n| (*n).to_owned()).collect();
        self
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
    /// For a provider setting (a string, number or bool attribute of [`Provider::schema`]):
    /// when the configuration leaves it null, the first of `names` that is set in the
    /// environment supplies it, in `configure` and in every call after it (the framework's
    /// habit of `os.Getenv` in `Configure`, done once for all). The operator grants the
    /// variables (`tfwasm package --allow-env NAME`); an ungranted one reads as unset. Keep the
    /// attribute optional: Terraform refuses a null required one before the provider sees it.
    ///
    /// [`Provider::schema`]: crate::Provider::schema
    pub fn env_fallback(mut self, names: &[&str]) -> Attr {
        self.env = names.iter().map(|n| (*n).to_owned()).collect();
        self
    }
    /// Hidden in Terraform's output.
    pub fn sensitive(mut self) -> Attr {
        self.wire.sensitive = true;
        self
    }
    /// Deprecated: Terraform marks it so, and validation warns with `message` when it is set.
    pub fn deprecated(mut self, message: &str) -> Attr {
        self.wire.deprecated = true;
        self.wire.deprecation_message = message.to_owned();
        self.plan.deprecation = Some(message.to_owned());
        self
    }
    /// Write-only (Terraform ≥ 1.11): the value exists only in configuration and is never
    /// stored in plan or state; the SDK plans it null.
    pub fn write_only(mut self) -> Attr {
        self.wire.write_only = true;
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
    /// Changing this attribute replaces the resource (`RequiresReplace`).
    pub fn requires_replace(mut self) -> Attr {
        self.plan.replace = ReplaceRule::Always;
        self
    }
    /// Changing this attribute in configuration replaces the resource; a change the provider
    /// makes to a computed value does not (`RequiresReplaceIfConfigured`).
    pub fn requires_replace_if_configured(mut self) -> Attr {
        self.plan.replace = ReplaceRule::IfConfigured;
        self
    }
    /// A change replaces the resource when `rule` says so (`RequiresReplaceIf`); `description`
    /// says when, for documentation.
    pub fn requires_replace_if(
        mut self,
        description: &'static str,
        rule: impl Fn(&ReplaceRequest<'_>) -> bool + Send + Sync + 'static,
    ) -> Attr {
        self.plan.replace = ReplaceRule::If(Arc::new(rule), description);
        self
    }
    /// On update, keep the prior state's value (even null) instead of planning an unknown
    /// (`UseStateForUnknown`).
    pub fn use_state_for_unknown(mut self) -> Attr {
        self.plan.unknown = UnknownRule::UseState;
        self
    }
    /// On update, keep the prior state's value unless it is null (`UseNonNullStateForUnknown`).
    pub fn use_non_null_state_for_unknown(mut self) -> Attr {
        self.plan.unknown = UnknownRule::UseNonNullState;
        self
    }
    /// Semantic equality: when the configured value and the prior state's value mean the
    /// same (`equal(prior, config)`), plan the prior value, so no change shows. See
    /// [`crate::semantic`] for ready-made ones (JSON, case-insensitive strings).
    pub fn semantic_equals(mut self, equal: SemanticEquals) -> Attr {
        self.plan.semantic_equals = Some(equal);
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

/// A nested block type under construction (`ListNestedBlock` and friends). Prefer nested
/// attributes in new providers; blocks suit repeated sub-structures written as blocks and
/// migrations from older providers.
///
/// ```
/// use tfwasm_sdk::{Attr, ResourceSchema, schema::Block};
/// let rules = Block::list("rule", ResourceSchema::new().attr(Attr::number("port").required()))
///     .max_items(8);
/// let schema = ResourceSchema::new().block(rules);
/// # assert!(tfwasm_sdk::schema::check(&schema).is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Block {
    pub(crate) wire: NestedBlock,
    /// The block's attributes and blocks with their behaviour; its validators run on each
    /// block, with names relative to it.
    pub(crate) content: ResourceSchema,
    /// For list and set blocks: the attributes that identify a block across plans.
    pub(crate) match_by: Vec<String>,
    /// Where a value of the enclosing object holds this block ([`Attr::slot`]).
    pub(crate) slot: usize,
}

impl Block {
    fn new(name: &str, nesting: BlockNesting, content: ResourceSchema) -> Block {
        Block {
            wire: NestedBlock {
                type_name: name.to_owned(),
                block: content.to_wire().block,
                nesting,
                min_items: 0,
                max_items: 0,
            },
            content,
            match_by: Vec::new(),
            slot: 0,
        }
    }
    /// For list and set blocks: the attributes that identify a block, so each planned block
    /// is matched to the prior block with the same values and keeps its computed values.
    /// Without it, list blocks match by position and set blocks by the values of their
    /// non-computed attributes.
    pub fn match_elements_by(mut self, names: &[&str]) -> Block {
        self.match_by = names.iter().map(|n| (*n).to_owned()).collect();
        self
    }
    /// At most one block, as an object (null when absent).
    pub fn single(name: &str, content: ResourceSchema) -> Block {
        Block::new(name, BlockNesting::Single, content)
    }
    /// Exactly one block that is always present (its attributes null when not written).
    pub fn group(name: &str, content: ResourceSchema) -> Block {
        Block::new(name, BlockNesting::Group, content)
    }
    /// Any number of blocks, in order.
    pub fn list(name: &str, content: ResourceSchema) -> Block {
        Block::new(name, BlockNesting::List, content)
    }
    /// Any number of distinct blocks, unordered.
    pub fn set(name: &str, content: ResourceSchema) -> Block {
        Block::new(name, BlockNesting::Set, content)
    }
    /// Blocks with a label each (`name "label" { ... }`), as a map.
    pub fn map(name: &str, content: ResourceSchema) -> Block {
        Block::new(name, BlockNesting::Map, content)
    }
    /// Minimum number of blocks (list and set).
    pub fn min_items(mut self, n: i64) -> Block {
        self.wire.min_items = n;
        self
    }
    /// Maximum number of blocks (list and set).
    pub fn max_items(mut self, n: i64) -> Block {
        self.wire.max_items = n;
        self
    }
    /// Marks the block deprecated; `message` says what to use instead (Terraform >= 1.15
    /// shows it).
    pub fn deprecated(mut self, message: &str) -> Block {
        self.wire.block.deprecated = true;
        self.wire.block.deprecation_message = message.to_owned();
        self
    }
    /// Lets the provider set the block when the configuration leaves it out, as a computed
    /// attribute (tfplugin6.11). Only clients announcing `computed_blocks_allowed`
    /// ([`crate::Context::client`]) accept a plan that does; older ones reject it, so plan
    /// it only for them.
    pub fn computed(mut self) -> Block {
        self.wire.block.computed = true;
        self
    }
}

/// Resource-level validators of the object at the end of `chain`.
fn resource_validators(
    validators: &[ResourceValidator],
    chain: &[Frame],
) -> Vec<tfwasm_model::Diagnostic> {
    match chain.last() {
        Some(here) if !here.value.is_null() && !here.value.is_unknown() => {
            validators.iter().flat_map(|v| v.check_in(chain)).collect()
        }
        _ => Vec::new(),
    }
}

/// Calls `on_attr` for every attribute of an object of this shape, at any depth, with its
/// value and path (list elements by index, map elements by key, set elements at the set), and
/// `on_block` for every nested block object, given as the chain of values from `object` down
/// to it (so path expressions can climb). Null and unknown objects have nothing to visit.
pub(crate) fn visit<'v>(
    attrs: &[Attr],
    blocks: &[Block],
    object: &'v Value,
    on_attr: &mut dyn FnMut(&Attr, &Value, &AttributePath),
    on_block: &mut dyn FnMut(&Block, &[Frame<'v>]),
) {
    let mut chain = vec![Frame::root(object)];
    visit_at(attrs, blocks, &mut chain, on_attr, on_block);
}

static NULL: Value = Value::Null;

fn visit_at<'v>(
    attrs: &[Attr],
    blocks: &[Block],
    chain: &mut Vec<Frame<'v>>,
    on_attr: &mut dyn FnMut(&Attr, &Value, &AttributePath),
    on_block: &mut dyn FnMut(&Block, &[Frame<'v>]),
) {
    let Some(top) = chain.last() else { return };
    let (object, place) = (top.value, top.place.clone());
    if object.is_null() || object.is_unknown() {
        return;
    }
    for attr in attrs {
        let value = object.get(&attr.wire.name).unwrap_or(&NULL);
        let here = place.attr(&attr.wire.name);
        on_attr(attr, value, here.path());
        if !attr.nested.is_empty() {
            each_element(value, here, chain, &mut |chain| {
                visit_at(&attr.nested, &[], chain, on_attr, on_block);
            });
        }
    }
    for block in blocks {
        let value = object.get(&block.wire.type_name).unwrap_or(&NULL);
        let here = place.attr(&block.wire.type_name);
        each_element(value, here, chain, &mut |chain| {
            on_block(block, chain);
            visit_at(
                &block.content.attributes,
                &block.content.blocks,
                chain,
                on_attr,
                on_block,
            );
        });
    }
}

/// Calls `f` with the chain extended to each object inside a nested value: itself (single),
/// each list element by index, each map element by key, each set element at the set's
/// place. Elements of collections sit below the collection, as path expressions see them.
fn each_element<'v>(
    value: &'v Value,
    place: Place,
    chain: &mut Vec<Frame<'v>>,
    f: &mut dyn FnMut(&mut Vec<Frame<'v>>),
) {
    let mut enter = |chain: &mut Vec<Frame<'v>>, value, place| {
        chain.push(Frame { value, place });
        f(chain);
        chain.pop();
    };
    match value {
        Value::Object(_) => enter(chain, value, place),
        Value::List(items) => {
            chain.push(Frame {
                value,
                place: place.clone(),
            });
            for (i, item) in items.iter().enumerate() {
                enter(chain, item, place.index(i as i64));
            }
            chain.pop();
        }
        Value::Set(items) => {
            let inside = place.in_set();
            chain.push(Frame { value, place });
            for item in items {
                enter(chain, item, inside.clone());
            }
            chain.pop();
        }
        Value::Map(items) => {
            chain.push(Frame {
                value,
                place: place.clone(),
            });
            for (key, item) in items {
                enter(chain, item, place.key(key));
            }
            chain.pop();
        }
        _ => {}
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
    pub(crate) blocks: Vec<Block>,
    pub(crate) description_kind: StringKind,
    pub(crate) validators: Vec<ResourceValidator>,
    /// [`ResourceSchema::has_sensitive`], found once by [`ResourceSchema::place`]; until then
    /// (`None`) it is found by walking the schema, so nothing is ever left unmasked.
    pub(crate) sensitive: Option<bool>,
}

impl ResourceSchema {
    /// `config` (an object of this schema) with each null attribute that has an
    /// [`Attr::env_fallback`] taken from the first of its variables that is set.
    ///
    /// # Errors
    /// A variable whose text is not a value of the attribute's type, naming both.
    pub(crate) fn with_env_fallbacks(&self, config: &mut Value) -> Result<(), Diagnostic> {
        let Value::Object(attrs) = config else {
            return Ok(());
        };
        for attr in self.attributes.iter().filter(|a| !a.env.is_empty()) {
            let name = &attr.wire.name;
            if !attrs.get(name.as_str()).is_none_or(Value::is_null) {
                continue;
            }
            let Some((var, text)) = (attr.env.iter())
                .find_map(|var| Some((var, std::env::var(var).ok().filter(|t| !t.is_empty())?)))
            else {
                continue;
            };
            let ty = match &attr.wire.ty {
                AttributeType::Type(ty) => ty,
                AttributeType::Nested(_) => continue,
            };
            let value = match ty {
                Type::String => Some(Value::String(text.clone())),
                Type::Bool => match text.as_str() {
                    "true" | "1" => Some(Value::Bool(true)),
                    "false" | "0" => Some(Value::Bool(false)),
                    _ => None,
                },
                Type::Number => text.parse().ok().map(Value::Number),
                _ => None,
            };
            let shown = if attr.wire.sensitive {
                "(sensitive)".to_owned()
            } else {
                format!("{text:?}")
            };
            let value = value.ok_or_else(|| {
                Diagnostic::error(
                    "Invalid provider setting from the environment",
                    format!(
                        "{name} is not set, and {var} = {shown} is not a {} value.",
                        ty.to_json()
                    ),
                )
                .at(AttributePath::attribute(name))
            })?;
            if attr.wire.sensitive {
                // The variable's text, whatever the type it becomes.
                crate::log::mask(&text);
            }
            attrs.insert(name.as_str().into(), value);
        }
        Ok(())
    }

    /// An empty schema at version 0.
    pub fn new() -> ResourceSchema {
        ResourceSchema::default()
    }
    /// Sets the schema version.
    pub fn version(mut self, version: i64) -> ResourceSchema {
        self.version = version;
        self
    }
    /// Sets the description (plain text).
    pub fn description(mut self, text: &str) -> ResourceSchema {
        self.description = text.to_owned();
        self.description_kind = StringKind::Plain;
        self
    }
    /// Sets the description (markdown).
    pub fn markdown_description(mut self, text: &str) -> ResourceSchema {
        self.description = text.to_owned();
        self.description_kind = StringKind::Markdown;
        self
    }
    /// Adds an attribute.
    pub fn attr(mut self, attr: Attr) -> ResourceSchema {
        self.attributes.push(attr);
        self.sensitive = None;
        self
    }
    /// Adds a check across attributes (see [`crate::validate`]).
    pub fn validate(mut self, validator: ResourceValidator) -> ResourceSchema {
        self.validators.push(validator);
        self
    }

    /// Runs every attribute and resource validator on a configuration object, at any
    /// depth: validators of attributes inside nested attributes and blocks run on each
    /// element, and a block's own validators on each block (their names relative to it);
    /// diagnostics carry the element's path. Setting a deprecated attribute warns.
    ///
    /// An attribute that failed its own validators gets no further error from a resource or
    /// block validator: one mistake (`length = -1`) gives one error, not a second one from a
    /// sum it also breaks. Mistakes elsewhere are all reported.
    pub fn check_config(&self, config: &Value) -> Vec<tfwasm_model::Diagnostic> {
        let out = std::cell::RefCell::new(Vec::new());
        let across = std::cell::RefCell::new(resource_validators(
            &self.validators,
            &[Frame::root(config)],
        ));
        visit(
            &self.attributes,
            &self.blocks,
            config,
            &mut |attr, value, path| {
                for validator in &attr.validators {
                    if let Some(mut d) = validator.check(&attr.wire.name, value) {
                        d.attribute = Some(path.clone());
                        out.borrow_mut().push(d);
                    }
                }
                if let (Some(ty), Some(text)) = (attr.custom, value.as_str())
                    && let Err(why) = (ty.check)(text)
                {
                    out.borrow_mut().push(
                        tfwasm_model::Diagnostic::error(
                            "Invalid attribute value",
                            format!(
                                "{} must be {}: {why}; got {text:?}.",
                                attr.wire.name, ty.description
                            ),
                        )
                        .at(path.clone()),
                    );
                }
                if let Some(message) = &attr.plan.deprecation
                    && !value.is_null()
                {
                    out.borrow_mut().push(
                        tfwasm_model::Diagnostic::warning(
                            format!("Attribute {:?} is deprecated", attr.wire.name),
                            message.clone(),
                        )
                        .at(path.clone()),
                    );
                }
            },
            &mut |block, chain| {
                across
                    .borrow_mut()
                    .extend(resource_validators(&block.content.validators, chain));
            },
        );
        let mut out = out.into_inner();
        let failed: Vec<AttributePath> = out
            .iter()
            .filter(|d| d.is_error())
            .filter_map(|d| d.attribute.clone())
            .collect();
        out.extend(
            across
                .into_inner()
                .into_iter()
                .filter(|d| d.attribute.as_ref().is_none_or(|at| !failed.contains(at))),
        );
        out
    }

    /// Reads a model struct from a value of this schema (see [`crate::typed`]).
    ///
    /// # Errors
    /// A value that does not fit the model, as a diagnostic naming the attribute.
    pub fn decode<T: serde::de::DeserializeOwned>(
        &self,
        value: &Value,
    ) -> Result<T, tfwasm_model::Diagnostic> {
        crate::typed::from_value(value).map_err(Into::into)
    }

    /// Writes a model struct as a value of this schema (see [`crate::typed`]).
    ///
    /// # Errors
    /// A model that does not fit the schema, as a diagnostic naming the attribute.
    pub fn encode<T: serde::Serialize>(
        &self,
        model: &T,
    ) -> Result<Value, tfwasm_model::Diagnostic> {
        crate::typed::to_value(model, &self.value_type()).map_err(Into::into)
    }

    /// Adds a nested block type.
    pub fn block(mut self, block: Block) -> ResourceSchema {
        self.blocks.push(block);
        self.sensitive = None;
        self
    }

    /// The wire schema Terraform sees.
    pub fn to_wire(&self) -> Schema {
        Schema {
            version: self.version,
            block: WireBlock {
                attributes: self.attributes.iter().map(|a| a.wire.clone()).collect(),
                block_types: self.blocks.iter().map(|b| b.wire.clone()).collect(),
                description: self.description.clone(),
                description_kind: self.description_kind,
                ..WireBlock::default()
            },
        }
    }

    /// The object type of values of this schema.
    pub fn value_type(&self) -> Type {
        self.to_wire().block.implied_type()
    }

    /// Records where a value of this schema's type holds each attribute and block, at every
    /// depth ([`Attr::slot`]): an object holds them in name order, so the planner reads each
    /// by its place, with one name comparison, instead of searching for it several times per
    /// attribute (issue 37: the searches were a fifth of a guest's refresh plan).
    pub(crate) fn place(&mut self) {
        let names = self.attributes.iter().map(|a| a.wire.name.as_str());
        let names = names.chain(self.blocks.iter().map(|b| b.wire.type_name.as_str()));
        let slots = tfwasm_model::layout::ranks(names);
        let (attrs, blocks) = slots.split_at(self.attributes.len());
        for (attr, &slot) in self.attributes.iter_mut().zip(attrs) {
            attr.slot = slot;
            place_nested(&mut attr.nested);
        }
        for (block, &slot) in self.blocks.iter_mut().zip(blocks) {
            block.slot = slot;
            block.content.place();
        }
        self.sensitive = None;
        self.sensitive = Some(self.has_sensitive());
    }

    /// Attributes with their planning behaviour.
    pub fn attributes(&self) -> impl Iterator<Item = (&Attribute, &PlanBehaviour)> {
        self.attributes.iter().map(|a| (&a.wire, &a.plan))
    }

    /// Whether any attribute, at any depth, is sensitive (values of others need no masking).
    pub(crate) fn has_sensitive(&self) -> bool {
        if let Some(known) = self.sensitive {
            return known;
        }
        fn any(attrs: &[Attr], blocks: &[Block]) -> bool {
            attrs
                .iter()
                .any(|a| a.wire.sensitive || any(&a.nested, &[]))
                || blocks
                    .iter()
                    .any(|b| any(&b.content.attributes, &b.content.blocks))
        }
        any(&self.attributes, &self.blocks)
    }

    /// An object of this schema's type with every attribute null.
    pub fn null_object(&self) -> Value {
        Value::null_object_of(&self.value_type())
    }
}

/// [`ResourceSchema::place`] for a nested attribute's object.
fn place_nested(attrs: &mut [Attr]) {
    let slots = tfwasm_model::layout::ranks(attrs.iter().map(|a| a.wire.name.as_str()));
    for (attr, slot) in attrs.iter_mut().zip(slots) {
        attr.slot = slot;
        place_nested(&mut attr.nested);
    }
}

#[cfg(test)]
mod placing_tests {
    use super::*;

    /// At every depth, a value of the schema's type holds each attribute and block at its
    /// slot, whatever order they were declared in.
    #[test]
    fn every_attribute_and_block_is_placed_where_its_objects_hold_it() {
        let mut schema = ResourceSchema::new()
            .attr(Attr::string("zone"))
            .attr(Attr::string("id").computed())
            .attr(Attr::list_nested(
                "tag",
                vec![
                    Attr::string("value"),
                    Attr::string("key"),
                    Attr::string("etag"),
                ],
            ))
            .block(Block::set(
                "rule",
                ResourceSchema::new()
                    .attr(Attr::number("port"))
                    .attr(Attr::string("name")),
            ))
            .attr(Attr::string("b"));
        schema.place();
        let null = Value::null_object_of(&schema.value_type());
        fn held(object: &Value, slot: usize) -> &str {
            let Value::Object(attrs) = object else {
                panic!("not an object: {object:?}")
            };
            &attrs.as_slice()[slot].0
        }
        for attr in &schema.attributes {
            assert_eq!(held(&null, attr.slot), attr.wire.name);
        }
        for block in &schema.blocks {
            assert_eq!(held(&null, block.slot), block.wire.type_name);
            let element = Value::null_object_of(&block.content.value_type());
            for attr in &block.content.attributes {
                assert_eq!(held(&element, attr.slot), attr.wire.name);
            }
        }
        let tag = schema
            .attributes
            .iter()
            .find(|a| a.wire.name == "tag")
            .unwrap();
        let names: Vec<&str> = tag.nested.iter().map(|a| a.wire.name.as_str()).collect();
        let element = Value::object(names.iter().map(|n| (*n, Value::Null)));
        for attr in &tag.nested {
            assert_eq!(held(&element, attr.slot), attr.wire.name);
        }
    }
}
