//! [`Layout`]: where each name of a block sits in the block's values.
//!
//! A value decoded against a block's type holds its attributes in name order
//! ([`crate::Attributes`]), and a block lists its attributes and nested block types in
//! declaration order. Code that walks a schema beside a value (the contract checks) would
//! search the value for each name; a layout, worked out once per schema, gives each name's
//! place, so a walk compares one name where it looks instead of searching (the checks of a
//! 50-attribute object spent most of their time in those searches: issue 37).

use crate::compare::compare_names;
use crate::{Attribute, AttributeType, Block};

/// Where a block's attributes and nested block types sit among the attributes of the block's
/// values, with the layouts of nested blocks and of nested attributes' objects. A place is a
/// hint: a value laid out otherwise (not decoded against this block's type) is searched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Per attribute, in declaration order: its place, and its nested object's layout.
    attributes: Vec<(usize, Option<Layout>)>,
    /// Per nested block type, in declaration order: its place, and its block's layout.
    blocks: Vec<(usize, Layout)>,
}

impl Layout {
    /// The layout of `block`'s values: each name's rank in name order among every attribute
    /// and block type the block declares.
    pub fn of(block: &Block) -> Layout {
        let names = (block.attributes.iter().map(|a| a.name.as_str()))
            .chain(block.block_types.iter().map(|b| b.type_name.as_str()));
        let places = ranks(names);
        let (attributes, blocks) = places.split_at(block.attributes.len());
        Layout {
            attributes: placed(&block.attributes, attributes),
            blocks: (blocks.iter().zip(&block.block_types))
                .map(|(&at, b)| (at, Layout::of(&b.block)))
                .collect(),
        }
    }

    /// The place of the block's `i`th attribute (declaration order); past the end, a place
    /// no value has, so a lookup searches.
    pub fn attribute(&self, i: usize) -> usize {
        self.attributes.get(i).map_or(usize::MAX, |(at, _)| *at)
    }

    /// The layout of the `i`th attribute's nested object (empty, so every lookup searches,
    /// when it has none).
    pub fn nested_attribute(&self, i: usize) -> &Layout {
        (self.attributes.get(i))
            .and_then(|(_, nested)| nested.as_ref())
            .unwrap_or(&EMPTY)
    }

    /// The place of the block's `i`th nested block type, and its block's layout (empty past
    /// the end: every lookup searches).
    pub fn block(&self, i: usize) -> (usize, &Layout) {
        (self.blocks.get(i)).map_or((usize::MAX, &EMPTY), |(at, layout)| (*at, layout))
    }
}

/// No names: every lookup through it searches.
static EMPTY: Layout = Layout {
    attributes: Vec::new(),
    blocks: Vec::new(),
};

/// Attributes with their places, and their nested objects' layouts.
fn placed(attributes: &[Attribute], places: &[usize]) -> Vec<(usize, Option<Layout>)> {
    (places.iter().zip(attributes))
        .map(|(&at, a)| (at, nested(a)))
        .collect()
}

/// The layout of a nested attribute's objects (which hold attributes only), if it is one.
fn nested(a: &Attribute) -> Option<Layout> {
    let AttributeType::Nested(object) = &a.ty else {
        return None;
    };
    let places = ranks(object.attributes.iter().map(|a| a.name.as_str()));
    Some(Layout {
        attributes: placed(&object.attributes, &places),
        blocks: Vec::new(),
    })
}

/// Each name's rank in name order, which is where an object value holds it
/// ([`crate::Attributes`]). A name given twice (which schema validation refuses) gets two
/// ranks; lookups at either compare the name and search when it is not there.
pub fn ranks<'a>(names: impl Iterator<Item = &'a str>) -> Vec<usize> {
    let names: Vec<&str> = names.collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| compare_names(names[a], names[b]));
    let mut rank = vec![0; names.len()];
    for (r, i) in order.into_iter().enumerate() {
        rank[i] = r;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockNesting, NestedBlock, NestedObject, ObjectNesting, Type, Value};

    fn nested_block(name: &str, block: Block) -> NestedBlock {
        NestedBlock {
            type_name: name.into(),
            block,
            nesting: BlockNesting::List,
            min_items: 0,
            max_items: 0,
        }
    }

    fn nested_attribute(name: &str, object: NestedObject) -> Attribute {
        let mut a = Attribute::new(name, Type::String);
        a.ty = AttributeType::Nested(object);
        a
    }

    /// Names declared out of order, blocks among attributes, a nested attribute inside a
    /// nested attribute: each place is where a decoded value holds that name.
    #[test]
    fn each_name_is_where_a_decoded_value_holds_it() {
        let inner = NestedObject {
            attributes: vec![
                Attribute::new("zeta", Type::String),
                Attribute::new("alpha", Type::Bool),
            ],
            nesting: ObjectNesting::Single,
        };
        let outer = NestedObject {
            attributes: vec![
                Attribute::new("m", Type::String),
                nested_attribute("deep", inner),
            ],
            nesting: ObjectNesting::List,
        };
        let block = Block {
            attributes: vec![
                Attribute::new("name", Type::String),
                Attribute::new("id", Type::String),
                nested_attribute("outer", outer),
                Attribute::new("a", Type::Number),
            ],
            block_types: vec![
                nested_block(
                    "rule",
                    Block {
                        attributes: vec![
                            Attribute::new("to", Type::String),
                            Attribute::new("from", Type::String),
                        ],
                        ..Block::default()
                    },
                ),
                nested_block("b", Block::default()),
            ],
            ..Block::default()
        };
        let layout = Layout::of(&block);
        let value = Value::null_object_of(&block.implied_type());
        let Value::Object(held) = &value else {
            panic!("an object")
        };
        let names: Vec<&str> = held.iter().map(|(k, _)| k.as_str()).collect();
        for (i, a) in block.attributes.iter().enumerate() {
            assert_eq!(names[layout.attribute(i)], a.name, "attribute {i}");
        }
        for (i, b) in block.block_types.iter().enumerate() {
            assert_eq!(names[layout.block(i).0], b.type_name, "block {i}");
        }
        let (_, rule) = layout.block(0);
        assert_eq!((rule.attribute(0), rule.attribute(1)), (1, 0), "to, from");
        let outer = layout.nested_attribute(2);
        assert_eq!((outer.attribute(0), outer.attribute(1)), (1, 0), "m, deep");
        let deep = outer.nested_attribute(1);
        assert_eq!(
            (deep.attribute(0), deep.attribute(1)),
            (1, 0),
            "zeta, alpha"
        );
        assert_eq!(layout.nested_attribute(0), &Layout::default());
    }

    /// Past what the block declares, a place no value has: a lookup there searches.
    #[test]
    fn past_the_end_is_no_place() {
        let layout = Layout::of(&Block::default());
        assert_eq!(layout.attribute(3), usize::MAX);
        assert_eq!(layout.block(0).0, usize::MAX);
        assert_eq!(layout.nested_attribute(0), &Layout::default());
        assert_eq!(layout.block(0).1, &Layout::default());
    }
}
