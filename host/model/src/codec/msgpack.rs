//! Terraform's msgpack value encoding (go-cty `cty/msgpack`): nil is null, extension
//! values are unknowns (code 12 carries refinements), dynamic slots are `[type JSON, value]`.

use std::collections::BTreeMap;

use rmp::Marker;

use super::{CodecError, MAX_DEPTH, inferred_primitive_type, tuple_length, value_kind};
use crate::{Name, Number, PathRef, Refinement, Type, Value};

/// Extension type code of a refined unknown.
const EXT_REFINED_UNKNOWN: i8 = 12;
/// Largest refinement body go-cty accepts.
const MAX_REFINEMENT_BODY: usize = 1024;

/// The msgpack encoding of a null value (of any type).
pub const NULL: &[u8] = &[0xc0];

/// Decodes `bytes` as a value of type `ty`. Trailing bytes are an error.
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let mut reader = Reader {
        buf: bytes,
        pos: 0,
        expand: expansion_budget(bytes.len()),
        dynamic: super::DynamicIndex::default(),
    };
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
    /// Unknown elements refinements may still expand into ([`expansion_budget`]).
    expand: usize,
    /// Which nodes of the types being decoded hold `dynamic`.
    dynamic: super::DynamicIndex,
}

/// How many unknown elements refinements may expand into in one value: a 14-byte refined
/// unknown of exact length 1024 becomes 1024 values (48 KiB), so without a bound a guest's
/// 224 KB answer took 2.6 GB. Past 65,536 the bound grows with the input, keeping expansion
/// to what decoding as many bytes of plain values costs.
fn expansion_budget(input: usize) -> usize {
    input.max(1 << 16)
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
            | Marker::Ext32 => return self.unknown(ty, path, depth),
            _ => {}
        }
        match ty {
            Type::Dynamic => self.dynamic(path, depth),
            Type::String => self
                .string(path)
                .map(|s| Value::String(super::normalized(s.to_owned()))),
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
                let kind = if matches!(ty, Type::List(_)) {
                    "list"
                } else {
                    "set"
                };
                self.dynamic.add_element(elem);
                let index = &self.dynamic;
                super::element_types(
                    items.iter_mut(),
                    elem,
                    kind,
                    path,
                    &|t| index.has(t),
                    &mut self.expand,
                )?;
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
                // Collected, then built at once: go-cty writes keys in order, which the sort
                // only confirms, and building from sorted pairs searches nothing (an insert
                // per key was a twelfth of a small plan's checks). The last of a repeated key
                // wins, as inserting made it. An entry takes at least two bytes.
                let mut pairs = Vec::with_capacity(len.min(self.remaining() / 2));
                for _ in 0..len {
                    let key = super::normalized_name(self.string(path)?);
                    let item = self.value(elem, &path.key(&key), depth + 1)?;
                    pairs.push((key, item));
                }
                let mut entries: BTreeMap<Name, Value> = pairs.into_iter().collect();
                self.dynamic.add_element(elem);
                let index = &self.dynamic;
                super::element_types(
                    entries.values_mut(),
                    elem,
                    "map",
                    path,
                    &|t| index.has(t),
                    &mut self.expand,
                )?;
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
                // go-cty writes an object's attributes in name order, the type's: each key is
                // then the next attribute (one comparison, no lookup) and is pushed after the
                // last. The first key out of that order moves the rest to a lookup each and a
                // set of the names seen, with the same errors, and one sort at the end (never
                // a shift per attribute, whatever order a hostile answer sends).
                let mut in_order = Some(attrs.iter());
                let mut entries = crate::Attributes::with_capacity(len);
                let mut out_of_order: Vec<(Name, Value)> = Vec::new();
                let mut seen: Option<crate::hash::HashSet<&str>> = None;
                for _ in 0..len {
                    let key = self.string_bytes(path)?;
                    if let Some(order) = &mut in_order {
                        let same = |n: &&String| crate::compare::same_bytes(n.as_bytes(), key);
                        if let Some((name, attr_ty)) = order.next().filter(|(n, _)| same(n)) {
                            let item = self.value(attr_ty, &path.attr(name), depth + 1)?;
                            entries.push_last(Name::new(name), item);
                            continue;
                        }
                        in_order = None;
                        out_of_order = std::mem::take(&mut entries).into_iter().collect();
                        let mut names = crate::hash::hash_set(len);
                        names.extend(attrs.keys().take(out_of_order.len()).map(String::as_str));
                        seen = Some(names);
                    }
                    let key = utf8(key, path)?;
                    let Some(attr_ty) = attrs.get(key) else {
                        return Err(CodecError::new(
                            path,
                            format!("unsupported attribute {key:?}"),
                        ));
                    };
                    if !seen.as_mut().is_some_and(|names| names.insert(key)) {
                        return Err(CodecError::new(
                            path,
                            format!("duplicate attribute {key:?}"),
                        ));
                    }
                    let item = self.value(attr_ty, &path.attr(key), depth + 1)?;
                    out_of_order.push((Name::new(key), item));
                }
                if in_order.is_none() {
                    // Distinct names (repeats were refused): collecting sorts them once.
                    entries = out_of_order.into_iter().collect();
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
        // Its nodes are indexed as the decode meets them, and forgotten before it is dropped.
        let inner = self.value(&ty, path, depth + 1);
        self.dynamic.remove(&ty);
        Ok(super::dynamic_value(&ty, inner?))
    }

    /// An unknown of type `ty`, with its refinements as go-cty reads them
    /// (`unmarshalUnknownValue`): an extension of at most one byte is a plain unknown; a
    /// longer one must be extension 12 holding a map of refinements (at most 1 KiB).
    fn unknown(
        &mut self,
        ty: &Type,
        path: &PathRef<'_>,
        depth: usize,
    ) -> Result<Value, CodecError> {
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
        if len <= 1 {
            return Ok(Value::unknown());
        }
        if code != EXT_REFINED_UNKNOWN {
            return Err(CodecError::new(
                path,
                format!("unsupported extension type {code:#04x} with length {len}"),
            ));
        }
        if len > MAX_REFINEMENT_BODY {
            return Err(CodecError::new(path, "oversize unknown value refinement"));
        }
        let value = refined(body, ty, depth)
            .map_err(|e| CodecError::new(path, format!("unknown value refinements: {e}")))?;
        if let Value::List(items) = &value {
            self.expand = self.expand.checked_sub(items.len()).ok_or_else(|| {
                CodecError::new(
                    path,
                    format!(
                        "unknown value refinements expand to more than {} unknown elements in \
                         a value of {} bytes",
                        expansion_budget(self.buf.len()),
                        self.buf.len()
                    ),
                )
            })?;
        }
        Ok(value)
    }

    /// A string, borrowed from the message: an attribute name or map key becomes a [`Name`]
    /// (inline up to 23 bytes, no allocation) without passing through a `String`.
    fn string(&mut self, path: &PathRef<'_>) -> Result<&'a str, CodecError> {
        let bytes = self.string_bytes(path)?;
        utf8(bytes, path)
    }

    /// A string's bytes, not yet checked to be UTF-8: an object's key that is the name the
    /// type expects next needs no check (a fifth of a guest's decoding of keys).
    fn string_bytes(&mut self, path: &PathRef<'_>) -> Result<&'a [u8], CodecError> {
        let len = match self.marker(path)? {
            Marker::FixStr(n) => usize::from(n),
            Marker::Str8 => self.uint(1, path)? as usize,
            Marker::Str16 => self.uint(2, path)? as usize,
            Marker::Str32 => self.uint(4, path)? as usize,
            other => return Err(mismatch(path, "string", other)),
        };
        self.take(len, path)
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

fn utf8<'a>(bytes: &'a [u8], path: &PathRef<'_>) -> Result<&'a str, CodecError> {
    std::str::from_utf8(bytes).map_err(|_| CodecError::new(path, "string is not valid UTF-8"))
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

/// An unknown's refinements as go-cty builds them (`RefinementBuilder`): a refinement that
/// cannot apply to the type or contradicts another is an error (go-cty errors or panics);
/// refinements that pin the value down make it that value: null, a number, an empty
/// collection, a list of unknowns, a one-element set.
fn refined(body: &[u8], ty: &Type, depth: usize) -> Result<Value, String> {
    let root = PathRef::Root;
    let mut reader = Reader {
        buf: body,
        pos: 0,
        expand: 0,
        dynamic: super::DynamicIndex::default(),
    };
    let entries = reader.map_len(&root).map_err(|_| "not a map".to_owned())?;
    if matches!(ty, Type::Dynamic) {
        // go-cty ignores refinements of a dynamic-typed unknown, whatever they say.
        return Ok(Value::unknown());
    }
    let collection = matches!(ty, Type::List(_) | Type::Set(_) | Type::Map(_));
    let mut r = Refinement::default();
    let mut null: Option<bool> = None;
    let (mut min_len, mut max_len) = (0u64, u64::MAX);
    for _ in 0..entries {
        let key = reader
            .number(&root)
            .ok()
            .and_then(|n| n.to_i64())
            .ok_or("non-integer key in map")?;
        match key {
            1 => {
                let is_null = match reader.marker(&root).map_err(|e| e.message)? {
                    Marker::True => true,
                    Marker::False => false,
                    _ => return Err("null refinement is not boolean".into()),
                };
                if null.is_some_and(|n| n != is_null) {
                    return Err("refined as both null and not null".into());
                }
                null = Some(is_null);
            }
            2 => {
                if !matches!(ty, Type::String) {
                    return Err("string prefix refinement for non-string type".into());
                }
                let prefix = super::normalized(
                    (reader.string(&root))
                        .map_err(|_| "string prefix refinement is not valid UTF-8 string")?
                        .to_owned(),
                );
                let have = r.string_prefix.take().unwrap_or_default();
                let common = prefix.len().min(have.len());
                if prefix.as_bytes()[..common] != have.as_bytes()[..common] {
                    return Err(
                        "refined prefix is inconsistent with previous refined prefix".into(),
                    );
                }
                r.string_prefix = Some(if prefix.len() > have.len() {
                    prefix
                } else {
                    have
                })
                .filter(|p| !p.is_empty());
            }
            5 | 6 => {
                if !collection {
                    return Err("length bound refinement for non-collection type".into());
                }
                let bound = reader
                    .number(&root)
                    .ok()
                    .and_then(|n| n.to_i64())
                    .ok_or("length bound refinement must be an integer")?;
                if key == 5 {
                    if bound > 0 && bound as u64 > min_len {
                        min_len = bound as u64;
                    }
                } else if bound < 0 || (bound as u64) < max_len {
                    if bound < 0 {
                        return Err(format!(
                            "collection length upper bound {bound} is less than lower bound {min_len}"
                        ));
                    }
                    max_len = bound as u64;
                }
                if max_len < min_len {
                    return Err(format!(
                        "collection length upper bound {max_len} is less than lower bound {min_len}"
                    ));
                }
            }
            3 | 4 => {
                if !matches!(ty, Type::Number) {
                    return Err("numeric bound refinement for non-number type".into());
                }
                let pair = Type::Tuple(vec![Type::Number, Type::Bool]);
                let bound = reader
                    .value(&pair, &root, depth + 1)
                    .map_err(|e| e.message)?;
                let (Some(Value::Number(n)), Some(Value::Bool(inclusive))) = (
                    bound.as_elements().and_then(|b| b.first()),
                    bound.as_elements().and_then(|b| b.get(1)),
                ) else {
                    return Err("number bound refinement must be a [number, bool] array".into());
                };
                let (n, inclusive) = (n.clone(), *inclusive);
                if key == 3 {
                    let tighter = r.number_lower.as_ref().is_none_or(|(have, have_inc)| {
                        if inclusive && !have_inc {
                            n > *have
                        } else {
                            n >= *have
                        }
                    });
                    if tighter {
                        r.number_lower = Some((n, inclusive));
                    }
                } else {
                    let tighter = r.number_upper.as_ref().is_none_or(|(have, have_inc)| {
                        if inclusive && !have_inc {
                            n < *have
                        } else {
                            n <= *have
                        }
                    });
                    if tighter {
                        r.number_upper = Some((n, inclusive));
                    }
                }
                if let (Some((lo, lo_inc)), Some((hi, hi_inc))) = (&r.number_lower, &r.number_upper)
                {
                    let consistent = if lo_inc != hi_inc { lo < hi } else { lo <= hi };
                    if !consistent {
                        return Err(format!(
                            "number lower bound {lo} is greater than upper bound {hi}"
                        ));
                    }
                }
            }
            // go-cty leaves an unknown key's value in place (it is read as the next key),
            // and so does this.
            _ => {}
        }
    }
    if null == Some(true) {
        return Ok(Value::Null);
    }
    r.not_null = null == Some(false);
    r.length_lower = (min_len > 0).then_some(min_len);
    r.length_upper = (max_len != u64::MAX).then_some(max_len);
    if r.not_null {
        if let (Some((lo, true)), Some((hi, true))) = (&r.number_lower, &r.number_upper)
            && lo == hi
        {
            return Ok(Value::Number(lo.clone()));
        }
        if collection && min_len == max_len {
            match (ty, min_len) {
                (Type::List(_), 0) => return Ok(Value::List(Vec::new())),
                (Type::Set(_), 0) => return Ok(Value::Set(Vec::new())),
                (Type::Map(_), 0) => return Ok(Value::Map(BTreeMap::new())),
                (Type::List(_), n) if n <= MAX_REFINEMENT_BODY as u64 => {
                    return Ok(Value::List(vec![Value::unknown(); n as usize]));
                }
                (Type::Set(_), 1) => return Ok(Value::Set(vec![Value::unknown()])),
                _ => {}
            }
        }
    }
    Ok(Value::refined(r))
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
            rmp::encode::write_map_len(out, attrs.len() as u32).expect("vec write");
            // Both in name order: a value of exactly the type's attributes is written in step
            // with the type, with no lookup.
            if entries.len() == attrs.len()
                && (entries.keys().zip(attrs.keys()))
                    .all(|(held, name)| crate::compare::same_name(held, name))
            {
                for ((name, attr_ty), item) in attrs.iter().zip(entries.values()) {
                    rmp::encode::write_str(out, name).expect("vec write");
                    write_value(out, item, attr_ty, &path.attr(name))?;
                }
                return Ok(());
            }
            if let Some(extra) = entries.keys().find(|k| !attrs.contains_key(k.as_str())) {
                return Err(CodecError::new(
                    path,
                    format!("unsupported attribute {extra:?}"),
                ));
            }
            for (name, attr_ty) in attrs {
                let Some(item) = entries.get(name.as_str()) else {
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

/// As go-cty writes a number: an integer within `i64` as an integer, a non-integer that is
/// exactly a float64 as float64, anything else (larger integers too) as its text.
fn write_number(out: &mut Vec<u8>, n: &Number) {
    if let Some(i) = n.to_i64() {
        rmp::encode::write_sint(out, i).expect("vec write");
    } else if let Some(f) = n.to_exact_f64() {
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
    // As go-cty writes them: no empty prefix, no zero lower length bound, prefixes cut to
    // at most 256 bytes.
    let prefix = refinement
        .string_prefix
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(super::safe_prefix);
    let length_lower = refinement.length_lower.filter(|n| *n > 0);
    let entries = [
        refinement.not_null,
        prefix.is_some(),
        refinement.number_lower.is_some(),
        refinement.number_upper.is_some(),
        length_lower.is_some(),
        refinement.length_upper.is_some(),
    ];
    if !entries.contains(&true) {
        out.extend_from_slice(&[0xd4, 0, 0]);
        return;
    }
    rmp::encode::write_map_len(&mut body, entries.iter().filter(|e| **e).count() as u32)
        .expect("vec write");
    if refinement.not_null {
        rmp::encode::write_sint(&mut body, 1).expect("vec write");
        rmp::encode::write_bool(&mut body, false).expect("vec write");
    }
    if let Some(prefix) = prefix {
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
    for (key, bound) in [(5, length_lower), (6, refinement.length_upper)] {
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

    /// go-cty holds strings and map keys in NFC; a key is decoded straight into a `Name`, short
    /// or long, and must come out normalized like a string value.
    #[cfg(feature = "unicode")]
    #[test]
    fn map_keys_and_strings_decode_to_nfc() {
        let ty = Type::Map(Box::new(Type::String));
        for (sent, held) in [
            ("e\u{301}", "\u{e9}"),
            (
                "a key longer than inline names: e\u{301}",
                "a key longer than inline names: \u{e9}",
            ),
            ("plain", "plain"),
        ] {
            let value = Value::Map([(Name::from(sent), Value::from(sent))].into());
            let decoded = decode(&encode(&value, &ty).unwrap(), &ty).unwrap();
            let expected = Value::Map([(Name::from(held), Value::from(held))].into());
            assert_eq!(decoded, expected, "{sent:?}");
        }
    }

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
    fn refinements_expand_no_further_than_the_budget() {
        // Not null, length exactly 1024: a known list of 1024 unknowns, from 14 bytes.
        let one = [
            0xc7, 0x0b, 0x0c, 0x83, 0x01, 0xc2, 0x05, 0xcd, 0x04, 0x00, 0x06, 0xcd, 0x04, 0x00,
        ];
        let ty = Type::List(Box::new(Type::String));
        assert_eq!(
            decode(&one, &ty).unwrap(),
            Value::List(vec![Value::unknown(); 1024])
        );
        let many = |n: u32| {
            let mut bytes = vec![0xdd];
            bytes.extend(n.to_be_bytes());
            (0..n).for_each(|_| bytes.extend(one));
            bytes
        };
        let outer = Type::List(Box::new(ty));
        assert_eq!(
            decode(&many(64), &outer).unwrap(),
            Value::List(vec![Value::List(vec![Value::unknown(); 1024]); 64])
        );
        let e = decode(&many(16_000), &outer).unwrap_err();
        assert!(e.to_string().contains("expand to more than"), "{e}");
        assert!(e.to_string().starts_with("at [218]"), "names where: {e}");
    }

    #[test]
    fn refined_unknown_round_trips() {
        let r = Refinement {
            not_null: true,
            string_prefix: Some("ab".into()),
            ..Refinement::default()
        };
        let bytes = encode(&Value::refined(r.clone()), &Type::String).unwrap();
        assert_eq!(bytes[0], 0xc7, "ext8 header");
        assert_eq!(bytes[2] as i8, EXT_REFINED_UNKNOWN);
        assert_eq!(decode(&bytes, &Type::String).unwrap(), Value::refined(r));
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

    /// As `attributes_in_any_order_decode_alike_and_repeats_are_refused`, for a wider object:
    /// in order each attribute is pushed, out of order each is looked up and the whole sorted
    /// once.
    #[test]
    fn wide_objects_in_any_order_decode_alike_and_repeats_are_refused() {
        let names: Vec<String> = (0..14).map(|i| format!("a{i:02}")).collect();
        let ty = Type::Object(names.iter().map(|n| (n.clone(), Type::Number)).collect());
        let expected = Value::Object(
            (names.iter().enumerate())
                .map(|(i, n)| (n.into(), Value::from(i as i64)))
                .collect(),
        );
        let encode_pairs = |order: &[usize]| {
            let mut bytes = vec![0x80 | order.len() as u8];
            for &i in order {
                bytes.push(0xa0 | names[i].len() as u8);
                bytes.extend_from_slice(names[i].as_bytes());
                bytes.push(i as u8);
            }
            bytes
        };
        let in_order: Vec<usize> = (0..14).collect();
        let mut swapped = in_order.clone();
        swapped.swap(6, 7);
        let mut last_first = in_order.clone();
        last_first.rotate_right(1);
        for order in [&in_order, &swapped, &last_first] {
            assert_eq!(
                decode(&encode_pairs(order), &ty).unwrap(),
                expected,
                "{order:?}"
            );
        }
        // A key seen in order repeated after the order broke, and one repeated in order.
        let mut repeat_late = swapped.clone();
        repeat_late[13] = 2;
        let mut repeat_early = in_order.clone();
        repeat_early[1] = 0;
        for order in [&repeat_late, &repeat_early] {
            let err = decode(&encode_pairs(order), &ty).unwrap_err().to_string();
            assert!(err.contains("duplicate attribute"), "{order:?}: {err}");
        }
    }

    /// Attributes in name order (what go-cty writes) decode in one pass; any other order
    /// decodes to the same object, and a repeated or unknown name is refused wherever it
    /// comes, as before.
    #[test]
    fn attributes_in_any_order_decode_alike_and_repeats_are_refused() {
        let ty = Type::Object(
            [
                ("a", Type::String),
                ("b", Type::String),
                ("c", Type::String),
            ]
            .into_iter()
            .map(|(k, t)| (k.to_owned(), t))
            .collect(),
        );
        let map = |pairs: &[(&str, &str)]| {
            let mut bytes = vec![0x80 | pairs.len() as u8];
            for (k, v) in pairs {
                for s in [k, v] {
                    bytes.push(0xa0 | s.len() as u8);
                    bytes.extend_from_slice(s.as_bytes());
                }
            }
            bytes
        };
        let expected = Value::object([
            ("a", Value::from("1")),
            ("b", Value::from("2")),
            ("c", Value::from("3")),
        ]);
        for order in [
            [("a", "1"), ("b", "2"), ("c", "3")],
            [("b", "2"), ("a", "1"), ("c", "3")],
            [("a", "1"), ("c", "3"), ("b", "2")],
            [("c", "3"), ("b", "2"), ("a", "1")],
        ] {
            assert_eq!(decode(&map(&order), &ty).unwrap(), expected, "{order:?}");
        }
        for (pairs, error) in [
            (
                [("a", "1"), ("a", "1"), ("c", "3")],
                "duplicate attribute \"a\"",
            ),
            (
                [("a", "1"), ("c", "3"), ("a", "1")],
                "duplicate attribute \"a\"",
            ),
            (
                [("a", "1"), ("b", "2"), ("d", "3")],
                "unsupported attribute \"d\"",
            ),
            (
                [("z", "1"), ("b", "2"), ("c", "3")],
                "unsupported attribute \"z\"",
            ),
        ] {
            let err = decode(&map(&pairs), &ty).unwrap_err();
            assert!(err.message.contains(error), "{pairs:?}: {err}");
        }
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

    /// A key is checked to be UTF-8 unless it is the name the type expects next: bytes that
    /// are not UTF-8, in a name's place or out of order, are refused, as is such a string.
    #[test]
    fn keys_and_strings_that_are_not_utf8_are_refused() {
        let ty = Type::object([("a", Type::String), ("b", Type::String)]);
        let cases: [&[u8]; 3] = [
            // {"a": "x", <0xff>: "y"}: the second key in the place of "b".
            &[0x82, 0xa1, b'a', 0xa1, b'x', 0xa1, 0xff, 0xa1, b'y'],
            // {<0xff>: "x", "b": "y"}: the first key out of order.
            &[0x82, 0xa1, 0xff, 0xa1, b'x', 0xa1, b'b', 0xa1, b'y'],
            // {"a": <0xff>, "b": "y"}: a value.
            &[0x82, 0xa1, b'a', 0xa1, 0xff, 0xa1, b'b', 0xa1, b'y'],
        ];
        for bytes in cases {
            let err = decode(bytes, &ty).unwrap_err();
            assert!(err.message.contains("not valid UTF-8"), "{bytes:x?}: {err}");
        }
        let fine = [0x82, 0xa1, b'a', 0xa1, b'x', 0xa1, b'b', 0xa1, b'y'];
        assert!(decode(&fine, &ty).is_ok());
    }

    /// A key sent twice keeps the value sent last, as go-cty's decoder does.
    #[test]
    fn a_repeated_map_key_keeps_its_last_value() {
        let ty = Type::Map(Box::new(Type::Number));
        // {"b": 1, "a": 2, "b": 3}
        let bytes = [0x83, 0xa1, b'b', 1, 0xa1, b'a', 2, 0xa1, b'b', 3];
        let expected = Value::Map([("a".into(), 2.into()), ("b".into(), 3.into())].into());
        assert_eq!(decode(&bytes, &ty).unwrap(), expected);
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
