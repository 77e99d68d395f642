//! cty types and their JSON form (the `type` bytes of a schema attribute and the
//! first element of a dynamic value's wrapper).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value as Json;

/// A cty type. `Dynamic` is cty's DynamicPseudoType: a slot that may hold a value of any type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A UTF-8 string.
    String,
    /// An arbitrary-precision decimal number.
    Number,
    /// `true` or `false`.
    Bool,
    /// Any type; values in such a slot carry their own type on the wire.
    Dynamic,
    /// An ordered sequence of one element type.
    List(Box<Type>),
    /// An unordered collection of distinct elements of one type.
    Set(Box<Type>),
    /// String-keyed elements of one type.
    Map(Box<Type>),
    /// Named attributes of their own types.
    Object(BTreeMap<String, Type>),
    /// A fixed sequence of positional element types.
    Tuple(Vec<Type>),
}

/// Why a type's JSON form was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid type JSON {json:?}: {reason}")]
pub struct TypeJsonError {
    /// The start of the offending JSON, compacted.
    pub json: String,
    /// What was wrong with it.
    pub reason: &'static str,
}

impl Type {
    /// `list(element)`.
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }
    /// `set(element)`.
    pub fn set(element: Type) -> Type {
        Type::Set(Box::new(element))
    }
    /// `map(element)`.
    pub fn map(element: Type) -> Type {
        Type::Map(Box::new(element))
    }
    /// `object({...})` from `(name, type)` pairs.
    pub fn object<I: IntoIterator<Item = (S, Type)>, S: Into<String>>(attrs: I) -> Type {
        Type::Object(attrs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// True when the type is, or contains, `dynamic` anywhere.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::String | Type::Number | Type::Bool => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic(),
            Type::Object(attrs) => attrs.values().any(Type::has_dynamic),
            Type::Tuple(elems) => elems.iter().any(Type::has_dynamic),
        }
    }

    /// The type in cty's JSON form, e.g. `["list","string"]`.
    pub fn to_json(&self) -> Json {
        match self {
            Type::String => Json::from("string"),
            Type::Number => Json::from("number"),
            Type::Bool => Json::from("bool"),
            Type::Dynamic => Json::from("dynamic"),
            Type::List(e) => Json::Array(vec!["list".into(), e.to_json()]),
            Type::Set(e) => Json::Array(vec!["set".into(), e.to_json()]),
            Type::Map(e) => Json::Array(vec!["map".into(), e.to_json()]),
            Type::Object(attrs) => Json::Array(vec![
                "object".into(),
                Json::Object(
                    attrs
                        .iter()
                        .map(|(k, v)| (k.clone(), v.to_json()))
                        .collect(),
                ),
            ]),
            Type::Tuple(elems) => Json::Array(vec![
                "tuple".into(),
                Json::Array(elems.iter().map(Type::to_json).collect()),
            ]),
        }
    }

    /// The JSON form as compact text (what goes in `Schema.Attribute.type`).
    pub fn to_json_string(&self) -> String {
        self.to_json().to_string()
    }

    /// Parses cty's JSON type form. The optional-attributes list of object type
    /// constraints (a third element) is accepted and ignored.
    pub fn from_json(json: &Json) -> Result<Type, TypeJsonError> {
        let bad = |reason| TypeJsonError {
            json: crate::quote::json(json),
            reason,
        };
        match json {
            Json::String(s) => match s.as_str() {
                "string" => Ok(Type::String),
                "number" => Ok(Type::Number),
                "bool" => Ok(Type::Bool),
                "dynamic" => Ok(Type::Dynamic),
                _ => Err(bad("unknown primitive type")),
            },
            Json::Array(parts) => {
                let kind = parts
                    .first()
                    .and_then(Json::as_str)
                    .ok_or_else(|| bad("expected a type kind"))?;
                let arg = parts.get(1).ok_or_else(|| bad("missing type argument"))?;
                match kind {
                    "list" | "set" | "map" if parts.len() == 2 => {
                        let e = Box::new(Type::from_json(arg)?);
                        Ok(match kind {
                            "list" => Type::List(e),
                            "set" => Type::Set(e),
                            _ => Type::Map(e),
                        })
                    }
                    "object" if parts.len() == 2 || parts.len() == 3 => {
                        let attrs = arg
                            .as_object()
                            .ok_or_else(|| bad("object attributes must be a JSON object"))?;
                        let mut out = BTreeMap::new();
                        for (k, v) in attrs {
                            out.insert(k.clone(), Type::from_json(v)?);
                        }
                        Ok(Type::Object(out))
                    }
                    "tuple" if parts.len() == 2 => {
                        let elems = arg
                            .as_array()
                            .ok_or_else(|| bad("tuple elements must be a JSON array"))?;
                        Ok(Type::Tuple(
                            elems
                                .iter()
                                .map(Type::from_json)
                                .collect::<Result<_, _>>()?,
                        ))
                    }
                    _ => Err(bad("unknown type kind or wrong number of arguments")),
                }
            }
            _ => Err(bad("expected a string or an array")),
        }
    }

    /// This type as a message quotes one a guest chose: its first 128 bytes in Terraform's
    /// syntax, written no further.
    pub fn quoted(&self) -> String {
        crate::quote::display(self)
    }

    /// Parses the JSON text form (the bytes of `Schema.Attribute.type`).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Type, TypeJsonError> {
        let json: Json = serde_json::from_slice(bytes).map_err(|_| TypeJsonError {
            json: crate::quote::bytes(bytes),
            reason: "not valid JSON",
        })?;
        Type::from_json(&json)
    }
}

/// Renders as Terraform's type syntax, e.g. `list(object({a=string}))`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::String => f.write_str("string"),
            Type::Number => f.write_str("number"),
            Type::Bool => f.write_str("bool"),
            Type::Dynamic => f.write_str("dynamic"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Set(e) => write!(f, "set({e})"),
            Type::Map(e) => write!(f, "map({e})"),
            Type::Object(attrs) => {
                f.write_str("object({")?;
                for (i, (k, v)) in attrs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{k}={v}")?;
                }
                f.write_str("})")
            }
            Type::Tuple(elems) => {
                f.write_str("tuple([")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("])")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_of_nested_types() {
        let ty = Type::object([
            ("a", Type::list(Type::String)),
            ("b", Type::Tuple(vec![Type::Number, Type::Dynamic])),
            ("c", Type::map(Type::set(Type::Bool))),
        ]);
        let text = ty.to_json_string();
        assert_eq!(
            text,
            r#"["object",{"a":["list","string"],"b":["tuple",["number","dynamic"]],"c":["map",["set","bool"]]}]"#
        );
        assert_eq!(Type::from_json_bytes(text.as_bytes()).unwrap(), ty);
    }

    #[test]
    fn optional_attribute_list_is_accepted() {
        let ty = Type::from_json_bytes(br#"["object",{"a":"string"},["a"]]"#).unwrap();
        assert_eq!(ty, Type::object([("a", Type::String)]));
    }

    #[test]
    fn malformed_types_are_rejected_with_reason() {
        for bad in [
            r#""strang""#,
            r#"["list"]"#,
            r#"["list","string","x"]"#,
            "3",
            "not json",
        ] {
            assert!(Type::from_json_bytes(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn display_uses_terraform_syntax() {
        assert_eq!(
            Type::list(Type::object([("a", Type::String)])).to_string(),
            "list(object({a=string}))"
        );
    }
}
