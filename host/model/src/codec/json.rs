//! go-cty's JSON value encoding, used by `RawState.json` (state files). Unknowns cannot be
//! written; missing object attributes decode as null.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::{CodecError, MAX_DEPTH, inferred_primitive_type, tuple_length, value_kind};
use crate::{AttributePath, Number, PathRef, Type, Value};

/// Decodes JSON text as a value of type `ty`.
pub fn decode_bytes(bytes: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let json: Json = serde_json::from_slice(bytes)
        .map_err(|e| CodecError::new(&AttributePath::root(), format!("invalid JSON: {e}")))?;
    decode(&json, ty)
}

/// Decodes a parsed JSON value as a value of type `ty`.
pub fn decode(json: &Json, ty: &Type) -> Result<Value, CodecError> {
    read(json, ty, &PathRef::Root, 0, &mut Cx::new(json, false))
}

/// The JSON object that stands for an unknown value in hand-written files
/// (`tfwasm check` input, test vectors): `{"$unknown": true}`.
pub const UNKNOWN_MARKER: &str = "$unknown";

/// How many JSON values `text` holds at most, counted without parsing it (each `,`, `:`,
/// `[` and `{` outside strings, plus one), stopping past `limit`. A parsed value costs tens of
/// bytes per element whatever its text (`[0,0,…]`: 2 bytes of file, 32 or more of memory),
/// so a file someone else wrote (a journal entry, a recording) is weighed by this before it
/// is parsed, not by its size alone.
pub fn value_count_at_most(text: &[u8], limit: usize) -> Option<usize> {
    let mut count = 1usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b':' | b'[' | b'{' => {
                count += 1;
                if count > limit {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(count)
}

/// The key a map or object key takes in the readable form: one more `$` before any key that
/// starts with `$`, so a single-key object is a marker only when it is one (a map with the key
/// `"$unknown"` is `{"$$unknown": …}`) and whatever reads the form (redaction) cannot be told
/// a value is an unknown.
pub fn escaped_key(key: &str) -> std::borrow::Cow<'_, str> {
    if key.starts_with('$') {
        std::borrow::Cow::Owned(format!("${key}"))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// The key [`escaped_key`] was given; other keys are themselves (hand-written files may
/// leave a `$` key unescaped where it cannot be taken for a marker).
pub fn unescaped_key(key: &str) -> &str {
    if key.starts_with("$$") {
        &key[1..]
    } else {
        key
    }
}

/// Like [`decode`], but `{"$unknown": true}` anywhere means an unknown value, and
/// `{"$unknown": {"not_null": true, "prefix": "ab", "min": 1, "max": 9, "min_length": 1,
/// "max_length": 3}}` a refined one (bounds inclusive; `min_exclusive`/`max_exclusive` for
/// exclusive ones). Map and object keys that start with `$` are written with one more `$`
/// ([`escaped_key`]). State files never contain unknowns; this is for plans written by hand.
pub fn decode_with_unknowns(json: &Json, ty: &Type) -> Result<Value, CodecError> {
    read(json, ty, &PathRef::Root, 0, &mut Cx::new(json, true))
}

/// What one decode carries down: whether unknown markers count, which type nodes hold
/// `dynamic`, and how many values the decode may still add beyond what the JSON holds
/// (nulls for missing attributes, typed nulls in dynamic collections): `{}` under an object
/// type of 10,000 attributes is 10,000 values, and 30 KB of them took 3.6 GB.
struct Cx {
    unknowns: bool,
    dynamic: super::DynamicIndex,
    expand: usize,
    budget: usize,
}

impl Cx {
    fn new(json: &Json, unknowns: bool) -> Cx {
        let budget = json_nodes(json, 0).max(1 << 16);
        Cx {
            unknowns,
            dynamic: super::DynamicIndex::default(),
            expand: budget,
            budget,
        }
    }

    /// Charges `n` values the decode adds.
    fn charge(&mut self, n: usize, path: &PathRef<'_>) -> Result<(), CodecError> {
        self.expand = self.expand.checked_sub(n).ok_or_else(|| {
            CodecError::new(
                path,
                format!(
                    "the value would add more than {} values to what it holds (missing \
                     attributes filled with nulls, nulls given their collection's type)",
                    self.budget
                ),
            )
        })?;
        Ok(())
    }
}

/// JSON nodes in `json`, counted no deeper than the decoder goes.
fn json_nodes(json: &Json, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 1;
    }
    1 + match json {
        Json::Array(items) => items.iter().map(|j| json_nodes(j, depth + 1)).sum(),
        Json::Object(entries) => entries.values().map(|j| json_nodes(j, depth + 1)).sum(),
        _ => 0,
    }
}

/// The unknown a marker object stands for, if `json` is one.
fn unknown_marker(json: &Json) -> Option<Result<Value, String>> {
    let obj = json.as_object().filter(|o| o.len() == 1)?;
    match obj.get(UNKNOWN_MARKER)? {
        Json::Bool(true) => Some(Ok(Value::unknown())),
        Json::Object(r) => Some(refinement(r).map(Value::refined)),
        _ => Some(Err(format!(
            "{UNKNOWN_MARKER} must be true or an object of refinements"
        ))),
    }
}

fn refinement(r: &serde_json::Map<String, Json>) -> Result<crate::Refinement, String> {
    let bound = |key: &str| -> Result<Option<Number>, String> {
        r.get(key)
            .map(|v| {
                v.to_string()
                    .parse::<Number>()
                    .map_err(|e| format!("{key}: {e}"))
            })
            .transpose()
    };
    // `min`/`max` are inclusive, `min_exclusive`/`max_exclusive` not; one of each at most.
    let number = |inclusive: &str, exclusive: &str| -> Result<Option<(Number, bool)>, String> {
        match (bound(inclusive)?, bound(exclusive)?) {
            (Some(_), Some(_)) => Err(format!("give {inclusive} or {exclusive}, not both")),
            (Some(n), None) => Ok(Some((n, true))),
            (None, Some(n)) => Ok(Some((n, false))),
            (None, None) => Ok(None),
        }
    };
    let length = |key: &str| -> Result<Option<u64>, String> {
        r.get(key)
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| format!("{key} must be a whole number"))
            })
            .transpose()
    };
    for key in r.keys() {
        if ![
            "not_null",
            "prefix",
            "min",
            "max",
            "min_exclusive",
            "max_exclusive",
            "min_length",
            "max_length",
        ]
        .contains(&key.as_str())
        {
            return Err(format!("unknown refinement {key:?}"));
        }
    }
    Ok(crate::Refinement {
        not_null: r.get("not_null").and_then(Json::as_bool).unwrap_or(false),
        string_prefix: r.get("prefix").and_then(Json::as_str).map(str::to_owned),
        number_lower: number("min", "min_exclusive")?,
        number_upper: number("max", "max_exclusive")?,
        length_lower: length("min_length")?,
        length_upper: length("max_length")?,
    })
}

/// Encodes `value` of type `ty` as JSON. Unknown values are an error.
pub fn encode(value: &Value, ty: &Type) -> Result<Json, CodecError> {
    write(value, ty, &PathRef::Root, false)
}

/// `value` of type `ty` as the JSON text go-cty writes (`ctyjson.Marshal`): compact, object
/// attributes and map keys in order, strings escaped as Go's `encoding/json` escapes them
/// (`<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes too). Unknown values are an error.
pub fn encode_text(value: &Value, ty: &Type) -> Result<String, CodecError> {
    let json = encode(value, ty)?;
    let mut out = String::new();
    write_text(&json, &mut out);
    Ok(out)
}

fn write_text(json: &Json, out: &mut String) {
    match json {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&n.to_string()),
        Json::String(s) => go_string(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_text(item, out);
            }
            out.push(']');
        }
        Json::Object(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_string(k, out);
                out.push(':');
                write_text(v, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string as Go's `encoding/json` writes it with HTML escaping (as `json.Marshal`).
fn go_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => {
                let r = c as u32;
                out.push_str("\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((r >> shift) & 0xf) as usize] as char);
                }
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

/// Like [`encode`], but writes an unknown value as the marker [`decode_with_unknowns`]
/// reads (with its refinements), so plans can be written out and read back.
pub fn encode_with_unknowns(value: &Value, ty: &Type) -> Result<Json, CodecError> {
    write(value, ty, &PathRef::Root, true)
}

/// The marker object of an unknown value.
fn unknown_json(r: &crate::Refinement) -> Json {
    let mut refinements = serde_json::Map::new();
    if r.not_null {
        refinements.insert("not_null".into(), Json::Bool(true));
    }
    if let Some(prefix) = &r.string_prefix {
        refinements.insert("prefix".into(), Json::String(prefix.clone()));
    }
    for (keys, bound) in [
        (("min", "min_exclusive"), &r.number_lower),
        (("max", "max_exclusive"), &r.number_upper),
    ] {
        if let Some((n, inclusive)) = bound
            && let Ok(n) = serde_json::from_str::<Json>(&n.to_string())
        {
            let key = if *inclusive { keys.0 } else { keys.1 };
            refinements.insert(key.into(), n);
        }
    }
    for (key, bound) in [
        ("min_length", r.length_lower),
        ("max_length", r.length_upper),
    ] {
        if let Some(n) = bound {
            refinements.insert(key.into(), Json::from(n));
        }
    }
    let marker = if refinements.is_empty() {
        Json::Bool(true)
    } else {
        Json::Object(refinements)
    };
    serde_json::json!({ UNKNOWN_MARKER: marker })
}

fn read(
    json: &Json,
    ty: &Type,
    path: &PathRef<'_>,
    depth: usize,
    cx: &mut Cx,
) -> Result<Value, CodecError> {
    if depth > MAX_DEPTH {
        return Err(CodecError::new(
            path,
            format!("value nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    if json.is_null() {
        return Ok(Value::Null);
    }
    if let Some(marker) = cx.unknowns.then(|| unknown_marker(json)).flatten() {
        return marker.map_err(|message| CodecError::new(path, message));
    }
    let wrong = |expected: &str| {
        CodecError::new(
            path,
            format!("expected {expected}, found JSON {}", json_kind(json)),
        )
    };
    match ty {
        Type::Dynamic => {
            let obj = json
                .as_object()
                .ok_or_else(|| wrong("an object with \"value\" and \"type\""))?;
            let (Some(type_json), Some(value_json)) = (obj.get("type"), obj.get("value")) else {
                return Err(wrong("an object with \"value\" and \"type\""));
            };
            let inner_ty =
                Type::from_json(type_json).map_err(|e| CodecError::new(path, e.to_string()))?;
            // Its nodes are indexed as the decode meets them, and forgotten before it drops.
            let inner = read(value_json, &inner_ty, path, depth + 1, cx);
            cx.dynamic.remove(&inner_ty);
            Ok(super::dynamic_value(&inner_ty, inner?))
        }
        Type::String => json
            .as_str()
            .map(|s| Value::String(super::normalized(s.to_owned())))
            .ok_or_else(|| wrong("string")),
        Type::Bool => json.as_bool().map(Value::Bool).ok_or_else(|| wrong("bool")),
        Type::Number => match json {
            Json::Number(n) => n
                .to_string()
                .parse::<Number>()
                .map(Value::Number)
                .map_err(|e| CodecError::new(path, e.to_string())),
            // go-cty accepts numbers written as strings
            Json::String(s) => s
                .parse::<Number>()
                .map(Value::Number)
                .map_err(|e| CodecError::new(path, e.to_string())),
            _ => Err(wrong("number")),
        },
        Type::List(elem) | Type::Set(elem) => {
            let items = json.as_array().ok_or_else(|| wrong("array"))?;
            let values = items
                .iter()
                .enumerate()
                .map(|(i, item)| read(item, elem, &path.index(i as i64), depth + 1, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let kind = if matches!(ty, Type::List(_)) {
                "list"
            } else {
                "set"
            };
            let mut values = values;
            cx.dynamic.add_element(elem);
            let index = &cx.dynamic;
            super::element_types(
                values.iter_mut(),
                elem,
                kind,
                path,
                &|t| index.has(t),
                &mut cx.expand,
            )?;
            Ok(if matches!(ty, Type::List(_)) {
                Value::List(values)
            } else {
                Value::Set(crate::value::dedup_set(values))
            })
        }
        Type::Tuple(elems) => {
            let items = json.as_array().ok_or_else(|| wrong("array"))?;
            if items.len() != elems.len() {
                return Err(tuple_length(path, elems.len(), items.len()));
            }
            let values = items
                .iter()
                .zip(elems)
                .enumerate()
                .map(|(i, (item, elem))| read(item, elem, &path.index(i as i64), depth + 1, cx))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Value::Tuple(values))
        }
        Type::Map(elem) => {
            let entries = json.as_object().ok_or_else(|| wrong("object"))?;
            // Collected, then built at once from the sorted pairs (msgpack.rs).
            let mut pairs = Vec::with_capacity(entries.len());
            for (key, item) in entries {
                let key = if cx.unknowns { unescaped_key(key) } else { key };
                let item = read(item, elem, &path.key(key), depth + 1, cx)?;
                pairs.push((super::normalized_name(key), item));
            }
            let mut out: BTreeMap<crate::Name, Value> = pairs.into_iter().collect();
            cx.dynamic.add_element(elem);
            let index = &cx.dynamic;
            super::element_types(
                out.values_mut(),
                elem,
                "map",
                path,
                &|t| index.has(t),
                &mut cx.expand,
            )?;
            Ok(Value::Map(out))
        }
        Type::Object(attrs) => {
            let fields = json.as_object().ok_or_else(|| wrong("object"))?;
            let unescaped;
            let entries = if cx.unknowns && fields.keys().any(|k| k.starts_with("$$")) {
                unescaped = (fields.iter())
                    .map(|(k, v)| (unescaped_key(k).to_owned(), v.clone()))
                    .collect::<serde_json::Map<_, _>>();
                &unescaped
            } else {
                fields
            };
            if let Some(extra) = entries.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(CodecError::new(
                    path,
                    format!("unsupported attribute {extra:?}"),
                ));
            }
            // Each missing attribute is filled with a null under a copy of its name.
            let filled = (attrs.keys())
                .filter(|name| !entries.contains_key(*name))
                .map(|name| 1 + super::name_weight(name))
                .sum();
            cx.charge(filled, path)?;
            // The type's names in order: each is pushed after the last.
            let mut out = crate::Attributes::with_capacity(attrs.len());
            for (name, attr_ty) in attrs {
                let value = match entries.get(name) {
                    Some(item) => read(item, attr_ty, &path.attr(name), depth + 1, cx)?,
                    None => Value::Null,
                };
                out.push_last(crate::Name::new(name), value);
            }
            Ok(Value::Object(out))
        }
    }
}

fn write(value: &Value, ty: &Type, path: &PathRef<'_>, unknowns: bool) -> Result<Json, CodecError> {
    let wrong = || CodecError::new(path, format!("expected {ty}, found {}", value_kind(value)));
    match value {
        Value::Null => return Ok(Json::Null),
        Value::Unknown(r) if unknowns => return Ok(unknown_json(r)),
        Value::Unknown(_) => return Err(CodecError::new(path, "value is not known")),
        _ => {}
    }
    match ty {
        Type::Dynamic => {
            let (inner_ty, inner) = match value {
                Value::Dynamic(inner_ty, inner) => (inner_ty.clone(), inner.as_ref()),
                other => (inferred_primitive_type(other).ok_or_else(wrong)?, other),
            };
            let mut obj = serde_json::Map::new();
            obj.insert("value".into(), write(inner, &inner_ty, path, unknowns)?);
            obj.insert("type".into(), inner_ty.to_json());
            Ok(Json::Object(obj))
        }
        Type::String => value
            .as_str()
            .map(|s| Json::String(s.to_owned()))
            .ok_or_else(wrong),
        Type::Bool => value.as_bool().map(Json::Bool).ok_or_else(wrong),
        Type::Number => {
            let n = value.as_number().ok_or_else(wrong)?;
            serde_json::from_str::<Json>(&n.to_string())
                .map_err(|e| CodecError::new(path, e.to_string()))
        }
        Type::List(elem) | Type::Set(elem) => {
            let items = match (ty, value) {
                (Type::List(_), Value::List(items)) | (Type::Set(_), Value::Set(items)) => items,
                _ => return Err(wrong()),
            };
            items
                .iter()
                .enumerate()
                .map(|(i, item)| write(item, elem, &path.index(i as i64), unknowns))
                .collect::<Result<Vec<_>, _>>()
                .map(Json::Array)
        }
        Type::Tuple(elems) => {
            let Value::Tuple(items) = value else {
                return Err(wrong());
            };
            if items.len() != elems.len() {
                return Err(wrong());
            }
            items
                .iter()
                .zip(elems)
                .enumerate()
                .map(|(i, (item, elem))| write(item, elem, &path.index(i as i64), unknowns))
                .collect::<Result<Vec<_>, _>>()
                .map(Json::Array)
        }
        Type::Map(elem) => {
            let Value::Map(entries) = value else {
                return Err(wrong());
            };
            let mut obj = serde_json::Map::new();
            for (key, item) in entries {
                let written = if unknowns {
                    escaped_key(key)
                } else {
                    key.as_str().into()
                };
                obj.insert(
                    written.into_owned(),
                    write(item, elem, &path.key(key), unknowns)?,
                );
            }
            Ok(Json::Object(obj))
        }
        Type::Object(attrs) => {
            let Value::Object(entries) = value else {
                return Err(wrong());
            };
            if let Some(extra) = entries.keys().find(|k| !attrs.contains_key(k.as_str())) {
                return Err(CodecError::new(
                    path,
                    format!("unsupported attribute {extra:?}"),
                ));
            }
            let mut obj = serde_json::Map::new();
            for (name, attr_ty) in attrs {
                let item = entries.get(name.as_str()).unwrap_or(&Value::Null);
                let written = if unknowns {
                    escaped_key(name)
                } else {
                    name.into()
                };
                obj.insert(
                    written.into_owned(),
                    write(item, attr_ty, &path.attr(name), unknowns)?,
                );
            }
            Ok(Json::Object(obj))
        }
    }
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_are_counted_outside_strings_and_stop_past_the_limit() {
        use super::value_count_at_most as count;
        assert_eq!(count(b"0", 10), Some(1));
        // `{`, `:`, `[`, `,`, `,`, `:` outside the strings.
        assert_eq!(count(br#"{"a": [1, 2], "b": "x,y:[{"}"#, 100), Some(7));
        assert_eq!(count(br#"["a\"b,c"]"#, 100), Some(2));
        let zeros = format!("[{}0]", "0,".repeat(1000));
        assert_eq!(count(zeros.as_bytes(), 100), None);
        assert!(count(zeros.as_bytes(), 2000).is_some());
    }
    use super::*;

    /// A 1 MiB map key above 100,000 list elements: the path is borrowed at each element,
    /// not copied (which was 100 GB of copying for a value a guest can return).
    /// As the msgpack decoder: a value deeper than [`MAX_DEPTH`] is an error, not a stack
    /// overflow (the JSON arrives already parsed, so serde's own limit does not apply).
    #[test]
    fn values_nested_past_the_depth_bound_are_refused() {
        let (mut json, mut ty) = (Json::from("x"), Type::String);
        for _ in 0..1000 {
            json = Json::Array(vec![json]);
            ty = Type::List(Box::new(ty));
        }
        let e = decode(&json, &ty).unwrap_err();
        assert!(
            e.to_string().contains("nested deeper than 128 levels"),
            "{e}"
        );
        let e = decode_with_unknowns(&json, &ty).unwrap_err();
        assert!(
            e.to_string().contains("nested deeper than 128 levels"),
            "{e}"
        );
    }

    #[test]
    fn paths_are_borrowed_not_copied_per_element() {
        let key = "k".repeat(1 << 20);
        let ty = Type::Map(Box::new(Type::List(Box::new(Type::Number))));
        let list = Value::List(vec![Value::Number(1.into()); 100_000]);
        let value = Value::Map([(key.as_str().into(), list)].into_iter().collect());
        let json = encode_with_unknowns(&value, &ty).unwrap();
        assert_eq!(decode_with_unknowns(&json, &ty).unwrap(), value);
    }

    /// Found by the `contract_checks` fuzz target: an exclusive bound came back inclusive.
    #[test]
    fn exclusive_number_bounds_survive_the_marker() {
        let refined = crate::Refinement {
            number_lower: Some((Number::from(0), false)),
            number_upper: Some((Number::from(9), true)),
            ..Default::default()
        };
        let value = Value::refined(refined);
        let json = encode_with_unknowns(&value, &Type::Number).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"$unknown": {"min_exclusive": 0, "max": 9}})
        );
        assert_eq!(decode_with_unknowns(&json, &Type::Number).unwrap(), value);
        let both = serde_json::json!({"$unknown": {"min": 0, "min_exclusive": 0}});
        assert!(decode_with_unknowns(&both, &Type::Number).is_err());
    }

    #[test]
    fn unknowns_round_trip_through_their_markers() {
        let ty = Type::object([
            ("a", Type::String),
            ("n", Type::Number),
            ("l", Type::list(Type::String)),
        ]);
        let refined = crate::Refinement {
            not_null: true,
            string_prefix: Some("ab".into()),
            ..Default::default()
        };
        let value = Value::object([
            ("a", Value::refined(refined)),
            ("n", Value::unknown()),
            ("l", Value::List(vec!["x".into(), Value::unknown()])),
        ]);
        let json = encode_with_unknowns(&value, &ty).unwrap();
        assert_eq!(
            json["a"],
            serde_json::json!({"$unknown": {"not_null": true, "prefix": "ab"}})
        );
        assert_eq!(json["n"], serde_json::json!({"$unknown": true}));
        assert_eq!(decode_with_unknowns(&json, &ty).unwrap(), value);
        assert!(encode(&value, &ty).is_err(), "plain JSON has no unknowns");
    }

    #[test]
    fn missing_attributes_are_null_and_extra_ones_rejected() {
        let ty = Type::object([("a", Type::String), ("b", Type::Number)]);
        assert_eq!(
            decode_bytes(br#"{"a":"x"}"#, &ty).unwrap(),
            Value::object([("a", "x".into()), ("b", Value::Null)])
        );
        let err = decode_bytes(br#"{"a":"x","c":1}"#, &ty).unwrap_err();
        assert_eq!(err.to_string(), "unsupported attribute \"c\"");
    }

    #[test]
    fn big_numbers_keep_every_digit() {
        let v = decode_bytes(b"123456789012345678901234567890.123", &Type::Number).unwrap();
        assert_eq!(
            encode(&v, &Type::Number).unwrap().to_string(),
            "123456789012345678901234567890.123"
        );
    }

    #[test]
    fn dynamic_uses_value_and_type() {
        let v = decode_bytes(
            br#"{"type":["list","string"],"value":["a"]}"#,
            &Type::Dynamic,
        )
        .unwrap();
        assert_eq!(
            v,
            Value::Dynamic(
                Type::list(Type::String),
                Box::new(Value::List(vec!["a".into()]))
            )
        );
        assert_eq!(
            encode(&v, &Type::Dynamic).unwrap().to_string(),
            r#"{"value":["a"],"type":["list","string"]}"#
        );
    }

    /// The eighteenth hostile pass: a map with the key `"$unknown"` was written as an unknown's
    /// marker, so redaction took a secret for an unknown and kept it.
    #[test]
    fn keys_that_look_like_markers_are_escaped_in_the_readable_form() {
        let ty = Type::object([
            ("m", Type::Map(Box::new(Type::String))),
            ("d", Type::Dynamic),
        ]);
        let inner = Type::object([("$redacted", Type::Bool)]);
        let value = Value::object([
            (
                "m",
                Value::Map(
                    [
                        ("$unknown".into(), Value::from("SECRET")),
                        ("k".into(), Value::from("v")),
                    ]
                    .into_iter()
                    .collect(),
                ),
            ),
            (
                "d",
                Value::Dynamic(
                    inner.clone(),
                    Box::new(Value::object([("$redacted", Value::from(true))])),
                ),
            ),
        ]);
        let json = encode_with_unknowns(&value, &ty).unwrap();
        assert_eq!(json["m"]["$$unknown"], "SECRET", "{json}");
        assert_eq!(json["m"]["k"], "v");
        assert_eq!(json["d"]["value"]["$$redacted"], true, "{json}");
        assert_eq!(decode_with_unknowns(&json, &ty).unwrap(), value);
        // State JSON (the plain codec) is Terraform's and stays as it is.
        let known = Value::object([
            (
                "m",
                Value::Map([("$x".into(), Value::from("v"))].into_iter().collect()),
            ),
            ("d", Value::Null),
        ]);
        assert_eq!(encode(&known, &ty).unwrap()["m"]["$x"], "v");
    }

    #[test]
    fn unknown_marker_only_when_asked() {
        let ty = Type::object([("a", Type::String)]);
        let json: Json = serde_json::from_str(r#"{"a":{"$unknown":true}}"#).unwrap();
        assert_eq!(
            decode_with_unknowns(&json, &ty).unwrap(),
            Value::object([("a", Value::unknown())])
        );
        assert!(
            decode(&json, &ty).is_err(),
            "a plain decode sees an object where a string belongs"
        );
        let refined: Json =
            serde_json::from_str(r#"{"a":{"$unknown":{"prefix":"x","not_null":true}}}"#).unwrap();
        let Value::Object(o) = decode_with_unknowns(&refined, &ty).unwrap() else {
            panic!()
        };
        assert_eq!(
            o["a"],
            Value::refined(crate::Refinement {
                not_null: true,
                string_prefix: Some("x".into()),
                ..Default::default()
            })
        );
    }

    #[test]
    fn unknowns_cannot_be_written() {
        let ty = Type::object([("a", Type::String)]);
        let err = encode(&Value::object([("a", Value::unknown())]), &ty).unwrap_err();
        assert_eq!(err.to_string(), "at .a: value is not known");
    }
}
