//! Write-only attributes (Terraform 1.11): their values reach the provider in configuration
//! only and are never stored, so every state a provider returns (apply, read, upgrade,
//! import, move) holds null there, at any depth; so does a plan (`plan.rs` uses the walk
//! here with its own message).

use tfwasm_model::{Attribute, AttributeType, Block, NestedBlock, Value};

use crate::at::At;
use crate::{Violation, Violations};

/// Paths of write-only attributes that are not null in `value`, an object of `block`. Costs
/// only a look at the schema when `block` has no write-only attribute.
pub fn check_write_only_null(block: &Block, value: &Value) -> Violations {
    write_only_not_null(
        block,
        value,
        "a write-only attribute must be null in every returned state; its value belongs in configuration only",
    )
}

/// [`check_write_only_null`] with its own message (a plan's says so). Where write-only
/// attributes are expected, an element of a list, set or map of nested attribute objects
/// must not be null either: OpenTofu's client walks every such element to check its
/// write-only attributes and panics on a null one.
pub(crate) fn write_only_not_null(block: &Block, value: &Value, message: &str) -> Violations {
    let mut out = Violations::new();
    if has_write_only(block) {
        walk(
            &block.attributes,
            &block.block_types,
            value,
            &At::Root,
            message,
            &mut Marks::default(),
            &mut out,
        );
    }
    out
}

/// Which nested blocks and nested attribute objects hold a write-only attribute, each found
/// once per check: asking again for every element walked the schema below it each time
/// (a million four-byte elements under a 10,000-attribute block: 18 s).
#[derive(Default)]
struct Marks {
    blocks: std::collections::HashMap<*const Block, bool>,
    /// Per nested attribute object: holds one at any depth, holds one of its own.
    objects: std::collections::HashMap<*const Attribute, (bool, bool)>,
}

impl Marks {
    fn block(&mut self, block: &Block) -> bool {
        *self
            .blocks
            .entry(block)
            .or_insert_with(|| has_write_only(block))
    }

    fn object(&mut self, attributes: &[Attribute]) -> (bool, bool) {
        *self.objects.entry(attributes.as_ptr()).or_insert_with(|| {
            let own = attributes.iter().any(|a| a.write_only);
            (own || any_write_only(attributes), own)
        })
    }
}

/// Whether `block` has a write-only attribute at any depth.
pub fn has_write_only(block: &Block) -> bool {
    any_write_only(&block.attributes) || block.block_types.iter().any(|n| has_write_only(&n.block))
}

fn any_write_only(attributes: &[Attribute]) -> bool {
    attributes.iter().any(|a| {
        a.write_only
            || matches!(&a.ty, AttributeType::Nested(object) if any_write_only(&object.attributes))
    })
}

/// Walks an object of these attributes and blocks, going only where a write-only attribute
/// can be.
fn walk(
    attributes: &[Attribute],
    block_types: &[NestedBlock],
    value: &Value,
    path: &At<'_>,
    message: &str,
    marks: &mut Marks,
    out: &mut Violations,
) {
    let Value::Object(fields) = value else {
        return;
    };
    for a in attributes {
        // Only a write-only attribute, or a nested one that may hold some, is looked up.
        if !a.write_only && !matches!(a.ty, AttributeType::Nested(_)) {
            continue;
        }
        let Some(v) = fields.get(a.name.as_str()) else {
            continue;
        };
        let here = path.attr(&a.name);
        if a.write_only {
            if !v.is_null() {
                out.push(Violation::new(&here, message));
            }
        } else if let AttributeType::Nested(object) = &a.ty
            && let (true, own) = marks.object(&object.attributes)
        {
            let nulls = Nulls::Refused { unknown: own };
            each_object(v, &here, nulls, out, &mut |element, at, out| {
                walk(&object.attributes, &[], element, at, message, marks, out)
            });
        }
    }
    for nested in block_types {
        if !marks.block(&nested.block) {
            continue;
        }
        let Some(v) = fields.get(nested.type_name.as_str()) else {
            continue;
        };
        each_object(
            v,
            &path.attr(&nested.type_name),
            Nulls::Skipped,
            out,
            &mut |element, at, out| {
                walk(
                    &nested.block.attributes,
                    &nested.block.block_types,
                    element,
                    at,
                    message,
                    marks,
                    out,
                )
            },
        );
    }
}

/// What a null element of a list, set or map of nested objects means here.
#[derive(Clone, Copy)]
pub(crate) enum Nulls {
    /// In nested attributes: OpenTofu's client walks every element to check its write-only
    /// attributes and panics on a null one, so it is reported; an unknown one holds
    /// write-only attributes that are not null, reported where they are its own (`unknown`),
    /// as OpenTofu reports them (deeper ones are unknown objects it does not enter).
    Refused { unknown: bool },
    /// In nested blocks: nothing to check, null or unknown (OpenTofu skips them too).
    Skipped,
}

/// Calls `f` on `value` if it is one object (single nesting), else on each element of a
/// list, set or map of them, with its path.
pub(crate) fn each_object(
    value: &Value,
    path: &At<'_>,
    nulls: Nulls,
    out: &mut Violations,
    f: &mut dyn FnMut(&Value, &At<'_>, &mut Violations),
) {
    let mut element = |item: &Value, at: &At<'_>, out: &mut Violations| {
        match (item, nulls) {
            (Value::Null, Nulls::Refused { .. }) => out.push(Violation::new(
                at,
                "a null element of a nested attribute whose objects hold write-only attributes (OpenTofu's client fails on it)",
            )),
            (Value::Unknown(_), Nulls::Refused { unknown: true }) => out.push(Violation::new(
                at,
                "an unknown element of a nested attribute whose objects hold write-only attributes, which must be null",
            )),
            (Value::Null | Value::Unknown(_), _) => {}
            _ => f(item, at, out),
        }
    };
    match value {
        Value::Object(_) => f(value, path, out),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                element(item, &path.index(i as i64), out);
            }
        }
        Value::Map(map) => {
            for (key, item) in map {
                element(item, &path.key(key), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{AttributePath, BlockNesting, NestedObject, ObjectNesting, Type};

    fn block() -> Block {
        let mut secret = Attribute::new("secret_wo", Type::String);
        secret.optional = true;
        secret.write_only = true;
        let name = Attribute::new("name", Type::String);
        let mut nested = Attribute::new("creds", Type::String);
        nested.ty = AttributeType::Nested(NestedObject {
            attributes: vec![secret.clone()],
            nesting: ObjectNesting::List,
        });
        Block {
            attributes: vec![name, secret.clone(), nested],
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![secret],
                    ..Block::default()
                },
                nesting: BlockNesting::Set,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        }
    }

    fn state(top: Value, nested: Value, rule: Value) -> Value {
        Value::object([
            ("name", Value::from("n")),
            ("secret_wo", top),
            (
                "creds",
                Value::List(vec![Value::object([("secret_wo", nested)])]),
            ),
            (
                "rule",
                Value::Set(vec![Value::object([("secret_wo", rule)])]),
            ),
        ])
    }

    #[test]
    fn null_write_only_attributes_pass() {
        let v = state(Value::Null, Value::Null, Value::Null);
        assert!(check_write_only_null(&block(), &v).is_empty());
    }

    #[test]
    fn a_stored_write_only_value_is_reported_at_its_path_at_any_depth() {
        let s = || Value::from("s3cret");
        let v = state(s(), s(), s());
        let paths: Vec<AttributePath> = check_write_only_null(&block(), &v)
            .into_iter()
            .map(|v| v.path)
            .collect();
        assert_eq!(
            paths,
            vec![
                AttributePath::attribute("secret_wo"),
                AttributePath::attribute("creds").index(0).attr("secret_wo"),
                AttributePath::attribute("rule").index(0).attr("secret_wo"),
            ]
        );
    }

    /// OpenTofu's client walks each element of a nested attribute holding write-only
    /// attributes and panics on a null one; every returned state is checked for them.
    #[test]
    fn a_null_element_among_write_only_objects_is_reported() {
        let state = Value::object([
            ("name", Value::from("n")),
            ("creds", Value::List(vec![Value::Null])),
        ]);
        let found = check_write_only_null(&block(), &state);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .to_string()
                .starts_with(".creds[0]: a null element"),
            "{found:?}"
        );
    }
}
