//! Write-only attributes (Terraform 1.11): their values reach the provider in configuration
//! only and are never stored, so every state a provider returns (apply, read, upgrade,
//! import, move) holds null there, at any depth. Plans are checked in `plan.rs`.

use tfwasm_model::{Attribute, AttributeType, Block, NestedBlock, Value};

use crate::Violation;
use crate::at::At;

/// Paths of write-only attributes that are not null in `value`, an object of `block`. Costs
/// only a look at the schema when `block` has no write-only attribute.
pub fn check_write_only_null(block: &Block, value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    if has_write_only(block) {
        walk(
            &block.attributes,
            &block.block_types,
            value,
            &At::Root,
            &mut out,
        );
    }
    out
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
    out: &mut Vec<Violation>,
) {
    let Value::Object(fields) = value else {
        return;
    };
    for a in attributes {
        let Some(v) = fields.get(&a.name) else {
            continue;
        };
        let here = path.attr(&a.name);
        if a.write_only {
            if !v.is_null() {
                out.push(Violation::new(
                    &here,
                    "a write-only attribute must be null in every returned state; its value belongs in configuration only",
                ));
            }
        } else if let AttributeType::Nested(object) = &a.ty
            && any_write_only(&object.attributes)
        {
            each_object(v, &here, &mut |element, at| {
                walk(&object.attributes, &[], element, at, out)
            });
        }
    }
    for nested in block_types.iter().filter(|n| has_write_only(&n.block)) {
        let Some(v) = fields.get(&nested.type_name) else {
            continue;
        };
        each_object(v, &path.attr(&nested.type_name), &mut |element, at| {
            walk(
                &nested.block.attributes,
                &nested.block.block_types,
                element,
                at,
                out,
            )
        });
    }
}

/// Calls `f` on `value` if it is one object (single nesting), else on each element of a
/// list, set or map of them, with its path.
fn each_object(value: &Value, path: &At<'_>, f: &mut dyn FnMut(&Value, &At<'_>)) {
    match value {
        Value::Object(_) => f(value, path),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                f(item, &path.index(i as i64));
            }
        }
        Value::Map(map) => {
            for (key, item) in map {
                f(item, &path.key(key));
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
}
