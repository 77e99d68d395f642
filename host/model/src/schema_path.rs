//! Where a path leads in a schema: the first sensitive or write-only attribute on it, past
//! which nothing may be shown (a secret map's keys, a value a decode error would quote).

use crate::{Attribute, AttributeType, Block, BlockNesting, ObjectNesting, PathStep};

/// How many steps of `path` lead to the first sensitive or write-only attribute on it, if
/// one is: steps past it must not be shown.
pub fn secret_prefix(block: &Block, path: &[PathStep]) -> Option<usize> {
    match walk(block, path) {
        Stop::Secret(i) => Some(i),
        _ => None,
    }
}

/// How many steps of `path` name the schema's own structure (attributes and blocks, their
/// elements) before it enters a value: what follows is map keys and names a configuration
/// chose (a dynamic attribute's object), or passes a secret. `None` when it never does.
pub fn value_prefix(block: &Block, path: &[PathStep]) -> Option<usize> {
    match walk(block, path) {
        Stop::Secret(i) | Stop::Value(i) | Stop::OffSchema(i) => Some(i),
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
    /// The whole path follows the schema.
    End,
}

/// Where `path` stops following the schema's named structure.
fn walk(block: &Block, path: &[PathStep]) -> Stop {
    let mut at = Schema::Block(block);
    let mut i = 0;
    while i < path.len() {
        let PathStep::Attribute(name) = &path[i] else {
            return Stop::OffSchema(i);
        };
        i += 1;
        at = match at {
            Schema::Block(b) => {
                if let Some(a) = b.attributes.iter().find(|a| &a.name == name) {
                    match enter(a, &mut i) {
                        Ok(inside) => inside,
                        Err(stop) => return stop,
                    }
                } else {
                    let Some(nested) = b.block_types.iter().find(|n| &n.type_name == name) else {
                        return Stop::OffSchema(i - 1);
                    };
                    if !matches!(nested.nesting, BlockNesting::Single | BlockNesting::Group) {
                        i += 1;
                    }
                    Schema::Block(&nested.block)
                }
            }
            Schema::Attributes(list) => {
                let Some(a) = list.iter().find(|a| &a.name == name) else {
                    return Stop::OffSchema(i - 1);
                };
                match enter(a, &mut i) {
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
fn enter<'a>(a: &'a Attribute, i: &mut usize) -> Result<Schema<'a>, Stop> {
    if secret(a) {
        return Err(Stop::Secret(*i));
    }
    match &a.ty {
        AttributeType::Nested(object) => {
            // A collection's element step, then the element's attributes.
            if object.nesting != ObjectNesting::Single {
                *i += 1;
            }
            Ok(Schema::Attributes(&object.attributes))
        }
        AttributeType::Type(_) => Err(Stop::Value(*i)),
    }
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
