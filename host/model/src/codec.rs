//! Wire codecs for values: msgpack (what DynamicValue carries) and JSON (what RawState
//! carries). Both are driven by the [`Type`](crate::Type) the value must have, as go-cty's are.

pub mod json;
pub mod msgpack;
pub mod redact;

use std::fmt;

use crate::{AttributePath, Type, Value};

/// Deepest nesting a decoder accepts, so hostile input cannot exhaust the stack.
pub const MAX_DEPTH: usize = 128;

/// A value could not be decoded or encoded; says where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CodecError {
    /// Where in the value the problem is.
    pub path: AttributePath,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}

impl CodecError {
    pub(crate) fn new(path: &impl crate::ToPath, message: impl Into<String>) -> CodecError {
        CodecError {
            path: path.to_path(),
            message: message.into(),
        }
    }
}

/// The error for a tuple of the wrong length (both codecs word it as go-cty does).
pub(crate) fn tuple_length(path: &impl crate::ToPath, required: usize, given: usize) -> CodecError {
    CodecError::new(
        path,
        format!("a tuple of {required} elements is required ({given} given)"),
    )
}

/// A short name of what a value is, for "expected X, found Y" messages.
pub(crate) fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Unknown(_) => "unknown",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "list",
        Value::Set(_) => "set",
        Value::Map(_) => "map",
        Value::Object(_) => "object",
        Value::Tuple(_) => "tuple",
        Value::Dynamic(..) => "dynamic value",
    }
}

/// The type a primitive value in a `dynamic` slot is taken to have when the author did
/// not wrap it in [`Value::Dynamic`].
pub(crate) fn inferred_primitive_type(value: &Value) -> Option<Type> {
    match value {
        Value::String(_) => Some(Type::String),
        Value::Number(_) => Some(Type::Number),
        Value::Bool(_) => Some(Type::Bool),
        _ => None,
    }
}

/// A string as go-cty holds it: in Unicode normalization form C (`cty.StringVal`
/// normalizes every string and map key that enters it, so "e\u{301}" and "\u{e9}" are one
/// string to Terraform).
///
/// Without the `unicode` feature (guests) strings are kept as they come: those a guest decodes
/// are what Terraform sent, normalized already.
pub(crate) fn normalized(s: String) -> String {
    #[cfg(feature = "unicode")]
    {
        use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
        if !s.is_ascii() && is_nfc_quick(s.chars()) != IsNormalized::Yes {
            return s.nfc().collect();
        }
    }
    s
}

/// A map key as go-cty holds it (NFC), as a [`crate::Name`]: a key already normalized (every
/// ASCII key is) and of at most 23 bytes is copied from the message without allocating.
pub(crate) fn normalized_name(s: &str) -> crate::Name {
    #[cfg(feature = "unicode")]
    {
        use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
        if !s.is_ascii() && is_nfc_quick(s.chars()) != IsNormalized::Yes {
            return s.nfc().collect();
        }
    }
    crate::Name::new(s)
}

/// A refinement's string prefix as go-cty writes it: at most 256 bytes. A longer one is cut
/// before its last whole character, which a following character could still change
/// (go-cty's `SafeKnownPrefix` drops the last grapheme cluster); a cut ending in punctuation
/// or a space keeps it.
pub(crate) fn safe_prefix(prefix: &str) -> &str {
    const MAX: usize = 256;
    if prefix.len() <= MAX {
        return prefix;
    }
    let mut end = MAX - 1;
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &prefix[..end];
    match cut.chars().next_back() {
        Some(c) if "-_:;/\\,.(){}[]|?!~ \t@#$%^&*+\"'".contains(c) => cut,
        Some(c) => &cut[..cut.len() - c.len_utf8()],
        None => cut,
    }
}

/// go-cty builds a list, set or map only from elements of one type (`cty.ListVal` panics
/// otherwise, and a client with it): where the element type holds `dynamic`, each element's
/// concrete type must be the first's, an element of plain `dynamic` type (null or unknown)
/// aside. Such an element then takes the collection's element type, as it does in go-cty
/// (a null in a `list(dynamic)` of strings is a null string, and is written as one).
///
/// `has_dynamic` answers whether a type holds `dynamic`; the msgpack decoder answers from a
/// [`DynamicIndex`]. A null or unknown element's type is the declared one, borrowed: walking
/// or copying a wide element type for each of many one-byte elements was schema × value.
pub(crate) fn element_types<'a>(
    items: impl Iterator<Item = &'a mut Value>,
    elem: &Type,
    kind: &str,
    path: &impl crate::ToPath,
    has_dynamic: &dyn Fn(&Type) -> bool,
    expand: &mut usize,
) -> Result<(), CodecError> {
    use std::borrow::Cow;
    if !has_dynamic(elem) {
        return Ok(());
    }
    let mut first: Option<Cow<'_, Type>> = None;
    let mut untyped: Vec<&mut Value> = Vec::new();
    for item in items {
        let ty = match item {
            Value::Null | Value::Unknown(_) => Cow::Borrowed(elem),
            _ => item.concrete_type_by(elem, has_dynamic),
        };
        if matches!(*ty, Type::Dynamic) {
            untyped.push(item);
            continue;
        }
        let same = |t: &Type| std::ptr::eq(t, &*ty) || *t == *ty;
        match &first {
            None => first = Some(ty),
            Some(t) if same(t) => {}
            Some(t) => {
                return Err(CodecError::new(
                    path,
                    format!("inconsistent {kind} element types ({t} then {ty})"),
                ));
            }
        }
    }
    if let Some(t) = first {
        // Each untyped element takes a copy of the type: one byte of null could be a copy
        // of a type of thousands of nodes (240 KB of them exhausted 4 GB) or of a megabyte
        // attribute name (90 KB of nulls took 1.6 GB), so the copies are charged to the
        // decode's budget of values it may add, by nodes and name bytes.
        let copies = type_weight(&t).saturating_mul(untyped.len());
        *expand = expand.checked_sub(copies).ok_or_else(|| {
            CodecError::new(
                path,
                format!(
                    "{} null or unknown {kind} elements would each hold a copy of the type \
                     {}, more than this value may add to what it holds",
                    untyped.len(),
                    crate::codec::quote_type(&t)
                ),
            )
        })?;
        for item in untyped {
            *item = Value::Dynamic(t.clone().into_owned(), Box::new(std::mem::take(item)));
        }
    }
    Ok(())
}

/// What copying a type costs, in units of a decode's budget: one per node, and one per 16
/// bytes of attribute name (a unit stands for a value of 48 bytes, so this over-counts).
pub(crate) fn type_weight(ty: &Type) -> usize {
    1 + match ty {
        Type::List(e) | Type::Set(e) | Type::Map(e) => type_weight(e),
        Type::Object(attrs) => (attrs.iter())
            .map(|(name, t)| name_weight(name) + type_weight(t))
            .sum(),
        Type::Tuple(elems) => elems.iter().map(type_weight).sum(),
        _ => 0,
    }
}

/// What copying an attribute name costs beyond its node, in budget units.
pub(crate) fn name_weight(name: &str) -> usize {
    name.len() / 16
}

/// A type as an error message quotes it: its start.
fn quote_type(ty: &Type) -> String {
    ty.quoted()
}

/// Whether each node of a type holds `dynamic`, found in one walk of the type: the decoder
/// asks it once per collection, and walking a wide element type each time was the type's
/// width times the number of collections (10 KB of empty lists under a 10,000-attribute
/// element type took 0.48 s). Only nodes at or below a collection's element are kept, the
/// only ones asked about, and only composite ones: a type without collections of objects,
/// tuples or collections (most resources) costs no entry, and no hashing, which was a sixth
/// of a small plan's decoding. Keyed by node
/// address, so it holds only types that outlive its use: the decode's own type, and a
/// dynamic value's type while that value is decoded.
#[derive(Default)]
pub(crate) struct DynamicIndex(
    crate::value::HashMap<*const Type, bool>,
    /// Type nodes walked, for tests that each is walked once.
    #[cfg(test)]
    std::cell::Cell<usize>,
);

impl DynamicIndex {
    /// Indexes every node of `ty` that lies in a collection's element.
    #[cfg(test)]
    pub fn add(&mut self, ty: &Type) -> bool {
        self.add_under(ty, false)
    }

    /// Indexes `elem`, a collection's element type, and every node below it, unless that
    /// was done: a decode indexes the element types of only the collections it meets, each
    /// once, so a resource whose collections hold strings walks no type at all (the walk of
    /// its whole type at every decode was 2 % of a guest's apply).
    pub fn add_element(&mut self, elem: &Type) {
        if composite(elem) && !self.0.contains_key(&(elem as *const Type)) {
            self.add_under(elem, true);
        }
    }

    fn add_under(&mut self, ty: &Type, in_element: bool) -> bool {
        // Indexed already, with everything below it: a nested collection met first (the
        // innermost finishes first) is not walked again by each collection around it.
        if in_element && let Some(&holds) = self.0.get(&(ty as *const Type)) {
            return holds;
        }
        #[cfg(test)]
        self.1.set(self.1.get() + 1);
        let holds = match ty {
            Type::Dynamic => true,
            Type::String | Type::Number | Type::Bool => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => self.add_under(e, true),
            Type::Object(attrs) => {
                (attrs.values()).fold(false, |any, t| self.add_under(t, in_element) | any)
            }
            Type::Tuple(elems) => {
                (elems.iter()).fold(false, |any, t| self.add_under(t, in_element) | any)
            }
        };
        // A primitive or `dynamic` node answers [`DynamicIndex::has`] at once without an
        // entry: a map or list of strings (tags, most collections) costs no table at all.
        if in_element && composite(ty) {
            self.0.insert(ty, holds);
        }
        holds
    }

    /// Forgets every node of `ty`, before it is dropped.
    pub fn remove(&mut self, ty: &Type) {
        self.0.remove(&(ty as *const Type));
        match ty {
            Type::List(e) | Type::Set(e) | Type::Map(e) => self.remove(e),
            Type::Object(attrs) => attrs.values().for_each(|t| self.remove(t)),
            Type::Tuple(elems) => elems.iter().for_each(|t| self.remove(t)),
            _ => {}
        }
    }

    /// Whether `ty` holds `dynamic`: from the index when it is indexed, else by walking it.
    pub fn has(&self, ty: &Type) -> bool {
        self.0
            .get(&(ty as *const Type))
            .copied()
            .unwrap_or_else(|| ty.has_dynamic())
    }
}

/// Whether a type node has nodes below it (a primitive or `dynamic` has none).
fn composite(ty: &Type) -> bool {
    !matches!(ty, Type::String | Type::Number | Type::Bool | Type::Dynamic)
}

/// A dynamic slot's value as go-cty holds it: with the concrete type of what it holds (the
/// type written beside it may still say `dynamic` inside, `["list","dynamic"]`), or plain
/// when that is `dynamic` itself (a null or unknown).
pub(crate) fn dynamic_value(ty: &Type, value: Value) -> Value {
    let concrete = value.concrete_type(ty);
    if matches!(concrete, Type::Dynamic) {
        return match value {
            Value::Dynamic(_, inner) => *inner,
            other => other,
        };
    }
    let value = retyped(value, ty, &concrete);
    Value::Dynamic(concrete, Box::new(value))
}

/// `value`, decoded as `declared`, as a value of its `concrete` type: the dynamic wrappers
/// where `declared` says `dynamic` and `concrete` does not come off.
fn retyped(value: Value, declared: &Type, concrete: &Type) -> Value {
    match (declared, concrete, value) {
        (Type::Dynamic, Type::Dynamic, v) => v,
        (Type::Dynamic, _, Value::Dynamic(_, inner)) => *inner,
        (Type::List(d), Type::List(c), Value::List(items)) => {
            Value::List(items.into_iter().map(|v| retyped(v, d, c)).collect())
        }
        (Type::Set(d), Type::Set(c), Value::Set(items)) => {
            Value::Set(items.into_iter().map(|v| retyped(v, d, c)).collect())
        }
        (Type::Map(d), Type::Map(c), Value::Map(m)) => {
            Value::Map(m.into_iter().map(|(k, v)| (k, retyped(v, d, c))).collect())
        }
        (Type::Object(d), Type::Object(c), Value::Object(m)) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let v = match (d.get(k.as_str()), c.get(k.as_str())) {
                        (Some(dt), Some(ct)) => retyped(v, dt, ct),
                        _ => v,
                    };
                    (k, v)
                })
                .collect(),
        ),
        (Type::Tuple(d), Type::Tuple(c), Value::Tuple(items)) => Value::Tuple(
            items
                .into_iter()
                .zip(d.iter().zip(c))
                .map(|(v, (dt, ct))| retyped(v, dt, ct))
                .collect(),
        ),
        (_, _, v) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::{DynamicIndex, json, msgpack, safe_prefix};
    use crate::{Type, Value};

    /// The thirteenth hostile pass: each null in a dynamic collection takes a copy of the
    /// first element's type (go-cty's too), so a null byte could be a type of thousands of
    /// nodes; JSON filled every missing attribute with a null. Both are charged to what a
    /// value may add, and past it refused naming where.
    #[test]
    fn copies_a_decode_adds_are_charged_to_its_budget() {
        let wide = format!(
            r#"["list",["tuple",[{}]]]"#,
            vec![r#""bool""#; 2_000].join(",")
        );
        let list_dynamic = Type::List(Box::new(Type::Dynamic));
        // [[wide type, []], null × n] as msgpack.
        let many_nulls = |n: usize| {
            let mut bytes = vec![0xdd];
            bytes.extend((n as u32 + 1).to_be_bytes());
            bytes.extend([0x92, 0xc5]);
            bytes.extend((wide.len() as u16).to_be_bytes());
            bytes.extend(wide.as_bytes());
            bytes.push(0x90);
            bytes.extend(std::iter::repeat_n(0xc0, n));
            bytes
        };
        // A few nulls are typed as go-cty types them.
        let Value::List(items) = msgpack::decode(&many_nulls(3), &list_dynamic).unwrap() else {
            panic!("a list")
        };
        assert!(
            matches!(&items[3], Value::Dynamic(t, v) if t.to_json_string() == wide && v.is_null())
        );
        let e = msgpack::decode(&many_nulls(20_000), &list_dynamic).unwrap_err();
        assert!(
            e.to_string().contains("would each hold a copy of the type"),
            "{e}"
        );
        // JSON: `{}` under a wide object fills nulls, charged the same way.
        let attrs = (0..2_000)
            .map(|i| (format!("a{i}"), Type::String))
            .collect();
        let objects = Type::List(Box::new(Type::Object(attrs)));
        let small = serde_json::json!([{}, {}]);
        let Value::List(items) = json::decode(&small, &objects).unwrap() else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        let big = serde_json::Value::Array(vec![serde_json::json!({}); 5_000]);
        let e = json::decode(&big, &objects).unwrap_err();
        assert!(e.to_string().contains("would add more than"), "{e}");
    }

    /// The fourteenth hostile pass: a copy was charged by its nodes, whatever the length of
    /// its attribute names, so a null could copy a megabyte name (90 KB of nulls held 1.6
    /// GB; a megabyte of them aborted the host). Names are charged by their bytes.
    #[test]
    fn copies_of_long_attribute_names_are_charged_by_their_bytes() {
        let name = "n".repeat(1 << 20);
        let ty = format!(r#"["list",["object",{{"{name}":"string"}}]]"#);
        let list_dynamic = Type::List(Box::new(Type::Dynamic));
        let many_nulls = |n: usize| {
            let mut bytes = vec![0xdd];
            bytes.extend((n as u32 + 1).to_be_bytes());
            bytes.extend([0x92, 0xc6]);
            bytes.extend((ty.len() as u32).to_be_bytes());
            bytes.extend(ty.as_bytes());
            bytes.push(0x90);
            bytes.extend(std::iter::repeat_n(0xc0, n));
            bytes
        };
        assert!(msgpack::decode(&many_nulls(2), &list_dynamic).is_ok());
        let e = msgpack::decode(&many_nulls(10_000), &list_dynamic).unwrap_err();
        assert!(
            e.to_string().contains("would each hold a copy of the type"),
            "{e}"
        );
        // JSON fills a missing attribute with a null under a copy of its name (its budget
        // counts nodes, not bytes: a 64 KiB name is 4,097 of its 65,536).
        let name = "n".repeat(64 << 10);
        let long = Type::Object([(name, Type::String)].into_iter().collect());
        let objects = Type::List(Box::new(long));
        let big = serde_json::Value::Array(vec![serde_json::json!({}); 40_000]);
        let e = json::decode(&big, &objects).unwrap_err();
        assert!(e.to_string().contains("would add more than"), "{e}");
        let few = serde_json::Value::Array(vec![serde_json::json!({}); 2]);
        assert!(json::decode(&few, &objects).is_ok());
    }

    /// A type without collections (a resource's top level, mostly) is never asked about:
    /// indexing it keeps nothing.
    #[test]
    fn a_type_without_collections_costs_no_entry() {
        let attrs = (0..20).map(|i| (format!("a{i}"), Type::String));
        let mut attrs: std::collections::BTreeMap<String, Type> = attrs.collect();
        attrs.insert("d".into(), Type::Dynamic);
        let mut index = DynamicIndex::default();
        assert!(index.add(&Type::Object(attrs)));
        assert!(index.0.is_empty());
    }

    /// Collections nested 100 deep around a wide object, met as a decoder meets them (the
    /// innermost finishes first): each type node is walked once, where an outer collection
    /// once walked again everything the inner ones had indexed (depth × width).
    #[test]
    fn nested_collections_walk_each_type_node_once() {
        let attrs: std::collections::BTreeMap<String, Type> = (0..1000)
            .map(|i| (format!("a{i}"), Type::List(Box::new(Type::String))))
            .collect();
        let mut ty = Type::Object(attrs);
        for _ in 0..100 {
            ty = Type::List(Box::new(ty));
        }
        // The element types from the outermost collection's inwards.
        let mut elements = Vec::new();
        let mut here = &ty;
        while let Type::List(element) = here {
            elements.push(element.as_ref());
            here = element;
        }
        let mut index = DynamicIndex::default();
        for element in elements.iter().rev() {
            index.add_element(element);
        }
        // 99 lists, the object, its 1,000 lists and their strings: each once.
        assert_eq!(index.1.get(), 99 + 1 + 1000 + 1000, "each node walked once");
        assert!(!index.has(elements[0]));
    }

    /// The twelfth hostile pass: a one-byte empty list or null under a wide element type
    /// holding `dynamic` walked and copied that type per element (20 KB: 14 s). The index
    /// answers each node at once, and such elements borrow the declared type.
    #[test]
    fn wide_element_types_are_neither_walked_nor_copied_per_element() {
        use std::borrow::Cow;
        let mut attrs: std::collections::BTreeMap<String, Type> =
            (0..1000).map(|i| (format!("a{i}"), Type::String)).collect();
        attrs.insert("d".into(), Type::Dynamic);
        let inner = Type::List(Box::new(Type::Object(attrs)));
        let outer = Type::List(Box::new(inner.clone()));
        let mut index = DynamicIndex::default();
        assert!(index.add(&outer));
        let Type::List(elem) = &outer else {
            unreachable!()
        };
        // The inner list and its object: every composite node in an element, once (the outer
        // list is no element and is never asked about; primitive and `dynamic` nodes answer
        // at once without an entry).
        assert_eq!(
            index.0.len(),
            1 + 1,
            "every composite node in an element, once"
        );
        let has = |t: &Type| match index.0.get(&(t as *const Type)) {
            Some(holds) => *holds,
            None => {
                let leaf = matches!(t, Type::String | Type::Number | Type::Bool | Type::Dynamic);
                assert!(leaf, "a composite node was not indexed");
                t.has_dynamic()
            }
        };
        for value in [Value::List(Vec::new()), Value::Null, Value::unknown()] {
            let ty = value.concrete_type_by(elem, &has);
            assert!(
                matches!(ty, Cow::Borrowed(t) if std::ptr::eq(t, &**elem)),
                "{value:?}"
            );
        }
        // Decoding many of them is then one index lookup each; the value is as before.
        let mut bytes = vec![0xdc, 0x27, 0x10];
        bytes.extend([0x90].repeat(5_000));
        bytes.extend([0x91, 0xc0].repeat(5_000));
        let decoded = msgpack::decode(&bytes, &outer).unwrap();
        let Value::List(items) = decoded else {
            panic!("a list")
        };
        assert_eq!(items.len(), 10_000);
        assert_eq!(items[9_999], Value::List(vec![Value::Null]));
        index.remove(&outer);
        assert!(index.0.is_empty());
    }

    #[test]
    fn long_prefixes_are_cut_as_go_cty_cuts_them() {
        let short = "a".repeat(256);
        assert_eq!(safe_prefix(&short), short, "256 bytes are kept whole");
        // Cut to 255 bytes, then the last letter goes: a following character could change it.
        let letters = "b".repeat(300);
        assert_eq!(safe_prefix(&letters), "b".repeat(254));
        // Punctuation or a space ending the cut stays.
        let dashed = format!("{}-{}", "c".repeat(254), "c".repeat(40));
        assert_eq!(safe_prefix(&dashed), format!("{}-", "c".repeat(254)));
        // A multi-byte character straddling the cut is dropped whole, never split.
        let wide = format!("{}é{}", "d".repeat(254), "d".repeat(40));
        assert_eq!(safe_prefix(&wide), "d".repeat(253));
    }
}
