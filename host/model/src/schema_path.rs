//! Where a path leads in a schema: the first sensitive or write-only attribute on it, past
//! which nothing may be shown (a secret map's keys, a value a decode error would quote).

use crate::{Attribute, AttributeType, Block, BlockNesting, ObjectNesting, PathStep};

/// How many steps of `path` lead to the first sensitive or write-only attribute on it, if
/// one is: steps past it must not be shown.
pub fn secret_prefix(block: &Block, path: &[PathStep]) -> Option<usize> {
    secret_prefix_within(block, path, &mut { usize::MAX })
}

/// [`secret_prefix`] looking at no more than `budget` names (what it looks at is taken from
/// it): where the budget runs out, the path is cut as if a secret began there. For callers
/// that walk many guest-written paths through a wide schema.
pub fn secret_prefix_within(block: &Block, path: &[PathStep], budget: &mut usize) -> Option<usize> {
    match walk(block, path, budget) {
        Stop::Secret(i) | Stop::Exhausted(i) => Some(i),
        _ => None,
    }
}

/// How many steps of `path` name the schema's own structure (attributes and blocks, their
/// elements) before it enters a value: what follows is map keys and names a configuration
/// chose (a dynamic attribute's object), or passes a secret. `None` when it never does.
pub fn value_prefix(block: &Block, path: &[PathStep]) -> Option<usize> {
    value_prefix_within(block, path, &mut { usize::MAX })
}

/// [`value_prefix`] within a budget of names looked at, as [`secret_prefix_within`].
pub fn value_prefix_within(block: &Block, path: &[PathStep], budget: &mut usize) -> Option<usize> {
    match walk(block, path, budget) {
        Stop::Secret(i) | Stop::Value(i) | Stop::OffSchema(i) | Stop::Exhausted(i) => Some(i),
        Stop::End => None,
    }
}

/// Where a walk along a path stopped.
enum Stop {
    /// Just past a sensitive or write-only attribute.
    Secret(usize),
    /// Just past an attribute of a plain type: the rest is inside its value.
    Value(usize),
    /// At a step the schema does not describe.
    OffSchema(usize),
    /// The budget of names to look at ran out here.
    Exhausted(usize),
    /// The whole path follows the schema.
    End,
}

/// Finds the item named `name`, charging the names looked at to `budget`; `None` when it is
/// not there or the budget runs out (`exhausted` says which).
fn find<'a, T>(
    items: &'a [T],
    name: &str,
    name_of: impl Fn(&T) -> &str,
    budget: &mut usize,
    exhausted: &mut bool,
) -> Option<&'a T> {
    let found = items.iter().position(|item| name_of(item) == name);
    let looked = found.map_or(items.len(), |i| i + 1);
    if looked > *budget {
        *budget = 0;
        *exhausted = true;
        return None;
    }
    *budget -= looked;
    found.map(|i| &items[i])
}

/// Where `path` stops following the schema's named structure.
fn walk(block: &Block, path: &[PathStep], budget: &mut usize) -> Stop {
    let mut at = Schema::Block(block);
    let mut i = 0;
    let mut exhausted = false;
    while i < path.len() {
        let PathStep::Attribute(name) = &path[i] else {
            return Stop::OffSchema(i);
        };
        i += 1;
        at = match at {
            Schema::Block(b) => {
                let attribute = find(&b.attributes, name, |a| &a.name, budget, &mut exhausted);
                if exhausted {
                    return Stop::Exhausted(i - 1);
                }
                if let Some(a) = attribute {
                    match enter(a, path, &mut i) {
                        Ok(inside) => inside,
                        Err(stop) => return stop,
                    }
                } else {
                    let nested = find(
                        &b.block_types,
                        name,
                        |n| &n.type_name,
                        budget,
                        &mut exhausted,
                    );
                    let Some(nested) = nested else {
                        return match exhausted {
                            true => Stop::Exhausted(i - 1),
                            false => Stop::OffSchema(i - 1),
                        };
                    };
                    if !matches!(nested.nesting, BlockNesting::Single | BlockNesting::Group) {
                        if !element_step(path.get(i)) {
                            return Stop::OffSchema(i);
                        }
                        i += 1;
                    }
                    Schema::Block(&nested.block)
                }
            }
            Schema::Attributes(list) => {
                let Some(a) = find(list, name, |a| &a.name, budget, &mut exhausted) else {
                    return match exhausted {
                        true => Stop::Exhausted(i - 1),
                        false => Stop::OffSchema(i - 1),
                    };
                };
                match enter(a, path, &mut i) {
                    Ok(inside) => inside,
                    Err(stop) => return stop,
                }
            }
        };
    }
    Stop::End
}

/// Steps into the attribute `a`, just named at `*i`: where its value's attributes are (past a
/// nested collection's element step), or where the walk stops.
fn enter<'a>(a: &'a Attribute, path: &[PathStep], i: &mut usize) -> Result<Schema<'a>, Stop> {
    if secret(a) {
        return Err(Stop::Secret(*i));
    }
    match &a.ty {
        AttributeType::Nested(object) => {
            // A collection's element step, then the element's attributes.
            if object.nesting != ObjectNesting::Single {
                if !element_step(path.get(*i)) {
                    return Err(Stop::OffSchema(*i));
                }
                *i += 1;
            }
            Ok(Schema::Attributes(&object.attributes))
        }
        AttributeType::Type(_) => Err(Stop::Value(*i)),
    }
}

/// Whether `step` selects an element (an index or a key), as a collection's next step must;
/// a missing one (the path names the collection itself) is the walk's end.
fn element_step(step: Option<&PathStep>) -> bool {
    matches!(
        step,
        None | Some(PathStep::KeyInt(_) | PathStep::KeyString(_))
    )
}

fn secret(a: &Attribute) -> bool {
    a.sensitive || a.write_only
}

/// Where a path step is in the schema.
#[derive(Clone, Copy)]
enum Schema<'a> {
    Block(&'a Block),
    Attributes(&'a [Attribute]),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AttributePath, NestedBlock, Type};

    /// The seventeenth hostile pass: a collection's element step was taken for granted, so an
    /// attribute step there (`.rule.SECRET.name`) was walked past as if it were the element.
    #[test]
    fn a_collection_is_followed_only_by_an_element_step() {
        let block = Block {
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![Attribute::new("name", Type::String)],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let steps = |p: &str| p.parse::<AttributePath>().unwrap().0;
        assert_eq!(value_prefix(&block, &steps(".rule.SECRET.name")), Some(1));
        assert_eq!(value_prefix(&block, &steps(".rule[0].name")), Some(3));
        assert_eq!(value_prefix(&block, &steps(".rule")), None);
    }

    /// The seventeenth hostile pass: thousands of guest paths through a schema of a million
    /// names cost seconds per recorded call. Past a budget a path stops where it ran out.
    #[test]
    fn a_walk_looks_at_no_more_names_than_its_budget() {
        let block = Block {
            attributes: (0..1000)
                .map(|i| Attribute::new(format!("a{i}"), Type::String))
                .collect(),
            ..Block::default()
        };
        let path = ".a999".parse::<AttributePath>().unwrap().0;
        let mut budget = 10;
        assert_eq!(value_prefix_within(&block, &path, &mut budget), Some(0));
        assert_eq!(
            secret_prefix_within(&block, &path, &mut 10),
            Some(0),
            "cut as a secret"
        );
        assert_eq!(budget, 0);
        let mut enough = 5000;
        assert_eq!(value_prefix_within(&block, &path, &mut enough), Some(1));
        assert_eq!(enough, 4000);
    }
}
