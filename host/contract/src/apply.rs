//! ApplyResourceChange: the new state must be a wholly known completion of the plan.
//!
//! Mirrors Terraform core's `AssertObjectCompatible`: every known planned value comes back
//! identical, every unknown is filled within its refinements, nested block counts and keys
//! hold; plus no unknown remains anywhere and a delete returns null.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use tfwasm_model::hash::{HashMap, hash_map, hash_set, value_hasher};
use tfwasm_model::{Block, BlockNesting, Number, Refinement, Type, Value};

use crate::at::At;
use crate::results::unknown_paths;
use crate::{Violation, attr, render, same, unwrap_dynamic};

/// Checks a new state against the planned state (null planned state means delete).
pub fn check_apply(block: &Block, planned: &Value, new: &Value) -> Vec<Violation> {
    let root = At::Root;
    let mut out = Vec::new();
    match (planned.is_null(), new.is_null()) {
        (true, false) => {
            out.push(Violation::new(
                &root,
                "a delete must return a null state, but the provider returned an object",
            ));
            return out;
        }
        (true, true) => return out,
        (false, true) => {
            out.push(Violation::new(
                &root,
                "Root object was present, but now absent",
            ));
            return out;
        }
        (false, false) => {}
    }
    for path in unknown_paths(new) {
        out.push(Violation::new(
            &path,
            "unknown value after apply: every value must be known once applied",
        ));
    }
    object(block, planned, new, &root, &mut out);
    out
}

fn object(block: &Block, planned: &Value, actual: &Value, path: &At<'_>, out: &mut Vec<Violation>) {
    for a in &block.attributes {
        let here = path.attr(&a.name);
        let before = out.len();
        value(
            &a.implied_type(),
            attr(planned, &a.name),
            attr(actual, &a.name),
            &here,
            out,
        );
        if a.sensitive && out.len() > before {
            out.truncate(before);
            out.push(Violation::new(
                &here,
                "inconsistent values for sensitive attribute",
            ));
        }
    }
    for nested in &block.block_types {
        let name = &nested.type_name;
        block_value(
            &nested.block,
            nested.nesting,
            attr(planned, name),
            attr(actual, name),
            &path.attr(name),
            out,
        );
    }
}

fn value(ty: &Type, planned: &Value, actual: &Value, path: &At<'_>, out: &mut Vec<Violation>) {
    if let Value::Unknown(refinement) = planned {
        if !actual.is_unknown() && !satisfies(refinement, actual) {
            out.push(Violation::new(
                path,
                format!(
                    "final value {} does not conform to planning placeholder {}",
                    render(actual),
                    describe(refinement)
                ),
            ));
        }
        return;
    }
    if actual.is_unknown() {
        // Reported once by the unknown scan, with the same path.
        return;
    }
    match (planned.is_null(), actual.is_null()) {
        (true, true) => return,
        (false, true) => {
            return out.push(Violation::new(
                path,
                format!("was {}, but now null", render(planned)),
            ));
        }
        (true, false) => {
            return out.push(Violation::new(
                path,
                format!("was null, but now {}", render(actual)),
            ));
        }
        (false, false) => {}
    }
    match ty {
        Type::Dynamic => match (planned, actual) {
            (Value::Dynamic(pt, pv), Value::Dynamic(at, av)) if pt == at => {
                value(pt, pv, av, path, out)
            }
            (Value::Dynamic(pt, _), Value::Dynamic(at, _)) => {
                out.push(Violation::new(
                    path,
                    format!("wrong final value type: planned {pt}, got {at}"),
                ));
            }
            _ if same(planned, actual) => {}
            _ => out.push(Violation::new(
                path,
                format!("was {}, but now {}", render(planned), render(actual)),
            )),
        },
        Type::String | Type::Number | Type::Bool => {
            if !same(planned, actual) {
                out.push(Violation::new(
                    path,
                    format!("was {}, but now {}", render(planned), render(actual)),
                ));
            }
        }
        Type::List(elem) => sequence(|_| elem, planned, actual, path, out),
        Type::Tuple(elems) => sequence(
            |i| elems.get(i).unwrap_or(&Type::Dynamic),
            planned,
            actual,
            path,
            out,
        ),
        Type::Map(elem) => {
            let (p, a) = (entries(planned), entries(actual));
            for key in p.keys().filter(|k| !a.contains_key(*k)) {
                out.push(Violation::new(
                    path,
                    format!("element {key:?} has vanished"),
                ));
            }
            for key in a.keys().filter(|k| !p.contains_key(*k)) {
                out.push(Violation::new(
                    path,
                    format!("new element {key:?} has appeared"),
                ));
            }
            for (key, pv) in p {
                if let Some(av) = a.get(key) {
                    value(elem, pv, av, &path.key(key), out);
                }
            }
        }
        Type::Object(attrs) => {
            for (name, attr_ty) in attrs {
                value(
                    attr_ty,
                    attr(planned, name),
                    attr(actual, name),
                    &path.attr(name),
                    out,
                );
            }
        }
        Type::Set(elem) => set(
            |p, a| compatible(elem, p, a),
            planned,
            actual,
            path,
            "",
            out,
        ),
    }
}

fn sequence<'t>(
    elem: impl Fn(usize) -> &'t Type,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    out: &mut Vec<Violation>,
) {
    let (p, a) = (elements(planned), elements(actual));
    for i in a.len()..p.len() {
        out.push(Violation::new(path, format!("element {i} has vanished")));
    }
    for i in p.len()..a.len() {
        out.push(Violation::new(
            path,
            format!("new element {i} has appeared"),
        ));
    }
    for (i, (pv, av)) in p.iter().zip(a).enumerate() {
        value(elem(i), pv, av, &path.index(i as i64), out);
    }
}

/// Set elements cannot be matched by position: each planned element must correlate with an
/// actual one and vice versa; the set may shrink (unknowns can collapse) but not grow.
///
/// Linear in the size of the sets: a wholly known element correlates only with an equal one
/// (found by hashing); only actual elements left over are tried against the planned elements
/// holding unknowns, and for objects only against those whose known attributes agree
/// (indexed by those attributes), so a 10,000-element set costs no pairwise comparison.
fn set(
    correlates: impl Fn(&Value, &Value) -> bool,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    what: &str,
    out: &mut Vec<Violation>,
) {
    let (p, a) = (elements(planned), elements(actual));
    let mut actual_members = hash_set(a.len());
    actual_members.extend(a.iter());
    let mut planned_members = hash_set(p.len());
    planned_members.extend(p.iter().filter(|v| v.is_wholly_known()));
    for pv in p.iter().filter(|pv| pv.is_wholly_known()) {
        if !actual_members.contains(pv) {
            out.push(Violation::new(
                path,
                format!(
                    "planned set element {} does not correlate with any element in actual",
                    render(pv)
                ),
            ));
        }
    }
    let placeholders = Placeholders::new(p.iter().filter(|v| !v.is_wholly_known()));
    for av in a.iter().filter(|av| !planned_members.contains(av)) {
        if !placeholders.candidates(av).any(|pv| correlates(pv, av)) {
            out.push(Violation::new(
                path,
                format!(
                    "actual set element {} does not correlate with any element in plan",
                    render(av)
                ),
            ));
        }
    }
    if a.len() > p.len() {
        out.push(Violation::new(
            path,
            format!("{what}length changed from {} to {}", p.len(), a.len()),
        ));
    }
}

/// Planned set elements that hold unknowns, indexed for correlation: objects by the values
/// of their wholly known attributes (grouped by which attributes those are), anything else
/// in one list.
struct Placeholders<'a> {
    by_known: HashMap<Vec<&'a str>, HashMap<u64, Vec<&'a Value>>>,
    others: Vec<&'a Value>,
}

impl<'a> Placeholders<'a> {
    fn new(planned: impl Iterator<Item = &'a Value>) -> Placeholders<'a> {
        let mut out = Placeholders {
            by_known: hash_map(1),
            others: Vec::new(),
        };
        for pv in planned {
            match unwrap_dynamic(pv) {
                Value::Object(attrs) => {
                    let known: Vec<&str> = attrs
                        .iter()
                        .filter(|(_, v)| v.is_wholly_known())
                        .map(|(k, _)| k.as_str())
                        .collect();
                    let key = projection(attrs, &known);
                    out.by_known
                        .entry(known)
                        .or_default()
                        .entry(key)
                        .or_default()
                        .push(pv);
                }
                _ => out.others.push(pv),
            }
        }
        out
    }

    /// The placeholders `actual` might complete.
    fn candidates<'s>(&'s self, actual: &'s Value) -> impl Iterator<Item = &'a Value> + 's {
        let objects = match unwrap_dynamic(actual) {
            Value::Object(attrs) => Some(attrs),
            _ => None,
        };
        self.by_known
            .iter()
            .filter_map(move |(names, index)| index.get(&projection(objects?, names)))
            .flatten()
            .chain(self.others.iter())
            .copied()
    }
}

/// The hash of an object's values of `names` (absent ones as null).
fn projection(attrs: &BTreeMap<String, Value>, names: &[&str]) -> u64 {
    let mut hasher = value_hasher();
    for name in names {
        attrs.get(*name).unwrap_or(&Value::Null).hash(&mut hasher);
    }
    hasher.finish()
}

fn compatible(ty: &Type, planned: &Value, actual: &Value) -> bool {
    let mut scratch = Vec::new();
    value(ty, planned, actual, &At::Root, &mut scratch);
    (same(planned, actual) || !planned.is_wholly_known()) && scratch.is_empty()
}

fn block_value(
    block: &Block,
    nesting: BlockNesting,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    out: &mut Vec<Violation>,
) {
    // tfplugin6.11: a computed block planned unknown must come back as a value.
    if block.computed && planned.is_unknown() && actual.is_null() {
        return out.push(Violation::new(path, "null block value after apply"));
    }
    match nesting {
        BlockNesting::Single | BlockNesting::Group => {
            if planned.is_unknown() {
                return;
            }
            match (planned.is_null(), actual.is_null()) {
                (true, true) => {}
                (false, true) => {
                    out.push(Violation::new(path, "block was present, but now absent"))
                }
                (true, false) => {
                    out.push(Violation::new(path, "block was absent, but now present"))
                }
                (false, false) => object(block, planned, actual, path, out),
            }
        }
        BlockNesting::List => {
            if planned.is_unknown() || actual.is_unknown() || planned.is_null() || actual.is_null()
            {
                return;
            }
            let (p, a) = (elements(planned), elements(actual));
            if p.len() != a.len() {
                return out.push(Violation::new(
                    path,
                    format!("block count changed from {} to {}", p.len(), a.len()),
                ));
            }
            for (i, (pv, av)) in p.iter().zip(a).enumerate() {
                object(block, pv, av, &path.index(i as i64), out);
            }
        }
        BlockNesting::Map => {
            if planned.is_unknown() || actual.is_unknown() {
                return;
            }
            let (p, a) = (entries(planned), entries(actual));
            for key in p.keys().filter(|k| !a.contains_key(*k)) {
                out.push(Violation::new(
                    path,
                    format!("block key {key:?} has vanished"),
                ));
            }
            for key in a.keys().filter(|k| !p.contains_key(*k)) {
                out.push(Violation::new(
                    path,
                    format!("new block key {key:?} has appeared"),
                ));
            }
            for (key, pv) in p {
                if let Some(av) = a.get(key) {
                    object(block, pv, av, &path.key(key), out);
                }
            }
        }
        BlockNesting::Set => {
            if planned.is_unknown() || actual.is_unknown() {
                return;
            }
            let ty = block.implied_type();
            set(
                |p, a| compatible(&ty, p, a),
                planned,
                actual,
                path,
                "block set ",
                out,
            );
        }
    }
}

/// Whether a known value falls within an unknown's refinements.
fn satisfies(r: &Refinement, actual: &Value) -> bool {
    if actual.is_null() {
        return !r.not_null;
    }
    let actual = unwrap_dynamic(actual);
    if let (Some(prefix), Some(s)) = (&r.string_prefix, actual.as_str())
        && !s.starts_with(prefix.as_str())
    {
        return false;
    }
    if let Some(n) = actual.as_number() {
        let within = |bound: &Option<(Number, bool)>, lower: bool| match bound {
            None => true,
            Some((b, inclusive)) => match (lower, inclusive) {
                (true, true) => n >= b,
                (true, false) => n > b,
                (false, true) => n <= b,
                (false, false) => n < b,
            },
        };
        if !within(&r.number_lower, true) || !within(&r.number_upper, false) {
            return false;
        }
    }
    let len = match actual {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => Some(items.len()),
        Value::Map(m) => Some(m.len()),
        _ => None,
    };
    if let Some(len) = len {
        let len = len as u64;
        if r.length_lower.is_some_and(|lo| len < lo) || r.length_upper.is_some_and(|hi| len > hi) {
            return false;
        }
    }
    true
}

fn describe(r: &Refinement) -> String {
    let mut parts = Vec::new();
    if r.not_null {
        parts.push("not null".to_owned());
    }
    if let Some(p) = &r.string_prefix {
        parts.push(format!("prefix {p:?}"));
    }
    if let Some((n, inc)) = &r.number_lower {
        parts.push(format!("{} {n}", if *inc { ">=" } else { ">" }));
    }
    if let Some((n, inc)) = &r.number_upper {
        parts.push(format!("{} {n}", if *inc { "<=" } else { "<" }));
    }
    if let Some(n) = r.length_lower {
        parts.push(format!("length >= {n}"));
    }
    if let Some(n) = r.length_upper {
        parts.push(format!("length <= {n}"));
    }
    format!("(known after apply: {})", parts.join(", "))
}

fn elements(value: &Value) -> &[Value] {
    unwrap_dynamic(value).as_elements().unwrap_or(&[])
}

fn entries(value: &Value) -> &BTreeMap<String, Value> {
    static EMPTY: BTreeMap<String, Value> = BTreeMap::new();
    unwrap_dynamic(value).as_entries().unwrap_or(&EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{Attribute, NestedBlock};

    /// A resource with a set of `rule` blocks: `port` configured, `id` computed.
    fn block() -> Block {
        let mut port = Attribute::new("port", Type::Number);
        port.required = true;
        let mut id = Attribute::new("id", Type::String);
        id.computed = true;
        Block {
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![port, id],
                    ..Block::default()
                },
                nesting: BlockNesting::Set,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        }
    }

    fn rules(n: i64, id: impl Fn(i64) -> Value) -> Value {
        Value::object([(
            "rule",
            Value::Set(
                (0..n)
                    .map(|i| Value::object([("port", Value::from(i)), ("id", id(i))]))
                    .collect(),
            ),
        )])
    }

    #[test]
    fn large_block_sets_correlate_by_their_known_attributes() {
        let n = 10_000;
        let known = |i: i64| Value::from(format!("r{i}"));
        // Every element planned with an unknown id (a create), completed by apply.
        let planned = rules(n, |_| Value::unknown());
        let actual = rules(n, known);
        assert_eq!(check_apply(&block(), &planned, &actual), Vec::new());

        // One element known in the plan, one new: each is reported once.
        let planned = rules(n, |i| if i == 7 { Value::unknown() } else { known(i) });
        let mut actual = rules(n, known);
        if let Some(Value::Set(items)) = actual.get_mut("rule") {
            items[3] = Value::object([("port", Value::from(3)), ("id", "other".into())]);
        }
        let found = check_apply(&block(), &planned, &actual);
        let messages: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("planned set element"), "{messages:?}");
        assert!(messages[1].contains("actual set element"), "{messages:?}");
    }
}
