//! Types, schemas and values built from fuzzer bytes: small, valid by construction, and deep
//! enough to reach nested blocks, sets of objects and dynamic values.

use std::collections::BTreeMap;

use arbitrary::{Result, Unstructured};
use tfwasm_model::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, Number,
    ObjectNesting, Refinement, Type, Value,
};

/// How deep types and blocks nest.
const MAX_DEPTH: u32 = 4;
/// Most attributes, elements or entries at one level.
const MAX_WIDTH: usize = 4;

const NAMES: &[&str] = &["id", "name", "tags", "rule", "size", "a", "b", "c"];

fn name(u: &mut Unstructured<'_>) -> Result<String> {
    Ok((*u.choose(NAMES)?).to_owned())
}

/// A type, at most `depth` levels deep.
pub fn ty(u: &mut Unstructured<'_>, depth: u32) -> Result<Type> {
    let leaf = depth >= MAX_DEPTH;
    Ok(match u.int_in_range(0..=if leaf { 3 } else { 8 })? {
        0 => Type::String,
        1 => Type::Number,
        2 => Type::Bool,
        3 => Type::Dynamic,
        4 => Type::list(ty(u, depth + 1)?),
        5 => Type::set(ty(u, depth + 1)?),
        6 => Type::map(ty(u, depth + 1)?),
        7 => {
            let mut attrs = BTreeMap::new();
            for _ in 0..u.int_in_range(0..=MAX_WIDTH)? {
                attrs.insert(name(u)?, ty(u, depth + 1)?);
            }
            Type::Object(attrs)
        }
        _ => {
            let n = u.int_in_range(0..=MAX_WIDTH)?;
            Type::Tuple((0..n).map(|_| ty(u, depth + 1)).collect::<Result<_>>()?)
        }
    })
}

fn number(u: &mut Unstructured<'_>) -> Result<Number> {
    Ok(match u.int_in_range(0..=2)? {
        0 => Number::from(u.arbitrary::<i64>()?),
        1 => Number::from_f64(u.arbitrary::<f64>()?).unwrap_or_else(|| Number::from(0)),
        _ => {
            let text = format!(
                "{}.{}e{}",
                u.arbitrary::<u32>()?,
                u.arbitrary::<u16>()?,
                u.int_in_range(-40i32..=40)?
            );
            text.parse().unwrap_or_else(|_| Number::from(1))
        }
    })
}

/// Refinements as go-cty allows them: none on a dynamic-typed unknown, a prefix on strings,
/// bounds on numbers, lengths on collections, `not_null` on the rest.
fn refinement(u: &mut Unstructured<'_>, ty: &Type) -> Result<Refinement> {
    let mut r = Refinement::default();
    if matches!(ty, Type::Dynamic) {
        return Ok(r);
    }
    r.not_null = u.arbitrary()?;
    match ty {
        Type::String if u.ratio(1, 3)? => r.string_prefix = Some(u.arbitrary()?),
        Type::Number if u.ratio(1, 3)? => {
            r.number_lower = Some((number(u)?, u.arbitrary()?));
        }
        Type::List(_) | Type::Set(_) | Type::Map(_) if u.ratio(1, 3)? => {
            r.length_lower = Some(u.int_in_range(0..=3)?);
        }
        _ => {}
    }
    Ok(r)
}

/// A value of type `ty`; null and unknown (refined, sometimes) may appear at any level.
pub fn value(u: &mut Unstructured<'_>, ty: &Type, depth: u32) -> Result<Value> {
    if u.ratio(1, 8)? {
        return Ok(Value::Null);
    }
    if u.ratio(1, 10)? {
        return Ok(Value::refined(refinement(u, ty)?));
    }
    let width = |u: &mut Unstructured<'_>| u.int_in_range(0..=MAX_WIDTH);
    Ok(match ty {
        Type::String => Value::String(u.arbitrary()?),
        Type::Number => Value::Number(number(u)?),
        Type::Bool => Value::Bool(u.arbitrary()?),
        Type::Dynamic => {
            if depth >= MAX_DEPTH {
                return Ok(Value::Null);
            }
            let inner = self::ty(u, depth + 1)?;
            let v = value(u, &inner, depth + 1)?;
            Value::Dynamic(inner, Box::new(v))
        }
        Type::List(element) => {
            let n = width(u)?;
            Value::List(
                (0..n)
                    .map(|_| value(u, element, depth + 1))
                    .collect::<Result<_>>()?,
            )
        }
        Type::Set(element) => {
            let n = width(u)?;
            Value::set_of(
                (0..n)
                    .map(|_| value(u, element, depth + 1))
                    .collect::<Result<_>>()?,
            )
        }
        Type::Map(element) => {
            let mut entries = BTreeMap::new();
            for _ in 0..width(u)? {
                entries.insert(name(u)?.into(), value(u, element, depth + 1)?);
            }
            Value::Map(entries)
        }
        Type::Object(attrs) => Value::Object(
            attrs
                .iter()
                .map(|(k, t)| Ok((k.into(), value(u, t, depth + 1)?)))
                .collect::<Result<_>>()?,
        ),
        Type::Tuple(elements) => Value::Tuple(
            elements
                .iter()
                .map(|t| value(u, t, depth + 1))
                .collect::<Result<_>>()?,
        ),
    })
}

fn attribute(u: &mut Unstructured<'_>, depth: u32) -> Result<Attribute> {
    let mut attr = if depth < MAX_DEPTH && u.ratio(1, 5)? {
        let nesting = *u.choose(&[
            ObjectNesting::Single,
            ObjectNesting::List,
            ObjectNesting::Set,
            ObjectNesting::Map,
        ])?;
        let n = u.int_in_range(1..=MAX_WIDTH)?;
        let mut attr = Attribute::new(name(u)?, Type::String);
        attr.ty = AttributeType::Nested(NestedObject {
            attributes: (0..n)
                .map(|_| attribute(u, depth + 1))
                .collect::<Result<_>>()?,
            nesting,
        });
        attr
    } else {
        Attribute::new(name(u)?, ty(u, depth + 1)?)
    };
    // Any mix of flags: the schema checks decide which are valid; contract checks must
    // cope with what a provider could declare.
    attr.required = u.arbitrary()?;
    attr.optional = !attr.required && u.arbitrary()?;
    attr.computed = !attr.required && u.arbitrary()?;
    attr.sensitive = u.ratio(1, 4)?;
    attr.write_only = u.ratio(1, 8)?;
    Ok(attr)
}

/// A block with attributes and nested blocks of every nesting mode; names are unique.
pub fn block(u: &mut Unstructured<'_>, depth: u32) -> Result<Block> {
    let mut block = Block::default();
    let mut used = Vec::new();
    for _ in 0..u.int_in_range(1..=MAX_WIDTH)? {
        let attr = attribute(u, depth)?;
        if !used.contains(&attr.name) {
            used.push(attr.name.clone());
            block.attributes.push(attr);
        }
    }
    if depth < MAX_DEPTH {
        for _ in 0..u.int_in_range(0..=2)? {
            let type_name = name(u)?;
            if used.contains(&type_name) {
                continue;
            }
            used.push(type_name.clone());
            let nesting = *u.choose(&[
                BlockNesting::Single,
                BlockNesting::List,
                BlockNesting::Set,
                BlockNesting::Map,
                BlockNesting::Group,
            ])?;
            block.block_types.push(NestedBlock {
                type_name,
                block: self::block(u, depth + 1)?,
                nesting,
                min_items: u.int_in_range(0..=2)?,
                max_items: u.int_in_range(0..=3)?,
            });
        }
    }
    Ok(block)
}
