//! Typed access to object attributes with errors that name the attribute.

use std::collections::BTreeMap;

use tfwasm_model::{AttributePath, Diagnostic, Value};

/// Typed getters on object values. Each returns `Ok(None)` for null (and unknown) attributes
/// and an error diagnostic pointing at the attribute when the value has the wrong type.
pub trait ValueExt {
    /// The attribute `name`, or null when absent.
    fn attr(&self, name: &str) -> &Value;
    /// A string attribute.
    fn get_string(&self, name: &str) -> Result<Option<String>, Diagnostic>;
    /// An integer attribute (a number that is whole and fits in `i64`).
    fn get_i64(&self, name: &str) -> Result<Option<i64>, Diagnostic>;
    /// A bool attribute.
    fn get_bool(&self, name: &str) -> Result<Option<bool>, Diagnostic>;
    /// A `map(string)` attribute.
    fn get_string_map(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, Diagnostic>;
    /// Sets attribute `name` on an object (no-op on other values).
    fn with(self, name: &str, value: impl Into<Value>) -> Value;
}

fn wrong(name: &str, expected: &str) -> Diagnostic {
    Diagnostic::error(
        format!("Invalid value for {name:?}"),
        format!("Attribute {name:?} must be {expected}."),
    )
    .at(AttributePath::attribute(name))
}

impl ValueExt for Value {
    fn attr(&self, name: &str) -> &Value {
        const NULL: Value = Value::Null;
        self.get(name).unwrap_or(&NULL)
    }

    fn get_string(&self, name: &str) -> Result<Option<String>, Diagnostic> {
        match self.attr(name) {
            Value::Null | Value::Unknown(_) => Ok(None),
            v => v
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| wrong(name, "a string")),
        }
    }

    fn get_i64(&self, name: &str) -> Result<Option<i64>, Diagnostic> {
        match self.attr(name) {
            Value::Null | Value::Unknown(_) => Ok(None),
            v => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| wrong(name, "a whole number")),
        }
    }

    fn get_bool(&self, name: &str) -> Result<Option<bool>, Diagnostic> {
        match self.attr(name) {
            Value::Null | Value::Unknown(_) => Ok(None),
            v => v.as_bool().map(Some).ok_or_else(|| wrong(name, "a bool")),
        }
    }

    fn get_string_map(&self, name: &str) -> Result<Option<BTreeMap<String, String>>, Diagnostic> {
        match self.attr(name) {
            Value::Null | Value::Unknown(_) => Ok(None),
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.as_str().to_owned(), s.to_owned()))
                        .ok_or_else(|| wrong(name, "a map of strings"))
                })
                .collect::<Result<_, _>>()
                .map(Some),
            _ => Err(wrong(name, "a map of strings")),
        }
    }

    fn with(mut self, name: &str, value: impl Into<Value>) -> Value {
        self.set(name, value.into());
        self
    }
}
