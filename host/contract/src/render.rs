//! Values as they appear in violation messages: short, HCL-like, bounded by what is shown,
//! and, rendered where they sit in the schema ([`render_in`]), never secret.

use tfwasm_model::{
    Attribute, AttributeType, Block, BlockNesting, Entries, NestedBlock, NestedObject,
    ObjectNesting, Value,
};

/// Longest rendering before it is cut with `…`.
const MAX_RENDERED: usize = 120;

/// Renders a value no schema marks secret for a message (a value of a type, an identity),
/// e.g. `"a"`, `5`, `["x", (known after apply)]`. The work
/// is bounded by the rendering, not the value: writing stops once past the cut, strings are
/// escaped only as far as shown, and a number too long to show whole is shown by magnitude.
pub fn render(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    cut(out)
}

/// Where a rendered value sits in the schema: what is sensitive or write-only there is
/// shown as `(sensitive value)`, as Terraform shows it, at any depth.
#[derive(Clone, Copy)]
pub(crate) enum In<'a> {
    /// An object of a block.
    Block(&'a Block),
    /// A nested block type's value: one block, or a collection of them by its nesting.
    Blocks(&'a NestedBlock),
    /// An attribute's value.
    Attribute(&'a Attribute),
    /// A nested attribute's value: one object, or a collection of them by its nesting.
    Nested(&'a NestedObject),
    /// One object of a nested attribute.
    Attributes(&'a [Attribute]),
}

/// Shown in place of a secret.
const SECRET: &str = "(sensitive value)";

/// [`render`] for a value at `place`: no sensitive or write-only value is shown, nor
/// anything the schema does not describe there.
pub(crate) fn render_in(value: &Value, place: In<'_>) -> String {
    let mut out = String::new();
    write_in(value, place, &mut out);
    cut(out)
}

fn cut(out: String) -> String {
    if out.chars().count() > MAX_RENDERED {
        let cut: String = out.chars().take(MAX_RENDERED).collect();
        return format!("{cut}…");
    }
    out
}

fn write_in(value: &Value, place: In<'_>, out: &mut String) {
    if full(out) {
        return;
    }
    let value = match value {
        Value::Dynamic(_, inner) => inner,
        other => other,
    };
    if value.is_null() || value.is_unknown() {
        return write(value, out);
    }
    match place {
        In::Attribute(a) if a.sensitive || a.write_only => out.push_str(SECRET),
        In::Attribute(a) => match &a.ty {
            AttributeType::Nested(object) => write_in(value, In::Nested(object), out),
            AttributeType::Type(_) => write(value, out),
        },
        In::Nested(object) => match object.nesting {
            ObjectNesting::Single => write_in(value, In::Attributes(&object.attributes), out),
            ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => {
                each(value, In::Attributes(&object.attributes), out)
            }
        },
        In::Blocks(nested) => match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => {
                write_in(value, In::Block(&nested.block), out)
            }
            BlockNesting::List | BlockNesting::Set | BlockNesting::Map => {
                each(value, In::Block(&nested.block), out)
            }
        },
        In::Attributes(_) | In::Block(_) => {
            let Value::Object(entries) = value else {
                return out.push_str(SECRET);
            };
            pairs(Entries::Object(entries), out, |k, v, out| {
                match member(place, k) {
                    Some(inner) => write_in(v, inner, out),
                    None => out.push_str(SECRET),
                }
            });
        }
    }
}

/// Where the attribute or block type `name` of an object at `place` sits.
fn member<'a>(place: In<'a>, name: &str) -> Option<In<'a>> {
    match place {
        In::Attributes(list) => list.iter().find(|a| a.name == name).map(In::Attribute),
        In::Block(block) => (block.attributes.iter())
            .find(|a| a.name == name)
            .map(In::Attribute)
            .or_else(|| {
                (block.block_types.iter())
                    .find(|n| n.type_name == name)
                    .map(In::Blocks)
            }),
        _ => None,
    }
}

/// The elements of a collection, each at `place`.
fn each(value: &Value, place: In<'_>, out: &mut String) {
    match value {
        Value::List(items) | Value::Set(items) => {
            sequence(items, out, |item, out| write_in(item, place, out))
        }
        Value::Map(entries) => pairs(Entries::Map(entries), out, |_, v, out| {
            write_in(v, place, out)
        }),
        _ => out.push_str(SECRET),
    }
}

/// `[a, b, …]`, each item written by `item`, as far as shown.
fn sequence(items: &[Value], out: &mut String, mut item: impl FnMut(&Value, &mut String)) {
    out.push('[');
    for (i, v) in items.iter().enumerate() {
        if full(out) {
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        item(v, out);
    }
    out.push(']');
}

/// `{k = v, …}`, each value written by `value`, as far as shown.
fn pairs(entries: Entries<'_>, out: &mut String, mut value: impl FnMut(&str, &Value, &mut String)) {
    out.push('{');
    for (i, (k, v)) in entries.iter().enumerate() {
        if full(out) {
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        // A key is the configuration's or the guest's text: escaped, so a message cannot
        // start a line of its own or drive the terminal that shows it.
        tfwasm_model::quote::push_escaped(out, &k[..k.floor_char_boundary(MAX_RENDERED * 4)]);
        out.push_str(" = ");
        value(k, v, out);
    }
    out.push('}');
}

/// True once `out` holds more than is shown.
fn full(out: &str) -> bool {
    out.len() > MAX_RENDERED * 4
}

fn write(value: &Value, out: &mut String) {
    if full(out) {
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(_) => out.push_str("(known after apply)"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(n, out),
        Value::String(s) => {
            // Escaped as JSON, as far as shown.
            let shown = &s[..s.floor_char_boundary(MAX_RENDERED * 4)];
            let escaped = serde_json::Value::String(shown.to_owned()).to_string();
            let quoted = if shown.len() < s.len() {
                &escaped[..escaped.len() - 1]
            } else {
                &escaped
            };
            // JSON escapes C0 controls; DEL, C1, separators and bidi controls too.
            tfwasm_model::quote::push_escaped(out, quoted);
        }
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => sequence(items, out, write),
        Value::Map(_) | Value::Object(_) => {
            let entries = value.as_entries().expect("a map or an object");
            pairs(entries, out, |_, v, out| write(v, out))
        }
        Value::Dynamic(_, inner) => write(inner, out),
    }
}

/// A number as go-cty writes it, exactly, unless its plain decimal text would run past what
/// is shown (near the exponent bound it is 1,000 digits): then its magnitude.
fn number(n: &tfwasm_model::Number, out: &mut String) {
    let f = n.to_f64();
    // Plain text of at most about 120 digits before or after the point is shown exactly.
    let short = f == 0.0 || (f.is_finite() && (1e-120..1e120).contains(&f.abs()));
    if short {
        out.push_str(&n.to_string());
    } else if f.is_finite() {
        out.push_str(&format!("{f:e}"));
    } else {
        out.push_str(if f > 0.0 {
            "(a number above 1e308)"
        } else {
            "(a number below -1e308)"
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_hcl_and_truncates() {
        let v = Value::object([
            ("a", Value::from("x")),
            ("b", Value::List(vec![Value::unknown(), Value::Null])),
        ]);
        assert_eq!(render(&v), r#"{a = "x", b = [(known after apply), null]}"#);
        let long = Value::String("y".repeat(500));
        assert!(render(&long).ends_with('…'));
    }

    /// The twentieth hostile pass: map keys were written raw and JSON left C1 controls,
    /// separators and bidi controls in strings, so a configured key or a guest's value could
    /// drive the terminal or start a line in a violation message.
    #[test]
    fn keys_and_strings_show_no_control_or_bidi_character() {
        let key = "\u{9b}2J\u{202e}K\u{1b}[31m\nforged";
        let map = Value::Map(
            [(key.into(), Value::from("v\u{2028}\u{85}"))]
                .into_iter()
                .collect(),
        );
        let shown = render(&map);
        assert!(
            !shown.chars().any(tfwasm_model::quote::is_hidden_char),
            "{shown:?}"
        );
        assert!(shown.contains("forged"), "{shown}");
    }

    /// A hostile value costs what is shown, not what it holds: a 16 MiB string of control
    /// bytes, a million-element list, a number of 1,000 digits.
    #[test]
    fn rendering_is_bounded_by_what_is_shown() {
        let huge = Value::String("\u{1}".repeat(16 << 20));
        let shown = render(&huge);
        assert!(
            shown.len() < 1024 && shown.ends_with('…'),
            "{}",
            shown.len()
        );
        let many = Value::List(vec![Value::from("item"); 1_000_000]);
        assert!(render(&many).len() < 1024);
        let big: tfwasm_model::Number = "-1e990".parse().unwrap();
        assert_eq!(render(&Value::Number(big)), "(a number below -1e308)");
        let tiny: tfwasm_model::Number = "1.5e-300".parse().unwrap();
        assert_eq!(render(&Value::Number(tiny)), "1.5e-300");
        let exact: tfwasm_model::Number = "123456789012345678901234567891".parse().unwrap();
        assert_eq!(
            render(&Value::Number(exact)),
            "123456789012345678901234567891"
        );
        assert_eq!(render(&Value::from(42)), "42");
    }
}

/// The fourteenth hostile pass: violation messages showed sensitive and write-only values
/// wherever they were not a block's own top-level sensitive attribute (a destroy's whole
/// object, a write-only value, a secret inside a nested attribute or a set of blocks, an
/// unknown dynamic block), and messages reach diagnostics and recordings as they are.
#[cfg(test)]
mod secrets {
    use tfwasm_model::{
        Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting,
        Type, Value,
    };

    use crate::{Violations, check_apply, check_plan};

    fn optional(name: &str, sensitive: bool, write_only: bool) -> Attribute {
        let mut a = Attribute::new(name, Type::String);
        a.optional = true;
        a.sensitive = sensitive;
        a.write_only = write_only;
        a
    }

    fn nested(name: &str, nesting: ObjectNesting, sensitive: bool) -> Attribute {
        let mut a = optional(name, sensitive, false);
        a.ty = AttributeType::Nested(NestedObject {
            attributes: vec![
                optional("user", false, false),
                optional("password", true, false),
            ],
            nesting,
        });
        a
    }

    fn blocks(name: &str, nesting: BlockNesting) -> NestedBlock {
        NestedBlock {
            type_name: name.into(),
            block: Block {
                attributes: vec![
                    optional("name", false, false),
                    optional("password", true, false),
                ],
                ..Block::default()
            },
            nesting,
            min_items: 0,
            max_items: 0,
        }
    }

    fn schema() -> Block {
        Block {
            attributes: vec![
                optional("password", true, false),
                optional("wo", false, true),
                nested("conn", ObjectNesting::Single, false),
                nested("conns", ObjectNesting::List, false),
                nested("secret_conn", ObjectNesting::Single, true),
            ],
            block_types: vec![
                blocks("rule", BlockNesting::Set),
                blocks("step", BlockNesting::List),
            ],
            ..Block::default()
        }
    }

    fn conn(secret: &str) -> Value {
        Value::object([("user", "u".into()), ("password", secret.into())])
    }

    fn rule(secret: &str) -> Value {
        Value::object([("name", "a".into()), ("password", secret.into())])
    }

    /// An object of the schema: every secret-holding place holds `secret`.
    fn object(secret: &str, wo: Value) -> Value {
        Value::object([
            ("password", secret.into()),
            ("wo", wo),
            ("conn", conn(secret)),
            ("conns", Value::List(vec![conn(secret)])),
            ("secret_conn", conn(secret)),
            ("rule", Value::Set(vec![rule(secret)])),
            ("step", Value::List(vec![rule(secret)])),
        ])
    }

    fn assert_no_secret(found: &Violations, case: &str) {
        assert!(found.total() > 0, "{case}: a violation is expected");
        for v in found.iter() {
            assert!(!v.message.contains("SECRET"), "{case}: {v}");
        }
    }

    #[test]
    fn no_violation_message_shows_a_sensitive_or_write_only_value() {
        let block = schema();
        let planned = object("SECRET-planned", Value::Null);
        // A destroy planned as the prior object.
        let found = check_plan(&block, &planned, &Value::Null, &planned);
        assert_no_secret(&found, "destroy");
        // Every secret planned unlike its configuration, the write-only one too.
        let config = object("SECRET-config", "SECRET-wo-config".into());
        let wrong = object("SECRET-planned", "SECRET-wo-planned".into());
        let found = check_plan(&block, &Value::Null, &config, &wrong);
        assert_no_secret(&found, "plan");
        assert!(found.len() >= 6, "{found:?}");
        // An unknown dynamic block planned as blocks holding secrets.
        let mut dynamic = object("SECRET-config", Value::Null);
        if let Value::Object(attrs) = &mut dynamic {
            attrs.insert("step".into(), Value::unknown());
        }
        let found = check_plan(&block, &Value::Null, &dynamic, &planned);
        assert_no_secret(&found, "unknown dynamic block");
        // Applied: every secret changed, a write-only value stored, a set element gone.
        let applied = object("SECRET-applied", "SECRET-wo-applied".into());
        let found = check_apply(&block, &planned, &applied);
        assert_no_secret(&found, "apply");
        assert!(
            found
                .iter()
                .any(|v| v.message.contains("block set") || v.message.contains("set element")),
            "{found:?}"
        );
    }

    #[test]
    fn values_render_with_their_schema_masking_only_secrets() {
        let block = schema();
        let shown = super::render_in(&object("SECRET", Value::Null), super::In::Block(&block));
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("user = \"u\""), "{shown}");
        assert!(shown.contains("(sensitive value)"), "{shown}");
    }
}
