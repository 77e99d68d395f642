//! Conversions between the generated protobuf types and the model.

use tfwasm_model::rpc::{
    ClientCapabilities, DeferredReason, DynamicValue, IdentitySchema, RawState, ServerCapabilities,
};
use tfwasm_model::{
    Attribute, AttributePath, AttributeType, Block, BlockNesting, Diagnostic, NestedBlock,
    NestedObject, ObjectNesting, PathStep, Schema, Severity, StringKind,
};

use crate::proto::tfplugin6 as pb;

pub(crate) fn dynamic_value(value: Option<pb::DynamicValue>) -> DynamicValue {
    value
        .map(|v| DynamicValue {
            msgpack: v.msgpack,
            json: v.json,
        })
        .unwrap_or_default()
}

pub(crate) fn raw_state(value: Option<pb::RawState>) -> RawState {
    value
        .map(|v| RawState {
            json: v.json,
            flatmap: v.flatmap.into_iter().collect(),
        })
        .unwrap_or_default()
}

/// Identity data as a request carries it: absent stays `None`.
pub(crate) fn identity(value: Option<pb::ResourceIdentityData>) -> Option<DynamicValue> {
    value.map(|v| dynamic_value(v.identity_data))
}

/// Identity data for a response.
pub(crate) fn to_identity(value: Option<DynamicValue>) -> Option<pb::ResourceIdentityData> {
    value.map(|v| pb::ResourceIdentityData {
        identity_data: to_dynamic_value(v),
    })
}

pub(crate) fn to_dynamic_value(value: DynamicValue) -> Option<pb::DynamicValue> {
    if value.msgpack.is_empty() && value.json.is_empty() {
        return None;
    }
    Some(pb::DynamicValue {
        msgpack: value.msgpack,
        json: value.json,
    })
}

pub(crate) fn attribute_path(path: &AttributePath) -> pb::AttributePath {
    use pb::attribute_path::step::Selector;
    pb::AttributePath {
        steps: path
            .0
            .iter()
            .map(|step| pb::attribute_path::Step {
                selector: Some(match step {
                    PathStep::Attribute(name) => Selector::AttributeName(name.clone()),
                    PathStep::KeyString(key) => Selector::ElementKeyString(key.clone()),
                    PathStep::KeyInt(index) => Selector::ElementKeyInt(*index),
                }),
            })
            .collect(),
    }
}

pub(crate) fn diagnostics(list: Vec<Diagnostic>) -> Vec<pb::Diagnostic> {
    list.into_iter()
        .map(|d| pb::Diagnostic {
            severity: match d.severity {
                Severity::Error => pb::diagnostic::Severity::Error as i32,
                Severity::Warning => pb::diagnostic::Severity::Warning as i32,
            },
            summary: shown(d.summary),
            detail: shown(d.detail),
            attribute: d.attribute.as_ref().map(attribute_path),
        })
        .collect()
}

/// Most bytes of one diagnostic text Terraform is sent.
const MAX_DIAGNOSTIC_TEXT: usize = 1 << 20;

/// A diagnostic's text as Terraform prints it: whatever built it (a guest's own diagnostics
/// are capped and escaped before this), no control or bidirectional character reaches the
/// user's terminal and no text passes 1 MiB. The last line of defence, so a host message
/// that quotes guest text unescaped or uncut is still safe to print.
pub(crate) fn shown(mut text: String) -> String {
    if text.len() > MAX_DIAGNOSTIC_TEXT {
        let mut cut = MAX_DIAGNOSTIC_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(" (cut at 1 MiB)");
    }
    tfwasm_model::quote::escaped_lines(text)
}

/// A guest's one-line label (a listed object's display name, a progress message): every
/// control escaped, line feeds and tabs too, so it cannot pose as another line of output.
/// The runtime has cut it short already.
pub(crate) fn one_line(text: String) -> String {
    match tfwasm_model::quote::escaped(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

/// What the client announced; an absent message (older clients) announces nothing.
pub(crate) fn client_capabilities(c: Option<pb::ClientCapabilities>) -> ClientCapabilities {
    let c = c.unwrap_or_default();
    ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
        store_planned_private: c.store_planned_private,
        computed_blocks_allowed: c.computed_blocks_allowed,
    }
}

/// A deferral in protocol form.
pub(crate) fn deferred(reason: Option<DeferredReason>) -> Option<pb::Deferred> {
    use pb::deferred::Reason;
    reason.map(|r| pb::Deferred {
        reason: match r {
            DeferredReason::Unknown => Reason::Unknown,
            DeferredReason::ResourceConfigUnknown => Reason::ResourceConfigUnknown,
            DeferredReason::ProviderConfigUnknown => Reason::ProviderConfigUnknown,
            DeferredReason::AbsentPrereq => Reason::AbsentPrereq,
        } as i32,
    })
}

pub(crate) fn server_capabilities(c: ServerCapabilities) -> pb::ServerCapabilities {
    pb::ServerCapabilities {
        plan_destroy: c.plan_destroy,
        get_provider_schema_optional: c.get_provider_schema_optional,
        move_resource_state: c.move_resource_state,
        generate_resource_config: c.generate_resource_config,
    }
}

pub(crate) fn string_kind(kind: StringKind) -> i32 {
    match kind {
        StringKind::Plain => pb::StringKind::Plain as i32,
        StringKind::Markdown => pb::StringKind::Markdown as i32,
    }
}

pub(crate) fn identity_schema(s: &IdentitySchema) -> pb::ResourceIdentitySchema {
    pb::ResourceIdentitySchema {
        version: s.version,
        identity_attributes: s
            .attributes
            .iter()
            .map(|a| pb::resource_identity_schema::IdentityAttribute {
                name: a.name.clone(),
                r#type: a.ty.to_json_string().into_bytes(),
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

pub(crate) fn schema(s: &Schema) -> pb::Schema {
    pb::Schema {
        version: s.version,
        block: Some(block(&s.block, s.version)),
    }
}

fn block(b: &Block, version: i64) -> pb::schema::Block {
    pb::schema::Block {
        version,
        attributes: b.attributes.iter().map(attribute).collect(),
        block_types: b.block_types.iter().map(nested_block).collect(),
        description: b.description.clone(),
        description_kind: string_kind(b.description_kind),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message.clone(),
        computed: b.computed,
    }
}

fn nested_block(n: &NestedBlock) -> pb::schema::NestedBlock {
    use pb::schema::nested_block::NestingMode;
    pb::schema::NestedBlock {
        type_name: n.type_name.clone(),
        block: Some(block(&n.block, 0)),
        nesting: match n.nesting {
            BlockNesting::Single => NestingMode::Single,
            BlockNesting::List => NestingMode::List,
            BlockNesting::Set => NestingMode::Set,
            BlockNesting::Map => NestingMode::Map,
            BlockNesting::Group => NestingMode::Group,
        } as i32,
        min_items: n.min_items,
        max_items: n.max_items,
    }
}

fn attribute(a: &Attribute) -> pb::schema::Attribute {
    let (ty, nested_type) = match &a.ty {
        AttributeType::Type(ty) => (ty.to_json_string().into_bytes(), None),
        AttributeType::Nested(object) => (Vec::new(), Some(nested_object(object))),
    };
    pb::schema::Attribute {
        name: a.name.clone(),
        r#type: ty,
        nested_type,
        description: a.description.clone(),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        description_kind: string_kind(a.description_kind),
        deprecated: a.deprecated,
        deprecation_message: a.deprecation_message.clone(),
        write_only: a.write_only,
    }
}

#[allow(deprecated)]
fn nested_object(o: &NestedObject) -> pb::schema::Object {
    use pb::schema::object::NestingMode;
    pb::schema::Object {
        attributes: o.attributes.iter().map(attribute).collect(),
        nesting: match o.nesting {
            ObjectNesting::Single => NestingMode::Single,
            ObjectNesting::List => NestingMode::List,
            ObjectNesting::Set => NestingMode::Set,
            ObjectNesting::Map => NestingMode::Map,
        } as i32,
        min_items: 0,
        max_items: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::Type;

    #[test]
    fn attribute_type_is_type_json_bytes() {
        let mut a = Attribute::new("tags", Type::map(Type::String));
        a.optional = true;
        let pb = attribute(&a);
        assert_eq!(pb.r#type, br#"["map","string"]"#);
        assert!(pb.optional && !pb.required && !pb.computed);
    }

    /// The twenty-second hostile pass found host diagnostics quoting guest text raw (a
    /// backtrace's frame names, a journaled id, a block name): whatever slips past the
    /// layers above, no escape reaches Terraform and no text passes 1 MiB.
    #[test]
    fn no_diagnostic_text_drives_the_terminal_or_passes_a_mebibyte() {
        let long = format!("\u{1b}[2J{}", "x".repeat(3 << 20));
        let d = Diagnostic::error("a \u{9b}31m \u{202e}b", long);
        let pb = diagnostics(vec![d]).remove(0);
        assert!(!pb.summary.chars().any(|c| c == '\u{9b}' || c == '\u{202e}'));
        assert!(pb.detail.starts_with("\\u{1b}[2J"));
        assert!(pb.detail.len() < (1 << 20) + 64, "{}", pb.detail.len());
        let plain = diagnostics(vec![Diagnostic::warning("ok", "line one\n\tline two")]);
        assert_eq!(plain[0].detail, "line one\n\tline two");
    }

    #[test]
    fn diagnostics_carry_severity_and_path() {
        let d = Diagnostic::warning("w", "d").at(AttributePath::attribute("a").index(2).key("k"));
        let pb = diagnostics(vec![d]).remove(0);
        assert_eq!(pb.severity, pb::diagnostic::Severity::Warning as i32);
        assert_eq!(pb.attribute.unwrap().steps.len(), 3);
    }

    #[test]
    fn absent_dynamic_value_is_empty() {
        assert_eq!(dynamic_value(None), DynamicValue::default());
        assert!(to_dynamic_value(DynamicValue::default()).is_none());
    }
}
