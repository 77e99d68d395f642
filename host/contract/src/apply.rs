//! ApplyResourceChange: the new state must be a wholly known completion of the plan.
//!
//! Mirrors Terraform core's `AssertObjectCompatible`: every known planned value comes back
//! identical, every unknown is filled within its refinements, nested block counts and keys
//! hold; plus no unknown remains anywhere and a delete returns null.

use std::hash::{Hash, Hasher};

use tfwasm_model::hash::{HashMap, hash_map, value_hasher};
use tfwasm_model::{Block, BlockNesting, Entries, Layout, Number, Refinement, Type, Value};

use crate::at::At;
use crate::render::{In, render_in};
use crate::results::unknown_paths;
use crate::{Violation, Violations, attrs_at, render, same, unwrap_dynamic};

/// Checks a new state against the planned state (null planned state means delete).
pub fn check_apply(block: &Block, planned: &Value, new: &Value) -> Violations {
    check_apply_with(block, &Layout::of(block), planned, new)
}

/// [`check_apply`] with the block's [`Layout`] worked out already (the schema index holds one
/// per resource type).
pub fn check_apply_with(
    block: &Block,
    layout: &Layout,
    planned: &Value,
    new: &Value,
) -> Violations {
    work::reset();
    let root = At::Root;
    let mut out = Violations::new();
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
    object(
        &Shape::of(block, layout),
        planned,
        new,
        &root,
        Keys::Exact,
        &mut out,
    );
    out
}

/// A block with its attributes' types, worked out once per check: the check visits a
/// nested block's attributes once per element, and a nested attribute's type is built
/// from the schema, so building it per element would cost elements × schema.
struct Shape<'b> {
    block: &'b Block,
    /// Where the block's names sit in its values.
    layout: &'b Layout,
    types: Vec<std::borrow::Cow<'b, Type>>,
    /// Per attribute: whether it is, or holds at any depth, a sensitive or write-only one.
    secret: Vec<bool>,
    nested: Vec<Shape<'b>>,
}

impl<'b> Shape<'b> {
    fn of(block: &'b Block, layout: &'b Layout) -> Shape<'b> {
        Shape {
            block,
            layout,
            types: block
                .attributes
                .iter()
                .map(|a| a.implied_type_ref())
                .collect(),
            secret: block.attributes.iter().map(holds_secret).collect(),
            nested: block
                .block_types
                .iter()
                .enumerate()
                .map(|(i, n)| Shape::of(&n.block, layout.block(i).1))
                .collect(),
        }
    }
}

/// Whether an attribute is sensitive or write-only, or a nested one holding such.
fn holds_secret(a: &tfwasm_model::Attribute) -> bool {
    a.sensitive
        || a.write_only
        || matches!(&a.ty, tfwasm_model::AttributeType::Nested(o) if o.attributes.iter().any(holds_secret))
}

/// How a map of blocks is compared after apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// Its keys must be the planned ones, which tfwasm checks and core does not (core
    /// compares only a map of blocks' count): reported where the blocks are addressed.
    Exact,
    /// Only its count, as core: inside set elements being correlated, so a key rule cannot
    /// make elements fail to correlate where core's correlate.
    Count,
}

fn object(
    shape: &Shape<'_>,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    keys: Keys,
    out: &mut Violations,
) {
    let (block, layout) = (shape.block, shape.layout);
    let attributes = block.attributes.iter().zip(&shape.types).zip(&shape.secret);
    for (i, ((a, ty), secret)) in attributes.enumerate() {
        let here = path.attr(&a.name);
        let before = out.total();
        let [planned, actual] = attrs_at([planned, actual], layout.attribute(i), &a.name);
        value(ty, planned, actual, &here, out);
        // A secret's violations say where, never what: the values compared are the
        // configuration's and the provider's secrets.
        if *secret && out.total() > before {
            out.truncate(before);
            out.push(Violation::new(
                &here,
                "inconsistent values for sensitive attribute",
            ));
        }
    }
    for (i, (nested, inner)) in block.block_types.iter().zip(&shape.nested).enumerate() {
        let name = &nested.type_name;
        let [planned, actual] = attrs_at([planned, actual], layout.block(i).0, name);
        block_value(
            inner,
            nested.nesting,
            planned,
            actual,
            &path.attr(name),
            keys,
            out,
        );
    }
}

fn value(ty: &Type, planned: &Value, actual: &Value, path: &At<'_>, out: &mut Violations) {
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
            key_changes(p, a, "element", path, out);
            for (key, pv) in p {
                if let Some(av) = a.get(key) {
                    value(elem, pv, av, &path.key(key), out);
                }
            }
        }
        Type::Object(attrs) => {
            // A value of the type holds its attributes in the type's (name) order.
            for (at, (name, attr_ty)) in attrs.iter().enumerate() {
                let [planned, actual] = attrs_at([planned, actual], at, name);
                value(attr_ty, planned, actual, &path.attr(name), out);
            }
        }
        Type::Set(elem) => set(
            |p, a| compatible(elem, p, a),
            None,
            planned,
            actual,
            path,
            Elements::Values,
            out,
        ),
    }
}

fn sequence<'t>(
    elem: impl Fn(usize) -> &'t Type,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    out: &mut Violations,
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

/// Patterns of known key attributes a set's planned elements may show before the set is
/// left to core: each one indexes every actual element (planned elements of one resource
/// share a handful; a hostile answer gives each its own).
const MAX_KEY_PATTERNS: usize = 64;

/// The work set correlation may do in one check, shared by every set in the answer (nested
/// ones too): a comparison costs the size of the two elements it compares, so a few large
/// elements or many small ones spend it alike. Past it, sets are left to core's own check.
mod work {
    use std::cell::Cell;

    use tfwasm_model::Value;

    /// Value nodes (and 16-byte string chunks) compared per check: well under a second.
    pub(super) const MAX: u64 = 1 << 24;

    thread_local! {
        static LEFT: Cell<u64> = const { Cell::new(0) };
    }

    /// Starts a check with the whole budget.
    pub(super) fn reset() {
        LEFT.with(|left| left.set(MAX));
    }

    /// Spends `cost`; false once the budget is gone.
    pub(super) fn spend(cost: u64) -> bool {
        LEFT.with(|left| {
            let rest = left.get().saturating_sub(cost);
            left.set(rest);
            rest > 0
        })
    }

    /// True while budget remains.
    pub(super) fn left() -> bool {
        LEFT.with(|left| left.get() > 0)
    }

    /// What comparing `value` costs at most: its nodes, and its strings in 16-byte chunks.
    pub(super) fn weight(value: &Value) -> u64 {
        match value {
            Value::String(s) => 1 + s.len() as u64 / 16,
            Value::List(items) | Value::Tuple(items) | Value::Set(items) => {
                1 + items.iter().map(weight).sum::<u64>()
            }
            Value::Map(_) | Value::Object(_) => {
                1 + (value.as_entries().expect("a map or an object"))
                    .iter()
                    .map(|(k, v)| 1 + k.len() as u64 / 16 + weight(v))
                    .sum::<u64>()
            }
            Value::Dynamic(_, inner) => 1 + weight(inner),
            _ => 1,
        }
    }
}

/// What a set holds, which decides how its elements are shown.
#[derive(Clone, Copy)]
enum Elements<'a> {
    /// Values of an attribute's type (a secret attribute's violations are replaced whole).
    Values,
    /// Blocks, whose sensitive and write-only attributes are never shown.
    Blocks(&'a Block),
}

impl Elements<'_> {
    fn what(self) -> &'static str {
        match self {
            Elements::Values => "",
            Elements::Blocks(_) => "block set ",
        }
    }

    fn show(self, value: &Value) -> String {
        match self {
            Elements::Values => render(value),
            Elements::Blocks(block) => render_in(value, In::Block(block)),
        }
    }
}

/// Set elements cannot be matched by position: each planned element must correlate with an
/// actual one and vice versa (core's `assertSetValuesCompatible`); the set may shrink
/// (unknowns can turn out equal and coalesce) but not grow.
///
/// Linear in the size of the sets where they agree: an element is tried only against the
/// elements of the other side whose values of its known key attributes (`keys`, or every
/// attribute) are the same, found by hashing; a wholly known element that is not an object
/// only against equal ones. So a 10,000-element set costs no pairwise comparison.
fn set(
    correlates: impl Fn(&Value, &Value) -> bool,
    keys: Option<&[&str]>,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    of: Elements<'_>,
    out: &mut Violations,
) {
    let (p, a) = (elements(planned), elements(actual));
    let mut p_ok = vec![false; p.len()];
    let mut a_ok = vec![false; a.len()];
    let mut actual_by: HashMap<Vec<&str>, HashMap<u64, Vec<usize>>> = hash_map(1);
    let mut actual_plain: Option<HashMap<&Value, Vec<usize>>> = None;
    // Candidates are tried lazily and counted: a set whose planned elements are wholly
    // unknown has every actual element as a candidate, which is quadratic. Past the budget
    // the set is left to core's own check (it runs the same rule on every answer), since
    // refusing it here could refuse what core accepts.
    if !work::left() {
        return;
    }
    let p_weight: Vec<u64> = p.iter().map(work::weight).collect();
    let a_weight: Vec<u64> = a.iter().map(work::weight).collect();
    for (i, pv) in p.iter().enumerate() {
        let tries = |j: usize| work::spend(p_weight[i] + a_weight[j]) && correlates(pv, &a[j]);
        let found = match unwrap_dynamic(pv) {
            Value::Object(attrs) => {
                let names = known_names(attrs, keys);
                let key = projection(attrs, &names);
                if !actual_by.contains_key(&names) {
                    // Each pattern of known attributes indexes every actual element: charged,
                    // and only a few patterns per set (planned elements share theirs).
                    if actual_by.len() >= MAX_KEY_PATTERNS
                        || !work::spend(a.len() as u64 * (1 + names.len() as u64))
                    {
                        return;
                    }
                }
                let index = actual_by
                    .entry(names)
                    .or_insert_with_key(|names| index_objects(a, names));
                index
                    .get(&key)
                    .and_then(|c| c.iter().copied().find(|&j| tries(j)))
            }
            _ if pv.is_wholly_known() => {
                let plain = actual_plain.get_or_insert_with(|| {
                    let mut m: HashMap<&Value, Vec<usize>> = hash_map(a.len());
                    for (j, av) in a.iter().enumerate() {
                        m.entry(av).or_default().push(j);
                    }
                    m
                });
                plain
                    .get(pv)
                    .and_then(|c| c.iter().copied().find(|&j| tries(j)))
            }
            _ => (0..a.len()).find(|&j| tries(j)),
        };
        if let Some(j) = found {
            p_ok[i] = true;
            a_ok[j] = true;
        }
        if !work::left() {
            return;
        }
    }
    let before = out.total();
    for (pv, _) in p.iter().zip(&p_ok).filter(|(_, ok)| !**ok) {
        out.push(Violation::new(
            path,
            format!(
                "planned set element {} does not correlate with any element in actual",
                of.show(pv)
            ),
        ));
    }
    // As core does, actual elements are reported only when every planned one correlated.
    if out.total() == before && a_ok.contains(&false) {
        let index = Index::new(p.iter(), keys);
        if index.by_known.len() > MAX_KEY_PATTERNS {
            return;
        }
        for (j, av) in a.iter().enumerate().filter(|&(j, _)| !a_ok[j]) {
            // Looking an element up hashes it once per pattern.
            if !work::spend(1 + index.by_known.len() as u64) {
                return;
            }
            let correlated = index
                .candidates(av)
                .any(|i| !work::spend(p_weight[i] + a_weight[j]) || correlates(&p[i], av));
            if !work::left() {
                return;
            }
            if !correlated {
                out.push(Violation::new(
                    path,
                    format!(
                        "actual set element {} does not correlate with any element in plan",
                        of.show(av)
                    ),
                ));
            }
        }
    }
    if a.len() > p.len() {
        out.push(Violation::new(
            path,
            format!(
                "{}length changed from {} to {}",
                of.what(),
                p.len(),
                a.len()
            ),
        ));
    }
}

/// Planned set elements indexed for correlation: objects by the values of their wholly
/// known key attributes (grouped by which attributes those are), anything else in one list.
struct Index<'a> {
    by_known: HashMap<Vec<&'a str>, HashMap<u64, Vec<usize>>>,
    others: Vec<usize>,
}

impl<'a> Index<'a> {
    fn new(planned: impl Iterator<Item = &'a Value>, keys: Option<&[&str]>) -> Index<'a> {
        let mut out = Index {
            by_known: hash_map(1),
            others: Vec::new(),
        };
        for (i, pv) in planned.enumerate() {
            match unwrap_dynamic(pv) {
                Value::Object(attrs) => {
                    let known = known_names(attrs, keys);
                    let key = projection(attrs, &known);
                    out.by_known
                        .entry(known)
                        .or_default()
                        .entry(key)
                        .or_default()
                        .push(i);
                }
                _ => out.others.push(i),
            }
        }
        out
    }

    /// The planned elements `actual` might complete: those whose known key attributes
    /// `actual` has the same values for.
    fn candidates<'s>(&'s self, actual: &'s Value) -> impl Iterator<Item = usize> + 's {
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

/// The key attributes (`keys`, or every attribute) of an object whose values are wholly
/// known.
fn known_names<'a>(attrs: &'a tfwasm_model::Attributes, keys: Option<&[&str]>) -> Vec<&'a str> {
    attrs
        .iter()
        .filter(|(k, v)| keys.is_none_or(|keys| keys.contains(&k.as_str())) && v.is_wholly_known())
        .map(|(k, _)| k.as_str())
        .collect()
}

/// The object elements of a set (by position) by the hash of their values of `names`.
fn index_objects(items: &[Value], names: &[&str]) -> HashMap<u64, Vec<usize>> {
    let mut index: HashMap<u64, Vec<usize>> = hash_map(items.len());
    for (j, item) in items.iter().enumerate() {
        if let Value::Object(attrs) = unwrap_dynamic(item) {
            index.entry(projection(attrs, names)).or_default().push(j);
        }
    }
    index
}

/// The hash of an object's values of `names` (absent ones as null).
fn projection(attrs: &tfwasm_model::Attributes, names: &[&str]) -> u64 {
    let mut hasher = value_hasher();
    for name in names {
        attrs.get(name).unwrap_or(&Value::Null).hash(&mut hasher);
    }
    hasher.finish()
}

fn compatible(ty: &Type, planned: &Value, actual: &Value) -> bool {
    let mut scratch = Violations::new();
    value(ty, planned, actual, &At::Root, &mut scratch);
    (same(planned, actual) || !planned.is_wholly_known()) && scratch.is_empty()
}

fn block_value(
    shape: &Shape<'_>,
    nesting: BlockNesting,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    keys: Keys,
    out: &mut Violations,
) {
    let block = shape.block;
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
                (false, false) => object(shape, planned, actual, path, keys, out),
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
                block_object(shape, pv, av, &path.index(i as i64), keys, out);
            }
        }
        BlockNesting::Map => {
            // As core: a null map of blocks after apply is not checked further.
            if planned.is_unknown() || planned.is_null() || actual.is_null() {
                return;
            }
            let (p, a) = (entries(planned), entries(actual));
            if keys == Keys::Count && p.len() != a.len() {
                return out.push(Violation::new(
                    path,
                    format!("block count changed from {} to {}", p.len(), a.len()),
                ));
            }
            if keys == Keys::Exact {
                key_changes(p, a, "block key", path, out);
            }
            for (key, pv) in p {
                if let Some(av) = a.get(key) {
                    block_object(shape, pv, av, &path.key(key), keys, out);
                }
            }
        }
        BlockNesting::Set => {
            if planned.is_unknown() || actual.is_unknown() || planned.is_null() || actual.is_null()
            {
                return;
            }
            // Blocks correlate as core's assertObjectCompatible has it (a nested block may
            // come back null), keyed by their attributes, whose values compare exactly.
            let keys: Vec<&str> = block.attributes.iter().map(|a| a.name.as_str()).collect();
            set(
                |p, a| {
                    let mut scratch = Violations::new();
                    block_object(shape, p, a, &At::Root, Keys::Count, &mut scratch);
                    scratch.is_empty()
                },
                Some(&keys),
                planned,
                actual,
                path,
                Elements::Blocks(block),
                out,
            );
        }
    }
}

/// One block of a list or map: present in the plan and after apply alike (core's
/// `assertObjectCompatible`), then compared attribute by attribute.
fn block_object(
    shape: &Shape<'_>,
    planned: &Value,
    actual: &Value,
    path: &At<'_>,
    keys: Keys,
    out: &mut Violations,
) {
    match (planned.is_null(), actual.is_null()) {
        (true, true) => {}
        (false, true) => out.push(Violation::new(path, "was present, but now absent")),
        (true, false) => out.push(Violation::new(path, "was absent, but now present")),
        (false, false) => object(shape, planned, actual, path, keys, out),
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

fn entries(value: &Value) -> Entries<'_> {
    unwrap_dynamic(value).as_entries().unwrap_or(Entries::EMPTY)
}

/// Keys of a map that the apply dropped or added (`noun` names them in the message).
fn key_changes(
    planned: Entries<'_>,
    actual: Entries<'_>,
    noun: &str,
    path: &At<'_>,
    out: &mut Violations,
) {
    for key in planned.keys().filter(|k| !actual.contains_key(k)) {
        out.push(Violation::new(path, format!("{noun} {key:?} has vanished")));
    }
    for key in actual.keys().filter(|k| !planned.contains_key(k)) {
        out.push(Violation::new(
            path,
            format!("new {noun} {key:?} has appeared"),
        ));
    }
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

    /// A nested attribute's type is worked out once per check, not once per block element:
    /// 50,000 blocks each holding a null nested attribute of 5,000 attributes took
    /// 250 million type entries (over a minute) when it was rebuilt per element.
    #[test]
    fn nested_attribute_types_are_built_once_per_check() {
        use tfwasm_model::{AttributeType, NestedObject, ObjectNesting};
        let mut wide = Attribute::new("wide", Type::String);
        wide.optional = true;
        wide.ty = AttributeType::Nested(NestedObject {
            attributes: (0..5_000)
                .map(|i| Attribute::new(format!("a{i}"), Type::String))
                .collect(),
            nesting: ObjectNesting::Single,
        });
        let schema = Block {
            block_types: vec![NestedBlock {
                type_name: "item".into(),
                block: Block {
                    attributes: vec![wide],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let items = Value::List(vec![Value::object([("wide", Value::Null)]); 50_000]);
        let value = Value::object([("item", items)]);
        assert_eq!(check_apply(&schema, &value, &value), Vec::new());
    }

    /// Set correlation is budgeted by the size of what it compares, not by the number of
    /// comparisons: 1024 planned lists of 2,050 strings each, none correlating with any actual
    /// one, took 70 s under a budget of 2^22 comparisons (each walking two 2,050-element
    /// lists); past the work budget the set is left to core instead.
    #[test]
    fn set_correlation_work_is_bounded_by_what_it_compares() {
        let (n, m) = (1024, 2048);
        let mut attr = Attribute::new("out", Type::set(Type::list(Type::String)));
        attr.computed = true;
        let schema = Block {
            attributes: vec![attr],
            ..Block::default()
        };
        let list = |tail: [Value; 2]| {
            let mut items = vec![Value::from("a"); m];
            items.extend(tail);
            Value::List(items)
        };
        let planned = Value::object([(
            "out",
            Value::Set(
                (0..n)
                    .map(|i| list([Value::unknown(), Value::from(format!("{i}"))]))
                    .collect(),
            ),
        )]);
        let actual = Value::object([(
            "out",
            Value::Set(
                (0..n)
                    .map(|j| list([Value::from("z"), Value::from(format!("x{j}"))]))
                    .collect(),
            ),
        )]);
        let found = check_apply(&schema, &planned, &actual);
        assert!(
            found
                .iter()
                .all(|v| !v.message.contains("does not correlate")),
            "past the work budget the set is left to core: {:?}",
            found.first()
        );
    }

    /// Each pattern of known attributes among planned set elements indexes every actual
    /// element; a hostile plan gave each element its own pattern (4,000 elements: 11.5 s and
    /// 1.9 GB). Past a few patterns the set is left to core.
    #[test]
    fn many_key_patterns_leave_the_set_to_core() {
        let names: Vec<String> = (0..8).map(|b| format!("a{b}")).collect();
        let mut attrs = Vec::new();
        for name in &names {
            let mut a = Attribute::new(name, Type::String);
            a.computed = true;
            attrs.push(a);
        }
        let object = Type::object(names.iter().map(|n| (n.as_str(), Type::String)));
        let mut out = Attribute::new("objs", Type::set(object));
        out.computed = true;
        let schema = Block {
            attributes: vec![out],
            ..Block::default()
        };
        let element = |i: usize, known: &dyn Fn(usize) -> Value| {
            Value::Object(
                names
                    .iter()
                    .enumerate()
                    .map(|(b, n)| {
                        (
                            n.into(),
                            if i >> b & 1 == 1 {
                                Value::unknown()
                            } else {
                                known(b)
                            },
                        )
                    })
                    .collect(),
            )
        };
        let planned = Value::object([(
            "objs",
            Value::Set(
                (0..200)
                    .map(|i| element(i, &|b| Value::from(format!("p{b}"))))
                    .collect(),
            ),
        )]);
        let actual = Value::object([(
            "objs",
            Value::Set(
                (0..200)
                    .map(|i| element(0, &|b| Value::from(format!("x{i}-{b}"))))
                    .collect(),
            ),
        )]);
        let found = check_apply(&schema, &planned, &actual);
        assert!(
            found
                .iter()
                .all(|v| !v.message.contains("does not correlate")),
            "left to core past {MAX_KEY_PATTERNS} patterns: {:?}",
            found.first()
        );
    }

    /// A hostile answer breaking the rule once per element: the check still counts every
    /// one, but holds only the first hundred (it used to hold one violation per element).
    #[test]
    fn a_violation_per_element_keeps_a_hundred_and_counts_the_rest() {
        let n = 200_000;
        let planned = rules(n, |i| Value::from(format!("planned{i}")));
        let actual = rules(n, |i| Value::from(format!("actual{i}")));
        let found = check_apply(&block(), &planned, &actual);
        assert_eq!(found.len(), crate::MAX_VIOLATIONS);
        assert_eq!(found.total(), n as usize);
        assert!(
            found[0].message.contains("does not correlate"),
            "{}",
            found[0]
        );
    }

    /// 100,000 planned elements with every attribute unknown: each has every actual element
    /// as a candidate (10^10 steps when the candidates were collected per element; past a
    /// budget of comparisons the set is left to core, which checks every answer itself).
    #[test]
    fn wholly_unknown_set_elements_cost_a_bounded_number_of_comparisons() {
        let n = 100_000;
        let unknown_rule = || Value::object([("port", Value::unknown()), ("id", Value::unknown())]);
        let planned =
            Value::object([("rule", Value::Set((0..n).map(|_| unknown_rule()).collect()))]);
        // Every actual element correlates with the first candidate tried: linear, where the
        // candidate list used to be copied whole for each planned element.
        let actual = rules(n, |i| Value::from(format!("r{i}")));
        assert_eq!(check_apply(&block(), &planned, &actual), Vec::new());
    }

    /// A list block of 20,000 elements whose attribute has an object type of 20,000
    /// attributes: the type is borrowed per element, not copied (4 × 10^8 string copies).
    #[test]
    fn a_large_attribute_type_is_not_copied_per_element() {
        let wide = Type::Object(
            (0..20_000)
                .map(|i| (format!("a{i}"), Type::String))
                .collect(),
        );
        let mut x = Attribute::new("x", wide);
        x.optional = true;
        let block = Block {
            block_types: vec![NestedBlock {
                type_name: "item".into(),
                block: Block {
                    attributes: vec![x],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let items = Value::List(vec![Value::object([("x", Value::Null)]); 20_000]);
        let value = Value::object([("item", items)]);
        assert_eq!(check_apply(&block, &value, &value), Vec::new());
    }

    #[test]
    fn large_block_sets_correlate_by_their_known_attributes() {
        let n = 10_000;
        let known = |i: i64| Value::from(format!("r{i}"));
        // Every element planned with an unknown id (a create), completed by apply.
        let planned = rules(n, |_| Value::unknown());
        let actual = rules(n, known);
        assert_eq!(check_apply(&block(), &planned, &actual), Vec::new());

        // One known planned element gone and a new one in its place: as core does, the
        // planned element is reported, and the actual one only when every planned one
        // correlates.
        let planned = rules(n, |i| if i == 7 { Value::unknown() } else { known(i) });
        let mut actual = rules(n, known);
        if let Some(Value::Set(items)) = actual.get_mut("rule") {
            items[3] = Value::object([("port", Value::from(3)), ("id", "other".into())]);
        }
        let found = check_apply(&block(), &planned, &actual);
        let messages: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("planned set element"), "{messages:?}");
        // Every planned element completed, one more appeared: that one is reported, and
        // the set grew.
        let mut actual = rules(n, known);
        if let Some(Value::Set(items)) = actual.get_mut("rule") {
            items.push(Value::object([
                ("port", Value::from(n + 1)),
                ("id", "new".into()),
            ]));
        }
        let messages: Vec<String> = check_apply(&block(), &planned, &actual)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("actual set element"), "{messages:?}");
        assert!(messages[1].contains("length changed"), "{messages:?}");
    }

    /// Terraform core's case "set block two unknowns become two knowns"
    /// (objchange/compatible_test.go): two planned elements `{foo: unknown}` completed as
    /// `"hello"` and `"world"`. Merging the two unknowns reported "block set length changed
    /// from 1 to 2", which stopped real applies.
    #[test]
    fn a_set_block_of_two_unknowns_becomes_two_knowns() {
        let schema = Block {
            block_types: vec![tfwasm_model::NestedBlock {
                type_name: "block".into(),
                nesting: BlockNesting::Set,
                block: Block {
                    attributes: vec![tfwasm_model::Attribute {
                        optional: true,
                        ..tfwasm_model::Attribute::new("foo", Type::String)
                    }],
                    ..Block::default()
                },
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let element = |foo: Value| Value::object([("foo", foo)]);
        let with = |items: Vec<Value>| Value::object([("block", Value::set_of(items))]);
        let planned = with(vec![element(Value::unknown()), element(Value::unknown())]);
        assert_eq!(
            planned
                .get("block")
                .and_then(Value::as_elements)
                .map(<[Value]>::len),
            Some(2)
        );
        let two = with(vec![element("hello".into()), element("world".into())]);
        assert_eq!(check_apply(&schema, &planned, &two), Vec::new());
        // They may also turn out equal and coalesce, but not grow.
        let one = with(vec![element("hello".into())]);
        assert_eq!(check_apply(&schema, &planned, &one), Vec::new());
        let three = with(vec![
            element("a".into()),
            element("b".into()),
            element("c".into()),
        ]);
        let found = check_apply(&schema, &planned, &three);
        assert!(
            found.iter().any(|v| v
                .to_string()
                .contains("block set length changed from 2 to 3")),
            "{found:?}"
        );
    }

    /// A planned element holding an unknown must be completed by some actual element, as
    /// core requires of every planned element; it may not silently disappear.
    #[test]
    fn a_placeholder_nothing_completes_is_reported() {
        let rule = |port: i64, id: Value| Value::object([("port", Value::from(port)), ("id", id)]);
        let planned = Value::object([(
            "rule",
            Value::Set(vec![rule(1, Value::unknown()), rule(2, "x".into())]),
        )]);
        let actual = Value::object([("rule", Value::Set(vec![rule(2, "x".into())]))]);
        let found = check_apply(&block(), &planned, &actual);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].to_string().contains("planned set element"),
            "{found:?}"
        );
        // Completed by an element equal to a known planned one: they coalesce.
        let planned = Value::object([(
            "rule",
            Value::Set(vec![rule(2, Value::unknown()), rule(2, "x".into())]),
        )]);
        assert_eq!(check_apply(&block(), &planned, &actual), Vec::new());
    }

    /// A set of nested one-element sets, 120 deep, twice: comparing equal subtrees more than
    /// once per level made this 2^depth comparisons (the sixth hostile pass: 15 s at depth 28).
    #[test]
    fn deeply_nested_sets_are_checked_in_one_pass() {
        let (mut value, mut ty) = (Value::from("s"), Type::String);
        for _ in 0..120 {
            value = Value::Set(vec![value]);
            ty = Type::Set(Box::new(ty));
        }
        let mut x = Attribute::new("x", ty);
        x.optional = true;
        let schema = Block {
            attributes: vec![x],
            ..Block::default()
        };
        let planned = Value::object([("x", value.clone())]);
        assert_eq!(check_apply(&schema, &planned, &planned.clone()), Vec::new());
        let config = Value::object([("x", Value::Set(vec![value]))]);
        let found = crate::check_plan(&schema, &Value::Null, &config, &planned);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
