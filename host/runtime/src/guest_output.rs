//! What a guest writes for people: its stdout/stderr (captured per call) and its log lines,
//! under the log budget of [`crate::HostWork`]. Writing logs is host work done on the
//! guest's behalf, so it is bounded like fuel is: per call and per instance.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

use crate::HostWork;

/// Where guest log lines (the WIT `log` import, and captured stdout/stderr) go.
pub trait GuestLogSink: Send + Sync + 'static {
    /// One line at `level` (`trace`, `debug`, `info`, `warn` or `error`).
    fn log(&self, level: &str, message: &str, fields: &[(String, String)]);

    /// The most verbose level this sink writes (`trace` … `error`), or `None` when it writes
    /// no guest line. Guests are told it as `TF_LOG_PROVIDER` and `TF_LOG_SDK` (`off` for
    /// none), the variables terraform-plugin-log reads, so a Go provider does not format
    /// lines nobody reads.
    fn level(&self) -> Option<&'static str> {
        Some("trace")
    }
}

/// A sink that drops guest log lines (for commands that only inspect a component).
pub struct DiscardLog;

impl GuestLogSink for DiscardLog {
    fn log(&self, _level: &str, _message: &str, _fields: &[(String, String)]) {}

    fn level(&self) -> Option<&'static str> {
        None
    }
}

/// Most stdout or stderr bytes kept between two flushes (one call); the rest is counted and
/// dropped. Guest writes never fail: a full capture must not change what the guest does.
pub(crate) const MAX_CAPTURED_OUTPUT: usize = 64 << 10;
/// The end of stderr kept apart from the capture, so a crash report has the panic message
/// even when the capture filled up before it.
const TAIL_BYTES: usize = 4 << 10;

/// One of the guest's output streams, captured in memory.
#[derive(Clone, Default)]
pub(crate) struct Capture(Arc<Mutex<Captured>>);

#[derive(Default)]
struct Captured {
    /// Written since the last flush, up to [`MAX_CAPTURED_OUTPUT`].
    pending: Vec<u8>,
    /// Bytes dropped since the last flush.
    dropped: usize,
    /// The last [`TAIL_BYTES`] written since the last flush.
    tail: VecDeque<u8>,
}

impl Capture {
    fn lock(&self) -> MutexGuard<'_, Captured> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self, bytes: &[u8]) {
        let mut c = self.lock();
        let room = MAX_CAPTURED_OUTPUT.saturating_sub(c.pending.len());
        let kept = bytes.len().min(room);
        c.pending.extend_from_slice(&bytes[..kept]);
        c.dropped = c.dropped.saturating_add(bytes.len() - kept);
        let recent = &bytes[bytes.len().saturating_sub(TAIL_BYTES)..];
        let overflow = (c.tail.len() + recent.len()).saturating_sub(TAIL_BYTES);
        c.tail.drain(..overflow);
        c.tail.extend(recent);
    }

    /// What was written since the last call to `take`: the kept bytes, how many were
    /// dropped, and the last few KiB (complete even when bytes were dropped).
    pub(crate) fn take(&self) -> Flushed {
        let mut c = self.lock();
        Flushed {
            kept: std::mem::take(&mut c.pending),
            dropped: std::mem::take(&mut c.dropped),
            tail: std::mem::take(&mut c.tail).into(),
        }
    }
}

/// One flush of a [`Capture`].
pub(crate) struct Flushed {
    pub(crate) kept: Vec<u8>,
    pub(crate) dropped: usize,
    pub(crate) tail: Vec<u8>,
}

impl Flushed {
    /// The text for a crash report: everything when nothing was dropped, else the tail.
    pub(crate) fn crash_text(&self) -> String {
        let bytes = if self.dropped == 0 {
            &self.kept
        } else {
            &self.tail
        };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

impl IsTerminal for Capture {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Capture {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Capture {
    async fn ready(&mut self) {}
}

impl OutputStream for Capture {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        Capture::write(self, &bytes);
        Ok(())
    }
    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }
    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(MAX_CAPTURED_OUTPUT)
    }
}

impl tokio::io::AsyncWrite for Capture {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        Capture::write(&self, buf);
        std::task::Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// What a line costs besides its text: the log format's own bytes (level, timestamp, module
/// and JSON punctuation run to about this much), so empty lines are not free.
const LINE_COST: usize = 64;

/// What a field costs besides its key and value (quotes, colon, comma).
const FIELD_COST: usize = 6;

/// Bytes `text` takes once escaped as a JSON string (a control character becomes `\u00XX`).
fn written_len(text: &str) -> usize {
    text.bytes()
        .map(|b| match b {
            b'"' | b'\\' => 2,
            0..0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// The guest's log lines on their way to the sink, within the budget.
pub(crate) struct GuestLog {
    sink: Arc<dyn GuestLogSink>,
    per_call: usize,
    per_instance: usize,
    call_used: usize,
    instance_used: usize,
    /// Lines dropped in this call (told once, at the first).
    call_dropped: usize,
    /// A line was refused for the instance's budget: the instance retires after this call.
    instance_capped: bool,
}

impl GuestLog {
    pub(crate) fn new(sink: Arc<dyn GuestLogSink>, budget: &HostWork) -> GuestLog {
        GuestLog {
            sink,
            per_call: budget.log_bytes_per_call,
            per_instance: budget.log_bytes_per_instance,
            call_used: 0,
            instance_used: 0,
            call_dropped: 0,
            instance_capped: false,
        }
    }

    /// A new call starts: its own budget, within what the instance has left.
    pub(crate) fn start_call(&mut self, budget: &HostWork) {
        self.per_call = budget.log_bytes_per_call;
        self.per_instance = budget.log_bytes_per_instance;
        self.call_used = 0;
        self.call_dropped = 0;
    }

    /// The instance has written its life's budget; it should not serve another call.
    pub(crate) fn instance_spent(&self) -> bool {
        self.instance_capped || self.instance_used >= self.per_instance
    }

    /// Lines dropped in this call.
    #[cfg(test)]
    pub(crate) fn dropped(&self) -> usize {
        self.call_dropped
    }

    /// Sends one line if the budget allows; the first line refused in a call is replaced by
    /// one saying that lines are being dropped, and by which limit.
    pub(crate) fn line(&mut self, level: &str, message: &str, fields: &[(String, String)]) {
        let bytes = LINE_COST
            + written_len(message)
            + fields
                .iter()
                .map(|(k, v)| FIELD_COST + written_len(k) + written_len(v))
                .sum::<usize>();
        let fits_call = self.call_used.saturating_add(bytes) <= self.per_call;
        let fits_instance = self.instance_used.saturating_add(bytes) <= self.per_instance;
        if fits_call && fits_instance {
            self.call_used += bytes;
            self.instance_used += bytes;
            self.sink.log(level, message, fields);
            return;
        }
        self.call_dropped += 1;
        self.instance_capped |= !fits_instance;
        if self.call_dropped == 1 {
            let (scope, limit) = if fits_call {
                ("instance", self.per_instance)
            } else {
                ("call", self.per_call)
            };
            self.sink.log(
                "warn",
                &format!(
                    "log capped: the guest wrote more than {} per {scope}; its further lines in this call are dropped",
                    crate::limits::ByteSize(limit)
                ),
                &[("limit".into(), format!("log_per_{scope}"))],
            );
        }
    }

    /// Sends what a stream captured as lines at `level`, and says how much the capture
    /// itself dropped.
    pub(crate) fn stream(&mut self, stream: &str, level: &str, flushed: &Flushed) {
        // Most calls print nothing: then nothing is built (every call flushes both streams).
        if flushed.kept.is_empty() && flushed.dropped == 0 {
            return;
        }
        let text = String::from_utf8_lossy(&flushed.kept);
        let fields = [("stream".to_owned(), stream.to_owned())];
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match hclog_line(line) {
                Some((level, message, fields)) => self.line(level, &message, &fields),
                None => self.line(level, line, &fields),
            }
        }
        if flushed.dropped > 0 {
            self.line(
                "warn",
                &format!(
                    "{} bytes of {stream} beyond {} in one call were dropped",
                    flushed.dropped,
                    crate::limits::ByteSize(MAX_CAPTURED_OUTPUT)
                ),
                &fields,
            );
        }
    }
}

/// Level, message and fields of an hclog line.
type HclogLine = (&'static str, String, Vec<(String, String)>);

/// A line a guest wrote in hclog's JSON form (what terraform-plugin-log writes for a Go
/// provider, and what go-plugin parses from a native one): its level, message and fields.
/// Anything else is not one, and is logged as written.
fn hclog_line(line: &str) -> Option<HclogLine> {
    if !line.starts_with('{') {
        return None;
    }
    let serde_json::Value::Object(mut entry) = serde_json::from_str(line).ok()? else {
        return None;
    };
    let level = match entry.remove("@level")?.as_str()? {
        "trace" => "trace",
        "debug" => "debug",
        "info" => "info",
        "warn" | "warning" => "warn",
        "error" => "error",
        _ => return None,
    };
    let message = match entry.remove("@message")? {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    entry.remove("@timestamp");
    entry.remove("@caller");
    let fields = entry
        .into_iter()
        .map(|(key, value)| {
            let key = key.strip_prefix('@').map_or(key.clone(), str::to_owned);
            let value = match value {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (key, value)
        })
        .collect();
    Some((level, message, fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Lines(Mutex<Vec<String>>);
    impl GuestLogSink for Lines {
        fn log(&self, _level: &str, message: &str, _fields: &[(String, String)]) {
            self.0.lock().unwrap().push(message.to_owned());
        }
    }

    fn budget(per_call: usize, per_instance: usize) -> HostWork {
        HostWork {
            log_bytes_per_call: per_call,
            log_bytes_per_instance: per_instance,
            ..HostWork::default()
        }
    }

    #[test]
    fn lines_past_the_call_budget_are_dropped_with_one_notice() {
        let sink = Arc::new(Lines::default());
        // 30-byte lines cost 94 bytes each (LINE_COST): three fit in 300.
        let mut log = GuestLog::new(sink.clone(), &budget(300, 3000));
        for _ in 0..1000 {
            log.line("info", &"x".repeat(30), &[]);
        }
        let lines = sink.0.lock().unwrap().clone();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[3].starts_with("log capped"), "{lines:?}");
        assert!(lines[3].contains("300B per call"), "{lines:?}");
        assert_eq!(log.dropped(), 997);
        assert!(!log.instance_spent());

        // The next call has its own budget, until the instance's runs out: 282 bytes used,
        // then 154 per call; the 18th call's line would pass 3000.
        for _ in 0..17 {
            log.start_call(&budget(300, 3000));
            log.line("info", &"y".repeat(90), &[]);
        }
        log.start_call(&budget(300, 3000));
        log.line("info", &"z".repeat(90), &[]);
        let lines = sink.0.lock().unwrap().clone();
        assert!(lines.last().unwrap().contains("per instance"), "{lines:?}");
        assert!(log.instance_spent(), "retired after this call");
        log.line("info", &"z".repeat(90), &[]);
        assert_eq!(
            sink.0.lock().unwrap().len(),
            lines.len(),
            "told once per call"
        );
    }

    #[test]
    fn a_huge_single_line_is_dropped_not_sent() {
        let sink = Arc::new(Lines::default());
        let mut log = GuestLog::new(sink.clone(), &HostWork::default());
        log.line("info", &"x".repeat(10 << 20), &[]);
        let lines = sink.0.lock().unwrap().clone();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("log capped"));
    }

    #[test]
    fn a_full_capture_keeps_the_last_words_for_crash_reports() {
        let capture = Capture::default();
        for _ in 0..100 {
            capture.write(&[b'.'; 1000]);
        }
        capture.write(b"\nthread '<unnamed>' panicked at src/lib.rs:1:1:\nboom\n");
        let flushed = capture.take();
        assert_eq!(flushed.kept.len(), MAX_CAPTURED_OUTPUT);
        assert!(flushed.dropped > 0);
        assert!(
            flushed
                .crash_text()
                .ends_with("panicked at src/lib.rs:1:1:\nboom\n")
        );
        assert!(flushed.crash_text().len() <= TAIL_BYTES);
        // Flushing starts over.
        let again = capture.take();
        assert!(again.kept.is_empty() && again.dropped == 0 && again.tail.is_empty());
    }

    #[test]
    fn empty_and_escaped_lines_are_charged_as_written() {
        let sink = Arc::new(Lines::default());
        let mut log = GuestLog::new(sink.clone(), &budget(64 << 10, 1 << 20));
        for _ in 0..1_000_000 {
            log.line("warn", "", &[]);
        }
        // 64 KiB at 64 bytes a line, and the notice.
        assert_eq!(sink.0.lock().unwrap().len(), 1024 + 1);
        assert_eq!(written_len("\u{1}\"a"), 6 + 2 + 1);
    }

    /// terraform-plugin-log writes hclog JSON on stderr: each line reaches the provider log
    /// at its own level, with its fields; other stderr lines stay as written.
    #[test]
    fn hclog_json_lines_keep_their_level_and_fields() {
        let (level, message, fields) = hclog_line(
            r#"{"@level":"debug","@message":"created a pet","@module":"provider","@timestamp":"2026-11-26T09:00:00Z","id":"cat-1","count":3}"#,
        )
        .expect("an hclog line");
        assert_eq!((level, message.as_str()), ("debug", "created a pet"));
        assert!(
            fields.contains(&("module".into(), "provider".into())),
            "{fields:?}"
        );
        assert!(
            fields.contains(&("id".into(), "cat-1".into())),
            "{fields:?}"
        );
        assert!(fields.contains(&("count".into(), "3".into())), "{fields:?}");
        assert!(!fields.iter().any(|(k, _)| k == "timestamp"), "{fields:?}");
        for plain in [
            "panic: boom",
            r#"{"not":"hclog"}"#,
            r#"{"@level":"loud","@message":"x"}"#,
            "{broken",
        ] {
            assert!(hclog_line(plain).is_none(), "{plain}");
        }
        // Through the budget like any line.
        let sink = Arc::new(Lines::default());
        let mut log = GuestLog::new(sink.clone(), &HostWork::default());
        let flushed = Flushed {
            kept: b"{\"@level\":\"info\",\"@message\":\"hello\"}\nplain text\n".to_vec(),
            dropped: 0,
            tail: Vec::new(),
        };
        log.stream("stderr", "warn", &flushed);
        assert_eq!(*sink.0.lock().unwrap(), ["hello", "plain text"]);
    }
}
