//! The state a guest reports during a call (the WIT `progress` import), before it answers:
//! kept for the caller, and during an apply written to the crash journal, so an object the
//! guest created is not lost if the call then fails or the process dies.

use std::sync::Arc;

/// The state a guest reported during a call, shared between the store and the caller, and
/// during an apply the journal entry it is written to.
#[derive(Clone, Default)]
pub(crate) struct Reported(Arc<std::sync::Mutex<ReportSlot>>);

#[derive(Default)]
struct ReportSlot {
    latest: Option<Vec<u8>>,
    journal: Option<crate::journal::Pending>,
    /// Journal writes and bytes this call may still make (each report is a synced write).
    writes_left: u32,
    bytes_left: usize,
    /// Reports kept in memory only, past those limits.
    unjournaled: u32,
}

impl Reported {
    pub(crate) fn new(
        journal: Option<crate::journal::Pending>,
        work: &crate::HostWork,
    ) -> Reported {
        Reported(Arc::new(std::sync::Mutex::new(ReportSlot {
            latest: None,
            journal,
            writes_left: work.state_reports_per_call,
            bytes_left: work.state_report_bytes_per_call,
            unjournaled: 0,
        })))
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, ReportSlot> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The guest reported `state` (msgpack).
    pub(crate) fn report(&self, state: Vec<u8>) {
        let mut slot = self.slot();
        let slot = &mut *slot;
        if let Some(journal) = &mut slot.journal {
            if slot.writes_left > 0 && state.len() <= slot.bytes_left {
                // Charged what it sent or what it wrote, whichever is more, written or not.
                let written = journal.record(&state, slot.bytes_left);
                let charge = written.unwrap_or(0).max(state.len());
                slot.bytes_left -= charge.min(slot.bytes_left);
                match written {
                    Some(_) => slot.writes_left -= 1,
                    None => slot.unjournaled += 1,
                }
            } else {
                slot.unjournaled += 1;
            }
        }
        slot.latest = Some(state);
    }

    /// Reports past the journal limits (kept in memory, answered with the call).
    pub(crate) fn unjournaled(&self) -> u32 {
        self.slot().unjournaled
    }

    pub(crate) fn take(&self) -> Option<Vec<u8>> {
        self.slot().latest.take()
    }

    pub(crate) fn finish(&self) {
        if let Some(journal) = self.slot().journal.take() {
            journal.finish();
        }
    }
}
