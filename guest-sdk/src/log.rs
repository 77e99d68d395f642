//! Structured logging into Terraform's provider log. Lines show under `TF_LOG=debug` (or
//! `TF_LOG_PROVIDER`) with their fields.
//!
//! Sensitive values are masked: the SDK registers every `sensitive` attribute's value of the
//! current call, and [`mask`] adds other secrets; a line containing one shows `***` instead.

use crate::bindings::tfwasm::provider0_2_0::log::Level;
#[cfg(target_arch = "wasm32")]
use crate::bindings::tfwasm::provider0_2_0::log::log;

/// Logs at trace level.
pub fn trace(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Trace, message, fields);
}
/// Logs at debug level.
pub fn debug(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Debug, message, fields);
}
/// Logs at info level.
pub fn info(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Info, message, fields);
}
/// Logs at warn level.
pub fn warn(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Warn, message, fields);
}
/// Logs at error level.
pub fn error(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Error, message, fields);
}

fn emit(level: Level, message: &str, fields: &[(&str, &str)]) {
    let fields: Vec<(String, String)> = fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), redact(v)))
        .collect();
    #[cfg(target_arch = "wasm32")]
    log(level, &redact(message), &fields);
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(sink) = NATIVE_SINK.get() {
        sink(level_name(level), &redact(message), &fields);
    }
}

/// Where log lines go when the provider runs natively (no host import): set once by a native
/// server such as the benchmark baseline; lines are dropped until then.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub static NATIVE_SINK: std::sync::OnceLock<NativeSink> = std::sync::OnceLock::new();

/// A native log sink: level, message, fields.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub type NativeSink = fn(&str, &str, &[(String, String)]);

#[cfg(not(target_arch = "wasm32"))]
fn level_name(level: Level) -> &'static str {
    match level {
        Level::Trace => "trace",
        Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    }
}

thread_local! {
    /// Secrets seen in this call; any log text containing one is masked.
    static MASKED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Never logs `secret`: from now until the end of the call, any message or field value
/// containing it shows `***` instead. The SDK registers the values of every `sensitive`
/// attribute of each request and result by itself; use this for secrets from elsewhere
/// (tokens read from a file, API responses).
pub fn mask(secret: &str) {
    if secret.is_empty() {
        return;
    }
    MASKED.with(|m| {
        let mut m = m.borrow_mut();
        if !m.iter().any(|s| s == secret) {
            m.push(secret.to_owned());
        }
    });
}

/// Registers the string values of the schema's sensitive attributes in `value`.
/// Sensitive attributes at any depth count, nested attributes and blocks included.
pub(crate) fn mask_sensitive(schema: &crate::ResourceSchema, value: &tfwasm_model::Value) {
    if !schema.has_sensitive() {
        return;
    }
    crate::schema::visit(
        &schema.attributes,
        &schema.blocks,
        value,
        &mut |attr, v, _| {
            if attr.wire.sensitive {
                mask_strings(v);
            }
        },
        &mut |_, _| {},
    );
}

fn mask_strings(value: &tfwasm_model::Value) {
    use tfwasm_model::Value;
    match value {
        Value::String(s) => mask(s),
        Value::Number(n) => mask(&n.to_string()),
        Value::List(v) | Value::Set(v) | Value::Tuple(v) => v.iter().for_each(mask_strings),
        Value::Map(m) => m.values().for_each(mask_strings),
        Value::Object(m) => m.values().for_each(mask_strings),
        Value::Dynamic(_, v) => mask_strings(v),
        _ => {}
    }
}

/// Forgets the masks of the previous call.
pub(crate) fn reset_masks() {
    MASKED.with(|m| m.borrow_mut().clear());
}

/// `text` with every registered secret replaced by `***`.
pub(crate) fn redact(text: &str) -> String {
    MASKED.with(|m| {
        let mut out = text.to_owned();
        for secret in m.borrow().iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "***");
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_secrets_never_show() {
        reset_masks();
        mask("hunter2");
        assert_eq!(redact("password is hunter2!"), "password is ***!");
        reset_masks();
        assert_eq!(redact("password is hunter2!"), "password is hunter2!");
    }
}
