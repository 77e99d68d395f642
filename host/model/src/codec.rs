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
