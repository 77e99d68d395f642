//! A generated configuration (GenerateResourceConfig): what `terraform plan
//! -generate-config-out` writes into a `.tf` file for an imported object, and what the next
//! plan then validates. It must be wholly known (Terraform writes values, not expressions), and
//! every computed-only attribute, at any depth, must be null: configuring one is an error
//! ("Invalid Configuration for Read-Only Attribute"), so the file would not plan.

use tfwasm_model::{Attribute, AttributeType, Block, NestedBlock, Value};

use crate::at::At;
use crate::write_only::{Nulls, each_object};
use crate::{Violation, Violations};

/// Checks a generated configuration, an object of `block`.
pub fn check_generated_config(block: &Block, config: &Value) -> Violations {
    if config.is_null() {
        return Violations::from(vec![Violation::new(
            &At::Root,
            "the generated configuration is null; it must be an object of the resource's schema",
        )]);
    }
    let mut out = Violations::new();
    for path in crate::results::unknown_paths(config) {
        out.push(Violation::new(
            &path,
            "unknown value in a generated configuration; Terraform writes values into the file, so every one must be known",
        ));
    }
    walk(
        &block.attributes,
        &block.block_types,
        config,
        &At::Root,
        &mut out,
    );
    out
}

/// Reports the computed-only attributes that are set in an object of these attributes and
/// blocks, going into nested attribute objects and nested blocks. Each attribute is looked at
/// once per object the value holds, so the walk costs what the value's size does.
fn walk(
    attributes: &[Attribute],
    block_types: &[NestedBlock],
    value: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    let Value::Object(fields) = value else {
        return;
    };
    for a in attributes {
        let Some(v) = fields.get(a.name.as_str()) else {
            continue;
        };
        let here = path.attr(&a.name);
        if a.computed && !a.optional && !a.required && !v.is_null() {
            out.push(Violation::new(
                &here,
                "a computed-only attribute is set in the generated configuration; only the provider sets it, so Terraform refuses the configuration",
            ));
        } else if let AttributeType::Nested(object) = &a.ty {
            each_object(v, &here, Nulls::Skipped, out, &mut |element, at, out| {
                walk(&object.attributes, &[], element, at, out)
            });
        }
    }
    for nested in block_types {
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
                    out,
                )
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{BlockNesting, NestedObject, ObjectNesting, Type};

    fn attribute(name: &str, optional: bool, computed: bool) -> Attribute {
        let mut a = Attribute::new(name, Type::String);
        a.optional = optional;
        a.computed = computed;
        a
    }

    /// `name` (optional), `id` (computed-only), `tags` (optional + computed), a list of
    /// nested `ports` objects with a computed-only `assigned`, and `rule` blocks with a
    /// computed-only `hash`.
    fn block() -> Block {
        let mut ports = Attribute::new("ports", Type::String);
        ports.optional = true;
        ports.ty = AttributeType::Nested(NestedObject {
            attributes: vec![
                attribute("number", true, false),
                attribute("assigned", false, true),
            ],
            nesting: ObjectNesting::List,
        });
        Block {
            attributes: vec![
                attribute("name", true, false),
                attribute("id", false, true),
                attribute("tags", true, true),
                ports,
            ],
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![
                        attribute("cidr", true, false),
                        attribute("hash", false, true),
                    ],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        }
    }

    fn config(id: Value, assigned: Value, hash: Value, name: Value) -> Value {
        Value::object([
            ("name", name),
            ("id", id),
            ("tags", Value::from("t")),
            (
                "ports",
                Value::List(vec![Value::object([
                    ("number", Value::from("80")),
                    ("assigned", assigned),
                ])]),
            ),
            (
                "rule",
                Value::List(vec![Value::object([
                    ("cidr", Value::from("10.0.0.0/8")),
                    ("hash", hash),
                ])]),
            ),
        ])
    }

    fn paths(v: &Violations) -> Vec<String> {
        v.iter().map(|v| v.path.to_string()).collect()
    }

    #[test]
    fn a_configuration_without_computed_only_values_passes() {
        let ok = config(Value::Null, Value::Null, Value::Null, Value::from("n"));
        assert!(check_generated_config(&block(), &ok).is_empty());
    }

    #[test]
    fn computed_only_values_are_refused_at_any_depth() {
        let bad = config(
            Value::from("i-1"),
            Value::from("a"),
            Value::from("h"),
            Value::from("n"),
        );
        let found = check_generated_config(&block(), &bad);
        assert_eq!(
            paths(&found),
            [".id", ".ports[0].assigned", ".rule[0].hash"],
            "{found:?}"
        );
    }

    #[test]
    fn unknown_and_null_configurations_are_refused() {
        let unknown = config(Value::Null, Value::Null, Value::Null, Value::unknown());
        assert_eq!(
            paths(&check_generated_config(&block(), &unknown)),
            [".name"]
        );
        assert_eq!(check_generated_config(&block(), &Value::Null).len(), 1);
    }
}
