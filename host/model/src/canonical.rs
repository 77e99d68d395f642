//! go-cty's order of set elements, for output that matches go-cty byte for byte.
//!
//! A set has no order Terraform relies on, and tfwasm's encoders write set elements in the
//! order a value holds them: a guest's or Terraform's. go-cty lists a set's elements by the
//! CRC-32 of a "hash text" of each (its buckets), then sorts them stably: strings, numbers
//! and booleans by value, other elements by their hash text, known before unknown before
//! null. [`canonicalize`] puts every set in a value in that order, so the differential tests
//! (`fuzz/src/diff`) can compare tfwasm's bytes with go-cty's, and tools that show values
//! (recordings, `tfwasm check`) can show them as Terraform would.

use std::cmp::Ordering;

use crate::Value;

/// Puts the elements of every set in `value` in go-cty's order.
pub fn canonicalize(value: &mut Value) {
    match value {
        Value::Set(items) => {
            for item in items.iter_mut() {
                canonicalize(item);
            }
            sort(items);
        }
        Value::List(items) | Value::Tuple(items) => items.iter_mut().for_each(canonicalize),
        Value::Map(entries) => entries.values_mut().for_each(canonicalize),
        Value::Object(entries) => entries.values_mut().for_each(canonicalize),
        Value::Dynamic(_, inner) => canonicalize(inner),
        _ => {}
    }
}

/// go-cty's hash text of a value (its set elements in go-cty's order): what buckets and
/// orders set elements. Distinct values can share one (numbers are hashed by their first ten
/// digits), and then keep their insertion order.
pub fn hash_text(value: &Value) -> Vec<u8> {
    let mut value = value.clone();
    canonicalize(&mut value);
    let mut out = Vec::new();
    append_hash_text(&value, &mut out);
    out
}

/// go-cty's `set.Values()`: by bucket (the CRC-32 of the hash text), in insertion order
/// within a bucket, then stably by `setRules.Less`.
fn sort(items: &mut Vec<Value>) {
    if items.len() < 2 {
        return;
    }
    let mut keyed: Vec<(u32, Vec<u8>, Value)> = std::mem::take(items)
        .into_iter()
        .map(|v| {
            let mut text = Vec::new();
            append_hash_text(&v, &mut text);
            (crc32(&text), text, v)
        })
        .collect();
    keyed.sort_by_key(|(bucket, _, _)| *bucket);
    keyed.sort_by(|a, b| {
        if less((&a.2, &a.1), (&b.2, &b.1)) {
            Ordering::Less
        } else if less((&b.2, &b.1), (&a.2, &a.1)) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
    *items = keyed.into_iter().map(|(_, _, v)| v).collect();
}

/// `setRules.Less`. The element type decides how known values compare (strings, numbers and
/// booleans by value, anything else by hash text); a set's elements share one type, so the
/// values' own kinds tell it (inside dynamic wrappers, whose type is the set's).
fn less((a, a_text): (&Value, &[u8]), (b, b_text): (&Value, &[u8])) -> bool {
    if a == b {
        return false;
    }
    let (a, b) = (unwrap(a), unwrap(b));
    if b.is_null() && !a.is_null() {
        return true;
    } else if a.is_null() {
        return false;
    }
    if !a.is_unknown() && b.is_unknown() {
        return true;
    } else if a.is_unknown() {
        return false;
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => x < y,
        (Value::Bool(x), Value::Bool(y)) => *y || !*x,
        (Value::Number(x), Value::Number(y)) => x.cmp_value(y) == Ordering::Less,
        _ => a_text < b_text,
    }
}

fn unwrap(value: &Value) -> &Value {
    match value {
        Value::Dynamic(_, inner) => unwrap(inner),
        other => other,
    }
}

/// `appendSetHashBytes`: the text go-cty hashes a set element by.
fn append_hash_text(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Unknown(_) => out.push(b'?'),
        Value::Null => out.push(b'~'),
        Value::Number(n) => out.extend_from_slice(n.hash_text().as_bytes()),
        Value::Bool(b) => out.push(if *b { b'T' } else { b'F' }),
        Value::String(s) => quote(s, out),
        Value::Map(entries) => {
            out.push(b'{');
            for (k, v) in entries {
                quote(k, out);
                out.push(b':');
                append_hash_text(v, out);
                out.push(b';');
            }
            out.push(b'}');
        }
        Value::List(items) | Value::Set(items) => {
            out.push(b'[');
            for v in items {
                append_hash_text(v, out);
                out.push(b';');
            }
            out.push(b']');
        }
        Value::Object(attrs) => {
            out.push(b'<');
            for v in attrs.values() {
                append_hash_text(v, out);
                out.push(b';');
            }
            out.push(b'>');
        }
        Value::Tuple(items) => {
            out.push(b'<');
            for v in items {
                append_hash_text(v, out);
                out.push(b';');
            }
            out.push(b'>');
        }
        Value::Dynamic(_, inner) => append_hash_text(inner, out),
    }
}

/// Go's `strconv.Quote`: printable characters as they are, the rest escaped.
fn quote(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for c in s.chars() {
        let r = c as u32;
        match c {
            '"' | '\\' => {
                out.push(b'\\');
                out.push(c as u8);
            }
            _ if is_print(c) => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            '\u{7}' => out.extend_from_slice(b"\\a"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{b}' => out.extend_from_slice(b"\\v"),
            _ if r < 0x20 || r == 0x7f => {
                out.extend_from_slice(b"\\x");
                out.push(HEX[(r >> 4) as usize]);
                out.push(HEX[(r & 0xf) as usize]);
            }
            _ if r < 0x10000 => {
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((r >> shift) & 0xf) as usize]);
                }
            }
            _ => {
                out.extend_from_slice(b"\\U");
                for shift in [28, 24, 20, 16, 12, 8, 4, 0] {
                    out.push(HEX[((r >> shift) & 0xf) as usize]);
                }
            }
        }
    }
    out.push(b'"');
}

/// Go's `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and ASCII space.
#[cfg(feature = "unicode")]
fn is_print(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c == ' ' {
        return true;
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

/// Without the Unicode tables (guests): controls and spaces other than ASCII space are not
/// printable, everything else is. Only the order of set elements holding such strings can
/// differ from go-cty's, and the order of a set means nothing to Terraform.
#[cfg(not(feature = "unicode"))]
fn is_print(c: char) -> bool {
    c == ' ' || !(c.is_control() || c.is_whitespace())
}

/// CRC-32 (IEEE), as Go's `crc32.ChecksumIEEE`.
fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::LazyLock<[u32; 256]> = std::sync::LazyLock::new(|| {
        let mut table = [0u32; 256];
        for (i, entry) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *entry = c;
        }
        table
    });
    let mut crc = !0u32;
    for &b in bytes {
        crc = TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_ieee() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn quote_is_gos() {
        let q = |s: &str| {
            let mut out = Vec::new();
            quote(s, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(q("a\"b\\"), r#""a\"b\\""#);
        assert_eq!(q("\u{0}\u{7f}\n"), r#""\x00\x7f\n""#);
        // Which characters beyond ASCII Go prints as they are comes from Unicode's tables.
        #[cfg(feature = "unicode")]
        {
            assert_eq!(q("\u{e9}\u{ad}\u{2028}"), "\"\u{e9}\\u00ad\\u2028\"");
            assert_eq!(q("\u{1f600}\u{e000}"), "\"\u{1f600}\\ue000\"");
            assert_eq!(q("\u{f0000}"), r#""\U000f0000""#);
        }
    }

    #[test]
    fn strings_sort_by_value_unknowns_then_nulls_last() {
        let mut set = Value::Set(vec![Value::Null, Value::unknown(), "b".into(), "a".into()]);
        canonicalize(&mut set);
        assert_eq!(
            set.as_elements().unwrap(),
            &[Value::from("a"), "b".into(), Value::unknown(), Value::Null]
        );
    }
}
