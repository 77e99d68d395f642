//! What an invoked action reports while it runs (WIT 0.3.0 `action-progress`), passed to the
//! call's [`Progress`] sink as it arrives: at most [`MAX_MESSAGES`] messages a call, each cut
//! to [`MAX_MESSAGE_BYTES`], so a guest cannot flood Terraform's output through the host.

use tfwasm_model::rpc::Progress;

/// Most progress messages one invocation passes on; later ones are dropped.
pub const MAX_MESSAGES: usize = 1000;
/// Longest progress message passed on; longer ones are cut.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// One call's progress: where it goes and how much has gone.
#[derive(Debug, Default)]
pub(crate) struct ActionProgress {
    sink: Progress,
    sent: usize,
}

impl ActionProgress {
    /// Progress of an invocation, to `sink`.
    pub(crate) fn to(sink: Progress) -> ActionProgress {
        ActionProgress { sink, sent: 0 }
    }

    /// Passes `message` on, cut, while the call's allowance lasts; says once when it ends.
    pub(crate) fn report(&mut self, mut message: String) {
        if self.sent > MAX_MESSAGES {
            return;
        }
        self.sent += 1;
        if self.sent > MAX_MESSAGES {
            self.sink.report(format!(
                "(tfwasm passes on at most {MAX_MESSAGES} progress messages of one action; the rest are dropped)"
            ));
            return;
        }
        // A copy of the start, not `truncate`, which keeps the guest's whole allocation alive
        // while the message waits to be sent (a hostile guest's 16 MiB messages queued up to
        // gigabytes).
        if message.len() > MAX_MESSAGE_BYTES {
            message = message[..message.floor_char_boundary(MAX_MESSAGE_BYTES)].to_owned();
        }
        self.sink.report(message);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn messages_are_cut_and_counted() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let mut progress = ActionProgress::to(Progress::to(move |m| sink.lock().unwrap().push(m)));
        progress.report("é".repeat(MAX_MESSAGE_BYTES));
        // The twenty-ninth pass: what is passed on holds no more than the cut.
        let held = Arc::new(Mutex::new(0usize));
        let capacity = held.clone();
        let mut big = ActionProgress::to(Progress::to(move |m: String| {
            *capacity.lock().unwrap() = m.capacity();
        }));
        big.report("a".repeat(4 << 20));
        assert!(*held.lock().unwrap() <= MAX_MESSAGE_BYTES);
        for _ in 0..MAX_MESSAGES + 10 {
            progress.report("tick".into());
        }
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), MAX_MESSAGES + 1, "the allowance and one note");
        assert!(seen[0].len() <= MAX_MESSAGE_BYTES && seen[0].starts_with('é'));
        assert!(seen.last().unwrap().contains("at most"));
    }
}
