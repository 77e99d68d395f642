//! Schemas to WIT: each type's schema flattened into index-linked records, the provider's
//! whole schema (GetProviderSchema) with its identities and functions.

use super::*;

/// Flattens a schema into WIT's index-linked form (`blocks[0]` is the root).
pub fn to_wit_schema(schema: &Schema) -> wit::Schema {
    let mut out = wit::Schema {
        version: schema.version,
        blocks: Vec::new(),
        objects: Vec::new(),
    };
    push_block(&mut out, &schema.block);
    out
}

fn push_block(out: &mut wit::Schema, block: &Block) -> u32 {
    let index = out.blocks.len();
    out.blocks.push(wit::Block {
        attributes: Vec::new(),
        block_types: Vec::new(),
        description: block.description.clone(),
        description_kind: kind(block.description_kind),
        deprecated: block.deprecated,
        deprecation_message: block.deprecation_message.clone(),
        computed: block.computed,
    });
    let attributes = block.attributes.iter().map(|a| attribute(out, a)).collect();
    let block_types = block
        .block_types
        .iter()
        .map(|nested| wit::NestedBlock {
            type_name: nested.type_name.clone(),
            block: push_block(out, &nested.block),
            nesting: match nested.nesting {
                BlockNesting::Single => wit::BlockNesting::Single,
                BlockNesting::List => wit::BlockNesting::List,
                BlockNesting::Set => wit::BlockNesting::Set,
                BlockNesting::Map => wit::BlockNesting::Map,
                BlockNesting::Group => wit::BlockNesting::Group,
            },
            min_items: nested.min_items,
            max_items: nested.max_items,
        })
        .collect();
    out.blocks[index].attributes = attributes;
    out.blocks[index].block_types = block_types;
    index as u32
}

fn attribute(out: &mut wit::Schema, a: &tfwasm_model::Attribute) -> wit::Attribute {
    let ty = match &a.ty {
        AttributeType::Type(ty) => wit::AttributeType::TypeJson(ty.to_json_string()),
        AttributeType::Nested(object) => wit::AttributeType::Nested(push_object(out, object)),
    };
    let mut flags = wit::AttributeFlags::empty();
    for (on, flag) in [
        (a.required, wit::AttributeFlags::REQUIRED),
        (a.optional, wit::AttributeFlags::OPTIONAL),
        (a.computed, wit::AttributeFlags::COMPUTED),
        (a.sensitive, wit::AttributeFlags::SENSITIVE),
        (a.deprecated, wit::AttributeFlags::DEPRECATED),
        (a.write_only, wit::AttributeFlags::WRITE_ONLY),
    ] {
        if on {
            flags = wit::AttributeFlags::from_bits_retain(flags.bits() | flag.bits());
        }
    }
    wit::Attribute {
        name: a.name.clone(),
        type_: ty,
        description: a.description.clone(),
        description_kind: kind(a.description_kind),
        flags,
        deprecation_message: a.deprecation_message.clone(),
    }
}

fn push_object(out: &mut wit::Schema, object: &NestedObject) -> u32 {
    let index = out.objects.len();
    out.objects.push(wit::NestedObject {
        attributes: Vec::new(),
        nesting: match object.nesting {
            ObjectNesting::Single => wit::ObjectNesting::Single,
            ObjectNesting::List => wit::ObjectNesting::List,
            ObjectNesting::Set => wit::ObjectNesting::Set,
            ObjectNesting::Map => wit::ObjectNesting::Map,
        },
    });
    let attributes = object
        .attributes
        .iter()
        .map(|a| attribute(out, a))
        .collect();
    out.objects[index].attributes = attributes;
    index as u32
}

/// `get-schema`.
pub fn get_schema(c: &Catalog) -> wit::ProviderSchema {
    wit::ProviderSchema {
        provider: to_wit_schema(&c.provider_schema.to_wire()),
        provider_meta: c.meta.as_ref().map(|(s, _)| to_wit_schema(&s.to_wire())),
        resources: c
            .resources
            .iter()
            .map(|r| wit::NamedSchema {
                type_name: r.item.type_name().to_owned(),
                schema: to_wit_schema(&r.schema().to_wire()),
            })
            .collect(),
        data_sources: c
            .data_sources
            .iter()
            .map(|d| wit::NamedSchema {
                type_name: d.item.type_name().to_owned(),
                schema: to_wit_schema(&d.schema().to_wire()),
            })
            .collect(),
        ephemeral_resources: c
            .ephemeral_resources
            .iter()
            .map(|e| wit::NamedSchema {
                type_name: e.item.type_name().to_owned(),
                schema: to_wit_schema(&e.schema().to_wire()),
            })
            .collect(),
        functions: c
            .functions
            .iter()
            .map(|f| wit::NamedFunction {
                name: f.name().to_owned(),
                function: to_wit_function(&f.signature()),
            })
            .collect(),
        resource_identities: c
            .resources
            .iter()
            .filter_map(|r| {
                let (identity, _) = r.identity()?;
                Some(wit::NamedIdentitySchema {
                    type_name: r.item.type_name().to_owned(),
                    schema: to_wit_identity(&identity.to_wire()),
                })
            })
            .collect(),
        // What `upgrade_resource_state` does at the current version is exactly this decode.
        host_decodes_current_state: true,
        diagnostics: behaviour_diagnostics(c),
    }
}

/// Schema settings that could never take effect, as errors naming the type and path, so an
/// author sees them at the first `terraform plan` (and `check_schemas` in a unit test).
fn behaviour_diagnostics(c: &Catalog) -> Vec<wit::Diagnostic> {
    let owners = std::iter::once(("provider", &c.provider_schema))
        .chain(c.resources.iter().map(|r| (r.item.type_name(), r.schema())))
        .chain(
            c.data_sources
                .iter()
                .map(|d| (d.item.type_name(), d.schema())),
        )
        .chain(
            c.ephemeral_resources
                .iter()
                .map(|e| (e.item.type_name(), e.schema())),
        );
    owners
        .flat_map(|(owner, schema)| {
            crate::schema::behaviour_problems(schema)
                .into_iter()
                .map(move |problem| {
                    to_wit_diagnostic(&Diagnostic::error(
                        "Invalid provider schema",
                        format!("{owner}{problem}; this is a bug in the provider."),
                    ))
                })
        })
        .collect()
}

fn to_wit_identity(s: &tfwasm_model::rpc::IdentitySchema) -> wit::IdentitySchema {
    wit::IdentitySchema {
        version: s.version,
        attributes: s
            .attributes
            .iter()
            .map(|a| wit::IdentityAttribute {
                name: a.name.clone(),
                type_json: a.ty.to_json_string(),
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

fn to_wit_param(p: &Param) -> wit::FunctionParameter {
    wit::FunctionParameter {
        name: p.name.clone(),
        type_json: p.ty.to_json_string(),
        allow_null: p.allow_null,
        allow_unknown: p.allow_unknown,
        description: p.description.clone(),
        description_kind: kind(p.description_kind),
    }
}

/// A function signature in WIT form.
pub fn to_wit_function(s: &Signature) -> wit::Function {
    wit::Function {
        parameters: s.parameters.iter().map(to_wit_param).collect(),
        variadic_parameter: s.variadic.as_ref().map(to_wit_param),
        return_type_json: s.return_type.to_json_string(),
        summary: s.summary.clone(),
        description: s.description.clone(),
        description_kind: kind(s.description_kind),
        deprecation_message: s.deprecation_message.clone(),
    }
}
