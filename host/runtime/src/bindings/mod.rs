//! The host side of the `tfwasm:provider` worlds: the latest version's bindings, which the
//! runtime speaks, the older versions' ([`v0_1_0`]), converted to the latest by [`Guest`],
//! and conversions between the latest WIT types and the model.

use std::collections::BTreeMap;

use tfwasm_model::rpc::{Function, IdentityAttribute, IdentitySchema, Parameter};
use tfwasm_model::{
    Attribute, AttributePath, AttributeType, Block, BlockNesting, Diagnostic, NestedBlock,
    NestedObject, ObjectNesting, PathStep, ProviderSchema, Schema, Severity, StringKind, Type,
};

mod additions;
mod guest;
mod imports;
mod v0_1_0;

pub use additions::{Families, action, config_generation, list_resource, state_store};
pub use guest::WitVersion;
pub(crate) use guest::{Exports, Guest, GuestPre};

/// The latest WIT version, generated from `wit/since_v0.2.0`; documented there.
#[allow(missing_docs)]
pub mod latest {
    wasmtime::component::bindgen!({
        world: "tfwasm-provider",
        path: "../../wit/since_v0.2.0",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}

/// Each family's own records.
pub use latest::exports::tfwasm::provider::{data_source, ephemeral, function, resource};
/// Types shared by the families.
pub use latest::tfwasm::provider::types as wit;

/// Adds every supported version's host imports (tfwasm's log and progress; 0.3.0's files)
/// to `linker`.
///
/// # Errors
/// When the linker already defines them.
pub(crate) fn add_to_linker(
    linker: &mut wasmtime::component::Linker<crate::state::StoreState>,
) -> wasmtime::Result<()> {
    use wasmtime::component::HasSelf;
    latest::TfwasmProvider::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    additions::generated::Additions::add_to_linker::<_, HasSelf<_>>(linker, |state| state)?;
    v0_1_0::TfwasmProvider::add_to_linker::<_, HasSelf<_>>(linker, |state| state)
}

/// Deepest block/object nesting accepted from a guest schema.
const MAX_SCHEMA_DEPTH: usize = 32;
/// Longest name (attribute, block type, resource type, function, parameter) accepted from a
/// guest schema. Terraform's names are identifiers; a longer one is an attack on whatever
/// copies it into paths and messages (the schema checks, diagnostics, recordings).
pub const MAX_NAME_BYTES: usize = 256;
/// How much of a guest's text (a type's JSON) an error message quotes.
const QUOTED_BYTES: usize = 512;

/// Refuses a name longer than [`MAX_NAME_BYTES`], quoting only its start.
fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "{what} {:?}… is {} bytes long; names are at most {MAX_NAME_BYTES} bytes",
            quote_start(name, 32),
            name.len()
        ));
    }
    Ok(())
}

/// Refuses a name (of a type, function, attribute, block type or parameter) that is not an
/// identifier (letters, digits, `_`, `-`), as
/// Terraform's are: such names become file names (`tfwasm docs` writes a page per type) and
/// parts of addresses, where `/` or `..` would lead elsewhere.
fn check_identifier(what: &str, name: &str) -> Result<(), String> {
    check_name(what, name)?;
    if !is_identifier(name) {
        return Err(format!(
            "{what} {:?} is not an identifier (letters, digits, `_` and `-`)",
            quote_start(name, 32)
        ));
    }
    Ok(())
}

/// Whether `name` is an identifier as Terraform's names are: letters, digits, `_` and `-`.
pub(crate) fn is_identifier(name: &str) -> bool {
    !name.is_empty() && (name.bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The first `max` bytes of `text`, cut at a character boundary.
fn quote_start(text: &str, max: usize) -> &str {
    &text[..text.floor_char_boundary(max)]
}

/// A guest-supplied schema is malformed (bad index, bad type JSON, too deep).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid schema for {owner}: {message}")]
pub struct SchemaError {
    /// Which schema (provider, or a resource or data source type).
    pub owner: String,
    /// What is wrong.
    pub message: String,
}

/// Everything a guest declares, in model form: answered from one `get-schema` call.
#[derive(Debug, Clone, Default)]
pub struct GuestSchema {
    /// Provider, resource, data source and ephemeral resource schemas.
    pub schema: ProviderSchema,
    /// Function signatures by name.
    pub functions: BTreeMap<String, Function>,
    /// Identity schemas by resource type.
    pub identities: BTreeMap<String, IdentitySchema>,
    /// Resource value types, when the guest lets the host decode state at the current
    /// schema version itself (`host-decodes-current-state`); empty otherwise.
    pub current_state_types: BTreeMap<String, Type>,
}

/// The schemas of WIT 0.3.0's families, each asked of its own interface.
#[derive(Debug, Default)]
pub struct AddedSchemas {
    /// `list-resource`'s, by the resource type listed.
    pub lists: Vec<wit::NamedSchema>,
    /// `action`'s, by action type.
    pub actions: Vec<wit::NamedSchema>,
    /// `state-store`'s, by state store type.
    pub state_stores: Vec<wit::NamedSchema>,
}

/// Converts the guest's schemas, function signatures and identity schemas (and, from WIT
/// 0.3.0's `list-resource`, its list resource schemas) to the model.
///
/// # Errors
/// When any schema or signature is malformed; the error names which one.
pub fn provider_schema(
    s: wit::ProviderSchema,
    added: AddedSchemas,
) -> Result<GuestSchema, SchemaError> {
    let block = |owner: &str, schema: &wit::Schema| {
        schema_from_wit(schema).map_err(|message| SchemaError {
            owner: owner.to_owned(),
            message,
        })
    };
    let convert = |owner: &str, schema: &wit::Schema| {
        check_identifier("the type name", owner)
            .and_then(|()| schema_from_wit(schema))
            .map_err(|message| SchemaError {
                owner: quote_start(owner, MAX_NAME_BYTES).to_owned(),
                message,
            })
    };
    let mut out = ProviderSchema {
        provider: block("the provider", &s.provider)?,
        provider_meta: s
            .provider_meta
            .as_ref()
            .map(|m| block("provider_meta", m))
            .transpose()?,
        diagnostics: s.diagnostics.into_iter().map(diagnostic).collect(),
        ..ProviderSchema::default()
    };
    // Every named schema of every family, each converted and checked alike.
    let named_schemas = |list: &[wit::NamedSchema]| {
        (list.iter())
            .map(|n| Ok((n.type_name.clone(), convert(&n.type_name, &n.schema)?)))
            .collect::<Result<BTreeMap<String, Schema>, SchemaError>>()
    };
    out.resources = named_schemas(&s.resources)?;
    out.data_sources = named_schemas(&s.data_sources)?;
    out.ephemeral_resources = named_schemas(&s.ephemeral_resources)?;
    out.actions = named_schemas(&added.actions)?;
    out.state_stores = named_schemas(&added.state_stores)?;
    let mut functions = BTreeMap::new();
    for named in s.functions {
        let function = check_identifier("the function name", &named.name)
            .and_then(|()| function_from_wit(named.function))
            .map_err(|message| SchemaError {
                owner: format!("function {:?}", quote_start(&named.name, MAX_NAME_BYTES)),
                message,
            })?;
        functions.insert(named.name, function);
    }
    let mut identities = BTreeMap::new();
    for named in s.resource_identities {
        // Quoted cut, as every guest-chosen name in these messages (an uncut 200 MB name
        // made a diagnostic of a gigabyte past the diagnostic budget).
        let owner = format!(
            "the identity of {:?}",
            quote_start(&named.type_name, MAX_NAME_BYTES)
        );
        check_name("the type name", &named.type_name).map_err(|message| SchemaError {
            owner: owner.clone(),
            message,
        })?;
        if !out.resources.contains_key(&named.type_name) {
            return Err(SchemaError {
                owner,
                message: "no resource type of this name".into(),
            });
        }
        let identity =
            identity_from_wit(named.schema).map_err(|message| SchemaError { owner, message })?;
        identities.insert(named.type_name, identity);
    }
    for named in &added.lists {
        let schema = convert(&named.type_name, &named.schema)?;
        // Terraform names every listed object by its identity, of the resource type listed.
        if !identities.contains_key(&named.type_name) {
            return Err(SchemaError {
                owner: format!(
                    "the list resource {:?}",
                    quote_start(&named.type_name, MAX_NAME_BYTES)
                ),
                message: "lists no resource type of this name that declares an identity".into(),
            });
        }
        out.list_resources.insert(named.type_name.clone(), schema);
    }
    let current_state_types = if s.host_decodes_current_state {
        out.resources
            .iter()
            .map(|(name, schema)| (name.clone(), schema.block.implied_type()))
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok(GuestSchema {
        schema: out,
        functions,
        identities,
        current_state_types,
    })
}

fn identity_from_wit(s: wit::IdentitySchema) -> Result<IdentitySchema, String> {
    let mut seen = std::collections::BTreeSet::new();
    let attributes = s
        .attributes
        .into_iter()
        .map(|a| {
            check_identifier("an identity attribute", &a.name)?;
            if !seen.insert(a.name.clone()) {
                return Err(format!("attribute {:?} declared twice", a.name));
            }
            let ty = type_from_json(&a.type_json, &format!("attribute {:?}", a.name))?;
            let flat = |t: &Type| matches!(t, Type::String | Type::Number | Type::Bool);
            if !(flat(&ty) || matches!(&ty, Type::List(inner) if flat(inner))) {
                return Err(type_error(
                    &format!("attribute {:?}", a.name),
                    &format!(
                        "identity attributes are strings, numbers, bools or lists of them, not {}",
                        ty.to_json_string()
                    ),
                ));
            }
            Ok(IdentityAttribute {
                ty,
                name: a.name,
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if attributes.is_empty() {
        return Err("an identity needs at least one attribute".into());
    }
    Ok(IdentitySchema {
        version: s.version,
        attributes,
    })
}

fn function_from_wit(f: wit::Function) -> Result<Function, String> {
    Ok(Function {
        parameters: f
            .parameters
            .into_iter()
            .map(parameter_from_wit)
            .collect::<Result<_, _>>()?,
        variadic_parameter: f.variadic_parameter.map(parameter_from_wit).transpose()?,
        return_type: type_from_json(&f.return_type_json, "the return type")?,
        summary: f.summary,
        description: f.description,
        description_kind: string_kind(f.description_kind),
        deprecation_message: f.deprecation_message,
    })
}

fn parameter_from_wit(p: wit::FunctionParameter) -> Result<Parameter, String> {
    check_identifier("a parameter", &p.name)?;
    Ok(Parameter {
        ty: type_from_json(&p.type_json, &format!("parameter {:?}", p.name))?,
        name: p.name,
        allow_null_value: p.allow_null,
        allow_unknown_values: p.allow_unknown,
        description: p.description,
        description_kind: string_kind(p.description_kind),
    })
}

fn type_from_json(json: &str, what: &str) -> Result<Type, String> {
    Type::from_json_bytes(json.as_bytes()).map_err(|e| type_error(what, &e.to_string()))
}

/// A type JSON error, quoting at most [`QUOTED_BYTES`] of it (the error quotes the JSON).
fn type_error(what: &str, error: &str) -> String {
    let cut = quote_start(error, QUOTED_BYTES);
    let more = if cut.len() < error.len() { "…" } else { "" };
    format!("{what}: {cut}{more}")
}

fn schema_from_wit(schema: &wit::Schema) -> Result<Schema, String> {
    if schema.blocks.is_empty() {
        return Err("the schema has no top-level block".into());
    }
    let mut walk = SchemaWalk {
        schema,
        blocks_used: vec![false; schema.blocks.len()],
        objects_used: vec![false; schema.objects.len()],
        path: Vec::new(),
    };
    Ok(Schema {
        version: schema.version,
        block: walk.block(0)?,
    })
}

/// Expands a guest's index-linked schema into a tree, visiting each block and nested object
/// entry at most once. Sharing an entry (a DAG) or looping back (a cycle) is refused: a
/// block referred to twice per level would otherwise expand to 2^depth copies in the host,
/// outside every guest limit. So conversion is linear in what the guest sent, and the SDKs
/// give every nested block and object its own entry.
struct SchemaWalk<'a> {
    schema: &'a wit::Schema,
    blocks_used: Vec<bool>,
    objects_used: Vec<bool>,
    /// Names from the top block down to where the walk is, for errors.
    path: Vec<String>,
}

impl SchemaWalk<'_> {
    /// Where the walk is, as `a.b.c` (or "the top-level block").
    fn here(&self) -> String {
        if self.path.is_empty() {
            "the top-level block".into()
        } else {
            // Names are checked to be identifiers before they join the path; escaped anyway,
            // as everything a guest names is before an operator reads it.
            let mut out = String::new();
            for (i, name) in self.path.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                tfwasm_model::quote::push_escaped(&mut out, name);
            }
            out
        }
    }

    /// Refuses a name given twice in one block or nested object (attributes and block
    /// types together): Terraform keeps one of them, and every check would walk the value
    /// once per copy (100,000 copies of one attribute made each check take 10 s).
    fn unique<'n>(&self, names: impl Iterator<Item = &'n str>) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for name in names {
            if !seen.insert(name) {
                return Err(format!(
                    "the name {:?} is given twice at {}; attributes and nested blocks of \
                     one block need names of their own",
                    quote_start(name, 64),
                    self.here()
                ));
            }
        }
        Ok(())
    }

    fn too_deep(&self, what: &str) -> Result<(), String> {
        if self.path.len() > MAX_SCHEMA_DEPTH {
            return Err(format!(
                "{what} nested deeper than {MAX_SCHEMA_DEPTH} at {}",
                self.here()
            ));
        }
        Ok(())
    }

    fn block(&mut self, index: u32) -> Result<Block, String> {
        self.too_deep("blocks")?;
        let schema = self.schema;
        let block = schema
            .blocks
            .get(index as usize)
            .ok_or_else(|| format!("block index {index} out of range at {}", self.here()))?;
        if std::mem::replace(&mut self.blocks_used[index as usize], true) {
            return Err(format!(
                "block index {index} is used again at {}; every nested block needs an entry \
                 of its own (shared or cyclic entries are refused)",
                self.here()
            ));
        }
        let names = block.attributes.iter().map(|a| a.name.as_str());
        self.unique(names.chain(block.block_types.iter().map(|b| b.type_name.as_str())))?;
        let attributes = block
            .attributes
            .iter()
            .map(|a| self.attribute(a))
            .collect::<Result<_, _>>()?;
        let mut block_types = Vec::with_capacity(block.block_types.len());
        for nested in &block.block_types {
            check_identifier("a block type", &nested.type_name)
                .map_err(|e| format!("{e} (at {})", self.here()))?;
            self.path.push(nested.type_name.clone());
            let inner = self.block(nested.block);
            self.path.pop();
            block_types.push(NestedBlock {
                type_name: nested.type_name.clone(),
                block: inner?,
                nesting: match nested.nesting {
                    wit::BlockNesting::Single => BlockNesting::Single,
                    wit::BlockNesting::List => BlockNesting::List,
                    wit::BlockNesting::Set => BlockNesting::Set,
                    wit::BlockNesting::Map => BlockNesting::Map,
                    wit::BlockNesting::Group => BlockNesting::Group,
                },
                min_items: nested.min_items,
                max_items: nested.max_items,
            });
        }
        Ok(Block {
            attributes,
            block_types,
            description: block.description.clone(),
            description_kind: string_kind(block.description_kind),
            deprecated: block.deprecated,
            deprecation_message: block.deprecation_message.clone(),
            computed: block.computed,
        })
    }

    fn attribute(&mut self, a: &wit::Attribute) -> Result<Attribute, String> {
        // The place is named only on error: building it for every attribute cost up to
        // 32 × 257 bytes each.
        check_identifier("an attribute", &a.name)
            .map_err(|e| format!("{e} (at {})", self.here()))?;
        let ty = match &a.type_ {
            wit::AttributeType::TypeJson(json) => {
                AttributeType::Type(Type::from_json_bytes(json.as_bytes()).map_err(|e| {
                    type_error(
                        &format!("attribute {:?} at {}", a.name, self.here()),
                        &e.to_string(),
                    )
                })?)
            }
            wit::AttributeType::Nested(index) => {
                self.path.push(a.name.clone());
                let nested = self.nested_object(*index);
                self.path.pop();
                AttributeType::Nested(nested?)
            }
        };
        let flags = a.flags;
        Ok(Attribute {
            name: a.name.clone(),
            ty,
            description: a.description.clone(),
            description_kind: string_kind(a.description_kind),
            required: flags.contains(wit::AttributeFlags::REQUIRED),
            optional: flags.contains(wit::AttributeFlags::OPTIONAL),
            computed: flags.contains(wit::AttributeFlags::COMPUTED),
            sensitive: flags.contains(wit::AttributeFlags::SENSITIVE),
            deprecated: flags.contains(wit::AttributeFlags::DEPRECATED),
            deprecation_message: a.deprecation_message.clone(),
            write_only: flags.contains(wit::AttributeFlags::WRITE_ONLY),
        })
    }

    fn nested_object(&mut self, index: u32) -> Result<NestedObject, String> {
        self.too_deep("nested attributes")?;
        let schema = self.schema;
        let object = schema.objects.get(index as usize).ok_or_else(|| {
            format!(
                "nested object index {index} out of range at {}",
                self.here()
            )
        })?;
        if std::mem::replace(&mut self.objects_used[index as usize], true) {
            return Err(format!(
                "nested object index {index} is used again at {}; every nested attribute \
                 object needs an entry of its own (shared or cyclic entries are refused)",
                self.here()
            ));
        }
        self.unique(object.attributes.iter().map(|a| a.name.as_str()))?;
        Ok(NestedObject {
            attributes: object
                .attributes
                .iter()
                .map(|inner| self.attribute(inner))
                .collect::<Result<_, _>>()?,
            nesting: match object.nesting {
                wit::ObjectNesting::Single => ObjectNesting::Single,
                wit::ObjectNesting::List => ObjectNesting::List,
                wit::ObjectNesting::Set => ObjectNesting::Set,
                wit::ObjectNesting::Map => ObjectNesting::Map,
            },
        })
    }
}

fn string_kind(kind: wit::StringKind) -> StringKind {
    match kind {
        wit::StringKind::Plain => StringKind::Plain,
        wit::StringKind::Markdown => StringKind::Markdown,
    }
}

/// A guest diagnostic in model form.
pub fn diagnostic(d: wit::Diagnostic) -> Diagnostic {
    Diagnostic {
        severity: match d.severity {
            wit::Severity::Error => Severity::Error,
            wit::Severity::Warning => Severity::Warning,
        },
        // Terraform prints these to the operator's terminal as they are.
        summary: tfwasm_model::quote::escaped_lines(d.summary),
        detail: tfwasm_model::quote::escaped_lines(d.detail),
        attribute: (!d.attribute.is_empty()).then(|| path(d.attribute)),
    }
}

/// A guest deferral in model form.
pub fn deferred(reason: Option<wit::DeferredReason>) -> Option<tfwasm_model::rpc::DeferredReason> {
    use tfwasm_model::rpc::DeferredReason as D;
    reason.map(|r| match r {
        wit::DeferredReason::Unknown => D::Unknown,
        wit::DeferredReason::ResourceConfigUnknown => D::ResourceConfigUnknown,
        wit::DeferredReason::ProviderConfigUnknown => D::ProviderConfigUnknown,
        wit::DeferredReason::AbsentPrereq => D::AbsentPrereq,
    })
}

/// What the client announced, in WIT form.
pub fn client_capabilities(c: tfwasm_model::rpc::ClientCapabilities) -> wit::ClientCapabilities {
    wit::ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
        store_planned_private: c.store_planned_private,
        computed_blocks_allowed: c.computed_blocks_allowed,
    }
}

/// A guest attribute path in model form.
pub fn path(steps: Vec<wit::PathStep>) -> AttributePath {
    AttributePath(
        steps
            .into_iter()
            .map(|step| match step {
                wit::PathStep::AttributeName(name) => PathStep::Attribute(name),
                wit::PathStep::ElementKeyString(key) => PathStep::KeyString(key),
                wit::PathStep::ElementKeyInt(index) => PathStep::KeyInt(index),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twenty-first hostile pass: a guest's diagnostic (or panic message) reached
    /// Terraform's output with terminal escapes, C1 controls and bidi overrides; its lines
    /// stay, the rest is escaped.
    #[test]
    fn a_guest_diagnostic_cannot_drive_the_terminal() {
        let d = diagnostic(wit::Diagnostic {
            severity: wit::Severity::Error,
            summary: "\u{1b}]2;owned\u{7}".into(),
            detail: "line one\n\u{9b}2J\u{202e}txet".into(),
            attribute: Vec::new(),
        });
        let hidden = |t: &str| {
            t.chars()
                .any(|c| c != '\n' && tfwasm_model::quote::is_hidden_char(c))
        };
        assert!(!hidden(&d.summary) && !hidden(&d.detail), "{d:?}");
        assert!(d.detail.starts_with("line one\n"), "{d:?}");
    }

    fn schema_with_block() -> wit::Schema {
        wit::Schema {
            version: 0,
            blocks: vec![wit::Block {
                attributes: Vec::new(),
                block_types: Vec::new(),
                description: String::new(),
                description_kind: wit::StringKind::Plain,
                deprecated: false,
                deprecation_message: String::new(),
                computed: false,
            }],
            objects: Vec::new(),
        }
    }

    fn with_identity(type_name: &str, type_json: &str) -> wit::ProviderSchema {
        wit::ProviderSchema {
            provider: schema_with_block(),
            provider_meta: None,
            resources: vec![wit::NamedSchema {
                type_name: "x_thing".into(),
                schema: schema_with_block(),
            }],
            data_sources: Vec::new(),
            functions: Vec::new(),
            ephemeral_resources: Vec::new(),
            host_decodes_current_state: false,
            resource_identities: vec![wit::NamedIdentitySchema {
                type_name: type_name.into(),
                schema: wit::IdentitySchema {
                    version: 1,
                    attributes: vec![wit::IdentityAttribute {
                        name: "id".into(),
                        type_json: type_json.into(),
                        required_for_import: true,
                        optional_for_import: false,
                        description: String::new(),
                    }],
                },
            }],
            diagnostics: Vec::new(),
        }
    }

    fn empty_block() -> wit::Block {
        schema_with_block().blocks.remove(0)
    }

    fn nested_block_named(type_name: &str, block: u32) -> wit::NestedBlock {
        nested(type_name, block)
    }

    fn nested(type_name: &str, block: u32) -> wit::NestedBlock {
        wit::NestedBlock {
            type_name: type_name.into(),
            block,
            nesting: wit::BlockNesting::List,
            min_items: 0,
            max_items: 0,
        }
    }

    fn object_attribute(name: &str, object: u32) -> wit::Attribute {
        wit::Attribute {
            name: name.into(),
            type_: wit::AttributeType::Nested(object),
            description: String::new(),
            description_kind: wit::StringKind::Plain,
            flags: wit::AttributeFlags::OPTIONAL,
            deprecation_message: String::new(),
        }
    }

    /// Block `i` refers to block `i + 1` twice: a few bytes that a tree would hold as
    /// 2^depth copies.
    fn doubling_blocks(depth: u32) -> wit::Schema {
        let mut blocks: Vec<wit::Block> = (0..depth)
            .map(|i| wit::Block {
                block_types: vec![nested("a", i + 1), nested("b", i + 1)],
                ..empty_block()
            })
            .collect();
        blocks.push(empty_block());
        wit::Schema {
            version: 0,
            blocks,
            objects: Vec::new(),
        }
    }

    #[test]
    fn long_names_and_type_json_are_refused_quoting_little() {
        let mut schema = schema_with_block();
        schema.blocks[0].attributes = vec![wit::Attribute {
            type_: wit::AttributeType::TypeJson("\"string\"".into()),
            ..object_attribute(&"n".repeat(3 << 20), 0)
        }];
        let err = schema_from_wit(&schema).unwrap_err();
        assert!(
            err.contains("is 3145728 bytes long") && err.len() < 300,
            "{}",
            &err[..300.min(err.len())]
        );
        let mut nested = schema_with_block();
        nested.blocks[0].block_types = vec![nested_block_named(&"b".repeat(MAX_NAME_BYTES + 1), 1)];
        nested.blocks.push(empty_block());
        assert!(
            schema_from_wit(&nested)
                .unwrap_err()
                .contains("names are at most 256 bytes")
        );
        let mut bad_type = schema_with_block();
        bad_type.blocks[0].attributes = vec![wit::Attribute {
            type_: wit::AttributeType::TypeJson(format!("[\"nope\", \"{}\"]", "x".repeat(1 << 20))),
            ..object_attribute("a", 0)
        }];
        let err = schema_from_wit(&bad_type).unwrap_err();
        assert!(err.len() < 1024, "{} bytes", err.len());
        // A resource type name is a name too.
        let mut provider = with_identity("x_thing", r#""string""#);
        provider.resources[0].type_name = "r".repeat(MAX_NAME_BYTES + 1);
        provider.resource_identities.clear();
        let err = provider_schema(provider, AddedSchemas::default()).unwrap_err();
        assert!(
            err.to_string().len() < 1024 && err.message.contains("at most 256"),
            "{err}"
        );
    }

    /// The fifteenth hostile pass: type and function names become page names in `tfwasm
    /// docs`, where `x_/tmp/pwned` or `../../up` wrote outside `--out`.
    #[test]
    fn type_and_function_names_are_identifiers() {
        for bad in ["x_/tmp/pwned", "x_../../up", "x y", ""] {
            let mut provider = with_identity("x_thing", r#""string""#);
            provider.resources[0].type_name = bad.into();
            provider.resource_identities.clear();
            let err = provider_schema(provider, AddedSchemas::default()).unwrap_err();
            assert!(err.message.contains("is not an identifier"), "{bad}: {err}");
        }
        let mut provider = with_identity("x_thing", r#""string""#);
        provider.resources[0].type_name = "x_thing-2".into();
        provider.resource_identities.clear();
        let ok = provider_schema(provider, AddedSchemas::default());
        assert!(ok.is_ok(), "{:?}", ok.err());
        assert!(check_identifier("the function name", "../../fn").is_err());
        assert!(check_identifier("the function name", "parse_cidr").is_ok());
    }

    /// The tenth hostile pass: one attribute listed 100,000 times made every contract check
    /// walk the value once per copy.
    #[test]
    fn names_given_twice_in_one_block_or_object_are_refused() {
        let plain = |name: &str| wit::Attribute {
            type_: wit::AttributeType::TypeJson("\"string\"".into()),
            ..object_attribute(name, 0)
        };
        let mut twice = schema_with_block();
        twice.blocks[0].attributes = vec![plain("x"), plain("y"), plain("x")];
        let err = schema_from_wit(&twice).unwrap_err();
        assert!(
            err.contains("\"x\" is given twice at the top-level block"),
            "{err}"
        );

        let mut clash = schema_with_block();
        clash.blocks.push(empty_block());
        clash.blocks[0].attributes = vec![plain("rule")];
        clash.blocks[0].block_types = vec![nested("rule", 1)];
        let err = schema_from_wit(&clash).unwrap_err();
        assert!(err.contains("\"rule\" is given twice"), "{err}");

        let mut inner = schema_with_block();
        inner.blocks[0].attributes = vec![object_attribute("o", 0)];
        inner.objects = vec![wit::NestedObject {
            attributes: vec![plain("a"), plain("a")],
            nesting: wit::ObjectNesting::List,
        }];
        let err = schema_from_wit(&inner).unwrap_err();
        assert!(err.contains("\"a\" is given twice at o"), "{err}");

        let mut fine = schema_with_block();
        fine.blocks[0].attributes = vec![plain("x"), plain("y")];
        assert!(schema_from_wit(&fine).is_ok());
    }

    /// The twenty-second hostile pass: block names joined the "invalid schema" location
    /// raw, so a block named with terminal escapes drove the operator's terminal. Attribute
    /// and block names must be identifiers, as Terraform requires.
    #[test]
    fn attribute_and_block_names_are_identifiers() {
        let plain = |name: &str| wit::Attribute {
            type_: wit::AttributeType::TypeJson("\"string\"".into()),
            ..object_attribute(name, 0)
        };
        let mut attribute = schema_with_block();
        attribute.blocks[0].attributes = vec![plain("a\u{1b}[2J")];
        let err = schema_from_wit(&attribute).unwrap_err();
        assert!(err.contains("is not an identifier"), "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");

        let mut block = schema_with_block();
        block.blocks.push(empty_block());
        block.blocks[0].block_types = vec![nested("r\u{9b}31m\u{202e}", 1)];
        let err = schema_from_wit(&block).unwrap_err();
        assert!(err.contains("is not an identifier"), "{err}");
        assert!(
            !err.chars().any(tfwasm_model::quote::is_hidden_char),
            "{err:?}"
        );
    }

    #[test]
    fn shared_blocks_are_refused_naming_where() {
        let err = schema_from_wit(&doubling_blocks(24)).unwrap_err();
        let at = format!("{}b", "a.".repeat(23));
        assert!(
            err.contains(&format!("block index 24 is used again at {at}")),
            "{err}"
        );
        // Deeper down, the path names every level.
        let mut schema = doubling_blocks(3);
        schema.blocks[0].block_types.pop();
        schema.blocks[1].block_types.pop();
        let err = schema_from_wit(&schema).unwrap_err();
        assert!(
            err.contains("block index 3 is used again at a.a.b"),
            "{err}"
        );
    }

    #[test]
    fn shared_and_cyclic_nested_objects_are_refused() {
        let object = |attributes| wit::NestedObject {
            attributes,
            nesting: wit::ObjectNesting::List,
        };
        let mut shared = schema_with_block();
        shared.blocks[0].attributes = vec![object_attribute("x", 0), object_attribute("y", 0)];
        shared.objects = vec![object(Vec::new())];
        let err = schema_from_wit(&shared).unwrap_err();
        assert!(
            err.contains("nested object index 0 is used again at y"),
            "{err}"
        );

        let mut cyclic = schema_with_block();
        cyclic.blocks[0].attributes = vec![object_attribute("x", 0)];
        cyclic.objects = vec![object(vec![object_attribute("again", 0)])];
        let err = schema_from_wit(&cyclic).unwrap_err();
        assert!(err.contains("used again at x.again"), "{err}");

        let mut looping = schema_with_block();
        looping.blocks[0].block_types = vec![nested("self", 0)];
        let err = schema_from_wit(&looping).unwrap_err();
        assert!(err.contains("block index 0 is used again at self"), "{err}");
    }

    #[test]
    fn a_tree_with_an_entry_per_node_converts_to_the_depth_cap() {
        // A chain of MAX_SCHEMA_DEPTH blocks, each with its own entry, plus an attribute.
        let depth = MAX_SCHEMA_DEPTH as u32;
        let mut blocks: Vec<wit::Block> = (0..depth)
            .map(|i| wit::Block {
                block_types: vec![nested("inner", i + 1)],
                ..empty_block()
            })
            .collect();
        blocks.push(empty_block());
        let schema = wit::Schema {
            version: 0,
            blocks: blocks.clone(),
            objects: Vec::new(),
        };
        let mut block = &schema_from_wit(&schema).unwrap().block;
        for _ in 0..depth {
            block = &block.block_types[0].block;
        }
        assert!(block.block_types.is_empty());
        // One more level is refused, naming the depth.
        let mut deeper = blocks;
        deeper.last_mut().unwrap().block_types = vec![nested("inner", depth + 1)];
        deeper.push(empty_block());
        let err = schema_from_wit(&wit::Schema {
            version: 0,
            blocks: deeper,
            objects: Vec::new(),
        })
        .unwrap_err();
        assert!(err.contains("nested deeper than 32"), "{err}");
    }

    #[test]
    fn identity_schemas_convert_and_bad_ones_name_their_fault() {
        let known = provider_schema(
            with_identity("x_thing", r#"["list","string"]"#),
            AddedSchemas::default(),
        )
        .unwrap();
        let identity = &known.identities["x_thing"];
        assert_eq!(identity.version, 1);
        assert_eq!(
            identity.attributes[0].ty,
            Type::List(Box::new(Type::String))
        );

        let err = provider_schema(
            with_identity("x_other", r#""string""#),
            AddedSchemas::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("x_other"), "{err}");
        assert!(err.message.contains("no resource type"), "{err}");

        let err = provider_schema(
            with_identity("x_thing", r#"["map","string"]"#),
            AddedSchemas::default(),
        )
        .unwrap_err();
        assert!(
            err.message.contains("identity attributes are strings"),
            "{err}"
        );

        // The eleventh hostile pass: a guest's name and type reached the diagnostic uncut.
        let long = "\u{1}".repeat(1 << 20);
        let err = provider_schema(with_identity(&long, r#""string""#), AddedSchemas::default())
            .unwrap_err();
        assert!(
            err.to_string().len() < 2_000,
            "{} bytes",
            err.to_string().len()
        );
        let mut wide = String::from(r#"["object",{"#);
        wide.push_str(
            &(0..50_000)
                .map(|i| format!(r#""a{i}":"string""#))
                .collect::<Vec<_>>()
                .join(","),
        );
        wide.push_str("}]");
        let err =
            provider_schema(with_identity("x_thing", &wide), AddedSchemas::default()).unwrap_err();
        assert!(
            err.to_string().len() < 2_000,
            "{} bytes",
            err.to_string().len()
        );
    }
}

/// The frozen-WIT invariant, with code behind it: every version listed in `wit/released.txt`
/// still has the contents it was released with.
#[cfg(test)]
mod frozen {
    use sha2::{Digest, Sha256};
    use std::path::Path;

    fn digest(dir: &Path) -> String {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        let mut hash = Sha256::new();
        for name in names {
            hash.update(name.as_encoded_bytes());
            hash.update([0]);
            hash.update(std::fs::read(dir.join(&name)).unwrap());
            hash.update([0]);
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn released_wit_versions_are_frozen() {
        let wit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit");
        let released = std::fs::read_to_string(wit.join("released.txt")).unwrap();
        let mut seen = 0;
        for line in released
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let (dir, want) = line.split_once(' ').expect("`dir sha256` per line");
            assert_eq!(
                digest(&wit.join(dir)),
                want.trim(),
                "wit/{dir} changed after its release; put new surface in a new version instead"
            );
            seen += 1;
        }
        assert!(seen >= 2, "wit/released.txt lists {seen} versions");
    }
}
