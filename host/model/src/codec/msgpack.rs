//! Terraform's msgpack value encoding (go-cty `cty/msgpack`): nil is null, extension
//! values are unknowns (code 12 carries refinements), dynamic slots are `[type JSON, value]`.

use std::collections::BTreeMap;

use rmp::Marker;

use super::{CodecError, MAX_DEPTH, inferred_primitive_type, tuple_length, value_kind};
use crate::{Number, PathRef, Refinement, Type, Value};

/// Extension type code of a refined unknown.
const EXT_REFINED_UNKNOWN: i8 = 12;
/// Largest refinement body go-cty accepts.
const MAX_REFINEMENT_BODY: usize = 1024;

/// The msgpack encoding of a null value (of any type).
pub const NULL: &[u8] = &[0xc0];

/// Decodes `bytes` as a value of type `ty`. Trailing bytes are an error.
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let mut reader = Reader { buf: bytes, pos: 0 };
    let value = reader.value(ty, &PathRef::Root, 0)?;
    if reader.pos != bytes.len() {
        return Err(CodecError::new(
            &PathRef::Root,
            format!(
                "{} unexpected trailing bytes after the value",
                bytes.len() - reader.pos
            ),
        ));
    }
    Ok(value)
}

/// Encodes `value` as type `ty`. Fails when the value does not conform to the type.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(64);
    write_value(&mut out, value, ty, &PathRef::Root)?;
    Ok(out)
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, path: &PathRef<'_>) -> Result<&'a [u8], CodecError> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.buf.len());
        match end {
            Some(end) => {
                let slice = &self.buf[self.pos..end];
                self.pos = end;
                Ok(slice)
            }
            None => Err(CodecError::new(path, "unexpected end of msgpack data")),
        }
    }

    fn peek(&self, path: &PathRef<'_>) -> Result<Marker, CodecError> {
        self.buf
            .get(self.pos)
            .map(|&b| Marker::from_u8(b))
            .ok_or_else(|| CodecError::new(path, "unexpected end of msgpack data"))
    }

    fn marker(&mut self, path: &PathRef<'_>) -> Result<Marker, CodecError> {
        let marker = self.peek(path)?;
        self.pos += 1;
        Ok(marker)
    }

    fn uint(&mut self, width: usize, path: &PathRef<'_>) -> Result<u64, CodecError> {
        let bytes = self.take(width, path)?;
        Ok(bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn value(&mut self, ty: &Type, path: &PathRef<'_>, depth: usize) -> Result<Value, CodecError> {
        if depth > MAX_DEPTH {
            return Err(CodecError::new(
                path,
                format!("value nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        match self.peek(path)? {
            Marker::Null => {
                self.pos += 1;
                return Ok(Value::Null);
            }
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => {
                let unknown = self.unknown(path)?;
                // go-cty refines only unknowns of a known type; one in a dynamic slot is
                // plain (as the encoder writes it), whatever refinements the bytes carry.
                return Ok(if matches!(ty, Type::Dynamic) {
                    Value::unknown()
                } else {
                    unknown
                });
            }
            _ => {}
        }
        match ty {
            Type::Dynamic => self.dynamic(path, depth),
            Type::String => self.string(path).map(Value::String),
            Type::Number => self.number(path).map(Value::Number),
            Type::Bool => match self.marker(path)? {
                Marker::True => Ok(Value::Bool(true)),
                Marker::False => Ok(Value::Bool(false)),
                other => Err(mismatch(path, "bool", other)),
            },
            Type::List(elem) | Type::Set(elem) => {
                let len = self.array_len(path)?;
                let mut items = Vec::with_capacity(len.min(self.remaining()));
                for i in 0..len {
                    items.push(self.value(elem, &path.index(i as i64), depth + 1)?);
                }
                Ok(if matches!(ty, Type::List(_)) {
                    Value::List(items)
                } else {
                    Value::Set(crate::value::dedup_set(items))
                })
            }
            Type::Tuple(elems) => {
                let len = self.array_len(path)?;
                if len != elems.len() {
                    return Err(tuple_length(path, elems.len(), len));
                }
                let mut items = Vec::with_capacity(len);
                for (i, elem) in elems.iter().enumerate() {
                    items.push(self.value(elem, &path.index(i as i64), depth + 1)?);
                }
                Ok(Value::Tuple(items))
            }
            Type::Map(elem) => {
                let len = self.map_len(path)?;
                let mut entries = BTreeMap::new();
                for _ in 0..len {
                    let key = self.string(path)?;
                    let item = self.value(elem, &path.key(&key), depth + 1)?;
                    entries.insert(key, item);
                }
                Ok(Value::Map(entries))
            }
            Type::Object(attrs) => {
                let len = self.map_len(path)?;
                if len != attrs.len() {
                    return Err(CodecError::new(
                        path,
                        format!(
                            "an object with {} attributes is required ({len} given)",
                            attrs.len()
                        ),
                    ));
                }
                let mut entries = BTreeMap::new();
                for _ in 0..len {
                    let key = self.string(path)?;
                    let Some(attr_ty) = attrs.get(&key) else {
                        return Err(CodecError::new(
                            path,
                            format!("unsupported attribute {key:?}"),
                        ));
                    };
                    if entries.contains_key(&key) {
                        return Err(CodecError::new(
                            path,
                            format!("duplicate attribute {key:?}"),
                        ));
                    }
                    let item = self.value(attr_ty, &path.attr(&key), depth + 1)?;
                    entries.insert(key, item);
                }
                Ok(Value::Object(entries))
            }
        }
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn dynamic(&mut self, path: &PathRef<'_>, depth: usize) -> Result<Value, CodecError> {
        let len = self.array_len(path)?;
        if len != 2 {
            return Err(CodecError::new(
                path,
                "a dynamic value must be a [type, value] pair",
            ));
        }
        let type_json = match self.marker(path)? {
            Marker::Bin8 | Marker::Str8 => self.uint(1, path)?,
            Marker::Bin16 | Marker::Str16 => self.uint(2, path)?,
            Marker::Bin32 | Marker::Str32 => self.uint(4, path)?,
            Marker::FixStr(n) => u64::from(n),
            other => return Err(mismatch(path, "type JSON bytes", other)),
        };
        let type_bytes = self.take(type_json as usize, path)?;
        let ty =
            Type::from_json_bytes(type_bytes).map_err(|e| CodecError::new(path, e.to_string()))?;
        let inner = self.value(&ty, path, depth + 1)?;
        Ok(Value::Dynamic(ty, Box::new(inner)))
    }

    fn unknown(&mut self, path: &PathRef<'_>) -> Result<Value, CodecError> {
        let (code_and_len, fixed) = match self.marker(path)? {
            Marker::FixExt1 => (None, 1),
            Marker::FixExt2 => (None, 2),
            Marker::FixExt4 => (None, 4),
            Marker::FixExt8 => (None, 8),
            Marker::FixExt16 => (None, 16),
            Marker::Ext8 => (Some(self.uint(1, path)?), 0),
            Marker::Ext16 => (Some(self.uint(2, path)?), 0),
            _ => (Some(self.uint(4, path)?), 0),
        };
        let len = code_and_len.map_or(fixed, |l| l as usize);
        let code = self.take(1, path)?[0] as i8;
        let body = self.take(len, path)?;
        if code == EXT_REFINED_UNKNOWN && body.len() > 1 && body.len() <= MAX_REFINEMENT_BODY {
            // A malformed refinement still means "unknown": refinements are hints.
            return Ok(Value::Unknown(parse_refinement(body).unwrap_or_default()));
        }
        Ok(Value::unknown())
    }

    fn string(&mut self, path: &PathRef<'_>) -> Result<String, CodecError> {
        let len = match self.marker(path)? {
            Marker::FixStr(n) => usize::from(n),
            Marker::Str8 => self.uint(1, path)? as usize,
            Marker::Str16 => self.uint(2, path)? as usize,
            Marker::Str32 => self.uint(4, path)? as usize,
            other => return Err(mismatch(path, "string", other)),
        };
        let bytes = self.take(len, path)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| CodecError::new(path, "string is not valid UTF-8"))
    }

    fn number(&mut self, path: &PathRef<'_>) -> Result<Number, CodecError> {
        let marker = self.marker(path)?;
        let n = match marker {
            Marker::FixPos(v) => Number::from(i64::from(v)),
            Marker::FixNeg(v) => Number::from(i64::from(v)),
            Marker::U8 => Number::from(self.uint(1, path)?),
            Marker::U16 => Number::from(self.uint(2, path)?),
            Marker::U32 => Number::from(self.uint(4, path)?),
            Marker::U64 => Number::from(self.uint(8, path)?),
            Marker::I8 => Number::from(i64::from(self.uint(1, path)? as u8 as i8)),
            Marker::I16 => Number::from(i64::from(self.uint(2, path)? as u16 as i16)),
            Marker::I32 => Number::from(i64::from(self.uint(4, path)? as u32 as i32)),
            Marker::I64 => Number::from(self.uint(8, path)? as i64),
            Marker::F32 => float(f64::from(f32::from_bits(self.uint(4, path)? as u32)), path)?,
            Marker::F64 => float(f64::from_bits(self.uint(8, path)?), path)?,
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                self.pos -= 1;
                let text = self.string(path)?;
                text.parse().map_err(|e: crate::number::ParseNumberError| {
                    CodecError::new(path, e.to_string())
                })?
            }
            other => return Err(mismatch(path, "number", other)),
        };
        Ok(n)
    }

    fn array_len(&mut self, path: &PathRef<'_>) -> Result<usize, CodecError> {
        let len = match self.marker(path)? {
            Marker::FixArray(n) => usize::from(n),
            Marker::Array16 => self.uint(2, path)? as usize,
            Marker::Array32 => self.uint(4, path)? as usize,
            other => return Err(mismatch(path, "array", other)),
        };
        self.check_len(len, path)
    }

    fn map_len(&mut self, path: &PathRef<'_>) -> Result<usize, CodecError> {
        let len = match self.marker(path)? {
            Marker::FixMap(n) => usize::from(n),
            Marker::Map16 => self.uint(2, path)? as usize,
            Marker::Map32 => self.uint(4, path)? as usize,
            other => return Err(mismatch(path, "map", other)),
        };
        self.check_len(len, path)
    }

    /// Every element takes at least one byte, so a longer count is a lie.
    fn check_len(&self, len: usize, path: &PathRef<'_>) -> Result<usize, CodecError> {
        if len > self.remaining() {
            return Err(CodecError::new(
                path,
                format!(
                    "collection claims {len} elements but only {} bytes remain",
                    self.remaining()
                ),
            ));
        }
        Ok(len)
    }
}

fn float(f: f64, path: &PathRef<'_>) -> Result<Number, CodecError> {
    Number::from_f64(f)
        .ok_or_else(|| CodecError::new(path, format!("number {f} cannot be represented")))
}

fn mismatch(path: &PathRef<'_>, expected: &str, found: Marker) -> CodecError {
    let found = match found {
        Marker::True | Marker::False => "bool",
        Marker::FixPos(_)
        | Marker::FixNeg(_)
        | Marker::U8
        | Marker::U16
        | Marker::U32
        | Marker::U64 => "integer",
        Marker::I8 | Marker::I16 | Marker::I32 | Marker::I64 => "integer",
        Marker::F32 | Marker::F64 => "float",
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "string",
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "binary",
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "array",
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "map",
        Marker::Reserved => "reserved byte 0xc1",
        _ => "other msgpack data",
    };
    CodecError::new(path, format!("expected {expected}, found msgpack {found}"))
}

fn parse_refinement(body: &[u8]) -> Option<Refinement> {
    let mut reader = Reader { buf: body, pos: 0 };
    let root = PathRef::Root;
    let len = reader.map_len(&root).ok()?;
    let mut r = Refinement::default();
    for _ in 0..len {
        let key = reader.number(&root).ok()?.to_i64()?;
        match key {
            1 => r.not_null = matches!(reader.marker(&root).ok()?, Marker::False),
            2 => r.string_prefix = Some(reader.string(&root).ok()?),
            3 | 4 => {
                if reader.array_len(&root).ok()? != 2 {
                    return None;
                }
                let n = reader.number(&root).ok()?;
                let inclusive = matches!(reader.marker(&root).ok()?, Marker::True);
                if key == 3 {
                    r.number_lower = Some((n, inclusive));
                } else {
                    r.number_upper = Some((n, inclusive));
                }
            }
            5 => r.length_lower = reader.number(&root).ok()?.to_u64(),
            6 => r.length_upper = reader.number(&root).ok()?.to_u64(),
            _ => skip(&mut reader)?,
        }
    }
    Some(r)
}

/// Skips one msgpack value of any kind (for refinement keys we do not know).
fn skip(reader: &mut Reader<'_>) -> Option<()> {
    let root = PathRef::Root;
    let marker = reader.marker(&root).ok()?;
    let n = |r: &mut Reader<'_>, w| r.uint(w, &PathRef::Root).ok().map(|v| v as usize);
    match marker {
        Marker::Null | Marker::True | Marker::False | Marker::FixPos(_) | Marker::FixNeg(_) => {}
        Marker::U8 | Marker::I8 => {
            reader.take(1, &root).ok()?;
        }
        Marker::U16 | Marker::I16 => {
            reader.take(2, &root).ok()?;
        }
        Marker::U32 | Marker::I32 | Marker::F32 => {
            reader.take(4, &root).ok()?;
        }
        Marker::U64 | Marker::I64 | Marker::F64 => {
            reader.take(8, &root).ok()?;
        }
        Marker::FixStr(len) => {
            reader.take(usize::from(len), &root).ok()?;
        }
        Marker::Str8 | Marker::Bin8 => {
            let len = n(reader, 1)?;
            reader.take(len, &root).ok()?;
        }
        Marker::Str16 | Marker::Bin16 => {
            let len = n(reader, 2)?;
            reader.take(len, &root).ok()?;
        }
        Marker::Str32 | Marker::Bin32 => {
            let len = n(reader, 4)?;
            reader.take(len, &root).ok()?;
        }
        Marker::FixArray(len) => (0..len).try_for_each(|_| skip(reader))?,
        Marker::FixMap(len) => (0..u16::from(len) * 2).try_for_each(|_| skip(reader))?,
        _ => return None,
    }
    Some(())
}

fn write_value(
    out: &mut Vec<u8>,
    value: &Value,
    ty: &Type,
    path: &PathRef<'_>,
) -> Result<(), CodecError> {
    let wrong = || CodecError::new(path, format!("expected {ty}, found {}", value_kind(value)));
    match value {
        Value::Null => {
            out.push(0xc0);
            return Ok(());
        }
        Value::Unknown(refinement) => {
            // An unknown of dynamic type is always a plain unknown on the wire.
            let plain = Refinement::default();
            write_unknown(
                out,
                if matches!(ty, Type::Dynamic) {
                    &plain
                } else {
                    refinement
                },
            );
            return Ok(());
        }
        _ => {}
    }
    match ty {
        Type::Dynamic => {
            let (inner_ty, inner) = match value {
                Value::Dynamic(inner_ty, inner) => (inner_ty.clone(), inner.as_ref()),
                other => (
                    inferred_primitive_type(other).ok_or_else(|| {
                        CodecError::new(
                            path,
                            format!(
                                "a {} in a dynamic slot needs its type (use Value::Dynamic)",
                                value_kind(other)
                            ),
                        )
                    })?,
                    other,
                ),
            };
            rmp::encode::write_array_len(out, 2).expect("vec write");
            let type_json = inner_ty.to_json_string();
            rmp::encode::write_bin(out, type_json.as_bytes()).expect("vec write");
            write_value(out, inner, &inner_ty, path)
        }
        Type::String => match value {
            Value::String(s) => {
                rmp::encode::write_str(out, s).expect("vec write");
                Ok(())
            }
            _ => Err(wrong()),
        },
        Type::Bool => match value {
            Value::Bool(b) => {
                rmp::encode::write_bool(out, *b).expect("vec write");
                Ok(())
            }
            _ => Err(wrong()),
        },
        Type::Number => match value {
            Value::Number(n) => {
                write_number(out, n);
                Ok(())
            }
            _ => Err(wrong()),
        },
        Type::List(elem) | Type::Set(elem) => {
            let items = match (ty, value) {
                (Type::List(_), Value::List(items)) | (Type::Set(_), Value::Set(items)) => items,
                _ => return Err(wrong()),
            };
            rmp::encode::write_array_len(out, items.len() as u32).expect("vec write");
            for (i, item) in items.iter().enumerate() {
                write_value(out, item, elem, &path.index(i as i64))?;
            }
            Ok(())
        }
        Type::Tuple(elems) => {
            let Value::Tuple(items) = value else {
                return Err(wrong());
            };
            if items.len() != elems.len() {
                return Err(tuple_length(path, elems.len(), items.len()));
            }
            rmp::encode::write_array_len(out, items.len() as u32).expect("vec write");
            for (i, (item, elem)) in items.iter().zip(elems).enumerate() {
                write_value(out, item, elem, &path.index(i as i64))?;
            }
            Ok(())
        }
        Type::Map(elem) => {
            let Value::Map(entries) = value else {
                return Err(wrong());
            };
            rmp::encode::write_map_len(out, entries.len() as u32).expect("vec write");
            for (key, item) in entries {
                rmp::encode::write_str(out, key).expect("vec write");
                write_value(out, item, elem, &path.key(key))?;
            }
            Ok(())
        }
        Type::Object(attrs) => {
            let Value::Object(entries) = value else {
                return Err(wrong());
            };
            if let Some(extra) = entries.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(CodecError::new(
                    path,
                    format!("unsupported attribute {extra:?}"),
                ));
            }
            rmp::encode::write_map_len(out, attrs.len() as u32).expect("vec write");
            for (name, attr_ty) in attrs {
                let Some(item) = entries.get(name) else {
                    return Err(CodecError::new(
                        path,
                        format!("attribute {name:?} is required"),
                    ));
                };
                rmp::encode::write_str(out, name).expect("vec write");
                write_value(out, item, attr_ty, &path.attr(name))?;
            }
            Ok(())
        }
    }
}

fn write_number(out: &mut Vec<u8>, n: &Number) {
    if let Some(i) = n.to_i64() {
        rmp::encode::write_sint(out, i).expect("vec write");
    } else if let Some(u) = n.to_u64() {
        rmp::encode::write_uint(out, u).expect("vec write");
    } else if let Some(f) = n.to_exact_f64().filter(|_| !n.is_integer()) {
        rmp::encode::write_f64(out, f).expect("vec write");
    } else {
        rmp::encode::write_str(out, &n.to_string()).expect("vec write");
    }
}

fn write_unknown(out: &mut Vec<u8>, refinement: &Refinement) {
    if refinement.is_empty() {
        out.extend_from_slice(&[0xd4, 0, 0]);
        return;
    }
    let mut body = Vec::new();
    let entries = [
        refinement.not_null,
        refinement.string_prefix.is_some(),
        refinement.number_lower.is_some(),
        refinement.number_upper.is_some(),
        refinement.length_lower.is_some(),
        refinement.length_upper.is_some(),
    ];
    rmp::encode::write_map_len(&mut body, entries.iter().filter(|e| **e).count() as u32)
        .expect("vec write");
    if refinement.not_null {
        rmp::encode::write_sint(&mut body, 1).expect("vec write");
        rmp::encode::write_bool(&mut body, false).expect("vec write");
    }
    if let Some(prefix) = &refinement.string_prefix {
        rmp::encode::write_sint(&mut body, 2).expect("vec write");
        rmp::encode::write_str(&mut body, prefix).expect("vec write");
    }
    for (key, bound) in [(3, &refinement.number_lower), (4, &refinement.number_upper)] {
        if let Some((n, inclusive)) = bound {
            rmp::encode::write_sint(&mut body, key).expect("vec write");
            rmp::encode::write_array_len(&mut body, 2).expect("vec write");
            write_number(&mut body, n);
            rmp::encode::write_bool(&mut body, *inclusive).expect("vec write");
        }
    }
    for (key, bound) in [(5, refinement.length_lower), (6, refinement.length_upper)] {
        if let Some(n) = bound {
            rmp::encode::write_sint(&mut body, key).expect("vec write");
            rmp::encode::write_uint(&mut body, n).expect("vec write");
        }
    }
    rmp::encode::write_ext_meta(out, body.len() as u32, EXT_REFINED_UNKNOWN).expect("vec write");
    out.extend_from_slice(&body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_in_a_dynamic_slot_carries_no_refinements() {
        // Found by fuzzing (fuzz/corpus/msgpack_value/refined-bound-float): a refined
        // unknown decoded in a dynamic slot lost its refinement when encoded again.
        let refined = [0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2];
        assert_eq!(
            decode(&refined, &Type::Dynamic).unwrap(),
            Value::unknown(),
            "plain, as go-cty has it"
        );
        assert_ne!(decode(&refined, &Type::String).unwrap(), Value::unknown());
    }

    fn obj_ty() -> Type {
        Type::object([
            ("id", Type::String),
            ("n", Type::Number),
            ("tags", Type::map(Type::String)),
        ])
    }

    #[test]
    fn null_and_unknown_have_fixed_encodings() {
        assert_eq!(encode(&Value::Null, &Type::String).unwrap(), vec![0xc0]);
        assert_eq!(
            encode(&Value::unknown(), &Type::String).unwrap(),
            vec![0xd4, 0, 0]
        );
        assert_eq!(decode(&[0xd4, 0, 0], &obj_ty()).unwrap(), Value::unknown());
        assert_eq!(
            decode(&[0xc7, 0, 0], &Type::Number).unwrap(),
            Value::unknown()
        );
    }

    #[test]
    fn refined_unknown_round_trips() {
        let r = Refinement {
            not_null: true,
            string_prefix: Some("ab".into()),
            ..Refinement::default()
        };
        let bytes = encode(&Value::Unknown(r.clone()), &Type::String).unwrap();
        assert_eq!(bytes[0], 0xc7, "ext8 header");
        assert_eq!(bytes[2] as i8, EXT_REFINED_UNKNOWN);
        assert_eq!(decode(&bytes, &Type::String).unwrap(), Value::Unknown(r));
    }

    #[test]
    fn numbers_use_go_cty_forms() {
        assert_eq!(encode(&Value::from(5), &Type::Number).unwrap(), vec![5]);
        assert_eq!(
            encode(&Value::Number("0.5".parse().unwrap()), &Type::Number).unwrap()[0],
            0xcb
        );
        let big: Number = "123456789012345678901234567890".parse().unwrap();
        let bytes = encode(&Value::Number(big.clone()), &Type::Number).unwrap();
        assert_eq!(decode(&bytes, &Type::Number).unwrap(), Value::Number(big));
    }

    #[test]
    fn dynamic_wraps_type_json_as_bin() {
        let v = Value::Dynamic(Type::String, Box::new("x".into()));
        let bytes = encode(&v, &Type::Dynamic).unwrap();
        assert_eq!(
            bytes,
            [&[0x92, 0xc4, 8][..], b"\"string\"", &[0xa1, b'x']].concat()
        );
        assert_eq!(decode(&bytes, &Type::Dynamic).unwrap(), v);
    }

    #[test]
    fn objects_must_have_every_attribute() {
        let missing = Value::object([("id", Value::Null)]);
        let err = encode(&missing, &obj_ty()).unwrap_err();
        assert!(err.message.contains("\"n\" is required"), "{err}");
        let extra = Value::object([
            ("id", Value::Null),
            ("n", Value::Null),
            ("tags", Value::Null),
            ("x", Value::Null),
        ]);
        assert!(
            encode(&extra, &obj_ty())
                .unwrap_err()
                .message
                .contains("unsupported attribute \"x\"")
        );
        // one entry where three are required
        assert!(decode(&[0x81, 0xa2, b'i', b'd', 0xc0], &obj_ty()).is_err());
    }

    #[test]
    fn mismatch_names_the_path() {
        let v = Value::object([
            ("id", Value::from(3)),
            ("n", Value::Null),
            ("tags", Value::Null),
        ]);
        let err = encode(&v, &obj_ty()).unwrap_err();
        assert_eq!(err.to_string(), "at .id: expected string, found number");
    }

    #[test]
    fn hostile_input_is_an_error_not_a_panic() {
        for bytes in [
            &[][..],
            &[0xdd, 0xff, 0xff, 0xff, 0xff],
            &[0xc1],
            &[0x91],
            &[0xa5, b'a'],
            &[0xc0, 0xc0],
        ] {
            assert!(
                decode(bytes, &Type::list(Type::String)).is_err(),
                "{bytes:?}"
            );
        }
        let deep = [vec![0x91; 1000], vec![0xc0]].concat();
        let mut ty = Type::String;
        for _ in 0..1000 {
            ty = Type::list(ty);
        }
        assert!(decode(&deep, &ty).is_err());
    }
}
