//! Logs in the JSON line format go-plugin parses from a plugin's stderr (hclog): Terraform
//! shows them under `TF_LOG`/`TF_LOG_PROVIDER` with their fields.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// Writes one hclog JSON line to stderr.
pub fn emit(
    level: &str,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (String, Value)>,
) {
    let mut line = Map::new();
    line.insert("@level".into(), level.into());
    line.insert("@message".into(), message.into());
    line.insert("@module".into(), module.into());
    for (key, value) in fields {
        if !key.starts_with('@') {
            line.insert(key, value);
        }
    }
    let mut text = Value::Object(line).to_string();
    text.push('\n');
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// The most verbose level to write, from `TF_LOG_PROVIDER`, then `TF_LOG`, else `warn`.
pub fn max_level() -> Level {
    let setting = std::env::var("TF_LOG_PROVIDER")
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| std::env::var("TF_LOG").ok());
    match setting.unwrap_or_default().to_ascii_lowercase().as_str() {
        "trace" | "json" => Level::TRACE,
        "debug" => Level::DEBUG,
        "info" => Level::INFO,
        "error" => Level::ERROR,
        _ => Level::WARN,
    }
}

/// A tracing layer writing hclog lines.
pub struct HclogLayer;

struct Fields {
    message: String,
    fields: Vec<(String, Value)>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_owned();
        } else {
            self.fields.push((field.name().to_owned(), value.into()));
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        if field.name() == "message" {
            self.message = text;
        } else {
            self.fields.push((field.name().to_owned(), text.into()));
        }
    }
}

impl<S: Subscriber> Layer<S> for HclogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = Fields {
            message: String::new(),
            fields: Vec::new(),
        };
        event.record(&mut visitor);
        let level = match *event.metadata().level() {
            Level::TRACE => "trace",
            Level::DEBUG => "debug",
            Level::INFO => "info",
            Level::WARN => "warn",
            Level::ERROR => "error",
        };
        emit(level, "tfwasm", &visitor.message, visitor.fields);
    }
}

/// Sends guest log lines to stderr in hclog form, under the module `tfwasm.guest`.
pub struct GuestLog {
    /// Most verbose level written.
    pub max_level: Level,
}

impl tfwasm_runtime::GuestLogSink for GuestLog {
    fn log(&self, level: &str, message: &str, fields: &[(String, String)]) {
        let parsed = match level {
            "trace" => Level::TRACE,
            "debug" => Level::DEBUG,
            "info" => Level::INFO,
            "warn" => Level::WARN,
            _ => Level::ERROR,
        };
        if parsed <= self.max_level {
            emit(
                level,
                "tfwasm.guest",
                message,
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.as_str()))),
            );
        }
    }
}
