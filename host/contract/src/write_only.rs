//! Write-only attributes (Terraform 1.11): their values reach the provider in configuration
//! only and are never stored, so every state a provider returns (apply, read, upgrade,
//! import, move) holds null there, at any depth. Plans are checked in `plan.rs`.

use tfwasm_model::{AttributeType, Block, NestedObject, Value};

use crate::Violation;
use crate::at::At;

/// Paths of write-only attributes that are not null in `value`, an object of `block`.
pub fn check_write_only_null(block: &Block, value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    walk_block(block, value, &At::Root, &mut out);
    out
}

fn entries(value: &Value) -> Vec<(Option<&str>, i64, &Value)> {
    match value {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (None, i as i64, v))
            .collect(),
        Value::Map(map) => map.iter().map(|(k, v)| (Some(k.as_str()), 0, v)).collect(),
        _ => Vec::new(),
    }
}

fn walk_block(block: &Block, value: &Value, path: &At<'_>, out: &mut Vec<Violation>) {
    let Value::Object(fields) = value else {
        return;
    };
    for a in &block.attributes {
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
            continue;
        }
        if let AttributeType::Nested(object) = &a.ty {
            walk_nested(object, v, &here, out);
        }
    }
    for nested in &block.block_types {
        let Some(v) = fields.get(&nested.type_name) else {
            continue;
        };
        let here = path.attr(&nested.type_name);
        if matches!(v, Value::Object(_)) {
            walk_block(&nested.block, v, &here, out);
        }
        for (key, index, element) in entries(v) {
            match key {
                Some(k) => walk_block(&nested.block, element, &here.key(k), out),
                None => walk_block(&nested.block, element, &here.index(index), out),
            }
        }
    }
}

fn walk_nested(object: &NestedObject, value: &Value, path: &At<'_>, out: &mut Vec<Violation>) {
    let block = Block {
        attributes: object.attributes.clone(),
        ..Block::default()
    };
    if matches!(value, Value::Object(_)) {
        walk_block(&block, value, path, out);
    }
    for (key, index, element) in entries(value) {
        match key {
            Some(k) => walk_block(&block, element, &path.key(k), out),
            None => walk_block(&block, element, &path.index(index), out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{Attribute, AttributePath, BlockNesting, NestedBlock, ObjectNesting, Type};

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
