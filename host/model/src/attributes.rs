//! An object's attributes: one vector sorted by name.
//!
//! An object's attribute names are fixed by its type, and go-cty writes them in name order,
//! so a decoder only pushes, a copy is one allocation, and a lookup is a binary search over
//! contiguous names. A `BTreeMap` held them before: building, searching, copying and freeing
//! its nodes was a third of the SDK's plan of a 20-value resource (issue 37's profiles), and
//! more in a guest, whose allocator and `memcmp` are slower. Maps keep their `BTreeMap`: a
//! map's keys are data, and one built key by key out of order must not cost a shift each.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Index;

use crate::compare::{compare_names, same_name};
use crate::{Name, Value};

/// An object's attributes, sorted by name, each name once. Its API is the part of
/// `BTreeMap<Name, Value>`'s that objects use, and iterates in the same order.
#[derive(Clone, Default, Eq)]
pub struct Attributes(Vec<(Name, Value)>);

/// Names compared without `memcmp` ([`crate::compare`]), in step: both are in name order.
impl PartialEq for Attributes {
    fn eq(&self, other: &Attributes) -> bool {
        self.len() == other.len()
            && (self.0.iter().zip(&other.0)).all(|((k, v), (l, w))| same_name(k, l) && v == w)
    }
}

/// Name order, compared without `memcmp`.
fn by_name(a: &(Name, Value), b: &(Name, Value)) -> Ordering {
    compare_names(&a.0, &b.0)
}

/// True when `pairs` are in name order with no name twice.
fn ascending(pairs: &[(Name, Value)]) -> bool {
    pairs.windows(2).all(|w| by_name(&w[0], &w[1]).is_lt())
}

impl Attributes {
    /// No attributes.
    pub const fn new() -> Attributes {
        Attributes(Vec::new())
    }

    /// No attributes, with room for `n`.
    pub fn with_capacity(n: usize) -> Attributes {
        Attributes(Vec::with_capacity(n))
    }

    /// How many attributes there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| compare_names(k, name))
    }

    /// The attribute `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.find(name).ok().map(|i| &self.0[i].1)
    }

    /// The attribute `name`, to change in place.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.find(name).ok().map(|i| &mut self.0[i].1)
    }

    /// The attribute `name`, looked for first at `at`: where a value of the object's type holds
    /// it ([`Attributes::as_slice`]), so a caller that knows the type (the SDK's planner) pays
    /// one name comparison, not a search. A wrong `at` only costs the search.
    pub fn get_at(&self, at: usize, name: &str) -> Option<&Value> {
        match self.0.get(at) {
            Some((held, value)) if same_name(held, name) => Some(value),
            _ => self.get(name),
        }
    }

    /// [`Attributes::get_at`], to change in place.
    pub fn get_at_mut(&mut self, at: usize, name: &str) -> Option<&mut Value> {
        if (self.0.get(at)).is_some_and(|(held, _)| same_name(held, name)) {
            return Some(&mut self.0[at].1);
        }
        self.get_mut(name)
    }

    /// Sets the attribute `name`, in place when `at` holds it ([`Attributes::get_at`]).
    pub fn set_at(&mut self, at: usize, name: &str, value: Value) {
        match self.get_at_mut(at, name) {
            Some(held) => *held = value,
            None => {
                self.insert(Name::new(name), value);
            }
        }
    }

    /// The attribute `name` with its name.
    pub fn get_key_value(&self, name: &str) -> Option<(&Name, &Value)> {
        self.find(name).ok().map(|i| (&self.0[i].0, &self.0[i].1))
    }

    /// True when there is an attribute `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets the attribute `name`, returning the value it replaces. A name after every one
    /// held is appended; one in the middle shifts the rest, which objects (a type's few names,
    /// set one by one) can afford.
    pub fn insert(&mut self, name: Name, value: Value) -> Option<Value> {
        if (self.0.last()).is_none_or(|(last, _)| compare_names(last, &name).is_lt()) {
            self.0.push((name, value));
            return None;
        }
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (name, value));
                None
            }
        }
    }

    /// Removes the attribute `name`, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.find(name).ok().map(|i| self.0.remove(i).1)
    }

    /// Keeps only the attributes `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&Name, &mut Value) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }

    /// Names and values, in name order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.0.iter())
    }

    /// Names and values to change in place, in name order.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.0.iter_mut())
    }

    /// The names, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Name> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values, in name order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, v)| v)
    }

    /// The values to change in place, in name order.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// The values, in name order, taken.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.0.into_iter().map(|(_, v)| v)
    }

    /// The attributes as the sorted pairs they are held in: the `i`-th is the `i`-th of the
    /// object type's when the value has that type (both in name order).
    pub fn as_slice(&self) -> &[(Name, Value)] {
        &self.0
    }

    /// Appends an attribute the caller knows to be named after every one held (a decoder
    /// walking the type's names in order).
    pub(crate) fn push_last(&mut self, name: Name, value: Value) {
        debug_assert!((self.0.last()).is_none_or(|(last, _)| compare_names(last, &name).is_lt()));
        self.0.push((name, value));
    }
}

/// As `BTreeMap::from_iter`: in name order, and the last of two pairs of one name wins.
/// Pairs already in order (what code building an object from a schema or a type makes) are
/// only collected.
impl FromIterator<(Name, Value)> for Attributes {
    fn from_iter<I: IntoIterator<Item = (Name, Value)>>(pairs: I) -> Attributes {
        let mut attributes = Attributes(pairs.into_iter().collect());
        attributes.settle(0);
        attributes
    }
}

/// As `BTreeMap::extend`: a name already held takes the new value. Pairs in order after the
/// last name held are only appended, so extending one pair at a time in order costs no sort.
impl Extend<(Name, Value)> for Attributes {
    fn extend<I: IntoIterator<Item = (Name, Value)>>(&mut self, pairs: I) {
        // Settled on drop, so an iterator that panics half way leaves the order whole.
        let guard = Settle {
            held: self.0.len(),
            attributes: self,
        };
        guard.attributes.0.extend(pairs);
    }
}

/// Settles attributes extended past their first `held` when dropped, by a panic or not.
struct Settle<'a> {
    attributes: &'a mut Attributes,
    held: usize,
}

impl Drop for Settle<'_> {
    fn drop(&mut self) {
        self.attributes.settle(self.held);
    }
}

impl Attributes {
    /// Sorts by name and keeps the last of equal names (a stable sort keeps them in the order
    /// they came): one sort however many pairs came out of order. The first `held` are known
    /// to be in order, so pairs in order after them are only looked at.
    fn settle(&mut self, held: usize) {
        let pairs = &self.0;
        let after_held = held == 0
            || (pairs.get(held)).is_none_or(|first| by_name(&pairs[held - 1], first).is_lt());
        if after_held && ascending(&pairs[held..]) {
            return;
        }
        self.0.sort_by(by_name);
        self.0.dedup_by(|later, kept| {
            let same = same_name(&later.0, &kept.0);
            if same {
                std::mem::swap(&mut later.1, &mut kept.1);
            }
            same
        });
    }
}

impl<const N: usize> From<[(Name, Value); N]> for Attributes {
    fn from(pairs: [(Name, Value); N]) -> Attributes {
        pairs.into_iter().collect()
    }
}

impl fmt::Debug for Attributes {
    /// As a map, as `BTreeMap` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `attributes["name"]`; panics when there is no such attribute, as `BTreeMap` does.
impl Index<&str> for Attributes {
    type Output = Value;

    fn index(&self, name: &str) -> &Value {
        self.get(name)
            .unwrap_or_else(|| panic!("no attribute {name:?}"))
    }
}

/// Names and values, borrowed, in name order.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Name, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Name, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Names and values to change in place, in name order.
pub struct IterMut<'a>(std::slice::IterMut<'a, (Name, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Name, &'a mut Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IterMut<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&*k, v))
    }
}

impl ExactSizeIterator for IterMut<'_> {}

/// Names and values, taken, in name order.
pub struct IntoIter(std::vec::IntoIter<(Name, Value)>);

impl Iterator for IntoIter {
    type Item = (Name, Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IntoIter {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back()
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for Attributes {
    type Item = (Name, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter(self.0.into_iter())
    }
}

impl<'a> IntoIterator for &'a Attributes {
    type Item = (&'a Name, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Attributes {
    type Item = (&'a Name, &'a mut Value);
    type IntoIter = IterMut<'a>;

    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

/// A map's or an object's entries, borrowed, for code that reads either alike
/// ([`Value::as_entries`]).
#[derive(Clone, Copy, Debug)]
pub enum Entries<'a> {
    /// A map's, keyed by data.
    Map(&'a BTreeMap<Name, Value>),
    /// An object's, named by its type.
    Object(&'a Attributes),
}

impl<'a> Entries<'a> {
    /// No entries.
    pub const EMPTY: Entries<'static> = Entries::Object(&Attributes::new());

    /// The entry `name`.
    pub fn get(self, name: &str) -> Option<&'a Value> {
        match self {
            Entries::Map(m) => m.get(name),
            Entries::Object(o) => o.get(name),
        }
    }

    /// True when there is an entry `name`.
    pub fn contains_key(self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// How many entries there are.
    pub fn len(self) -> usize {
        match self {
            Entries::Map(m) => m.len(),
            Entries::Object(o) => o.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Keys and values, in key order.
    pub fn iter(self) -> EntriesIter<'a> {
        match self {
            Entries::Map(m) => EntriesIter::Map(m.iter()),
            Entries::Object(o) => EntriesIter::Object(o.iter()),
        }
    }

    /// The keys, in order.
    pub fn keys(self) -> impl Iterator<Item = &'a Name> + Clone {
        self.iter().map(|(k, _)| k)
    }

    /// The values, in key order.
    pub fn values(self) -> impl Iterator<Item = &'a Value> + Clone {
        self.iter().map(|(_, v)| v)
    }
}

impl<'a> IntoIterator for Entries<'a> {
    type Item = (&'a Name, &'a Value);
    type IntoIter = EntriesIter<'a>;

    fn into_iter(self) -> EntriesIter<'a> {
        self.iter()
    }
}

/// `entries["key"]`; panics when there is no such entry.
impl Index<&str> for Entries<'_> {
    type Output = Value;

    fn index(&self, name: &str) -> &Value {
        self.get(name)
            .unwrap_or_else(|| panic!("no entry {name:?}"))
    }
}

/// A map's or an object's keys and values ([`Entries::iter`]).
#[derive(Clone)]
pub enum EntriesIter<'a> {
    /// A map's.
    Map(std::collections::btree_map::Iter<'a, Name, Value>),
    /// An object's.
    Object(Iter<'a>),
}

impl<'a> Iterator for EntriesIter<'a> {
    type Item = (&'a Name, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            EntriesIter::Map(i) => i.next(),
            EntriesIter::Object(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            EntriesIter::Map(i) => i.size_hint(),
            EntriesIter::Object(i) => i.size_hint(),
        }
    }
}

impl ExactSizeIterator for EntriesIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(names: &[&str]) -> Vec<(Name, Value)> {
        (names.iter().enumerate())
            .map(|(i, n)| (Name::new(n), Value::from(i as i64)))
            .collect()
    }

    /// Whatever order pairs come in, and however often a name repeats, the attributes are
    /// what a `BTreeMap` collects from the same pairs, in the same order.
    #[test]
    fn collecting_agrees_with_a_btreemap() {
        let orders: [&[&str]; 9] = [
            &[],
            &["a", "b", "c"],
            // After the names extended below, in order: appended; then out of order.
            &["n", "o", "z"],
            &["n", "z", "o"],
            &["m", "n"],
            &["c", "a", "b"],
            &["b", "a", "b", "a", "c", "b"],
            &[
                "z", "y", "x", "w", "v", "u", "t", "s", "r", "q", "p", "o", "n",
            ],
            &["same", "same", "same"],
        ];
        for names in orders {
            let attributes: Attributes = pairs(names).into_iter().collect();
            let map: BTreeMap<Name, Value> = pairs(names).into_iter().collect();
            let ours: Vec<_> = attributes.iter().collect();
            let theirs: Vec<_> = map.iter().collect();
            assert_eq!(ours, theirs, "{names:?}");
            for (name, value) in &map {
                assert_eq!(attributes.get(name), Some(value), "{names:?}: {name}");
            }
            assert_eq!(attributes.get("absent"), None);

            let mut extended = Attributes::from(
                [("b", 100), ("m", 101)].map(|(n, i)| (Name::new(n), Value::from(i))),
            );
            extended.extend(pairs(names));
            let mut map_extended: BTreeMap<Name, Value> = [("b", 100), ("m", 101)]
                .map(|(n, i)| (Name::new(n), Value::from(i)))
                .into();
            map_extended.extend(pairs(names));
            assert!(extended.iter().eq(map_extended.iter()), "{names:?}");
        }
    }

    /// An iterator that panics half way through an extend leaves what it gave in order.
    #[test]
    fn an_extend_cut_short_by_a_panic_keeps_the_order() {
        let mut attributes = Attributes::from([(Name::new("m"), Value::from(0))]);
        let given = pairs(&["z", "a", "m"]).into_iter();
        let cut = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            attributes.extend(given.chain(std::iter::from_fn(|| panic!("cut short"))));
        }));
        assert!(cut.is_err());
        let names: Vec<_> = attributes.keys().map(Name::as_str).collect();
        assert_eq!(names, ["a", "m", "z"]);
        assert_eq!(attributes.get("a"), Some(&Value::from(1)));
        assert_eq!(
            attributes.get("m"),
            Some(&Value::from(2)),
            "the last of a name wins"
        );
    }

    #[test]
    fn inserting_and_removing_keep_the_order_and_one_of_each_name() {
        let mut attributes = Attributes::new();
        let mut map = BTreeMap::new();
        for (i, name) in ["m", "c", "x", "c", "a", "z", "m"].into_iter().enumerate() {
            let value = Value::from(i as i64);
            assert_eq!(
                attributes.insert(Name::new(name), value.clone()),
                map.insert(Name::new(name), value),
                "{name}"
            );
            assert!(attributes.iter().eq(map.iter()));
        }
        assert_eq!(attributes.remove("c"), map.remove("c"));
        assert_eq!(attributes.remove("c"), None);
        assert!(attributes.iter().eq(map.iter()));
        attributes.retain(|k, _| k != "x");
        map.retain(|k, _| k != "x");
        assert!(attributes.iter().eq(map.iter()));
        assert!(attributes.keys().eq(map.keys()));
        assert!(attributes.values().rev().eq(map.values().rev()));
        assert_eq!(format!("{attributes:?}"), format!("{map:?}"));
    }
}
