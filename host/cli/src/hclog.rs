//! Logs in the JSON line format go-plugin parses from a plugin's stderr (hclog): Terraform
//! shows them under `TF_LOG`/`TF_LOG_PROVIDER` with their fields.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Context, Layer};

/// Set by `tfwasm serve --debug`: lines go to a terminal, for a person, not to go-plugin.
static HUMAN_READABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes log lines for a person on a terminal from now on, instead of hclog JSON.
pub fn set_human_readable() {
    HUMAN_READABLE.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// One line for a person, control characters escaped: a guest's message with a newline or
/// terminal escapes would otherwise forge a line of the host's own, or drive the terminal.
fn human_line(
    level: &str,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (String, Value)>,
) -> String {
    let mut text = format!("[{}] {}: ", level.to_ascii_uppercase(), escaped(module));
    text.push_str(&escaped(message));
    for (key, value) in fields {
        let value = match value {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let _ = write!(text, " {}={}", escaped(&key), escaped(&value));
    }
    text.push('\n');
    text
}

/// `text` with its control characters (C0 and C1), line and paragraph separators and
/// bidirectional controls written as escapes (`\n`, `\u{1b}`, `\u{202e}`): text a guest or
/// a recording chose can neither drive the terminal, start a line, nor reorder what a
/// reader sees.
pub use tfwasm_model::quote::escaped;

/// Writes one hclog JSON line to stderr (or a readable line, in debug mode).
pub fn emit(
    level: &str,
    module: &str,
    message: &str,
    fields: impl IntoIterator<Item = (String, Value)>,
) {
    if HUMAN_READABLE.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = std::io::stderr()
            .lock()
            .write_all(human_line(level, module, message, fields).as_bytes());
        return;
    }
    let mut line = Map::new();
    line.insert("@level".into(), level.into());
    // go-plugin shows a line without one as from year 1, and takes only its own layout.
    line.insert(
        "@timestamp".into(),
        timestamp(time::OffsetDateTime::now_utc()).into(),
    );
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

/// A time in hclog's layout (`2006-01-02T15:04:05.000000Z07:00`: exactly six fractional
/// digits; go-plugin drops a line whose timestamp does not parse as JSON log).
fn timestamp(t: time::OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond()
    )
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

/// The most verbose guest line to write: `level` when Terraform shows provider logs at all
/// (`TF_LOG` or `TF_LOG_PROVIDER` set and not `off`) or a person reads them (`serve
/// --debug`); else none. Terraform drops a provider's lines without those settings, so
/// writing a guest's would only spend host time on it.
pub fn guest_level(level: Level) -> Option<Level> {
    let var = |name| std::env::var(name).ok();
    guest_level_from(
        level,
        var("TF_LOG").as_deref(),
        var("TF_LOG_PROVIDER").as_deref(),
        HUMAN_READABLE.load(std::sync::atomic::Ordering::Relaxed),
    )
}

fn guest_level_from(
    level: Level,
    tf_log: Option<&str>,
    tf_log_provider: Option<&str>,
    human: bool,
) -> Option<Level> {
    let on = |v: Option<&str>| v.is_some_and(|v| !v.is_empty() && !v.eq_ignore_ascii_case("off"));
    (human || on(tf_log) || on(tf_log_provider)).then_some(level)
}

/// Which events reach the log: tfwasm's own at `level`; the internals of its dependencies
/// (h2 and hyper frame dumps, tonic, rustls, wasmtime, cranelift) only where `TFWASM_LOG`
/// asks for them, in `tracing`'s directive syntax (`TFWASM_LOG=h2=debug,wasmtime=trace`).
/// Without this, `TF_LOG=debug` buried the provider's own lines under thousands of HTTP/2
/// frame lines. `Targets` rather than `EnvFilter`: span-field directives are never needed
/// here, and `EnvFilter`'s regex engine was a twentieth of every package's executable.
pub fn log_filter(level: Level) -> Targets {
    targets(level, std::env::var("TFWASM_LOG").ok().as_deref())
}

/// [`log_filter`] with `extra` for `TFWASM_LOG`: `target=level` directives, and a bare
/// level for every other target. A directive that does not parse, or that names span fields
/// (`h2[frame]=trace`, which `Targets` would widen to all of `h2`), is left out.
fn targets(level: Level, extra: Option<&str>) -> Targets {
    let mut targets = Targets::new()
        .with_default(LevelFilter::OFF)
        .with_target("tfwasm", level);
    for directive in extra.unwrap_or_default().split(',').map(str::trim) {
        if directive.is_empty() || directive.contains(['[', ']', '{', '}']) {
            continue;
        }
        if let Ok(parsed) = directive.parse::<Targets>() {
            if let Some(default) = parsed.default_level() {
                targets = targets.with_default(default);
            }
            targets = targets.with_targets(parsed);
        }
    }
    targets
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
    /// Most verbose level written; none writes nothing (see [`guest_level`]).
    pub max_level: Option<Level>,
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
        if self.max_level.is_some_and(|max| parsed <= max) {
            // Escaped here, not only in readable mode: Terraform decodes the JSON line and
            // prints the guest's text to the operator's terminal as it is.
            emit(
                level,
                "tfwasm.guest",
                &escaped(message),
                fields.iter().map(|(k, v)| {
                    (
                        escaped(k).into_owned(),
                        Value::from(escaped(v).into_owned()),
                    )
                }),
            );
        }
    }

    fn level(&self) -> Option<&'static str> {
        self.max_level.map(|level| match level {
            Level::TRACE => "trace",
            Level::DEBUG => "debug",
            Level::INFO => "info",
            Level::WARN => "warn",
            _ => "error",
        })
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    /// Counts the events a subscriber filtered by `log_filter(level)` lets through.
    fn passed(level: Level, emit: impl FnOnce()) -> usize {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        struct Count(Arc<AtomicUsize>);
        impl<S: Subscriber> Layer<S> for Count {
            fn on_event(&self, _: &Event<'_>, _: Context<'_, S>) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let count = Arc::new(AtomicUsize::new(0));
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::Layer::with_filter(Count(count.clone()), log_filter(level)),
        );
        tracing::subscriber::with_default(subscriber, emit);
        count.load(Ordering::Relaxed)
    }

    #[test]
    fn guest_lines_are_written_only_when_someone_reads_them() {
        let l = Level::WARN;
        assert_eq!(guest_level_from(l, None, None, false), None);
        assert_eq!(guest_level_from(l, Some(""), Some("off"), false), None);
        assert_eq!(guest_level_from(l, Some("OFF"), None, false), None);
        assert_eq!(guest_level_from(l, Some("debug"), None, false), Some(l));
        assert_eq!(guest_level_from(l, None, Some("trace"), false), Some(l));
        assert_eq!(guest_level_from(l, None, None, true), Some(l));
    }

    #[test]
    fn timestamps_use_hclogs_layout() {
        let t = time::OffsetDateTime::from_unix_timestamp_nanos(1_763_000_000_123_456_789).unwrap();
        assert_eq!(timestamp(t), "2025-11-13T02:13:20.123456Z");
    }

    #[test]
    fn own_events_pass_at_the_level_and_dependency_internals_stay_out() {
        let n = passed(Level::DEBUG, || {
            tracing::debug!(target: "tfwasm_runtime::provider::call", "guest call");
            tracing::debug!(target: "tfwasm", "loaded");
            tracing::trace!(target: "tfwasm_runtime", "too verbose");
            tracing::debug!(target: "h2::codec::framed_write", "send frame");
            tracing::debug!(target: "hyper::proto", "flushed");
            tracing::warn!(target: "wasmtime_cranelift", "compiling");
        });
        assert_eq!(n, 2);
    }

    #[test]
    fn tfwasm_log_adds_dependency_internals_and_skips_what_does_not_parse() {
        let filter = targets(Level::INFO, Some("h2=debug, nonsense=loud,wasmtime=trace"));
        let enabled = |target: &str, level: Level| filter.would_enable(target, &level);
        assert!(enabled("h2::codec", Level::DEBUG));
        assert!(!enabled("h2::codec", Level::TRACE));
        assert!(enabled("wasmtime_cranelift", Level::TRACE));
        assert!(enabled("tfwasm_runtime::call", Level::INFO));
        assert!(!enabled("tfwasm_runtime::call", Level::DEBUG));
        assert!(!enabled("nonsense", Level::ERROR));
        assert!(!enabled("hyper::proto", Level::ERROR));

        // A bare level is every other target's; a span-field directive is left out rather
        // than widened to its whole target.
        let filter = targets(Level::INFO, Some("warn,hyper[conn]=trace"));
        assert!(filter.would_enable("rustls::client", &Level::WARN));
        assert!(!filter.would_enable("rustls::client", &Level::INFO));
        assert!(!filter.would_enable("hyper::proto", &Level::INFO));
        assert!(filter.would_enable("tfwasm_wire", &Level::INFO));
    }
}

#[cfg(test)]
mod human {
    use super::*;

    /// The nineteenth hostile pass: C1 controls (U+009B is a CSI) passed JSON's escaping in
    /// `tfwasm replay`; line separators and bidirectional controls were not escaped at all.
    #[test]
    fn separators_c1_and_bidirectional_controls_are_escaped_too() {
        let text = "a\u{9b}2J b\u{2028}c \u{202e}evil\u{2066}x";
        let shown = escaped(text);
        assert!(
            !shown.contains(['\u{9b}', '\u{2028}', '\u{202e}', '\u{2066}']),
            "{shown:?}"
        );
        assert!(shown.contains("\\u{202e}"), "{shown}");
    }

    /// The fifteenth hostile pass: in `serve --debug`, a guest's log message with a newline
    /// forged a second `[ERROR] tfwasm:` line, and escapes reached the terminal raw.
    #[test]
    fn a_guest_cannot_forge_a_line_or_drive_the_terminal() {
        let line = human_line(
            "info",
            "provider",
            "hello\n[ERROR] tfwasm: forged\x1b[31m\x07",
            [(
                "k\nx".to_owned(),
                Value::String("v\r\x1b]0;title\x07".into()),
            )],
        );
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
        assert!(line.ends_with('\n'));
        assert!(
            !line.chars().any(|c| c.is_control() && c != '\n'),
            "{line:?}"
        );
        assert!(
            line.starts_with("[INFO] provider: hello\\n[ERROR]"),
            "{line:?}"
        );
        assert_eq!(
            human_line(
                "warn",
                "tfwasm",
                "plain",
                [("n".to_owned(), Value::from(3))]
            ),
            "[WARN] tfwasm: plain n=3\n"
        );
    }
}
