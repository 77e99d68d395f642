//! Models as Rust structs: `#[derive(Serialize, Deserialize)]` maps fields to attributes by
//! name (rename with `#[serde(rename = "...")]`), and [`from_value`] / [`to_value`] convert
//! between a [`Value`] and the struct.
//!
//! Null and unknown never hide behind a zero value:
//! - a plain field (`String`, `i64`, `bool`, `Vec<T>`, a nested struct...) accepts only a known,
//!   non-null value;
//! - `Option<T>` accepts null as `None`;
//! - [`Tf<T>`] accepts null, unknown and known, for configuration and plans, where values may
//!   not be known yet.
//!
//! A value that does not fit is an error diagnostic naming the attribute path and the field
//! type that would accept it, for example `.length: Received unknown value, however the
//! target type cannot handle unknown values. Use tfwasm_sdk::Tf<T> for this field.`
//!
//! [`to_value`] is guided by the schema's type, so numbers, lists, sets, maps and objects come
//! out as the schema says; a struct without a field for some attribute is an error rather
//! than a silently dropped value.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use tfwasm_sdk::typed::{Tf, from_value, to_value};
//! use tfwasm_sdk::{Type, Value};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Model {
//!     length: i64,
//!     prefix: Option<String>,
//!     result: Tf<String>,
//! }
//! let ty = Type::Object([
//!     ("length".to_owned(), Type::Number),
//!     ("prefix".to_owned(), Type::String),
//!     ("result".to_owned(), Type::String),
//! ].into());
//! let planned = Value::object([
//!     ("length", Value::from(8)),
//!     ("prefix", Value::Null),
//!     ("result", Value::unknown()),
//! ]);
//! let mut model: Model = from_value(&planned).unwrap();
//! assert!(model.result.is_unknown());
//! model.result = Tf::Known("abcdefgh".into());
//! let state = to_value(&model, &ty).unwrap();
//! assert_eq!(state.get("result"), Some(&Value::from("abcdefgh")));
//! ```

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};
use serde::{Deserialize, Deserializer, Serializer};
use tfwasm_model::{AttributePath, Diagnostic, Name, Number, PathRef, ToPath, Type, Value};

/// The name serde sees for [`Tf`], so this module's (de)serializers can tell it apart.
const TF_MARKER: &str = "$tfwasm::Tf";

/// A Terraform value of `T` with all three states: null, unknown (during planning) or known.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Tf<T> {
    /// Null: not set.
    #[default]
    Null,
    /// Not known yet; it will be known after apply.
    Unknown,
    /// Known.
    Known(T),
}

impl<T> Tf<T> {
    /// True when null.
    pub fn is_null(&self) -> bool {
        matches!(self, Tf::Null)
    }
    /// True when unknown.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Tf::Unknown)
    }
    /// The known value, if any.
    pub fn known(&self) -> Option<&T> {
        match self {
            Tf::Known(v) => Some(v),
            _ => None,
        }
    }
    /// The known value, if any, by value.
    pub fn into_known(self) -> Option<T> {
        match self {
            Tf::Known(v) => Some(v),
            _ => None,
        }
    }
}

impl<T> From<T> for Tf<T> {
    fn from(value: T) -> Tf<T> {
        Tf::Known(value)
    }
}

impl<T: Serialize> Serialize for Tf<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tf::Null => serializer.serialize_none(),
            Tf::Unknown => serializer.serialize_unit_struct(TF_MARKER),
            Tf::Known(v) => serializer.serialize_some(v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Tf<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tf<T>, D::Error> {
        struct TfVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for TfVisitor<T> {
            type Value = Tf<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a null, unknown or known value")
            }
            fn visit_none<E: de::Error>(self) -> Result<Tf<T>, E> {
                Ok(Tf::Null)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Tf<T>, E> {
                Ok(Tf::Unknown)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Tf<T>, D::Error> {
                T::deserialize(d).map(Tf::Known)
            }
            // Other formats (e.g. serde_json in tests) see an Option.
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Tf<T>, D::Error> {
                Ok(match Option::<T>::deserialize(d)? {
                    Some(v) => Tf::Known(v),
                    None => Tf::Null,
                })
            }
        }
        deserializer.deserialize_newtype_struct(TF_MARKER, TfVisitor(std::marker::PhantomData))
    }
}

/// A conversion failure, with the path where it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// Where in the value.
    pub path: Option<AttributePath>,
    /// What went wrong.
    pub message: String,
}

impl Error {
    fn at(path: &impl ToPath, message: impl Into<String>) -> Error {
        Error {
            path: Some(path.to_path()),
            message: message.into(),
        }
    }
    /// Sets the path if the innermost layer did not.
    fn or_at(mut self, path: &impl ToPath) -> Error {
        if self.path.is_none() {
            self.path = Some(path.to_path());
        }
        self
    }
    /// This error as an error diagnostic on its attribute.
    pub fn into_diagnostic(self) -> Diagnostic {
        let path = self.path.unwrap_or_default();
        let where_ = if path.is_root() {
            "the value".to_owned()
        } else {
            path.to_string()
        };
        let d = Diagnostic::error(
            "Value Conversion Error",
            format!("{where_}: {}", self.message),
        );
        if path.is_root() { d } else { d.at(path) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) if !p.is_root() => write!(f, "{p}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error {
            path: None,
            message: msg.to_string(),
        }
    }
}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error {
            path: None,
            message: msg.to_string(),
        }
    }
}

impl From<Error> for Diagnostic {
    fn from(e: Error) -> Diagnostic {
        e.into_diagnostic()
    }
}

/// Reads a model from a value. Errors name the attribute path and the field type to use.
///
/// # Errors
/// A null or unknown value where the field type cannot hold one, or a value of another type.
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    let root = PathRef::Root;
    T::deserialize(ValueDe { value, path: root }).map_err(|e| e.or_at(&root))
}

/// Writes a model as a value of type `ty` (usually `schema.value_type()`).
///
/// # Errors
/// A field whose Rust type does not fit the attribute's type, a field for an attribute the
/// type does not have, or an attribute without a field.
pub fn to_value<T: Serialize + ?Sized>(model: &T, ty: &Type) -> Result<Value, Error> {
    let root = PathRef::Root;
    model
        .serialize(ValueSer { ty, path: root })
        .map_err(|e| e.or_at(&root))
}

// ---- deserializing -------------------------------------------------------------------------

/// Paths are borrowed steps ([`PathRef`]), made into an [`AttributePath`] only for an error:
/// a model of 10,000 blocks converts without a path built per field.
struct ValueDe<'a> {
    value: &'a Value,
    path: PathRef<'a>,
}

impl<'a> ValueDe<'a> {
    fn inner(&self) -> &'a Value {
        match self.value {
            Value::Dynamic(_, v) => v,
            v => v,
        }
    }

    /// A plain field: the value must be known and not null.
    fn present(&self) -> Result<&'a Value, Error> {
        match self.inner() {
            Value::Null => Err(Error::at(
                &self.path,
                "Received null value, however the target type cannot handle null values. Use Option<T> or tfwasm_sdk::Tf<T> for this field.",
            )),
            Value::Unknown(_) => Err(Error::at(
                &self.path,
                "Received unknown value, however the target type cannot handle unknown values. Use tfwasm_sdk::Tf<T> for this field.",
            )),
            v => Ok(v),
        }
    }
}

macro_rules! forward_present {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.present()?;
            self.deserialize_any(visitor)
        })*
    };
}

impl<'de, 'a> Deserializer<'de> for ValueDe<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let path = self.path;
        match self.inner() {
            Value::Null => visitor.visit_unit(),
            Value::Unknown(_) => Err(Error::at(
                &path,
                "Received unknown value, however the target type cannot handle unknown values. Use tfwasm_sdk::Tf<T> for this field.",
            )),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor, &path),
            Value::String(s) => visitor.visit_str(s),
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
                visitor.visit_seq(SeqDe {
                    items: items.iter().enumerate(),
                    path,
                })
            }
            Value::Map(entries) => visitor.visit_map(MapDe {
                entries: entries.iter(),
                pending: None,
                path,
                object: false,
            }),
            Value::Object(entries) => visitor.visit_map(MapDe {
                entries: entries.iter(),
                pending: None,
                path,
                object: true,
            }),
            Value::Dynamic(..) => unreachable!("inner() unwraps dynamic values"),
        }
    }

    forward_present! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_seq deserialize_map
        deserialize_identifier
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.inner() {
            Value::Null => visitor.visit_none(),
            Value::Unknown(_) => Err(Error::at(
                &self.path,
                "Received unknown value, however the target type cannot handle unknown values. Use tfwasm_sdk::Tf<T> instead of Option<T> for this field.",
            )),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == TF_MARKER {
            return match self.inner() {
                Value::Null => visitor.visit_none(),
                Value::Unknown(_) => visitor.visit_unit(),
                _ => visitor.visit_some(self),
            };
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.present()?;
        self.deserialize_any(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.present()?;
        self.deserialize_any(visitor)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.present()?;
        self.deserialize_any(visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let path = self.path;
        match self.present()? {
            Value::String(s) => visitor
                .visit_enum(s.as_str().into_deserializer())
                .map_err(|e: Error| e.or_at(&path)),
            _ => Err(Error::at(
                &path,
                "enums map to strings; this value is not a string",
            )),
        }
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

fn visit_number<'de, V: Visitor<'de>>(
    n: &Number,
    visitor: V,
    path: &PathRef<'_>,
) -> Result<V::Value, Error> {
    if let Some(i) = n.to_i64() {
        visitor.visit_i64(i)
    } else if let Some(u) = n.to_u64() {
        visitor.visit_u64(u)
    } else if n.is_integer() {
        Err(Error::at(
            path,
            format!("number {n} does not fit in 64 bits"),
        ))
    } else {
        visitor.visit_f64(n.to_f64())
    }
}

struct SeqDe<'a, I: Iterator<Item = (usize, &'a Value)>> {
    items: I,
    path: PathRef<'a>,
}

impl<'de, 'a, I: Iterator<Item = (usize, &'a Value)>> de::SeqAccess<'de> for SeqDe<'a, I> {
    type Error = Error;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some((i, value)) = self.items.next() else {
            return Ok(None);
        };
        let path = self.path.index(i as i64);
        seed.deserialize(ValueDe { value, path })
            .map(Some)
            .map_err(|e| e.or_at(&path))
    }
}

struct MapDe<'a, I: Iterator<Item = (&'a Name, &'a Value)>> {
    entries: I,
    pending: Option<(&'a Name, &'a Value)>,
    path: PathRef<'a>,
    object: bool,
}

impl<'de, 'a, I: Iterator<Item = (&'a Name, &'a Value)>> de::MapAccess<'de> for MapDe<'a, I> {
    type Error = Error;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, v)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some((k, v));
        seed.deserialize(k.as_str().into_deserializer()).map(Some)
    }
    fn next_value_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let (k, value) = self
            .pending
            .take()
            .ok_or_else(|| <Error as de::Error>::custom("value requested before key"))?;
        let path = if self.object {
            self.path.attr(k)
        } else {
            self.path.key(k)
        };
        seed.deserialize(ValueDe { value, path })
            .map_err(|e| e.or_at(&path))
    }
}

// ---- serializing ---------------------------------------------------------------------------

struct ValueSer<'a> {
    ty: &'a Type,
    path: PathRef<'a>,
}

impl ValueSer<'_> {
    fn mismatch(&self, rust: &str) -> Error {
        Error::at(
            &self.path,
            format!(
                "a Rust {rust} cannot be stored in an attribute of type {}",
                self.ty.to_json_string()
            ),
        )
    }

    /// Wraps a primitive: checks the type, and tags it when the slot is dynamic.
    fn primitive(&self, value: Value, ty: Type, rust: &str) -> Result<Value, Error> {
        match self.ty {
            Type::Dynamic => Ok(Value::Dynamic(ty, Box::new(value))),
            t if *t == ty => Ok(value),
            _ => Err(self.mismatch(rust)),
        }
    }

    fn number(&self, n: Number) -> Result<Value, Error> {
        self.primitive(Value::Number(n), Type::Number, "number")
    }
}

impl<'a> Serializer for ValueSer<'a> {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = SeqSer<'a>;
    type SerializeTuple = SeqSer<'a>;
    type SerializeTupleStruct = SeqSer<'a>;
    type SerializeTupleVariant = ser::Impossible<Value, Error>;
    type SerializeMap = MapSer<'a>;
    type SerializeStruct = MapSer<'a>;
    type SerializeStructVariant = ser::Impossible<Value, Error>;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        self.primitive(Value::Bool(v), Type::Bool, "bool")
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        self.number(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        self.number(v.into())
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        let n = Number::from_f64(v).ok_or_else(|| {
            Error::at(
                &self.path,
                format!("{v} is not a number Terraform can store"),
            )
        })?;
        self.number(n)
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        self.serialize_str(&v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        self.primitive(Value::String(v.to_owned()), Type::String, "string")
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Value, Error> {
        Err(self.mismatch("byte slice (encode it, e.g. as base64)"))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Value, Error> {
        Ok(if name == TF_MARKER {
            Value::unknown()
        } else {
            Value::Null
        })
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Value, Error> {
        Err(self.mismatch("enum variant with data"))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a>, Error> {
        let kind = match self.ty {
            Type::List(_) => SeqKind::List,
            Type::Set(_) => SeqKind::Set,
            Type::Tuple(_) => SeqKind::Tuple,
            _ => return Err(self.mismatch("sequence")),
        };
        Ok(SeqSer {
            ty: self.ty,
            path: self.path,
            kind,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqSer<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(self.mismatch("enum variant with data"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapSer<'a>, Error> {
        match self.ty {
            Type::Map(_) | Type::Object(_) => Ok(MapSer {
                ty: self.ty,
                path: self.path,
                entries: Vec::new(),
                key: None,
            }),
            _ => Err(self.mismatch("map or struct")),
        }
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapSer<'a>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(self.mismatch("enum variant with data"))
    }
}

enum SeqKind {
    List,
    Set,
    Tuple,
}

#[doc(hidden)]
pub struct SeqSer<'a> {
    ty: &'a Type,
    path: PathRef<'a>,
    kind: SeqKind,
    items: Vec<Value>,
}

impl ser::SerializeSeq for SeqSer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let index = self.items.len();
        let path = self.path.index(index as i64);
        let element = match self.ty {
            Type::List(e) | Type::Set(e) => e.as_ref(),
            Type::Tuple(elements) => elements.get(index).ok_or_else(|| {
                Error::at(
                    &path,
                    format!("the tuple type has only {} elements", elements.len()),
                )
            })?,
            _ => unreachable!("serialize_seq checked the type"),
        };
        let v = value
            .serialize(ValueSer { ty: element, path })
            .map_err(|e| e.or_at(&path))?;
        self.items.push(v);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(match self.kind {
            SeqKind::List => Value::List(self.items),
            SeqKind::Set => Value::Set(self.items),
            SeqKind::Tuple => {
                if let Type::Tuple(elements) = self.ty
                    && elements.len() != self.items.len()
                {
                    return Err(Error::at(
                        &self.path,
                        format!(
                            "the tuple type has {} elements, the Rust value {}",
                            elements.len(),
                            self.items.len()
                        ),
                    ));
                }
                Value::Tuple(self.items)
            }
        })
    }
}

impl ser::SerializeTuple for SeqSer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqSer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

#[doc(hidden)]
pub struct MapSer<'a> {
    ty: &'a Type,
    path: PathRef<'a>,
    /// In the order serde gives them (a struct's field order); sorted once at the end.
    entries: Vec<(Name, Value)>,
    key: Option<String>,
}

impl MapSer<'_> {
    fn put<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let (path, ty) = match self.ty {
            Type::Map(e) => (self.path.key(key), e.as_ref()),
            Type::Object(attrs) => {
                let path = self.path.attr(key);
                let ty = attrs.get(key).ok_or_else(|| {
                    Error::at(
                        &path,
                        format!("the schema has no attribute {key:?}; rename or skip the field"),
                    )
                })?;
                (path, ty)
            }
            _ => unreachable!("serialize_map checked the type"),
        };
        let v = value
            .serialize(ValueSer { ty, path })
            .map_err(|e| e.or_at(&path))?;
        self.entries.push((key.into(), v));
        Ok(())
    }

    fn finish(self) -> Result<Value, Error> {
        match self.ty {
            Type::Object(attrs) => {
                let entries: tfwasm_model::Attributes = self.entries.into_iter().collect();
                let missing: BTreeSet<&String> = attrs
                    .keys()
                    .filter(|k| !entries.contains_key(k.as_str()))
                    .collect();
                if !missing.is_empty() {
                    return Err(Error::at(
                        &self.path,
                        format!(
                            "the model has no field for attribute(s) {missing:?}; add them (Option<T> or Tf<T> for ones that may be null)"
                        ),
                    ));
                }
                Ok(Value::Object(entries))
            }
            _ => Ok(Value::Map(self.entries.into_iter().collect())),
        }
    }
}

impl ser::SerializeMap for MapSer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let key = key.serialize(ValueSer {
            ty: &Type::String,
            path: PathRef::Root,
        });
        match key {
            Ok(Value::String(s)) => {
                self.key = Some(s);
                Ok(())
            }
            _ => Err(Error::at(&self.path, "map keys must be strings")),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("value before key"))?;
        self.put(&key, value)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for MapSer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.put(key, value)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Rule {
        port: u16,
        cidrs: Vec<String>,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Model {
        name: String,
        count: Option<i64>,
        id: Tf<String>,
        tags: BTreeMap<String, String>,
        rules: Vec<Rule>,
        ratio: f64,
        #[serde(rename = "type")]
        kind: Kind,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Small,
        Large,
    }

    fn ty() -> Type {
        let rule = Type::Object(
            [
                ("port".to_owned(), Type::Number),
                ("cidrs".to_owned(), Type::set(Type::String)),
            ]
            .into(),
        );
        Type::Object(
            [
                ("name".to_owned(), Type::String),
                ("count".to_owned(), Type::Number),
                ("id".to_owned(), Type::String),
                ("tags".to_owned(), Type::map(Type::String)),
                ("rules".to_owned(), Type::list(rule)),
                ("ratio".to_owned(), Type::Number),
                ("type".to_owned(), Type::String),
            ]
            .into(),
        )
    }

    fn model() -> Model {
        Model {
            name: "web".into(),
            count: None,
            id: Tf::Unknown,
            tags: [("env".to_owned(), "prod".to_owned())].into(),
            rules: vec![Rule {
                port: 443,
                cidrs: vec!["10.0.0.0/8".into()],
            }],
            ratio: 0.5,
            kind: Kind::Large,
        }
    }

    #[test]
    fn round_trips_through_values() {
        let value = to_value(&model(), &ty()).unwrap();
        assert_eq!(value.get("id"), Some(&Value::unknown()));
        assert_eq!(value.get("count"), Some(&Value::Null));
        assert_eq!(value.get("type"), Some(&Value::from("large")));
        assert!(matches!(
            value.get("rules").unwrap().as_elements().unwrap()[0].get("cidrs"),
            Some(Value::Set(_))
        ));
        let back: Model = from_value(&value).unwrap();
        assert_eq!(back, model());
    }

    #[test]
    fn unknown_into_plain_field_names_path_and_type() {
        let mut value = to_value(&model(), &ty()).unwrap();
        let rules = value.get_mut("rules").unwrap();
        if let Value::List(items) = rules {
            items[0].set("port", Value::unknown());
        }
        let err = from_value::<Model>(&value).unwrap_err();
        assert_eq!(err.path, Some("rules[0].port".parse().unwrap()));
        assert!(err.message.contains("Tf<T>"), "{err}");
        let d = err.into_diagnostic();
        assert_eq!(d.attribute, Some("rules[0].port".parse().unwrap()));
    }

    #[test]
    fn null_into_plain_field_suggests_option() {
        let value = to_value(&model(), &ty())
            .unwrap()
            .with_attr("name", Value::Null);
        let err = from_value::<Model>(&value).unwrap_err();
        assert_eq!(err.path, Some(AttributePath::attribute("name")));
        assert!(err.message.contains("Option<T>"), "{err}");
    }

    #[test]
    fn unknown_into_option_suggests_tf() {
        let value = to_value(&model(), &ty())
            .unwrap()
            .with_attr("count", Value::unknown());
        let err = from_value::<Model>(&value).unwrap_err();
        assert_eq!(err.path, Some(AttributePath::attribute("count")));
        assert!(err.message.contains("Tf<T>"), "{err}");
    }

    #[test]
    fn type_mismatch_and_missing_fields_are_errors() {
        #[derive(Serialize)]
        struct Partial {
            name: String,
        }
        let err = to_value(&Partial { name: "x".into() }, &ty()).unwrap_err();
        assert!(err.message.contains("\"count\""), "{err}");

        #[derive(Serialize)]
        struct Wrong {
            name: bool,
        }
        let err = to_value(&Wrong { name: true }, &ty()).unwrap_err();
        assert_eq!(err.path, Some(AttributePath::attribute("name")));

        #[derive(Serialize)]
        struct Extra {
            nope: bool,
        }
        let err = to_value(&Extra { nope: true }, &ty()).unwrap_err();
        assert!(err.message.contains("no attribute \"nope\""), "{err}");
    }

    #[test]
    fn fractions_and_big_numbers() {
        let err = from_value::<i64>(&Value::Number("1.5".parse().unwrap()));
        assert!(err.is_err());
        let f: f64 = from_value(&Value::Number("1.5".parse().unwrap())).unwrap();
        assert!((f - 1.5).abs() < f64::EPSILON);
        let err = from_value::<i64>(&Value::Number("1e30".parse().unwrap())).unwrap_err();
        assert!(err.message.contains("64 bits"), "{err}");
    }

    trait WithAttr {
        fn with_attr(self, name: &str, v: Value) -> Value;
    }
    impl WithAttr for Value {
        fn with_attr(mut self, name: &str, v: Value) -> Value {
            self.set(name, v);
            self
        }
    }
}
