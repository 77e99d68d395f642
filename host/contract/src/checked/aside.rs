//! Work on large values taken off a call's critical path. The checks of a plan need the
//! request's prior state and configuration decoded, and the provider needs the same request
//! to answer: decoding them on a helper thread while the provider works overlaps the two
//! (the checks used to decode first, then call). Freeing a large decoded tree after the
//! checks is also done there, so the answer leaves without waiting for it. The work is the
//! same; a 10,000-element plan's latency is not (docs/performance.md).
//!
//! Bounded: values under [`ASIDE_BYTES`] are handled inline (a thread costs more than
//! decoding them), and at most [`MAX_HELPERS`] helper threads run at once, past which the
//! work is done inline as before. Helpers do no IO and hold nothing after their job.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use tfwasm_model::SchemaIndex;
use tfwasm_model::rpc::DynamicValue;

/// Encoded size from which a value's decoding (or freeing) goes to a helper thread: about a
/// thousand small objects, a millisecond of work against a thread start's tens of µs.
pub(super) const ASIDE_BYTES: usize = 64 << 10;

/// Helper threads alive at most, across every call of the process.
pub(super) const MAX_HELPERS: usize = 4;

static HELPERS: AtomicUsize = AtomicUsize::new(0);

/// One helper thread's place under [`MAX_HELPERS`], given back when the helper ends.
struct Slot;

impl Slot {
    fn take() -> Option<Slot> {
        HELPERS
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_HELPERS).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        HELPERS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The encoded size of values, as [`Aside::start`] and [`free`] weigh them.
pub(super) fn bytes(values: &[&DynamicValue]) -> usize {
    values.iter().map(|v| v.msgpack.len() + v.json.len()).sum()
}

/// A free helper thread's place, for work on values of `bytes` (none under
/// [`ASIDE_BYTES`], or when [`MAX_HELPERS`] are at work): ask first, so a caller copies
/// what the helper needs only when there is one.
pub(super) fn helper(bytes: usize) -> Option<Helper> {
    if bytes < ASIDE_BYTES {
        return None;
    }
    Slot::take().map(Helper)
}

/// A helper thread's place, taken by [`helper`].
pub(super) struct Helper(Slot);

impl Helper {
    /// Runs `work` on the helper thread (here and now if no thread can be started).
    pub(super) fn start<T: Send + 'static>(
        self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Aside<T> {
        let Helper(slot) = self;
        // Shared, so the work is still done (here) when no thread can be started.
        let job = Arc::new(Mutex::new(Some(work)));
        let theirs = Arc::clone(&job);
        let spawned = std::thread::Builder::new()
            .name("tfwasm-check-aside".into())
            .spawn(move || {
                let _slot = slot;
                let work = theirs.lock().ok().and_then(|mut job| job.take());
                work.map(|work| work())
            });
        match spawned {
            Ok(handle) => Aside::Running(handle),
            Err(_) => match job.lock().ok().and_then(|mut job| job.take()) {
                Some(work) => Aside::Done(work()),
                None => unreachable!("a thread that never started took its job"),
            },
        }
    }
}

/// A result being worked out, inline (already done) or on a helper thread. Dropping a
/// running one leaves the helper to finish and free its result.
pub(super) enum Aside<T> {
    Done(T),
    Running(JoinHandle<Option<T>>),
}

impl<T: Send + 'static> Aside<T> {
    /// Runs `work` on a helper thread when its input is `bytes` ≥ [`ASIDE_BYTES`] and a
    /// helper is free; otherwise here and now.
    pub(super) fn start(bytes: usize, work: impl FnOnce() -> T + Send + 'static) -> Aside<T> {
        match helper(bytes) {
            Some(helper) => helper.start(work),
            None => Aside::Done(work()),
        }
    }

    /// The result, waiting for the helper if it is still at work. A helper's panic is
    /// resumed here, as if the work had run inline. `None` only if the helper found no job,
    /// which only a helper that never started (whose job then ran inline) could.
    pub(super) fn join(self) -> Option<T> {
        match self {
            Aside::Done(done) => Some(done),
            Aside::Running(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        }
    }
}

/// `decode` of a request's `values` for the resource `type_name`, on a helper thread when
/// they are large and one is free (given copies of them), else here from `values` themselves.
pub(super) fn decode<T: Send + 'static, const N: usize>(
    index: &Arc<SchemaIndex>,
    type_name: &str,
    values: [&DynamicValue; N],
    decode: fn(&SchemaIndex, &str, [&DynamicValue; N]) -> T,
) -> Aside<T> {
    let Some(helper) = helper(bytes(&values)) else {
        return Aside::Done(decode(index, type_name, values));
    };
    let (index, name) = (Arc::clone(index), type_name.to_owned());
    let owned: [DynamicValue; N] = values.map(DynamicValue::clone);
    helper.start(move || decode(&index, &name, owned.each_ref()))
}

/// Frees `value` (decoded from `bytes` of encoded values) on a helper thread when it is
/// large and a helper is free, else here.
pub(super) fn free<T: Send + 'static>(bytes: usize, value: T) {
    drop(Aside::start(bytes, move || drop(value)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper_name() -> Option<String> {
        std::thread::current().name().map(str::to_owned)
    }

    #[test]
    fn small_work_runs_inline_and_large_work_aside() {
        let here = helper_name();
        assert_eq!(Aside::start(10, helper_name).join().flatten(), here);
        let aside = Aside::start(ASIDE_BYTES, helper_name).join().flatten();
        // Another test may hold every helper at this moment: then it ran inline.
        assert!(
            aside.as_deref() == Some("tfwasm-check-aside") || aside == here,
            "{aside:?}"
        );
    }

    #[test]
    fn helpers_never_exceed_their_bound() {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(Mutex::new(wait));
        let started: Vec<_> = (0..MAX_HELPERS * 3)
            .map(|_| {
                let wait = Arc::clone(&wait);
                Aside::start(ASIDE_BYTES, move || {
                    if helper_name().as_deref() == Some("tfwasm-check-aside") {
                        let _ = wait.lock().map(|w| w.recv());
                    }
                })
            })
            .collect();
        let inline = started
            .iter()
            .filter(|a| matches!(a, Aside::Done(_)))
            .count();
        // Past the bound, the work ran inline rather than waiting or starting more threads.
        assert!(inline >= MAX_HELPERS * 2, "{inline} of {}", started.len());
        for _ in 0..MAX_HELPERS {
            let _ = release.send(());
        }
        for aside in started {
            aside.join();
        }
        assert!(
            helper(ASIDE_BYTES - 1).is_none(),
            "small work never takes a helper"
        );
    }

    #[test]
    fn a_helpers_panic_reaches_the_caller() {
        // Inline too when another test holds every helper: either way the caller sees it.
        let caught = std::panic::catch_unwind(|| {
            Aside::start(ASIDE_BYTES, || -> u8 { panic!("in the helper") }).join()
        });
        assert!(caught.is_err());
    }

    #[test]
    fn freeing_aside_frees() {
        let held = Arc::new(());
        free(ASIDE_BYTES, Arc::clone(&held));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while Arc::strong_count(&held) > 1 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert_eq!(Arc::strong_count(&held), 1);
    }
}
