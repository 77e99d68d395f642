//! Values as they travel, before anyone decodes them: a generator of cty types and of
//! msgpack and JSON bytes for them, written directly (not by tfwasm's encoders), so both
//! decoders see the same raw input, including what an encoder would never write: known
//! duplicates in sets, numbers as text in every spelling, strings not in NFC, refinements
//! that collapse or contradict, attributes out of order.

use tfwasm_model::Type;

use super::rng::Rng;

/// A value on the wire. Objects and maps are both [`Wire::Map`]; lists, sets and tuples
/// [`Wire::Array`].
#[derive(Debug, Clone, PartialEq)]
pub enum Wire {
    /// msgpack nil / JSON null.
    Nil,
    /// An unknown: a plain one (no refinements) or extension 12 with these entries.
    Unknown(Vec<(i64, Wire)>),
    /// A boolean.
    Bool(bool),
    /// An integer; `wide` writes it with the 8-byte marker whatever its size.
    Int { value: i64, wide: bool },
    /// An unsigned 64-bit integer, always with the `uint 64` marker.
    Uint(u64),
    /// A float64.
    Float(f64),
    /// A float32.
    Float32(f32),
    /// A number written as text (msgpack string, JSON number or string).
    NumText(String),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Wire>),
    /// A map (also an object's attributes), in this order, duplicates as written.
    Map(Vec<(String, Wire)>),
    /// A dynamic slot's `[type JSON, value]` pair; `as_str` writes the type as a string.
    Dynamic {
        ty: Type,
        value: Box<Wire>,
        as_str: bool,
    },
}

/// Attribute names: few, so objects of different generations share some.
const NAMES: &[&str] = &["a", "b", "id", "sid", "tags", "x"];

/// Strings chosen for what codecs get wrong: NFC (precomposed and decomposed forms),
/// JSON escapes Go writes differently, control characters, astral characters.
const STRINGS: &[&str] = &[
    "",
    "a",
    "b",
    "x",
    "s3:GetObject",
    "hello",
    "\u{e9}",
    "e\u{301}",
    "\u{212b}",
    "A\u{30a}",
    "\u{1e9b}\u{323}",
    "<a href=\"x\">&amp;</a>",
    "tab\there",
    "line\nbreak",
    "\u{2028}\u{2029}",
    "\u{0}",
    "\u{7f}\u{80}\u{9f}",
    "\u{fffd}",
    "\u{feff}bom",
    "\u{1f600}",
    "stra\u{df}e",
    "\\",
    "\"",
    "\u{ad}soft",
    "\u{200b}zero",
];

/// Map keys. No two normalize to the same key: go-cty keeps either of two such entries, at
/// random (it normalizes while copying a Go map).
const KEYS: &[&str] = &[
    "a",
    "b",
    "key",
    "",
    "\u{e9}",
    "A\u{30a}",
    "two words",
    "\u{1f600}",
];

/// Generates types and the wire form of values of them.
pub struct Gen<'r> {
    pub rng: &'r mut Rng,
}

/// The one type of every dynamic element of a collection, mostly: go-cty panics on a
/// collection whose elements differ in type (tfwasm refuses it), and a few such cases go a
/// long way.
fn shared_dynamic(g: &mut Gen<'_>, elem: &Type, depth: u32) -> Option<Type> {
    (matches!(elem, Type::Dynamic) && !g.rng.chance(1, 8)).then(|| g.ty(depth + 1))
}

impl Gen<'_> {
    /// A type at most a few levels deep, with sets (mostly of objects) common.
    pub fn ty(&mut self, depth: u32) -> Type {
        let leaf = depth >= 3;
        match self.rng.below(if leaf { 4 } else { 11 }) {
            0 => Type::String,
            1 => Type::Number,
            2 => Type::Bool,
            3 => {
                if self.rng.chance(1, 3) {
                    Type::Dynamic
                } else {
                    Type::String
                }
            }
            4 => Type::list(self.ty(depth + 1)),
            5 | 6 => Type::set(if self.rng.chance(2, 3) {
                self.object_ty(depth + 1)
            } else {
                self.ty(depth + 1)
            }),
            7 => Type::map(self.ty(depth + 1)),
            8 | 9 => self.object_ty(depth),
            _ => {
                let n = self.rng.range(0, 3);
                Type::Tuple((0..n).map(|_| self.ty(depth + 1)).collect())
            }
        }
    }

    fn object_ty(&mut self, depth: u32) -> Type {
        let mut attrs = std::collections::BTreeMap::new();
        for _ in 0..self.rng.range(1, 4) {
            let name = (*self.rng.pick(NAMES)).to_owned();
            let ty = if depth >= 3 {
                self.ty(3)
            } else {
                self.ty(depth + 1)
            };
            attrs.insert(name, ty);
        }
        Type::Object(attrs)
    }

    /// A value of `ty` on the wire; `unknowns` allows unknowns in it.
    pub fn value(&mut self, ty: &Type, depth: u32, unknowns: bool) -> Wire {
        if self.rng.chance(1, 12) {
            return Wire::Nil;
        }
        if unknowns && self.rng.chance(1, 7) {
            return self.unknown(ty);
        }
        match ty {
            Type::String => Wire::Str(self.string()),
            Type::Number => self.number(),
            Type::Bool => Wire::Bool(self.rng.coin()),
            Type::Dynamic => {
                if depth >= 4 {
                    return Wire::Nil;
                }
                let inner = self.ty(depth + 1);
                let value = self.value(&inner, depth + 1, unknowns);
                Wire::Dynamic {
                    ty: inner,
                    value: Box::new(value),
                    as_str: self.rng.chance(1, 8),
                }
            }
            Type::List(elem) => {
                let n = self.length();
                let shared = shared_dynamic(self, elem, depth);
                Wire::Array(
                    (0..n)
                        .map(|_| self.element(elem, shared.as_ref(), depth + 1, unknowns))
                        .collect(),
                )
            }
            Type::Set(elem) => {
                let n = self.length();
                let shared = shared_dynamic(self, elem, depth);
                let mut items: Vec<Wire> = (0..n)
                    .map(|_| self.element(elem, shared.as_ref(), depth + 1, unknowns))
                    .collect();
                // Duplicates, of known elements and of elements holding unknowns alike.
                for _ in 0..self.rng.range(0, 3) {
                    if !items.is_empty() && self.rng.coin() {
                        let copy = items[self.rng.below(items.len())].clone();
                        let at = self.rng.below(items.len() + 1);
                        items.insert(at, copy);
                    }
                }
                Wire::Array(items)
            }
            Type::Map(elem) => {
                let n = self.length().min(6);
                let shared = shared_dynamic(self, elem, depth);
                let mut entries: Vec<(String, Wire)> = (0..n)
                    .map(|_| {
                        (
                            (*self.rng.pick(KEYS)).to_owned(),
                            self.element(elem, shared.as_ref(), depth + 1, unknowns),
                        )
                    })
                    .collect();
                if self.rng.chance(1, 2) {
                    // Unique keys, mostly: a repeated key is a separate kind of case.
                    let mut seen = std::collections::BTreeSet::new();
                    entries.retain(|(k, _)| seen.insert(k.clone()));
                }
                Wire::Map(entries)
            }
            Type::Object(attrs) => {
                let mut entries: Vec<(String, Wire)> = attrs
                    .iter()
                    .map(|(k, t)| (k.clone(), self.value(t, depth + 1, unknowns)))
                    .collect();
                self.rng.shuffle(&mut entries);
                if self.rng.chance(1, 40) && !entries.is_empty() {
                    entries.pop();
                } else if self.rng.chance(1, 60) {
                    entries.push(("unexpected".into(), Wire::Nil));
                }
                Wire::Map(entries)
            }
            Type::Tuple(elems) => {
                let mut items: Vec<Wire> = elems
                    .iter()
                    .map(|t| self.value(t, depth + 1, unknowns))
                    .collect();
                if self.rng.chance(1, 60) {
                    items.push(Wire::Nil);
                }
                Wire::Array(items)
            }
        }
    }

    /// An element of a collection of `elem`, of the `shared` type when it is dynamic.
    fn element(&mut self, elem: &Type, shared: Option<&Type>, depth: u32, unknowns: bool) -> Wire {
        match shared {
            Some(inner) if !self.rng.chance(1, 10) => Wire::Dynamic {
                ty: inner.clone(),
                value: Box::new(self.value(inner, depth, unknowns)),
                as_str: false,
            },
            _ => self.value(elem, depth, unknowns),
        }
    }

    fn length(&mut self) -> usize {
        match self.rng.below(20) {
            0 => self.rng.range(15, 22),
            1..=3 => 0,
            _ => self.rng.range(1, 4),
        }
    }

    fn string(&mut self) -> String {
        match self.rng.below(6) {
            0 => {
                let n = self.rng.range(1, 12);
                (0..n)
                    .map(|_| (b'a' + self.rng.below(26) as u8) as char)
                    .collect()
            }
            1 => format!("{}{}", self.rng.pick(STRINGS), self.rng.pick(STRINGS)),
            // Around the 256 bytes go-cty keeps of a refinement's prefix, ending in a letter
            // or in punctuation (which the cut treats differently).
            2 if self.rng.chance(1, 4) => {
                let n = self.rng.range(250, 262);
                let mut s: String = (0..n)
                    .map(|_| (b'a' + self.rng.below(26) as u8) as char)
                    .collect();
                if n > 255 && self.rng.coin() {
                    let punctuation = *self.rng.pick(&["-", " ", "."]);
                    s.replace_range(254..255, punctuation);
                }
                s
            }
            _ => (*self.rng.pick(STRINGS)).to_owned(),
        }
    }

    /// A number in one of the forms a client or provider might send.
    pub fn number(&mut self) -> Wire {
        let rng = &mut *self.rng;
        match rng.below(14) {
            0 | 1 => Wire::Int {
                value: rng.range(0, 80) as i64 - 40,
                wide: rng.chance(1, 6),
            },
            2 => Wire::Int {
                value: *rng.pick(&[
                    i64::MIN,
                    i64::MAX,
                    0,
                    -1,
                    1 << 53,
                    (1 << 53) + 1,
                    -(1 << 53) - 1,
                    i64::from(i32::MAX) + 1,
                ]),
                wide: rng.coin(),
            },
            3 => Wire::Int {
                value: rng.next_u64() as i64,
                wide: false,
            },
            4 => {
                let random = rng.next_u64() | (1 << 63);
                Wire::Uint(*rng.pick(&[u64::MAX, 1 << 63, (1 << 63) + 1, random, 5]))
            }
            5 => Wire::Float(*rng.pick(&[
                0.1,
                0.5,
                1.5,
                -0.0,
                0.0,
                1e300,
                -1e300,
                1e-300,
                9_007_199_254_740_993.0,
                123_456_789.123,
                f64::MAX,
                f64::MIN_POSITIVE,
                5e-324,
                1e21,
                1e22,
                0.1 + 0.2,
                2.5,
                100.0,
            ])),
            6 => {
                let f = f64::from_bits(rng.next_u64());
                Wire::Float(if f.is_finite() { f } else { 1.25 })
            }
            7 => Wire::Float32(*rng.pick(&[0.1f32, 1.5, 3.4e38, -2.0])),
            8 | 9 => Wire::NumText(decimal(rng, 1..=30)),
            10 => Wire::NumText(decimal(rng, 140..=220)),
            11 => Wire::NumText(
                (*rng.pick(&[
                    "1e3",
                    "1E3",
                    "+5",
                    "-0",
                    "0.10",
                    ".5",
                    "5.",
                    "00012",
                    "1e-7",
                    "-1.5e+2",
                    "0.0",
                    "1e400",
                    "1e-400",
                    "Inf",
                    "-Inf",
                    "NaN",
                    "0x10",
                    "",
                    " 1",
                    "1_000",
                    "12345678901234567890",
                    "0.30000000000000004",
                    "1e10000",
                    "1e-10000",
                ]))
                .to_owned(),
            ),
            12 => {
                // Ten significant digits and a deciding eleventh: how go-cty orders sets
                // of objects depends on a number's first ten digits.
                let digits: String = (0..10)
                    .map(|_| char::from(b'0' + rng.below(10) as u8))
                    .collect();
                let last = *rng.pick(&["5", "4", "6", "50000000000000001", "49999999999999999"]);
                let point = rng.range(1, 10);
                Wire::NumText(format!(
                    "{}{}.{}{}",
                    if rng.coin() { "-" } else { "" },
                    &digits[..point],
                    &digits[point..],
                    last
                ))
            }
            _ => Wire::Int {
                value: rng.range(0, 100_000) as i64,
                wide: false,
            },
        }
    }

    /// An unknown, refined as go-cty refines one of `ty` (sometimes beyond what it allows).
    fn unknown(&mut self, ty: &Type) -> Wire {
        if self.rng.chance(1, 2) {
            return Wire::Unknown(Vec::new());
        }
        let mut entries = Vec::new();
        if self.rng.chance(2, 3) {
            entries.push((1, Wire::Bool(self.rng.chance(1, 12))));
        }
        let odd = self.rng.chance(1, 25);
        match ty {
            Type::String if self.rng.coin() || odd => {
                entries.push((2, Wire::Str(self.string())));
            }
            Type::Number => {
                if self.rng.coin() {
                    entries.push((3, self.bound()));
                }
                if self.rng.coin() {
                    entries.push((4, self.bound()));
                }
            }
            Type::List(_) | Type::Set(_) | Type::Map(_) => {
                let lo = self.rng.range(0, 3) as i64;
                if self.rng.coin() {
                    entries.push((
                        5,
                        Wire::Int {
                            value: lo,
                            wide: false,
                        },
                    ));
                }
                if self.rng.coin() {
                    let hi = lo + self.rng.range(0, 3) as i64;
                    entries.push((
                        6,
                        Wire::Int {
                            value: hi,
                            wide: false,
                        },
                    ));
                }
            }
            _ if odd => entries.push((
                *self.rng.pick(&[2, 3, 5, 9]),
                Wire::Int {
                    value: 1,
                    wide: false,
                },
            )),
            _ => {}
        }
        if entries.is_empty() {
            entries.push((1, Wire::Bool(false)));
        }
        Wire::Unknown(entries)
    }

    fn bound(&mut self) -> Wire {
        let n = match self.rng.below(3) {
            0 => Wire::Int {
                value: self.rng.range(0, 20) as i64 - 10,
                wide: false,
            },
            1 => Wire::Float(*self.rng.pick(&[0.5, -2.25, 10.0])),
            _ => Wire::NumText(decimal(self.rng, 1..=6)),
        };
        Wire::Array(vec![n, Wire::Bool(self.rng.coin())])
    }
}

/// Decimal text with a number of significant digits from `digits`, a sign, a fraction and
/// an exponent sometimes.
fn decimal(rng: &mut Rng, digits: std::ops::RangeInclusive<usize>) -> String {
    let n = rng.range(*digits.start(), *digits.end());
    let mut text: String = (0..n)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect();
    if rng.coin() && n > 1 {
        let point = rng.range(1, n - 1);
        text.insert(point, '.');
    }
    if rng.chance(1, 3) {
        text.insert(0, '-');
    }
    if rng.chance(1, 4) {
        text.push_str(&format!("e{}", rng.range(0, 80) as i64 - 40));
    }
    text
}

impl Wire {
    /// True when nothing in it is unknown (cty JSON can then hold it).
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Wire::Unknown(_) => false,
            Wire::Array(items) => items.iter().all(Wire::is_wholly_known),
            Wire::Map(entries) => entries.iter().all(|(_, v)| v.is_wholly_known()),
            Wire::Dynamic { value, .. } => value.is_wholly_known(),
            _ => true,
        }
    }

    /// Its msgpack bytes.
    pub fn msgpack(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_msgpack(&mut out);
        out
    }

    fn write_msgpack(&self, out: &mut Vec<u8>) {
        use rmp::encode as w;
        match self {
            Wire::Nil => out.push(0xc0),
            Wire::Unknown(entries) if entries.is_empty() => out.extend_from_slice(&[0xd4, 0, 0]),
            Wire::Unknown(entries) => {
                let mut body = Vec::new();
                w::write_map_len(&mut body, entries.len() as u32).expect("vec");
                for (k, v) in entries {
                    w::write_sint(&mut body, *k).expect("vec");
                    v.write_msgpack(&mut body);
                }
                w::write_ext_meta(out, body.len() as u32, 12).expect("vec");
                out.extend_from_slice(&body);
            }
            Wire::Bool(b) => w::write_bool(out, *b).expect("vec"),
            Wire::Int { value, wide: true } => w::write_i64(out, *value).expect("vec"),
            Wire::Int { value, wide: false } => {
                w::write_sint(out, *value).expect("vec");
            }
            Wire::Uint(u) => w::write_u64(out, *u).expect("vec"),
            Wire::Float(f) => w::write_f64(out, *f).expect("vec"),
            Wire::Float32(f) => w::write_f32(out, *f).expect("vec"),
            Wire::NumText(s) | Wire::Str(s) => w::write_str(out, s).expect("vec"),
            Wire::Array(items) => {
                w::write_array_len(out, items.len() as u32).expect("vec");
                for item in items {
                    item.write_msgpack(out);
                }
            }
            Wire::Map(entries) => {
                w::write_map_len(out, entries.len() as u32).expect("vec");
                for (k, v) in entries {
                    w::write_str(out, k).expect("vec");
                    v.write_msgpack(out);
                }
            }
            Wire::Dynamic { ty, value, as_str } => {
                w::write_array_len(out, 2).expect("vec");
                let json = ty.to_json_string();
                if *as_str {
                    w::write_str(out, &json).expect("vec");
                } else {
                    w::write_bin(out, json.as_bytes()).expect("vec");
                }
                value.write_msgpack(out);
            }
        }
    }

    /// Its cty JSON text; `None` when it holds an unknown.
    pub fn json(&self) -> Option<String> {
        let mut out = String::new();
        self.write_json(&mut out).then_some(out)
    }

    fn write_json(&self, out: &mut String) -> bool {
        match self {
            Wire::Nil => out.push_str("null"),
            Wire::Unknown(_) => return false,
            Wire::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Wire::Int { value, .. } => out.push_str(&value.to_string()),
            Wire::Uint(u) => out.push_str(&u.to_string()),
            Wire::Float(f) => out.push_str(&format!("{f:e}")),
            Wire::Float32(f) => out.push_str(&f.to_string()),
            Wire::NumText(s) => {
                if is_json_number(s) {
                    out.push_str(s);
                } else {
                    // go-cty reads a number from a JSON string too.
                    out.push_str(&serde_json::to_string(s).expect("string"));
                }
            }
            Wire::Str(s) => out.push_str(&serde_json::to_string(s).expect("string")),
            Wire::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if !item.write_json(out) {
                        return false;
                    }
                }
                out.push(']');
            }
            Wire::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).expect("string"));
                    out.push(':');
                    if !v.write_json(out) {
                        return false;
                    }
                }
                out.push('}');
            }
            Wire::Dynamic { ty, value, .. } => {
                out.push_str("{\"value\":");
                if !value.write_json(out) {
                    return false;
                }
                out.push_str(",\"type\":");
                out.push_str(&ty.to_json_string());
                out.push('}');
            }
        }
        true
    }

    /// Every node, for choosing one to change.
    fn count(&self) -> usize {
        1 + match self {
            Wire::Array(items) => items.iter().map(Wire::count).sum(),
            Wire::Map(entries) => entries.iter().map(|(_, v)| v.count()).sum(),
            Wire::Dynamic { value, .. } => value.count(),
            _ => 0,
        }
    }
}

fn is_json_number(s: &str) -> bool {
    serde_json::from_str::<serde_json::Number>(s).is_ok()
}

/// A second value for an equality case: the same bytes, the same value written differently
/// (set elements and attributes in another order), or one node replaced by another value or
/// an unknown.
pub fn variant(rng: &mut Rng, wire: &Wire, ty: &Type) -> Wire {
    match rng.below(4) {
        0 => wire.clone(),
        1 => reordered(rng, wire, ty),
        _ => {
            let at = rng.below(wire.count());
            let mut counter = 0;
            replaced(rng, wire, ty, at, &mut counter)
        }
    }
}

fn reordered(rng: &mut Rng, wire: &Wire, ty: &Type) -> Wire {
    match (wire, ty) {
        (Wire::Array(items), Type::Set(elem)) => {
            let mut items: Vec<Wire> = items.iter().map(|i| reordered(rng, i, elem)).collect();
            rng.shuffle(&mut items);
            Wire::Array(items)
        }
        (Wire::Array(items), Type::List(elem)) => {
            Wire::Array(items.iter().map(|i| reordered(rng, i, elem)).collect())
        }
        (Wire::Array(items), Type::Tuple(elems)) => Wire::Array(
            items
                .iter()
                .zip(elems)
                .map(|(i, t)| reordered(rng, i, t))
                .collect(),
        ),
        (Wire::Map(entries), Type::Object(attrs)) => {
            let mut entries: Vec<(String, Wire)> = entries
                .iter()
                .map(|(k, v)| {
                    let t = attrs.get(k).unwrap_or(&Type::Dynamic);
                    (k.clone(), reordered(rng, v, t))
                })
                .collect();
            rng.shuffle(&mut entries);
            Wire::Map(entries)
        }
        (Wire::Map(entries), Type::Map(elem)) => Wire::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), reordered(rng, v, elem)))
                .collect(),
        ),
        _ => wire.clone(),
    }
}

fn replaced(rng: &mut Rng, wire: &Wire, ty: &Type, at: usize, counter: &mut usize) -> Wire {
    let here = *counter;
    *counter += 1;
    if here == at {
        let mut generator = Gen { rng };
        return if generator.rng.chance(1, 3) {
            generator.unknown(ty)
        } else {
            generator.value(ty, 2, true)
        };
    }
    match (wire, ty) {
        (Wire::Array(items), Type::List(elem) | Type::Set(elem)) => Wire::Array(
            items
                .iter()
                .map(|i| replaced(rng, i, elem, at, counter))
                .collect(),
        ),
        (Wire::Array(items), Type::Tuple(elems)) => Wire::Array(
            items
                .iter()
                .enumerate()
                .map(|(n, i)| {
                    let t = elems.get(n).cloned().unwrap_or(Type::Dynamic);
                    replaced(rng, i, &t, at, counter)
                })
                .collect(),
        ),
        (Wire::Map(entries), Type::Object(attrs)) => Wire::Map(
            entries
                .iter()
                .map(|(k, v)| {
                    let t = attrs.get(k).cloned().unwrap_or(Type::Dynamic);
                    (k.clone(), replaced(rng, v, &t, at, counter))
                })
                .collect(),
        ),
        (Wire::Map(entries), Type::Map(elem)) => Wire::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), replaced(rng, v, elem, at, counter)))
                .collect(),
        ),
        (
            Wire::Dynamic {
                ty: inner,
                value,
                as_str,
            },
            _,
        ) => Wire::Dynamic {
            ty: inner.clone(),
            value: Box::new(replaced(rng, value, inner, at, counter)),
            as_str: *as_str,
        },
        _ => {
            *counter += wire.count() - 1;
            wire.clone()
        }
    }
}
