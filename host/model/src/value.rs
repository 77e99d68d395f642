//! cty values, shaped by the [`Type`] they were decoded with.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock};

use crate::{Attributes, Number, Type};

/// An attribute name or a map key. Up to 23 bytes (every name of a typical schema) it is held
/// inline, so building an object allocates nothing for its names, and a longer one is shared,
/// so a clone never copies: the trees decoded, planned and dropped at every call are mostly
/// names (issue 37's profiles). It borrows as `&str`: look an entry up with one
/// (`map.get(name.as_str())` for a `String`), and make a name with `.into()` from `&str` or
/// `String`.
pub type Name = smol_str::SmolStr;

/// What is known about an unknown value (cty "refinements"). Empty means a plain unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Refinement {
    /// The value will definitely not be null.
    pub not_null: bool,
    /// A string value will start with this prefix.
    pub string_prefix: Option<String>,
    /// Lower bound of a number, with whether it is inclusive.
    pub number_lower: Option<(Number, bool)>,
    /// Upper bound of a number, with whether it is inclusive.
    pub number_upper: Option<(Number, bool)>,
    /// Minimum length of a collection (inclusive).
    pub length_lower: Option<u64>,
    /// Maximum length of a collection (inclusive).
    pub length_upper: Option<u64>,
}

impl Refinement {
    /// True when nothing is refined, so the value encodes as a plain unknown.
    pub fn is_empty(&self) -> bool {
        *self == Refinement::default()
    }
}

/// A cty value. Its type is not stored: it is the type the value was decoded with or is
/// encoded against. Inside a `dynamic` slot a known value is wrapped in [`Value::Dynamic`]
/// together with its concrete type.
#[derive(Debug, Clone)]
pub enum Value {
    /// Null of whatever type the context expects.
    Null,
    /// A value not yet known (during planning), possibly with refinements. Held behind an
    /// `Arc` so a refinement does not make every value slot its size, and every plain
    /// unknown shares one ([`Value::unknown`], [`Value::refined`]): no allocation each.
    Unknown(Arc<Refinement>),
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// A list (ordered).
    List(Vec<Value>),
    /// A set; order carries no meaning and equality ignores it. Wholly known elements are
    /// distinct; elements holding an unknown may repeat, because go-cty never finds an unknown
    /// equal to anything, so a set keeps every element that holds one ([`Value::set_of`]).
    Set(Vec<Value>),
    /// A map.
    Map(BTreeMap<Name, Value>),
    /// An object: every attribute of its type is present, null ones included, in name
    /// order ([`Attributes`]).
    Object(Attributes),
    /// A tuple.
    Tuple(Vec<Value>),
    /// A value in a `dynamic` slot, with the concrete type it travels with.
    Dynamic(Type, Box<Value>),
}

/// Structural equality (go-cty's `RawEquals`): two unknowns are equal when their refinements
/// are, and sets compare as multisets. This is what the contract checks compare with ("the
/// planned value is the configured one"); go-cty's `Equals` is [`Value::cty_equals`].
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Unknown(a), Unknown(b)) => a == b,
            (Bool(a), Bool(b)) => a == b,
            (Number(a), Number(b)) => a == b,
            (String(a), String(b)) => crate::compare::same_bytes(a.as_bytes(), b.as_bytes()),
            (List(a), List(b)) | (Tuple(a), Tuple(b)) => a == b,
            (Set(a), Set(b)) => same_elements(a, b),
            (Map(a), Map(b)) => a == b,
            (Object(a), Object(b)) => a == b,
            (Dynamic(ta, a), Dynamic(tb, b)) => ta == tb && a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

/// Hashes agree with `==`: sets hash independently of their order, unknowns by their
/// refinements (so a set of many differently refined unknowns does not share one bucket), and a
/// dynamic value hashes as its content.
impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_into(self, state, Mode::Value);
    }
}

impl Value {
    /// [`Hash::hash`], returning whether the value is wholly known, found on the same walk.
    pub fn hash_known<H: Hasher>(&self, state: &mut H) -> bool {
        hash_into(self, state, Mode::Value)
    }
}

/// A value's hash, with or without its unknowns' refinements ([`unrefined_hash`]); returns
/// whether the value is wholly known, found on the same walk (set decoding asks both).
fn hash_into<H: Hasher>(value: &Value, state: &mut H, mode: Mode) -> bool {
    match value {
        Value::Null => state.write_u8(0),
        Value::Unknown(refinement) => {
            state.write_u8(1);
            if mode != Mode::Unrefined {
                refinement.hash(state);
            }
            return false;
        }
        Value::Bool(b) => {
            state.write_u8(2);
            b.hash(state);
        }
        Value::Number(n) => {
            state.write_u8(3);
            n.hash(state);
            if mode == Mode::Element {
                n.hash_class(state);
            }
        }
        Value::String(s) => {
            state.write_u8(4);
            s.hash(state);
        }
        Value::List(items) | Value::Tuple(items) => {
            state.write_u8(5);
            state.write_usize(items.len());
            let mut known = true;
            for item in items {
                known &= hash_into(item, state, mode);
            }
            return known;
        }
        Value::Set(items) => {
            state.write_u8(6);
            state.write_usize(items.len());
            let mut known = true;
            let mut sum = 0u64;
            for item in items {
                let mut h = hash_state().build_hasher();
                known &= hash_into(item, &mut h, mode);
                sum = sum.wrapping_add(h.finish());
            }
            state.write_u64(sum);
            return known;
        }
        Value::Map(_) | Value::Object(_) => {
            let entries = value.as_entries().expect("a map or an object");
            state.write_u8(7);
            state.write_usize(entries.len());
            let mut known = true;
            for (key, item) in entries {
                key.hash(state);
                known &= hash_into(item, state, mode);
            }
            return known;
        }
        Value::Dynamic(_, inner) => return hash_into(inner, state, mode),
    }
    true
}

/// A value's hash ignoring what its unknowns are refined with: it agrees with an equality
/// that takes any two unknowns as equal (the contract checks' "same value").
pub fn unrefined_hash(value: &Value) -> u64 {
    let mut h = hash_state().build_hasher();
    hash_into(value, &mut h, Mode::Unrefined);
    h.finish()
}

/// The hasher state every value hash in this process uses: foldhash, several times faster
/// than std's SipHash on values (hashing dominated set decoding), and randomly seeded once per
/// process, so crafted values cannot force collisions. One shared state keeps hashes of equal
/// values equal wherever they are taken (set hashes combine their elements' hashes).
pub fn hash_state() -> &'static foldhash::fast::RandomState {
    static STATE: std::sync::LazyLock<foldhash::fast::RandomState> =
        std::sync::LazyLock::new(foldhash::fast::RandomState::default);
    &STATE
}

/// A hasher from [`hash_state`], for keys built from several values.
pub fn value_hasher() -> impl Hasher {
    hash_state().build_hasher()
}

/// A hash set of values (or keys) hashed with [`hash_state`].
pub type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

/// A hash map keyed by values (or keys) hashed with [`hash_state`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// An empty [`HashSet`] with room for `n`.
pub fn hash_set<T>(n: usize) -> HashSet<T> {
    HashSet::with_capacity_and_hasher(n, hash_state().clone())
}

/// An empty [`HashMap`] with room for `n`.
pub fn hash_map<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, hash_state().clone())
}

/// The hash of one value on its own.
#[cfg(test)]
fn hash_of(value: &Value) -> u64 {
    hash_state().hash_one(value)
}

/// The hash of one set element as [`Element`] hashes it.
fn element_hash(value: &Value) -> u64 {
    element_hash_known(value).0
}

/// [`element_hash`], and whether the element is wholly known, from one walk.
fn element_hash_known(value: &Value) -> (u64, bool) {
    let mut hasher = hash_state().build_hasher();
    let known = hash_into(value, &mut hasher, Mode::Element);
    (hasher.finish(), known)
}

/// A set element's identity as go-cty sees it: equal, and hashed alike. go-cty compares set
/// elements only within one hash bucket, and its hash text of a number is its first ten
/// digits with a sign, so `0` and `-0` (equal numbers) are two elements of a set.
#[derive(Clone, Copy)]
struct Element<'a>(&'a Value);

impl PartialEq for Element<'_> {
    fn eq(&self, other: &Self) -> bool {
        #[cfg(test)]
        tests::COMPARISONS.with(|n| n.set(n.get() + 1));
        self.0 == other.0 && hashes_alike(self.0, other.0)
    }
}

impl Eq for Element<'_> {}

/// Stricter equality, stricter hash: numbers also hash by what decides [`hashes_alike`], so
/// elements that differ only there (`0` and `-0` in every combination) do not share a bucket.
impl Hash for Element<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_into(self.0, state, Mode::Element);
    }
}

/// What a value hash agrees with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `==`: refinements count, `0` and `-0` are one number.
    Value,
    /// [`unrefined_hash`]: any two unknowns are alike.
    Unrefined,
    /// [`Element`]: as `Value`, and numbers by their go-cty hash class too.
    Element,
}

/// Whether two equal values have the same go-cty hash text, which differs only where
/// numbers do (`0` and `-0`; a float64 and a decimal whose ten-digit roundings differ).
fn hashes_alike(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.hashes_alike(y),
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            x.iter().zip(y).all(|(p, q)| hashes_alike(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.values().zip(y.values()).all(|(p, q)| hashes_alike(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.values().zip(y.values()).all(|(p, q)| hashes_alike(p, q))
        }
        // Equal sets matched their elements under `Element`, each pair hashed alike, and a
        // set's hash text is made of its elements': computing it here instead redid each
        // level's work at every level above (the seventh hostile pass: 14 s for 31 KB).
        (Value::Set(_), Value::Set(_)) => true,
        (Value::Dynamic(_, x), Value::Dynamic(_, y)) => hashes_alike(x, y),
        _ => true,
    }
}

/// Below this many elements, pairwise comparison beats hashing.
const SMALL_SET: usize = 16;

/// Set equality as multisets of go-cty elements ([`Element`]): elements holding unknowns may
/// repeat, so each must occur as often in `a` as in `b`.
fn same_elements(a: &[Value], b: &[Value]) -> bool {
    same_multiset(a, b, element_hash, |x, y| Element(x) == Element(y))
}

/// Whether `a` and `b` hold the same elements as often, under an equivalence `eq` that `hash`
/// agrees with.
///
/// Each element of `b` is matched with one unmatched equal element of `a`, looked for only
/// among those hashed alike. `eq` is an equivalence, so the first match is as good as any,
/// and a pair of equal sets costs one comparison per element. Counting instead (each element
/// against every other) compared equal subtrees several times per level: a 61-byte chain of
/// nested one-element sets took seconds, doubling with each level.
pub fn same_multiset(
    a: &[Value],
    b: &[Value],
    hash: impl Fn(&Value) -> u64,
    eq: impl Fn(&Value, &Value) -> bool,
) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= SMALL_SET {
        let hashes: Vec<u64> = a.iter().map(&hash).collect();
        let mut unmatched: Vec<usize> = (0..a.len()).collect();
        return b.iter().all(|y| {
            let h = hash(y);
            let found = unmatched
                .iter()
                .position(|&i| hashes[i] == h && eq(&a[i], y));
            found.map(|at| unmatched.swap_remove(at)).is_some()
        });
    }
    let mut buckets: HashMap<u64, Vec<usize>> = hash_map(a.len());
    for (i, x) in a.iter().enumerate() {
        buckets.entry(hash(x)).or_default().push(i);
    }
    b.iter().all(|y| {
        let Some(bucket) = buckets.get_mut(&hash(y)) else {
            return false;
        };
        let found = bucket.iter().position(|&i| eq(&a[i], y));
        found.map(|at| bucket.swap_remove(at)).is_some()
    })
}

/// The elements of a set as go-cty keeps them, in linear time: a wholly known element equal
/// to an earlier one (and hashed alike, [`Element`]) is dropped, the first kept; an element
/// holding an unknown is always kept, since it equals nothing until it is known.
pub(crate) fn dedup_set(items: Vec<Value>) -> Vec<Value> {
    if items.len() <= SMALL_SET {
        let mut out: Vec<Value> = Vec::with_capacity(items.len());
        let mut hashes: Vec<u64> = Vec::with_capacity(items.len());
        for item in items {
            let (h, known) = element_hash_known(&item);
            let seen = || {
                (out.iter().zip(&hashes)).any(|(o, &oh)| oh == h && Element(o) == Element(&item))
            };
            if !known || !seen() {
                out.push(item);
                hashes.push(h);
            }
        }
        return out;
    }
    // Each element's hash and whether it is wholly known, from one walk; elements are then
    // found by that hash, each kept element's first index per hash chained to the next.
    let mut first: HashMap<u64, usize> = hash_map(items.len());
    let mut next_alike: Vec<usize> = vec![usize::MAX; items.len()];
    let mut keep = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let (h, known) = element_hash_known(item);
        if !known {
            keep.push(i);
            continue;
        }
        match first.entry(h) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(i);
                keep.push(i);
            }
            std::collections::hash_map::Entry::Occupied(slot) => {
                let mut at = *slot.get();
                loop {
                    if Element(&items[at]) == Element(item) {
                        break;
                    }
                    if next_alike[at] == usize::MAX {
                        next_alike[at] = i;
                        keep.push(i);
                        break;
                    }
                    at = next_alike[at];
                }
            }
        }
    }
    if keep.len() == items.len() {
        return items;
    }
    let mut keep = keep.into_iter().peekable();
    items
        .into_iter()
        .enumerate()
        .filter_map(|(i, item)| (keep.next_if_eq(&i).is_some()).then_some(item))
        .collect()
}

impl Value {
    /// A set of `items` as go-cty makes it: wholly known duplicates dropped (first occurrence
    /// kept), every element holding an unknown kept.
    pub fn set_of(items: Vec<Value>) -> Value {
        Value::Set(dedup_set(items))
    }

    /// go-cty's `Equals(...).True()`: both wholly known and equal (an unknown is never equal
    /// to anything, not even to an identical unknown), or both null whatever their types.
    /// A set merges two elements only if they are also hashed alike (`0` and `-0` are
    /// `Equals` but two elements).
    pub fn cty_equals(&self, other: &Value) -> bool {
        let null = |v: &Value| {
            matches!(v, Value::Null) || matches!(v, Value::Dynamic(_, inner) if inner.is_null())
        };
        if null(self) || null(other) {
            return null(self) && null(other);
        }
        self.is_wholly_known() && other.is_wholly_known() && self == other
    }

    /// A plain unknown.
    pub fn unknown() -> Value {
        static PLAIN: LazyLock<Arc<Refinement>> = LazyLock::new(Arc::default);
        Value::Unknown(Arc::clone(&PLAIN))
    }

    /// An unknown with these refinements (the shared plain one when there are none).
    pub fn refined(refinement: Refinement) -> Value {
        if refinement.is_empty() {
            Value::unknown()
        } else {
            Value::Unknown(Arc::new(refinement))
        }
    }

    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True when this value itself is unknown (its parts are not inspected).
    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// The path of the first unknown inside this value (the value itself included), in
    /// order: where a result that must be wholly known is not.
    pub fn first_unknown(&self) -> Option<crate::AttributePath> {
        fn walk(value: &Value, path: &crate::PathRef<'_>) -> Option<crate::AttributePath> {
            match value {
                Value::Unknown(_) => Some(crate::ToPath::to_path(path)),
                Value::List(items) | Value::Tuple(items) | Value::Set(items) => (items.iter())
                    .enumerate()
                    .find_map(|(i, item)| walk(item, &path.index(i as i64))),
                Value::Object(entries) => entries.iter().find_map(|(k, v)| walk(v, &path.attr(k))),
                Value::Map(entries) => entries.iter().find_map(|(k, v)| walk(v, &path.key(k))),
                Value::Dynamic(_, inner) => walk(inner, path),
                _ => None,
            }
        }
        walk(self, &crate::PathRef::Root)
    }

    /// True when neither the value nor anything inside it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Value::Unknown(_) => false,
            Value::List(v) | Value::Set(v) | Value::Tuple(v) => {
                v.iter().all(Value::is_wholly_known)
            }
            Value::Map(m) => m.values().all(Value::is_wholly_known),
            Value::Object(m) => m.values().all(Value::is_wholly_known),
            Value::Dynamic(_, v) => v.is_wholly_known(),
            _ => true,
        }
    }

    /// The attribute `name` of an object (or the element `name` of a map).
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(name),
            Value::Map(m) => m.get(name),
            Value::Dynamic(_, v) => v.get(name),
            _ => None,
        }
    }

    /// Mutable access to an object attribute or map element.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        match self {
            Value::Object(m) => m.get_mut(name),
            Value::Map(m) => m.get_mut(name),
            Value::Dynamic(_, v) => v.get_mut(name),
            _ => None,
        }
    }

    /// Sets an object attribute (or map element). Returns false if `self` is not an object or map.
    pub fn set(&mut self, name: &str, value: Value) -> bool {
        match self {
            Value::Object(m) => {
                m.insert(Name::new(name), value);
                true
            }
            Value::Map(m) => {
                m.insert(Name::new(name), value);
                true
            }
            _ => false,
        }
    }

    /// The string, when this is a known string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            Value::Dynamic(_, v) => v.as_str(),
            _ => None,
        }
    }

    /// The boolean, when this is a known bool.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            Value::Dynamic(_, v) => v.as_bool(),
            _ => None,
        }
    }

    /// The number, when this is a known number.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            Value::Dynamic(_, v) => v.as_number(),
            _ => None,
        }
    }

    /// The number as `i64`, when it is a known integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::to_i64)
    }

    /// Elements of a list, set or tuple.
    pub fn as_elements(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) | Value::Set(v) | Value::Tuple(v) => Some(v),
            Value::Dynamic(_, v) => v.as_elements(),
            _ => None,
        }
    }

    /// Entries of a map or object, keyed by [`Name`].
    pub fn as_entries(&self) -> Option<crate::Entries<'_>> {
        match self {
            Value::Map(m) => Some(crate::Entries::Map(m)),
            Value::Object(m) => Some(crate::Entries::Object(m)),
            Value::Dynamic(_, v) => v.as_entries(),
            _ => None,
        }
    }

    /// An object value from `(name, value)` pairs.
    pub fn object<I: IntoIterator<Item = (S, Value)>, S: Into<Name>>(attrs: I) -> Value {
        Value::Object(attrs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The value at `path` (attribute names, map keys, list/tuple indexes; sets have no
    /// addressable elements). `None` when the path leads nowhere.
    pub fn get_path(&self, path: &crate::AttributePath) -> Option<&Value> {
        use crate::PathStep;
        let mut here = self;
        for step in &path.0 {
            if let Value::Dynamic(_, inner) = here {
                here = inner;
            }
            here = match (step, here) {
                (PathStep::Attribute(n), Value::Object(m)) => m.get(n.as_str())?,
                (PathStep::KeyString(k), Value::Map(m)) => m.get(k.as_str())?,
                (PathStep::KeyInt(i), Value::List(v) | Value::Tuple(v)) => {
                    v.get(usize::try_from(*i).ok()?)?
                }
                _ => return None,
            };
        }
        Some(here)
    }

    /// Replaces the value at `path` (which must exist, as for [`Value::get_path`]); returns
    /// false when the path leads nowhere.
    pub fn set_path(&mut self, path: &crate::AttributePath, value: Value) -> bool {
        use crate::PathStep;
        let mut here = self;
        for step in &path.0 {
            if let Value::Dynamic(_, inner) = here {
                here = inner;
            }
            let next = match (step, here) {
                (PathStep::Attribute(n), Value::Object(m)) => m.get_mut(n.as_str()),
                (PathStep::KeyString(k), Value::Map(m)) => m.get_mut(k.as_str()),
                (PathStep::KeyInt(i), Value::List(v) | Value::Tuple(v)) => {
                    usize::try_from(*i).ok().and_then(|i| v.get_mut(i))
                }
                _ => None,
            };
            match next {
                Some(v) => here = v,
                None => return false,
            }
        }
        *here = value;
        true
    }

    /// The type go-cty gives this value when it is decoded as `declared`: `dynamic` slots
    /// take the type their value carries (null and unknown ones stay `dynamic`), collections
    /// the type of their first element whose type is not plain `dynamic`.
    pub fn concrete_type(&self, declared: &Type) -> Type {
        self.concrete_type_by(declared, &Type::has_dynamic)
            .into_owned()
    }

    /// [`Value::concrete_type`], asking `has_dynamic` whether a type holds `dynamic` (a
    /// decoder answers from an index built once, not by walking the type again), and
    /// borrowing `declared` wherever the value makes nothing more concrete: an empty list or a
    /// null under a wide element type costs nothing, where it cost a copy of that type.
    pub(crate) fn concrete_type_by<'t>(
        &self,
        declared: &'t Type,
        has_dynamic: &dyn Fn(&Type) -> bool,
    ) -> std::borrow::Cow<'t, Type> {
        use std::borrow::Cow;
        let same =
            |c: &Cow<'_, Type>, t: &Type| matches!(c, Cow::Borrowed(b) if std::ptr::eq(*b, t));
        match (declared, self) {
            (Type::Dynamic, Value::Dynamic(t, _)) => Cow::Owned(t.clone()),
            (Type::List(e) | Type::Set(e) | Type::Map(e), _) if !has_dynamic(e) => {
                Cow::Borrowed(declared)
            }
            (Type::List(e), Value::List(items)) | (Type::Set(e), Value::Set(items)) => {
                let c = first_concrete(items.iter(), e, has_dynamic);
                if same(&c, e) {
                    Cow::Borrowed(declared)
                } else if matches!(declared, Type::List(_)) {
                    Cow::Owned(Type::list(c.into_owned()))
                } else {
                    Cow::Owned(Type::set(c.into_owned()))
                }
            }
            (Type::Map(e), Value::Map(m)) => {
                let c = first_concrete(m.values(), e, has_dynamic);
                if same(&c, e) {
                    Cow::Borrowed(declared)
                } else {
                    Cow::Owned(Type::map(c.into_owned()))
                }
            }
            (Type::Object(attrs), Value::Object(m)) => {
                let types: Vec<(&String, Cow<'t, Type>)> = attrs
                    .iter()
                    .map(|(k, t)| {
                        let v = m.get(k.as_str()).unwrap_or(&Value::Null);
                        (k, v.concrete_type_by(t, has_dynamic))
                    })
                    .collect();
                if types
                    .iter()
                    .zip(attrs.values())
                    .all(|((_, c), t)| same(c, t))
                {
                    return Cow::Borrowed(declared);
                }
                Cow::Owned(Type::Object(
                    types
                        .into_iter()
                        .map(|(k, c)| (k.clone(), c.into_owned()))
                        .collect(),
                ))
            }
            (Type::Tuple(elems), Value::Tuple(items)) => {
                let types: Vec<Cow<'t, Type>> = elems
                    .iter()
                    .zip(items)
                    .map(|(t, v)| v.concrete_type_by(t, has_dynamic))
                    .collect();
                if types.iter().zip(elems).all(|(c, t)| same(c, t)) {
                    return Cow::Borrowed(declared);
                }
                Cow::Owned(Type::Tuple(
                    types.into_iter().map(Cow::into_owned).collect(),
                ))
            }
            _ => Cow::Borrowed(declared),
        }
    }

    /// A null-filled object of the given object type (the "all attributes null" value core
    /// uses as a synthetic prior on create). Other types give [`Value::Null`].
    pub fn null_object_of(ty: &Type) -> Value {
        match ty {
            Type::Object(attrs) => {
                Value::Object(attrs.keys().map(|k| (Name::new(k), Value::Null)).collect())
            }
            _ => Value::Null,
        }
    }
}

/// The type of a collection's elements as go-cty infers it: the first that is not plain
/// `dynamic`; `dynamic` when every element's is; the declared one when there are none.
fn first_concrete<'a, 't>(
    mut items: impl Iterator<Item = &'a Value>,
    declared: &'t Type,
    has_dynamic: &dyn Fn(&Type) -> bool,
) -> std::borrow::Cow<'t, Type> {
    let mut any = false;
    let found = items.find_map(|v| {
        any = true;
        let t = v.concrete_type_by(declared, has_dynamic);
        (!matches!(*t, Type::Dynamic)).then_some(t)
    });
    match found {
        Some(t) => t,
        None if any => std::borrow::Cow::Owned(Type::Dynamic),
        None => std::borrow::Cow::Borrowed(declared),
    }
}

impl Default for Value {
    /// Null.
    fn default() -> Value {
        Value::Null
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}
impl From<Vec<Value>> for Value {
    /// A list.
    fn from(items: Vec<Value>) -> Value {
        Value::List(items)
    }
}
impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Set elements compared so far on this thread, to hold set equality to its cost.
        pub(super) static COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn hash_known_tells_what_is_wholly_known_says() {
        let values = [
            Value::Null,
            Value::unknown(),
            Value::from("a"),
            Value::List(vec![Value::from(1), Value::unknown()]),
            Value::Set(vec![Value::from(1), Value::List(vec![Value::unknown()])]),
            Value::object([("a", Value::from(true)), ("b", Value::Set(vec![]))]),
            Value::object([(
                "a",
                Value::Map(BTreeMap::from([("k".into(), Value::unknown())])),
            )]),
            Value::Dynamic(Type::String, Box::new(Value::unknown())),
            Value::Dynamic(Type::String, Box::new(Value::from("x"))),
        ];
        for v in values {
            let mut h = value_hasher();
            assert_eq!(v.hash_known(&mut h), v.is_wholly_known(), "{v:?}");
        }
    }

    #[test]
    fn plain_unknowns_share_one_refinement_and_refined_ones_keep_theirs() {
        let (Value::Unknown(a), Value::Unknown(b)) = (Value::unknown(), Value::unknown()) else {
            panic!()
        };
        assert!(Arc::ptr_eq(&a, &b));
        let Value::Unknown(plain) = Value::refined(Refinement::default()) else {
            panic!()
        };
        assert!(Arc::ptr_eq(&a, &plain));
        let refined = Refinement {
            not_null: true,
            ..Refinement::default()
        };
        assert_eq!(
            Value::refined(refined.clone()),
            Value::Unknown(Arc::new(refined))
        );
    }

    /// Every list element and object attribute is a `Value` slot: an unknown's refinement
    /// held inline made each one 160 bytes, and plans of 10,000 blocks moved and allocated
    /// three times the memory they needed.
    #[test]
    fn a_value_slot_stays_small() {
        assert!(
            std::mem::size_of::<Value>() <= 48,
            "{} bytes",
            std::mem::size_of::<Value>()
        );
    }

    #[test]
    fn the_first_unknown_is_found_by_its_path() {
        let v = Value::object([
            ("a", Value::from("x")),
            (
                "b",
                Value::List(vec![
                    Value::Null,
                    Value::Map([("k".into(), Value::unknown())].into()),
                ]),
            ),
            ("c", Value::unknown()),
        ]);
        assert_eq!(v.first_unknown(), Some("b[1][\"k\"]".parse().unwrap()));
        assert_eq!(
            Value::unknown().first_unknown(),
            Some(crate::AttributePath::root())
        );
        assert_eq!(Value::from("x").first_unknown(), None);
    }

    /// How many set elements `work` compares.
    fn comparisons(work: impl FnOnce()) -> u64 {
        COMPARISONS.with(|n| n.set(0));
        work();
        COMPARISONS.with(|n| n.get())
    }

    /// One string inside `depth` nested one-element sets, with its type.
    fn chain(depth: usize) -> (Value, Type) {
        let mut value = Value::from("s");
        let mut ty = Type::String;
        for _ in 0..depth {
            value = Value::Set(vec![value]);
            ty = Type::Set(Box::new(ty));
        }
        (value, ty)
    }

    #[test]
    fn nested_sets_compare_in_one_pass_however_deep() {
        let (value, ty) = chain(120);
        let same = value.clone();
        assert_eq!(comparisons(|| assert_eq!(value, same)), 120);
        let (other, _) = chain(118);
        let other = Value::Set(vec![Value::Set(vec![other])]);
        assert_eq!(value, other);

        // The 61-byte attack: a set holding the same chain twice, which decoding dedups.
        let one = crate::codec::msgpack::encode(&value, &ty).unwrap();
        let mut twice = vec![0x92];
        twice.extend(&one);
        twice.extend(&one);
        let set_ty = Type::Set(Box::new(ty));
        let mut decoded = None;
        let n = comparisons(|| decoded = crate::codec::msgpack::decode(&twice, &set_ty).ok());
        assert_eq!(decoded, Some(Value::Set(vec![value])));
        assert!(n <= 2 * 121, "{n} comparisons");
    }

    #[test]
    fn repeated_unknown_holding_elements_are_compared_once_each() {
        // Every level holds its child twice (the child holds an unknown, so both stay): the
        // value has 2^depth leaves, and equality must not cost more than one comparison each.
        let mut value = Value::unknown();
        for _ in 0..12 {
            value = Value::Set(vec![value.clone(), value]);
        }
        let same = value.clone();
        let n = comparisons(|| assert_eq!(value, same));
        assert!(n < 2 << 12, "{n} comparisons for {} elements", 2 << 12);
    }

    /// The seventh hostile pass: `L(k) = {[L(k-1), 0], [L(k-1), -0]}`, two elements alike but
    /// for the sign of a zero at every level. Asking for the hash text of each level's sets
    /// from inside equality took 14 s for 31 KB.
    #[test]
    fn signed_zeros_at_every_level_cost_one_pass() {
        let zero = Value::from(0);
        let negative = Value::Number(Number::from_f64(-0.0).unwrap());
        let build = || {
            let mut value = Value::Set(vec![Value::from(1)]);
            for _ in 0..12 {
                let pair = |z: &Value| Value::Tuple(vec![value.clone(), z.clone()]);
                // As a decoder builds it: deduplicated level by level.
                value = Value::set_of(vec![pair(&zero), pair(&negative)]);
            }
            value
        };
        let mut value = Value::Null;
        let n = comparisons(|| value = build());
        assert!(n < 64, "{n} comparisons to build 12 levels");
        let Value::Set(top) = &value else {
            panic!("not a set")
        };
        assert_eq!(top.len(), 2, "0 and -0 stay two elements");
        let same = build();
        let n = comparisons(|| assert!(value == same));
        // 2^13 elements in all, each compared once.
        assert!(n < 2 << 13, "{n} comparisons");
    }

    /// Also the seventh pass: elements that differ only by the signs of their zeros are
    /// distinct set elements though equal numbers; hashed alike, they shared one bucket.
    #[test]
    fn elements_differing_only_in_signed_zeros_hash_apart() {
        let negative = Value::Number(Number::from_f64(-0.0).unwrap());
        let element = |bits: u32| {
            Value::List(
                (0..12)
                    .map(|b| {
                        if bits >> b & 1 == 1 {
                            negative.clone()
                        } else {
                            Value::from(0)
                        }
                    })
                    .collect(),
            )
        };
        let forward: Vec<Value> = (0..4096).map(element).collect();
        let mut n = comparisons(|| assert_eq!(dedup_set(forward.clone()).len(), 4096));
        let mut backward = forward.clone();
        backward.reverse();
        n += comparisons(|| assert_eq!(Value::Set(forward), Value::Set(backward)));
        assert!(n < 3 * 4096, "{n} comparisons");
    }

    #[test]
    fn differently_refined_unknowns_hash_apart() {
        let refined = |prefix: &str| {
            Value::refined(Refinement {
                string_prefix: Some(prefix.into()),
                ..Refinement::default()
            })
        };
        assert_ne!(hash_of(&refined("a")), hash_of(&refined("b")));
        assert_eq!(hash_of(&refined("a")), hash_of(&refined("a")));
        let forward: Vec<Value> = (0..2000).map(|i| refined(&i.to_string())).collect();
        let mut backward = forward.clone();
        backward.reverse();
        let n = comparisons(|| assert_eq!(Value::Set(forward), Value::Set(backward)));
        assert!(
            n < 4000,
            "{n} comparisons: one bucket for every unknown is quadratic"
        );
    }

    fn rule(port: i64, name: &str) -> Value {
        Value::object([("port", Value::from(port)), ("name", Value::from(name))])
    }

    #[test]
    fn large_sets_compare_and_dedup_by_hash_as_small_ones_do() {
        let forward: Vec<Value> = (0..100).map(|i| rule(i, "r")).collect();
        let mut backward = forward.clone();
        backward.reverse();
        assert_eq!(Value::Set(forward.clone()), Value::Set(backward.clone()));
        assert_eq!(
            hash_of(&Value::Set(forward.clone())),
            hash_of(&Value::Set(backward))
        );
        let mut other = forward.clone();
        other[50] = rule(50, "changed");
        assert_ne!(Value::Set(forward.clone()), Value::Set(other));

        let mut doubled = forward.clone();
        doubled.extend(forward.iter().cloned());
        doubled.push(rule(7, "r"));
        assert_eq!(dedup_set(doubled), forward, "first occurrences, in order");
        // Sets inside sets.
        let nested = |order: &[i64]| {
            Value::Set(
                order
                    .iter()
                    .map(|i| Value::Set((0..20).map(|j| rule(i * 100 + j, "n")).collect()))
                    .collect(),
            )
        };
        assert_eq!(nested(&[1, 2, 3]), nested(&[3, 1, 2]));
    }

    /// go-cty keeps every set element that holds an unknown: two policy statements whose
    /// `sid`s come from resources not yet created are two statements, not one.
    #[test]
    fn set_elements_holding_unknowns_are_never_merged() {
        let statement = |sid: Value| Value::object([("sid", sid), ("actions", "s3:Get".into())]);
        for n in [2, 3, SMALL_SET + 5] {
            let mut items: Vec<Value> = (0..n).map(|_| statement(Value::unknown())).collect();
            items.push(Value::unknown());
            items.push(Value::unknown());
            items.push(statement("a".into()));
            items.push(statement("a".into()));
            let set = Value::set_of(items);
            assert_eq!(
                set.as_elements().map(<[Value]>::len),
                Some(n + 3),
                "{n} unknown statements, two unknowns, one known statement"
            );
        }
        // Known elements still merge, small and large, nested sets included.
        let nested = |i: i64| Value::Set(vec![Value::from(i), Value::from(i + 1)]);
        let large: Vec<Value> = (0..40).map(|i| nested(i % 20)).collect();
        assert_eq!(dedup_set(large).len(), 20);
    }

    #[test]
    fn sets_with_repeated_unknowns_compare_as_multisets() {
        let u = Value::unknown;
        let k = || Value::from("k");
        assert_eq!(Value::Set(vec![u(), k()]), Value::Set(vec![k(), u()]));
        assert_ne!(Value::Set(vec![u(), u()]), Value::Set(vec![u(), k()]));
        assert_ne!(Value::Set(vec![u(), k()]), Value::Set(vec![u(), u()]));
        let many = |unknowns: usize, knowns: i64| {
            let mut v: Vec<Value> = (0..unknowns).map(|_| u()).collect();
            v.extend((0..knowns).map(Value::from));
            Value::Set(v)
        };
        assert_eq!(many(10, 20), many(10, 20));
        assert_ne!(many(11, 19), many(10, 20));
        assert_eq!(hash_of(&many(10, 20)), hash_of(&many(10, 20)));
    }

    #[test]
    fn set_equivalence_needs_wholly_known_equal_values() {
        let known = Value::object([("a", Value::from(1))]);
        let holding_unknown = Value::object([("a", Value::unknown())]);
        assert!(known.cty_equals(&known.clone()));
        assert!(!holding_unknown.cty_equals(&holding_unknown.clone()));
        assert_eq!(holding_unknown, holding_unknown.clone(), "yet raw-equal");
        assert!(!Value::unknown().cty_equals(&Value::unknown()));
        assert!(Value::Null.cty_equals(&Value::Null));
    }

    #[test]
    fn equal_numbers_hash_alike() {
        let one: Number = "1".parse().unwrap();
        let one_point_zero: Number = "1.0".parse().unwrap();
        assert_eq!(one, one_point_zero);
        assert_eq!(
            hash_of(&Value::Number(one)),
            hash_of(&Value::Number(one_point_zero))
        );
    }

    #[test]
    fn paths_get_and_set() {
        let mut v = Value::object([
            (
                "rules",
                Value::List(vec![Value::object([("port", Value::from(80))])]),
            ),
            (
                "tags",
                Value::Map([("env".into(), Value::from("dev"))].into()),
            ),
        ]);
        let port: crate::AttributePath = "rules[0].port".parse().unwrap();
        assert_eq!(v.get_path(&port), Some(&Value::from(80)));
        assert!(v.set_path(&port, 443.into()));
        assert_eq!(v.get_path(&port), Some(&Value::from(443)));
        let env: crate::AttributePath = r#"tags["env"]"#.parse().unwrap();
        assert_eq!(v.get_path(&env).and_then(Value::as_str), Some("dev"));
        assert!(!v.set_path(&"rules[3].port".parse().unwrap(), Value::Null));
        assert_eq!(v.get_path(&"nope".parse().unwrap()), None);
    }

    #[test]
    fn set_equality_ignores_order() {
        let a = Value::Set(vec!["x".into(), "y".into()]);
        let b = Value::Set(vec!["y".into(), "x".into()]);
        assert_eq!(a, b);
        assert_ne!(a, Value::List(vec!["x".into(), "y".into()]));
    }

    #[test]
    fn wholly_known_looks_inside() {
        let v = Value::object([("a", Value::List(vec![Value::unknown()]))]);
        assert!(!v.is_wholly_known());
        assert!(!v.is_unknown());
        assert!(Value::object([("a", Value::Null)]).is_wholly_known());
    }
}
