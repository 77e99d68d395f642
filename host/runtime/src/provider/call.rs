//! One guest call under its RPC's limits. Every limit is enforced here, by name: fuel
//! (`set_fuel`), memory (the store's limiter, set per call), the deadline (epoch callback plus
//! a timeout around host calls), StopProvider (the stop generation), and the size of returned
//! values ([`MAX_VALUE_BYTES`]).

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use wasmtime::{Store, UpdateDeadline};

use tfwasm_model::Rpc;

use super::WasmProvider;
use super::failure::Interrupted;
use crate::bindings::{Guest, wit};
use crate::engine::EPOCH_TICK;
use crate::limits::MAX_VALUE_BYTES;
use crate::reported::Reported;
use crate::state::StoreState;
use crate::{CallError, Limits};

pub(super) type GuestFuture<'a, R> = Pin<Box<dyn Future<Output = wasmtime::Result<R>> + Send + 'a>>;

impl WasmProvider {
    /// Runs one guest call under the RPC's limits: in an idle instance whose previous call
    /// succeeded (when [`CallLimits::reuse_instances`] is on), else in a fresh one. An
    /// instance whose call fails in any way is dropped. `subject` (the type name, or empty)
    /// goes into the call's debug log line.
    pub(super) async fn call<R: Send + ReturnedValues>(
        &self,
        rpc: Rpc,
        subject: &str,
        f: impl for<'a> FnOnce(&'a mut Store<StoreState>, &'a Guest) -> GuestFuture<'a, R> + Send,
    ) -> Result<R, Failed> {
        self.call_journaled(rpc, subject, None, f).await
    }

    /// [`Self::call`], with the states the guest reports written to `journal` until the
    /// call answers (applies, see [`crate::journal`]).
    pub(super) async fn call_journaled<R: Send + ReturnedValues>(
        &self,
        rpc: Rpc,
        subject: &str,
        journal: Option<crate::journal::Pending>,
        f: impl for<'a> FnOnce(&'a mut Store<StoreState>, &'a Guest) -> GuestFuture<'a, R> + Send,
    ) -> Result<R, Failed> {
        // Held until the call ends: at most `concurrent_calls` instances in use. The
        // semaphore is never closed, so waiting can only end with a permit.
        let _running = self.running.acquire().await.ok();
        let started = Instant::now();
        let limits = self.limits.for_rpc(rpc);
        let (mut store, instance, calls) = match self.take_idle(limits.memory_bytes) {
            Some(w) => (w.store, Some(w.instance), w.calls),
            None => {
                let store = self.new_store().map_err(|message| Failed {
                    error: CallError::Instantiate { rpc, message },
                    reported: None,
                })?;
                (store, None, 0)
            }
        };
        // Per-call state, set here for fresh and reused instances alike.
        let problems = crate::http::Problems::default();
        let reported = Reported::new(journal, &self.limits.host_work);
        let (call_ends, call_ended) = tokio::sync::watch::channel(());
        {
            let state = store.data_mut();
            state.http_gate.problems = problems.clone();
            state.http_gate.requests = 0;
            state.http_gate.call_ended = call_ended;
            state.http_gate.timeout = limits.timeout;
            state.reported = reported.clone();
            state.progress = Default::default();
            state.limits.limit = limits.memory_bytes;
            state.log.start_call(&self.limits.host_work);
        }
        let fresh = instance.is_none();
        let mut outcome = self
            .run(rpc, limits, &mut store, instance, problems, f)
            .await;
        // The call answered: requests it left in flight, and bodies it left unread, stop.
        drop(call_ends);
        let unjournaled = reported.unjournaled();
        if unjournaled > 0
            && let Ok((value, _)) = &mut outcome
        {
            value.add_diagnostic(self.unjournaled_reports(unjournaled));
        }
        // Answered (either way): whatever was reported now travels in the response.
        reported.finish();
        let fuel_used = if self.limits.fuel_metering {
            store
                .get_fuel()
                .map_or(0, |left| limits.fuel.saturating_sub(left))
        } else {
            0
        };
        let (result, result_bytes) = match &outcome {
            Ok((value, _)) => ("ok", value.largest_value()),
            Err(_) => ("failed", 0),
        };
        // One line per guest call: what operators and authors look for first in a slow or
        // failing run (`TF_LOG=debug`).
        tracing::debug!(
            rpc = %rpc,
            type_name = (!subject.is_empty()).then_some(subject),
            elapsed_ms = %format_args!("{:.3}", started.elapsed().as_secs_f64() * 1000.0),
            fuel = fuel_used,
            instance = if fresh { "fresh" } else { "reused" },
            result,
            result_bytes,
            "guest call"
        );
        match outcome {
            Ok((value, instance)) => {
                self.keep_warm(store, instance, calls + 1);
                Ok(value)
            }
            Err(error) => Err(Failed {
                error,
                reported: reported.take(),
            }),
        }
    }

    async fn run<R: Send + ReturnedValues>(
        &self,
        rpc: Rpc,
        limits: Limits,
        store: &mut Store<StoreState>,
        warm: Option<Guest>,
        problems: crate::http::Problems,
        f: impl for<'a> FnOnce(&'a mut Store<StoreState>, &'a Guest) -> GuestFuture<'a, R> + Send,
    ) -> Result<(R, Guest), CallError> {
        if self.limits.fuel_metering {
            store
                .set_fuel(limits.fuel)
                .map_err(|e| CallError::Instantiate {
                    rpc,
                    message: format!("{e:#}"),
                })?;
        }
        let deadline = Instant::now() + limits.timeout;
        let generation = *self.stop_generation.borrow();
        let stop = self.stop_generation.clone();
        store.epoch_deadline_callback(move |_| {
            if *stop.borrow() != generation {
                return Err(wasmtime::Error::new(Interrupted::Stopped));
            }
            if Instant::now() >= deadline {
                return Err(wasmtime::Error::new(Interrupted::Deadline));
            }
            Ok(UpdateDeadline::Yield(1))
        });
        store.set_epoch_deadline(1);

        let instance = match warm {
            Some(instance) => instance,
            None => self.pre.instantiate_async(&mut *store).await.map_err(|e| {
                // A start-up that alone needs more than a limit allows (CPython's heap
                // image is >10 MiB) hit that limit; it is not a broken component.
                super::failure::limit_hit(rpc, &limits, &e).unwrap_or_else(|| {
                    CallError::Instantiate {
                        rpc,
                        message: super::failure::error_text(&e),
                    }
                })
            })?,
        };
        // The epoch callback stops running wasm at the deadline or on StopProvider; the select
        // also covers time spent waiting in host calls (sleeps, I/O), with a little grace.
        let mut stopped = self.stop_generation.subscribe();
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(limits.timeout + EPOCH_TICK * 5, f(&mut *store, &instance)) => Some(outcome),
            // Dropping the call future unwinds the guest; the caller drops the store.
            _ = stopped.wait_for(|current| *current != generation) => None,
        };
        let stderr = self.flush_output(store);
        match outcome {
            None => Err(CallError::Cancelled { rpc }),
            Some(Ok(Ok(value))) if value.largest_value() > MAX_VALUE_BYTES => {
                Err(CallError::Oversize {
                    rpc,
                    bytes: value.largest_value(),
                    limit: MAX_VALUE_BYTES,
                })
            }
            Some(Ok(Ok(mut value))) => {
                let problems = problems.lock().map(|p| p.clone()).unwrap_or_default();
                value.add_host_diagnostics(problems.iter().map(|p| self.http_problem(p)));
                // Last, so what the host added on the guest's behalf is capped too.
                value.cap_lists();
                value.cap_diagnostics(&self.limits.host_work);
                Ok((value, instance))
            }
            Some(Ok(Err(error))) => Err(self.classify(rpc, &limits, &error, &stderr)),
            Some(Err(_elapsed)) => Err(CallError::Timeout {
                rpc,
                limit: limits.timeout,
            }),
        }
    }

    /// Sends the guest output captured during this call to the log (within the log budget)
    /// and returns this call's stderr, for crash reports.
    fn flush_output(&self, store: &mut Store<StoreState>) -> String {
        let state = store.data_mut();
        let stdout = state.stdout.take();
        let stderr = state.stderr.take();
        state.log.stream("stdout", "info", &stdout);
        state.log.stream("stderr", "warn", &stderr);
        stderr.crash_text()
    }
}

/// A failed call, with any state the guest reported before it failed.
pub(crate) struct Failed {
    pub(super) error: CallError,
    pub(super) reported: Option<Vec<u8>>,
}

/// The longest of a response's byte fields: states, private state and identities all end up
/// in Terraform's state, so each is held to [`MAX_VALUE_BYTES`].
pub(super) fn largest(fields: &[&[u8]]) -> usize {
    fields.iter().map(|f| f.len()).max().unwrap_or(0)
}

/// An identity's bytes (none: empty).
pub(super) fn ident(identity: &Option<Vec<u8>>) -> &[u8] {
    identity.as_deref().unwrap_or_default()
}

/// What the host needs to know about, and add to, any guest response.
pub(crate) trait ReturnedValues {
    /// Bytes of the largest value returned (checked against [`MAX_VALUE_BYTES`]).
    fn largest_value(&self) -> usize {
        0
    }
    /// The response's diagnostics; none for a function, whose failure is one text.
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>>;
    /// Adds a host diagnostic (such as a denied request) to the response.
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        if let Some(list) = self.diagnostics() {
            list.push(diagnostic);
        }
    }
    /// Adds the host's diagnostics (a denied request, an untrusted server), each once, and
    /// drops the guest's errors with one of their summaries: those only restate the host's
    /// (the SDKs use the host's summary for a request the host refused), so the user reads
    /// one error, the one that names the setting to change. A guest can drop only its own.
    fn add_host_diagnostics(&mut self, host: impl IntoIterator<Item = wit::Diagnostic>) {
        let mut unique: Vec<wit::Diagnostic> = Vec::new();
        for diagnostic in host {
            if !unique
                .iter()
                .any(|d| d.summary == diagnostic.summary && d.detail == diagnostic.detail)
            {
                unique.push(diagnostic);
            }
        }
        if unique.is_empty() {
            return;
        }
        // A guest error that only restates a host one goes: the same summary (the Rust SDK's
        // denial), or a denial quoted in its text (a Go framework provider wraps the SDK's
        // error, which starts with the summary, in a diagnostic of its own).
        let restates = |host: &wit::Diagnostic, guest: &wit::Diagnostic| {
            host.summary == guest.summary
                || (host.summary == tfwasm_model::HTTP_DENIED_SUMMARY
                    && (guest.summary.contains(tfwasm_model::HTTP_DENIED_SUMMARY)
                        || guest.detail.contains(tfwasm_model::HTTP_DENIED_SUMMARY)))
        };
        if let Some(list) = self.diagnostics() {
            list.retain(|guest| {
                !(matches!(guest.severity, wit::Severity::Error)
                    && unique.iter().any(|h| restates(h, guest)))
            });
        }
        for diagnostic in unique {
            self.add_diagnostic(diagnostic);
        }
    }
    /// Keeps lists the guest sent besides diagnostics within bounds (requires-replace paths,
    /// imported objects), so what the host and Terraform do per entry stays bounded.
    fn cap_lists(&mut self) {}
    /// Keeps what the guest said within the diagnostic limits of `work`.
    fn cap_diagnostics(&mut self, work: &crate::HostWork) {
        if let Some(list) = self.diagnostics() {
            crate::answer_caps::cap_diagnostics(
                list,
                work.diagnostics_per_call,
                work.diagnostic_bytes_per_call,
            );
        }
    }
}

impl ReturnedValues for Vec<wit::Diagnostic> {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(self)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(severity: wit::Severity, summary: &str, detail: &str) -> wit::Diagnostic {
        wit::Diagnostic {
            severity,
            summary: summary.into(),
            detail: detail.into(),
            attribute: Vec::new(),
        }
    }

    /// Issue 36: a request to an ungranted host gave two errors, the SDK's and the host's.
    #[test]
    fn a_host_diagnostic_replaces_the_guest_errors_that_restate_it() {
        let denied = "Outgoing HTTP request denied";
        let mut answer = vec![
            diagnostic(
                wit::Severity::Error,
                denied,
                "POST http://api/ failed: refused",
            ),
            diagnostic(wit::Severity::Error, "Cannot create", "an unrelated error"),
            diagnostic(wit::Severity::Warning, denied, "a warning is kept"),
            // A Go framework provider's own diagnostic around the Go SDK's error.
            diagnostic(
                wit::Severity::Error,
                "Client Error",
                "Unable to create widget, got error: Post \"http://api/\": Outgoing HTTP request denied: its destination is not granted to this provider",
            ),
        ];
        let host = diagnostic(
            wit::Severity::Error,
            denied,
            "add \"http://api:80\" to http",
        );
        // A retrying SDK meets the same refusal three times: said once.
        answer.add_host_diagnostics(vec![host.clone(), host.clone(), host.clone()]);
        let details: Vec<&str> = answer.iter().map(|d| d.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "an unrelated error",
                "a warning is kept",
                "add \"http://api:80\" to http"
            ]
        );
    }

    #[test]
    fn without_host_diagnostics_the_guests_stand() {
        let mut answer = vec![diagnostic(
            wit::Severity::Error,
            "Outgoing HTTP request denied",
            "the guest's own",
        )];
        answer.add_host_diagnostics(Vec::new());
        assert_eq!(answer.len(), 1);
    }
}
