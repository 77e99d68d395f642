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
use crate::bindings::{Guest, data_source, ephemeral, function, resource, wit};
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
        let (mut store, instance, calls) = match self.take_idle() {
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
fn largest(fields: &[&[u8]]) -> usize {
    fields.iter().map(|f| f.len()).max().unwrap_or(0)
}

/// An identity's bytes (none: empty).
fn ident(identity: &Option<Vec<u8>>) -> &[u8] {
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
impl ReturnedValues for wit::ProviderSchema {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
/// The schema with 0.3.0's families' schemas beside it.
impl ReturnedValues for (wit::ProviderSchema, crate::bindings::AddedSchemas) {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.0.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::state_store::ReadResponse {
    fn largest_value(&self) -> usize {
        self.state.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::state_store::LockResponse {
    fn cap_lists(&mut self) {
        use crate::answer_caps::MAX_LOCK_ID_BYTES;
        // Cut or escaped, it would no longer unlock: refused whole, as one that would drive
        // the terminal Terraform shows it on.
        if self.lock_id.len() > MAX_LOCK_ID_BYTES
            || self
                .lock_id
                .chars()
                .any(tfwasm_model::quote::is_hidden_char)
        {
            self.lock_id = String::new();
            self.diagnostics.push(wit::Diagnostic {
                severity: wit::Severity::Error,
                summary: "Provider answered an oversized lock ID".into(),
                detail: format!(
                    "The state store answered a lock ID of more than {MAX_LOCK_ID_BYTES} bytes or with control characters. This is a provider bug."
                ),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::state_store::StatesResponse {
    fn cap_lists(&mut self) {
        use crate::answer_caps::{MAX_STATE_ID_BYTES, MAX_STATES};
        let listed = self.state_ids.len();
        // Terraform prints them (`workspace list`) and sends them back: a control character
        // is refused, not escaped.
        self.state_ids.retain(|id| {
            id.len() <= MAX_STATE_ID_BYTES && !id.chars().any(tfwasm_model::quote::is_hidden_char)
        });
        if listed > MAX_STATES || self.state_ids.len() < listed {
            self.state_ids.truncate(MAX_STATES);
            self.diagnostics.push(wit::Diagnostic {
                severity: wit::Severity::Error,
                summary: "Provider listed too many states".into(),
                detail: format!(
                    "The state store listed {listed} states, or state IDs longer than {MAX_STATE_ID_BYTES} bytes or with control characters; tfwasm passes on at most {MAX_STATES}, none of those. This is a provider bug."
                ),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::action::PlanActionResponse {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::list_resource::ListPage {
    fn largest_value(&self) -> usize {
        (self.objects.iter())
            .map(|o| {
                o.identity
                    .len()
                    .max(o.resource_object.as_ref().map_or(0, Vec::len))
            })
            .max()
            .unwrap_or(0)
    }
    fn cap_lists(&mut self) {
        use crate::answer_caps::{MAX_DISPLAY_NAME_BYTES, MAX_LIST_CURSOR_BYTES, MAX_LISTED};
        let mut problems = Vec::new();
        if self.objects.len() > MAX_LISTED {
            problems.push(format!(
                "listed {} objects in one page; tfwasm passes on at most {MAX_LISTED} a page",
                self.objects.len()
            ));
            self.objects.truncate(MAX_LISTED);
        }
        if self
            .next
            .as_ref()
            .is_some_and(|n| n.len() > MAX_LIST_CURSOR_BYTES)
        {
            problems.push(format!(
                "answered a next-page cursor of more than {MAX_LIST_CURSOR_BYTES} bytes"
            ));
            self.next = None;
        }
        for listed in &mut self.objects {
            crate::answer_caps::truncate(&mut listed.display_name, MAX_DISPLAY_NAME_BYTES);
        }
        for problem in problems {
            self.diagnostics.push(wit::Diagnostic {
                severity: wit::Severity::Error,
                summary: "Provider listed too much".into(),
                detail: format!("The provider {problem}. This is a provider bug."),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
    /// The page's own diagnostics first, then each object's from what is left: one budget
    /// for the whole answer, as for any other.
    fn cap_diagnostics(&mut self, work: &crate::HostWork) {
        use crate::answer_caps::{cap_diagnostics, diagnostic_bytes};
        let (mut most, mut bytes) = (work.diagnostics_per_call, work.diagnostic_bytes_per_call);
        let mut spend = |list: &mut Vec<wit::Diagnostic>| {
            if list.is_empty() {
                return;
            }
            cap_diagnostics(list, most, bytes);
            most = most.saturating_sub(list.len());
            bytes = bytes.saturating_sub(list.iter().map(diagnostic_bytes).sum());
        };
        spend(&mut self.diagnostics);
        for listed in &mut self.objects {
            spend(&mut listed.diagnostics);
        }
    }
}
impl ReturnedValues for resource::UpgradeResponse {
    fn largest_value(&self) -> usize {
        self.upgraded_state.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::ReadResponse {
    fn largest_value(&self) -> usize {
        largest(&[&self.new_state, &self.private, ident(&self.new_identity)])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::PlanResponse {
    fn cap_lists(&mut self) {
        if let Some(error) = crate::answer_caps::check_requires_replace(&mut self.requires_replace)
        {
            self.diagnostics.push(error);
        }
    }
    fn largest_value(&self) -> usize {
        largest(&[
            &self.planned_state,
            &self.planned_private,
            ident(&self.planned_identity),
        ])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::ApplyResponse {
    fn largest_value(&self) -> usize {
        largest(&[&self.new_state, &self.private, ident(&self.new_identity)])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::ImportResponse {
    fn cap_lists(&mut self) {
        if let Some(error) = crate::answer_caps::check_imported(self.imported.len()) {
            self.imported.clear();
            self.diagnostics.push(error);
        }
    }
    fn largest_value(&self) -> usize {
        self.imported
            .iter()
            .map(|r| largest(&[&r.state, &r.private, ident(&r.identity)]))
            .max()
            .unwrap_or(0)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::MoveResponse {
    fn largest_value(&self) -> usize {
        largest(&[
            &self.target_state,
            &self.target_private,
            ident(&self.target_identity),
        ])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::config_generation::GenerateResponse {
    fn largest_value(&self) -> usize {
        self.config.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for resource::UpgradeIdentityResponse {
    fn largest_value(&self) -> usize {
        self.upgraded_identity.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for ephemeral::OpenResponse {
    fn largest_value(&self) -> usize {
        self.result.len().max(self.private.len())
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for ephemeral::RenewResponse {
    fn largest_value(&self) -> usize {
        self.private.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for data_source::ReadDataResponse {
    fn largest_value(&self) -> usize {
        self.state.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
/// A function has no diagnostics: a host problem (a denied request) joins the error text,
/// where the user sees it; a successful result stands.
impl ReturnedValues for Result<Vec<u8>, function::FunctionError> {
    fn largest_value(&self) -> usize {
        self.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        None
    }
    fn cap_diagnostics(&mut self, work: &crate::HostWork) {
        if let Err(error) = self {
            crate::answer_caps::truncate(&mut error.text, work.diagnostic_bytes_per_call);
        }
    }
    fn add_diagnostic(&mut self, diagnostic: wit::Diagnostic) {
        if let Err(error) = self {
            error.text = format!(
                "{} ({}: {})",
                error.text, diagnostic.summary, diagnostic.detail
            );
        }
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
