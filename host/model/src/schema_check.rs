//! Terraform core's rules for a valid schema (`configschema.InternalValidate`). Terraform
//! rejects a provider whose schema breaks one, with a message that blames the provider but
//! rarely says where; checking here says where, and lets authors catch it in a unit test.

use crate::{Attribute, AttributeType, Block, BlockNesting, NestedObject, ObjectNesting, Schema};

/// One broken schema rule, with where it is (e.g. `resource.block.rule.port`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// Dotted location inside the schema.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Most problems one check reports: past a few, the rest say nothing new, and a hostile
/// schema could otherwise make one per attribute.
pub const MAX_PROBLEMS: usize = 100;

/// Every problem with `schema` (at most [`MAX_PROBLEMS`]), named from `root` (e.g. the
/// resource type).
pub fn check_schema(root: &str, schema: &Schema) -> Vec<SchemaProblem> {
    let mut out = Vec::new();
    if schema.version < 0 {
        problem(
            &mut out,
            root,
            format!("schema version {} is negative", schema.version),
        );
    }
    block(root, &schema.block, &mut out);
    out
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn problem(out: &mut Vec<SchemaProblem>, at: &str, message: impl Into<String>) {
    if out.len() >= MAX_PROBLEMS {
        return;
    }
    out.push(SchemaProblem {
        at: at.to_owned(),
        message: message.into(),
    });
}

fn block(at: &str, b: &Block, out: &mut Vec<SchemaProblem>) {
    if out.len() >= MAX_PROBLEMS {
        return;
    }
    // Looked up once per block type: a scan per block type is quadratic in a wide block.
    let attribute_names: std::collections::HashSet<&str> =
        b.attributes.iter().map(|a| a.name.as_str()).collect();
    for a in &b.attributes {
        attribute(&format!("{at}.{}", a.name), a, false, out);
    }
    for nested in &b.block_types {
        let here = format!("{at}.{}", nested.type_name);
        if !valid_name(&nested.type_name) {
            problem(
                out,
                &here,
                "a block type name may contain only lowercase letters, digits and underscores",
            );
        }
        if attribute_names.contains(nested.type_name.as_str()) {
            problem(
                out,
                &here,
                "the name is used by both an attribute and a block type",
            );
        }
        let (min, max) = (nested.min_items, nested.max_items);
        match nested.nesting {
            BlockNesting::Single if min != max || !(0..=1).contains(&min) => {
                problem(
                    out,
                    &here,
                    format!(
                        "a single block needs min_items = max_items = 0 or 1 (got {min} and {max})"
                    ),
                );
            }
            BlockNesting::Group if min != 0 || max != 0 => problem(
                out,
                &here,
                "a group block cannot set min_items or max_items",
            ),
            BlockNesting::List | BlockNesting::Set
                if min < 0 || max < 0 || (max > 0 && min > max) =>
            {
                problem(
                    out,
                    &here,
                    format!("min_items ({min}) must not exceed max_items ({max})"),
                );
            }
            BlockNesting::Map if min != 0 || max != 0 => {
                problem(out, &here, "a map block cannot set min_items or max_items")
            }
            _ => {}
        }
        if nested.nesting == BlockNesting::Set {
            set_content(&here, &nested.block.attributes, out);
        }
        block(&here, &nested.block, out);
    }
}

fn attribute(at: &str, a: &Attribute, in_set: bool, out: &mut Vec<SchemaProblem>) {
    if !valid_name(&a.name) {
        problem(
            out,
            at,
            "an attribute name may contain only lowercase letters, digits and underscores",
        );
    }
    if !a.required && !a.optional && !a.computed {
        problem(
            out,
            at,
            "an attribute must be required, optional or computed",
        );
    }
    if a.required && a.optional {
        problem(out, at, "an attribute cannot be both required and optional");
    }
    if a.required && a.computed {
        problem(out, at, "an attribute cannot be both required and computed");
    }
    if in_set && a.write_only {
        problem(out, at, "a write-only attribute cannot be inside a set");
    }
    if let AttributeType::Nested(object) = &a.ty {
        nested_object(at, object, out);
    }
}

fn nested_object(at: &str, object: &NestedObject, out: &mut Vec<SchemaProblem>) {
    if object.nesting == ObjectNesting::Set {
        set_content(at, &object.attributes, out);
    }
    for a in &object.attributes {
        attribute(
            &format!("{at}.{}", a.name),
            a,
            object.nesting == ObjectNesting::Set,
            out,
        );
    }
}

/// Sets may not hold dynamic values (their elements could not be compared) or write-only ones.
fn set_content(at: &str, attributes: &[Attribute], out: &mut Vec<SchemaProblem>) {
    for a in attributes {
        if a.implied_type().has_dynamic() {
            problem(
                out,
                &format!("{at}.{}", a.name),
                "a set cannot contain a dynamic attribute",
            );
        }
        if a.write_only {
            problem(
                out,
                &format!("{at}.{}", a.name),
                "a write-only attribute cannot be inside a set",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NestedBlock, Type};

    fn attr(name: &str, f: impl FnOnce(&mut Attribute)) -> Attribute {
        let mut a = Attribute::new(name, Type::String);
        f(&mut a);
        a
    }

    fn schema(block: Block) -> Schema {
        Schema { version: 0, block }
    }

    #[test]
    fn a_good_schema_passes() {
        let b = Block {
            attributes: vec![
                attr("id", |a| a.computed = true),
                attr("name", |a| a.required = true),
            ],
            ..Block::default()
        };
        assert!(check_schema("thing", &schema(b)).is_empty());
    }

    #[test]
    fn each_rule_is_reported_where_it_breaks() {
        let cases: Vec<(Block, &str)> = vec![
            (
                Block {
                    attributes: vec![attr("Name", |a| a.optional = true)],
                    ..Block::default()
                },
                "thing.Name: an attribute name may contain only",
            ),
            (
                Block {
                    attributes: vec![attr("x", |_| {})],
                    ..Block::default()
                },
                "thing.x: an attribute must be required, optional or computed",
            ),
            (
                Block {
                    attributes: vec![attr("x", |a| {
                        a.required = true;
                        a.optional = true
                    })],
                    ..Block::default()
                },
                "thing.x: an attribute cannot be both required and optional",
            ),
            (
                Block {
                    attributes: vec![attr("x", |a| {
                        a.required = true;
                        a.computed = true
                    })],
                    ..Block::default()
                },
                "thing.x: an attribute cannot be both required and computed",
            ),
            (
                Block {
                    attributes: vec![attr("b", |a| a.optional = true)],
                    block_types: vec![NestedBlock {
                        type_name: "b".into(),
                        block: Block::default(),
                        nesting: BlockNesting::List,
                        min_items: 0,
                        max_items: 0,
                    }],
                    ..Block::default()
                },
                "thing.b: the name is used by both an attribute and a block type",
            ),
            (
                Block {
                    block_types: vec![NestedBlock {
                        type_name: "s".into(),
                        block: Block::default(),
                        nesting: BlockNesting::Single,
                        min_items: 0,
                        max_items: 1,
                    }],
                    ..Block::default()
                },
                "thing.s: a single block needs min_items = max_items",
            ),
            (
                Block {
                    block_types: vec![NestedBlock {
                        type_name: "l".into(),
                        block: Block::default(),
                        nesting: BlockNesting::List,
                        min_items: 3,
                        max_items: 2,
                    }],
                    ..Block::default()
                },
                "thing.l: min_items (3) must not exceed max_items (2)",
            ),
            (
                Block {
                    block_types: vec![NestedBlock {
                        type_name: "m".into(),
                        block: Block::default(),
                        nesting: BlockNesting::Map,
                        min_items: 1,
                        max_items: 0,
                    }],
                    ..Block::default()
                },
                "thing.m: a map block cannot set min_items or max_items",
            ),
            (
                Block {
                    block_types: vec![NestedBlock {
                        type_name: "s".into(),
                        block: Block {
                            attributes: vec![Attribute {
                                optional: true,
                                ..Attribute::new("d", Type::Dynamic)
                            }],
                            ..Block::default()
                        },
                        nesting: BlockNesting::Set,
                        min_items: 0,
                        max_items: 0,
                    }],
                    ..Block::default()
                },
                "thing.s.d: a set cannot contain a dynamic attribute",
            ),
        ];
        for (block, want) in cases {
            let problems = check_schema("thing", &schema(block));
            assert!(
                problems.iter().any(|p| p.to_string().starts_with(want)),
                "{want}: {problems:?}"
            );
        }
        let negative = Schema {
            version: -1,
            block: Block::default(),
        };
        assert_eq!(
            check_schema("thing", &negative)[0].message,
            "schema version -1 is negative"
        );
    }

    #[test]
    fn problems_stop_at_the_cap() {
        let mut schema = Schema::default();
        schema.block.attributes = (0..10_000)
            .map(|i| Attribute::new(format!("Bad{i}"), crate::Type::String))
            .collect();
        assert_eq!(check_schema("r", &schema).len(), MAX_PROBLEMS);
    }
}
