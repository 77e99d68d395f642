//! What a failed call becomes: a trap, limit or cancellation classified into a
//! [`CallError`], and every error turned into a diagnostic that tells the operator what
//! happened and which setting to raise.

use tfwasm_model::{Diagnostic, ProviderSchema};
use wasmtime::Trap;

use tfwasm_model::Rpc;

use super::WasmProvider;
use crate::bindings::wit;
use crate::{CallError, Limits};

/// Why the epoch callback stopped a call.
#[derive(Debug)]
pub(super) enum Interrupted {
    Deadline,
    Stopped,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Interrupted::Deadline => "deadline exceeded",
            Interrupted::Stopped => "stopped by StopProvider",
        })
    }
}

impl std::error::Error for Interrupted {}

/// The limit (or StopProvider) behind `error`, if one is: how the epoch callback, fuel
/// metering and the memory limiter end a call, whether in the call or while starting its
/// instance.
pub(super) fn limit_hit(rpc: Rpc, limits: &Limits, error: &wasmtime::Error) -> Option<CallError> {
    if let Some(interrupted) = error.downcast_ref::<Interrupted>() {
        return Some(match interrupted {
            Interrupted::Deadline => CallError::Timeout {
                rpc,
                limit: limits.timeout,
            },
            Interrupted::Stopped => CallError::Cancelled { rpc },
        });
    }
    if let Some(Trap::OutOfFuel) = error.downcast_ref::<Trap>() {
        return Some(CallError::OutOfFuel {
            rpc,
            fuel: limits.fuel,
        });
    }
    error
        .downcast_ref::<crate::state::MemoryLimitExceeded>()
        .map(|_| CallError::OutOfMemory {
            rpc,
            limit: limits.memory_bytes,
        })
}

impl WasmProvider {
    pub(super) fn classify(
        &self,
        rpc: Rpc,
        limits: &Limits,
        error: &wasmtime::Error,
        stderr: &str,
    ) -> CallError {
        if let Some(hit) = limit_hit(rpc, limits, error) {
            return hit;
        }
        let panic = tfwasm_model::quote::escaped_lines(panic_message(stderr).unwrap_or_default());
        let message = match error.downcast_ref::<Trap>() {
            Some(Trap::StackOverflow) => "wasm stack overflow (unbounded recursion?)".to_owned(),
            // Rust and C guests keep a shadow stack in linear memory; overflowing it runs off
            // the start of memory.
            Some(Trap::MemoryOutOfBounds) => {
                "out of bounds memory access (in Rust or C guests usually a stack overflow from unbounded recursion)".to_owned()
            }
            Some(Trap::UnreachableCodeReached) if !panic.is_empty() => {
                format!("guest panicked: {panic}")
            }
            Some(trap) => format!("{trap}"),
            None => error_text(error),
        };
        CallError::Trap { rpc, message }
    }

    pub(super) fn call_diagnostic(&self, error: &CallError, subject: &str) -> Diagnostic {
        let summary = match error {
            CallError::OutOfFuel { .. } => "Provider exceeded its fuel budget",
            CallError::Timeout { .. } => "Provider exceeded its time limit",
            CallError::Cancelled { .. } => "Provider call cancelled",
            CallError::OutOfMemory { .. } => "Provider exceeded its memory limit",
            CallError::Trap { .. } => "Provider crashed",
            CallError::Instantiate { .. } => "Provider could not start",
            CallError::Oversize { .. } => "Provider returned a value that is too large",
        };
        let subject = if subject.is_empty() {
            String::new()
        } else {
            format!(" for {subject}")
        };
        let hint = match error {
            CallError::OutOfFuel { rpc, .. } => self.raise_hint("fuel", *rpc),
            CallError::Timeout { rpc, .. } => self.raise_hint("timeout", *rpc),
            CallError::OutOfMemory { rpc, .. } => self.raise_hint("memory", *rpc),
            _ => String::new(),
        };
        Diagnostic::error(
            summary,
            format!(
                "The Wasm provider {} failed{subject}: {error}.{hint} The failed instance was discarded; later calls run in a fresh one.",
                self.name
            ),
        )
    }

    /// An outgoing request that failed for a reason the operator can fix, naming the setting.
    /// Some states the guest reported during an apply were not journaled (past the limits).
    pub(super) fn unjournaled_reports(&self, count: u32) -> wit::Diagnostic {
        let work = &self.limits.host_work;
        wit::Diagnostic {
            severity: wit::Severity::Warning,
            summary: "Provider state reports not journaled".into(),
            detail: format!(
                "The Wasm provider {} reported its state more often than tfwasm writes it to the apply journal ({} reports or {} per apply); the last {count} were kept in memory only, so a crash during this apply would have recovered an older state. Raise state_reports_per_call or state_report_bytes_per_call under [limits] in {} if this provider needs it.",
                self.name,
                work.state_reports_per_call,
                crate::limits::ByteSize(work.state_report_bytes_per_call),
                self.settings_hint
            ),
            attribute: Vec::new(),
        }
    }

    pub(super) fn http_problem(&self, problem: &crate::http::Problem) -> wit::Diagnostic {
        use crate::http::Problem;
        let (summary, detail) = match problem {
            Problem::Denied { entry } => (
                tfwasm_model::HTTP_DENIED_SUMMARY,
                format!(
                    "The Wasm provider {} tried to reach {entry}, which its allow-list does not include. To allow it, add \"{entry}\" to http under [grants] in {} (or package with --allow-http {entry}).",
                    self.name, self.settings_hint
                ),
            ),
            Problem::Untrusted { host, reason } => (
                "Outgoing HTTPS request to an untrusted server",
                format!(
                    "The Wasm provider {} could not verify the certificate of {host}: {reason}. If the server's certificate comes from a private CA, add the CA's PEM file to ca_files under [http] in {} (or package with --ca-file PATH).",
                    self.name, self.settings_hint
                ),
            ),
            Problem::Userinfo { host } => (
                tfwasm_model::HTTP_DENIED_SUMMARY,
                format!(
                    "The Wasm provider {} tried to send a request to {host} with user information in its URL (user:password@{host}). tfwasm never sends URLs with user information; credentials belong in a header such as Authorization.",
                    self.name
                ),
            ),
            Problem::NotAHost { host } => (
                tfwasm_model::HTTP_DENIED_SUMMARY,
                format!(
                    "The Wasm provider {} tried to send a request to {:?}, which is neither a host name nor an IP address; nothing was sent.",
                    self.name,
                    tfwasm_model::quote::escaped(host)
                ),
            ),
            Problem::Proxy { message } => (
                "Outgoing HTTP request failed at the proxy",
                format!(
                    "The Wasm provider {} could not send a request {message}. The proxy comes from [http] in {} or, when that sets none, from HTTPS_PROXY/HTTP_PROXY/ALL_PROXY (NO_PROXY exempts hosts) in the environment Terraform runs in.",
                    self.name, self.settings_hint
                ),
            ),
        };
        wit::Diagnostic {
            severity: wit::Severity::Error,
            summary: summary.into(),
            detail,
            attribute: Vec::new(),
        }
    }

    /// Terraform's schema rules, checked here so the error says where the problem is.
    pub(super) fn schema_problems(&self, schema: &ProviderSchema) -> Vec<Diagnostic> {
        use tfwasm_model::schema_check::check_schema;
        let mut problems = check_schema("provider", &schema.provider);
        for (name, s) in schema
            .resources
            .iter()
            .chain(&schema.data_sources)
            .chain(&schema.ephemeral_resources)
            .chain(&schema.list_resources)
            .chain(&schema.actions)
            .chain(&schema.state_stores)
        {
            if problems.len() >= tfwasm_model::schema_check::MAX_PROBLEMS {
                break;
            }
            problems.extend(check_schema(name, s));
        }
        problems.truncate(tfwasm_model::schema_check::MAX_PROBLEMS);
        problems
            .into_iter()
            .map(|p| {
                Diagnostic::error(
                    "Provider returned an invalid schema",
                    format!("The Wasm provider {} declares an invalid schema at {}: {}. This is a bug in the provider.", self.name, p.at, p.message),
                )
            })
            .collect()
    }

    /// Tells the operator which setting to raise, and where.
    fn raise_hint(&self, key: &str, rpc: Rpc) -> String {
        format!(
            " If the provider needs more, raise `{key}` under [limits] (or [limits.rpc.{rpc}]) in {}.",
            self.settings_hint
        )
    }
}

/// A Rust guest's panic as an operator reads it: the message, then where (`boom (at
/// src/lib.rs:10:5)`), from the panic hook's lines on stderr, without the hook's advice about
/// `RUST_BACKTRACE` (which an operator cannot set for a guest, and which would not help).
/// The last panic wins, when a call printed several.
fn panic_message(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let start = lines.iter().rposition(|l| l.contains("panicked at "))?;
    let header = lines[start];
    let after = &header[header.find("panicked at ")? + "panicked at ".len()..];
    // Since Rust 1.73 the message follows on its own lines, after `at FILE:LINE:COL:`; older
    // hooks put it first: `panicked at 'message', FILE:LINE:COL`.
    let (location, inline) = match after.strip_suffix(':') {
        Some(location) => (location.to_owned(), None),
        None => match after.rsplit_once("', ") {
            Some((message, location)) => (
                location.to_owned(),
                Some(message.trim_start_matches('\'').to_owned()),
            ),
            None => (after.to_owned(), None),
        },
    };
    let message = inline.unwrap_or_else(|| {
        lines[start + 1..]
            .iter()
            .take_while(|l| !l.starts_with("note: "))
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    });
    let message = message.trim();
    Some(if message.is_empty() {
        format!("at {location}")
    } else {
        format!("{message} (at {location})")
    })
}

/// Most bytes of a guest-caused error's text in a diagnostic.
const ERROR_TEXT_BYTES: usize = 4096;

/// What a failed call's error says, for the operator: its root cause only, never the wasm
/// backtrace wasmtime attaches (its frame names come from the guest's `name` section, any
/// text of any length), an exit as its status; escaped and cut to [`ERROR_TEXT_BYTES`].
pub(crate) fn error_text(error: &wasmtime::Error) -> String {
    if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return format!("the guest exited with status {}", exit.0);
    }
    let mut text = error.root_cause().to_string();
    if text.len() > ERROR_TEXT_BYTES {
        let mut cut = ERROR_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(" (cut)");
    }
    tfwasm_model::quote::escaped_lines(text)
}

#[cfg(test)]
mod tests {
    use super::{error_text, panic_message};

    /// The twenty-second hostile pass: a guest that exits reached "Provider crashed" with
    /// wasmtime's whole backtrace, whose frame names (the guest's `name` section) carried
    /// terminal escapes and megabytes of text.
    #[test]
    fn an_error_shows_its_root_cause_escaped_and_cut_never_the_backtrace() {
        let exit = wasmtime::Error::new(wasmtime_wasi::I32Exit(3))
            .context("error while executing at wasm backtrace:\n    0: \u{1b}[31mevil");
        assert_eq!(error_text(&exit), "the guest exited with status 3");
        let hostile = wasmtime::Error::msg(format!("bad \u{1b}]0;x\u{7} {}", "n".repeat(1 << 20)))
            .context("error while executing at wasm backtrace:\n    0: \u{1b}[31mframe");
        let text = error_text(&hostile);
        assert!(text.len() < 4200, "{}", text.len());
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.starts_with("bad \\u{1b}]0;x"), "{text:?}");
        assert!(!text.contains("frame"), "{text:?}");
    }

    #[test]
    fn a_panic_reads_as_its_message_and_place_without_backtrace_advice() {
        let stderr = "some log line\nthread '<unnamed>' panicked at src/lib.rs:10:5:\nboom: no such key\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            panic_message(stderr).as_deref(),
            Some("boom: no such key (at src/lib.rs:10:5)")
        );
        let multi = "thread 'main' panicked at a.rs:1:1:\nfirst\nsecond line\n";
        assert_eq!(
            panic_message(multi).as_deref(),
            Some("first\nsecond line (at a.rs:1:1)")
        );
        let old =
            "thread 'main' panicked at 'boom', src/lib.rs:3:9\nnote: run with `RUST_BACKTRACE=1`";
        assert_eq!(
            panic_message(old).as_deref(),
            Some("boom (at src/lib.rs:3:9)")
        );
        assert_eq!(panic_message("no panic here"), None);
    }
}
