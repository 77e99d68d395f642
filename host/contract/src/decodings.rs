//! The checks' decodings of one call, kept for whoever records it, so that recording reads
//! each value the checks decoded from their tree instead of decoding its bytes again.
//!
//! [`keeping`] runs a call with a [`Decodings`] in scope and hands it back with the answer;
//! [`Checked`](crate::Checked) offers each value it decoded, of a resource, data source,
//! ephemeral resource or identity, that stays in the answer to the scope with `keep`, and
//! frees it as before when there is none (every call that is not recorded). The scope lives
//! in a thread-local only while the call's future is polled, the way a task-local does, so
//! it follows the call across threads and never reaches another call's checks.
//!
//! A decoding is found again by what the bytes are a value of, in which schema index
//! ([`Of`], and the index's own allocation), and by the msgpack bytes themselves: within one
//! index an object's type is one type, so the same bytes decode to the same tree.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{SchemaIndex, Value};

/// The most encoded bytes of values one call keeps: past it, a value is freed as if the call
/// were not recorded, and recording decodes it itself. Kept values live until the call is
/// recorded, where the checks free each after its use: an answer importing many objects
/// would otherwise have every object's tree held at once, each up to some fifty times its
/// bytes (a list of nulls). Within the bound, what is kept is no more than the checks hold
/// for one value of that size.
pub const MAX_KEPT_BYTES: usize = 1 << 20;

/// Which kind of object a kept tree is of (its [`Of`]'s variant).
type Kind = std::mem::Discriminant<Of<'static>>;

/// What a kept tree is of: its kind of object, and the object's name.
type Key = (Kind, String);

/// What a value is a value of: the schema object whose type it was decoded with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of<'a> {
    /// An object (state, plan, configuration) of the resource type named.
    Resource(&'a str),
    /// An object of the data source named.
    DataSource(&'a str),
    /// An opened ephemeral resource of the type named.
    EphemeralResource(&'a str),
    /// An identity of the resource type named.
    Identity(&'a str),
}

impl<'a> Of<'a> {
    /// Which kind of object, and its name: how a kept tree remembers what it is of.
    fn parts(self) -> (Kind, &'a str) {
        let (kind, name) = match self {
            Of::Resource(name) => (Of::Resource(""), name),
            Of::DataSource(name) => (Of::DataSource(""), name),
            Of::EphemeralResource(name) => (Of::EphemeralResource(""), name),
            Of::Identity(name) => (Of::Identity(""), name),
        };
        (std::mem::discriminant(&kind), name)
    }

    fn is(self, (kind, name): &Key) -> bool {
        self.parts() == (*kind, name.as_str())
    }
}

/// The values the checks of one call decoded, with the index their types came from.
#[derive(Debug, Default)]
pub struct Decodings {
    index: Option<Arc<SchemaIndex>>,
    /// By their bytes (hashed with a per-process key, so a guest cannot choose collisions),
    /// then by what they are of: the same bytes are rarely a value of more than one object.
    kept: HashMap<Vec<u8>, Vec<(Key, Value)>>,
    bytes: usize,
}

impl Decodings {
    /// The tree the checks decoded from `msgpack` as a value of `of` in `index`, if they did.
    pub fn get(&self, index: &Arc<SchemaIndex>, of: Of<'_>, msgpack: &[u8]) -> Option<&Value> {
        let ours = self.index.as_ref()?;
        if !Arc::ptr_eq(ours, index) {
            return None;
        }
        (self.kept.get(msgpack)?.iter())
            .find(|(kept, _)| of.is(kept))
            .map(|(_, value)| value)
    }

    /// How many decodings are kept.
    pub fn len(&self) -> usize {
        self.kept.values().map(Vec::len).sum()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Whether `len` more encoded bytes would still be kept.
    fn fits(&self, len: usize) -> bool {
        self.bytes + len <= MAX_KEPT_BYTES
    }

    /// Keeps `value`, decoded from `msgpack` as a value of `of` in `index`, or gives it back
    /// when it cannot be found again (no msgpack bytes: a JSON-encoded value; of another
    /// index; the same bytes kept already) or is past [`MAX_KEPT_BYTES`].
    pub fn keep(
        &mut self,
        index: &Arc<SchemaIndex>,
        of: Of<'_>,
        msgpack: &[u8],
        value: Value,
    ) -> Option<Value> {
        let same_index = (self.index.as_ref()).is_none_or(|ours| Arc::ptr_eq(ours, index));
        if msgpack.is_empty() || !same_index || !self.fits(msgpack.len()) {
            return Some(value);
        }
        let entries = self.kept.entry(msgpack.to_vec()).or_default();
        if entries.iter().any(|(kept, _)| of.is(kept)) {
            return Some(value);
        }
        let (kind, name) = of.parts();
        entries.push(((kind, name.to_owned()), value));
        self.index.get_or_insert_with(|| Arc::clone(index));
        self.bytes += msgpack.len();
        None
    }
}

thread_local! {
    /// The decodings of the call being polled on this thread, if it is kept.
    static SCOPE: RefCell<Option<Decodings>> = const { RefCell::new(None) };
}

/// Whether the call being polled keeps its decodings and has room for a value of `len`
/// encoded bytes: a caller that would copy a value only to keep its tree asks first.
pub(crate) fn would_keep(len: usize) -> bool {
    SCOPE.with(|scope| scope.borrow().as_ref().is_some_and(|d| d.fits(len)))
}

/// Offers `value`, decoded from `encoded` as a value of `of` in `index`, to the call's
/// decodings; gives it back when the call keeps none (it is not recorded) or cannot keep it,
/// for the caller to free as it would have.
pub(crate) fn keep(
    index: &Arc<SchemaIndex>,
    of: Of<'_>,
    encoded: &DynamicValue,
    value: Value,
) -> Option<Value> {
    SCOPE.with(|scope| match scope.borrow_mut().as_mut() {
        Some(decodings) => decodings.keep(index, of, &encoded.msgpack, value),
        None => Some(value),
    })
}

/// Runs `call` with a [`Decodings`] in scope, and gives it back with the call's answer.
pub async fn keeping<F: Future>(call: F) -> (F::Output, Decodings) {
    let mut call = pin!(call);
    let mut decodings = Some(Decodings::default());
    let output = std::future::poll_fn(|cx| {
        let _scope = Entered::enter(&mut decodings);
        call.as_mut().poll(cx)
    })
    .await;
    (output, decodings.unwrap_or_default())
}

/// A call's decodings moved into the thread's scope while its future is polled; moved back
/// out when the poll ends, a panic included, and whatever scope was there before restored.
struct Entered<'a> {
    home: &'a mut Option<Decodings>,
    before: Option<Decodings>,
}

impl<'a> Entered<'a> {
    fn enter(home: &'a mut Option<Decodings>) -> Entered<'a> {
        let before = SCOPE.with(|scope| scope.replace(home.take()));
        Entered { home, before }
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let before = self.before.take();
        *self.home = SCOPE.with(|scope| scope.replace(before));
    }
}

#[cfg(test)]
mod tests {
    use std::task::Poll;

    use super::*;

    fn index() -> Arc<SchemaIndex> {
        Arc::new(SchemaIndex::default())
    }

    fn encoded(byte: u8) -> DynamicValue {
        DynamicValue::from_msgpack(vec![0xa1, byte])
    }

    fn text(s: &str) -> Value {
        Value::String(s.into())
    }

    /// A future that is pending once, so its rest runs in a later poll.
    fn yield_once() -> impl Future<Output = ()> {
        let mut yielded = false;
        std::future::poll_fn(move |cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }

    #[tokio::test]
    async fn a_value_kept_in_the_call_is_found_by_its_object_and_bytes() {
        let index = index();
        let (given_back, kept) = keeping(async {
            assert!(would_keep(1));
            assert!(!would_keep(MAX_KEPT_BYTES + 1));
            yield_once().await;
            keep(&index, Of::Resource("r"), &encoded(b'a'), text("a"))
        })
        .await;
        assert_eq!(given_back, None, "kept, not given back");
        assert_eq!(kept.len(), 1);
        let found = kept.get(&index, Of::Resource("r"), &encoded(b'a').msgpack);
        assert_eq!(found, Some(&text("a")));
        // Other bytes, another object, another kind of object, another index: not found.
        assert_eq!(
            kept.get(&index, Of::Resource("r"), &encoded(b'b').msgpack),
            None
        );
        assert_eq!(
            kept.get(&index, Of::Resource("s"), &encoded(b'a').msgpack),
            None
        );
        assert_eq!(
            kept.get(&index, Of::DataSource("r"), &encoded(b'a').msgpack),
            None
        );
        let other = self::index();
        assert_eq!(
            kept.get(&other, Of::Resource("r"), &encoded(b'a').msgpack),
            None
        );
    }

    #[tokio::test]
    async fn outside_a_kept_call_every_value_is_given_back() {
        let index = index();
        assert!(!would_keep(0));
        let given = keep(&index, Of::Resource("r"), &encoded(b'a'), text("a"));
        assert_eq!(given, Some(text("a")));
        // Nor does a kept call's scope outlive it.
        let _ = keeping(async {}).await;
        assert!(!would_keep(0));
    }

    #[tokio::test]
    async fn calls_polled_in_turn_on_one_thread_keep_only_their_own() {
        let index = index();
        let one = keeping(async {
            yield_once().await;
            keep(&index, Of::Resource("one"), &encoded(1), text("one"))
        });
        let two = keeping(async {
            keep(&index, Of::Resource("two"), &encoded(2), text("two"));
            yield_once().await;
            // A kept call inside a kept call keeps its own, and the outer scope comes back.
            let (_, inner) =
                keeping(async { keep(&index, Of::Resource("inner"), &encoded(3), text("3")) })
                    .await;
            assert_eq!(inner.len(), 1);
            keep(&index, Of::Resource("two"), &encoded(4), text("four"));
        });
        let ((_, one), (_, two)) = tokio::join!(one, two);
        assert_eq!(one.len(), 1);
        assert!(one.get(&index, Of::Resource("one"), &[0xa1, 1]).is_some());
        assert_eq!(two.len(), 2, "{two:?}");
        assert!(two.get(&index, Of::Resource("two"), &[0xa1, 2]).is_some());
        assert!(two.get(&index, Of::Resource("two"), &[0xa1, 4]).is_some());
        assert!(two.get(&index, Of::Resource("inner"), &[0xa1, 3]).is_none());
    }

    #[test]
    fn a_kept_call_that_panics_leaves_no_scope_behind() {
        let mut call = Box::pin(keeping(async {
            if true {
                panic!("in the call");
            }
        }));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.as_mut().poll(&mut cx)));
        assert!(polled.is_err());
        assert!(!would_keep(0));
    }

    #[test]
    fn past_the_bound_what_cannot_be_found_again_is_given_back() {
        let index = index();
        let mut kept = Decodings::default();
        let big = DynamicValue::from_msgpack(vec![0xc0; MAX_KEPT_BYTES]);
        assert_eq!(
            kept.keep(&index, Of::Resource("r"), &big.msgpack, Value::Null),
            None
        );
        // The bound is reached: the next value, however small, is given back.
        let given = kept.keep(&index, Of::Resource("r"), &encoded(b'a').msgpack, text("a"));
        assert_eq!(given, Some(text("a")));
        let mut kept = Decodings::default();
        // JSON-encoded: recording finds values by their msgpack bytes only.
        let json = DynamicValue {
            msgpack: Vec::new(),
            json: b"\"a\"".to_vec(),
        };
        assert!(
            kept.keep(&index, Of::Resource("r"), &json.msgpack, text("a"))
                .is_some()
        );
        assert_eq!(
            kept.keep(&index, Of::Resource("r"), &encoded(b'a').msgpack, text("a")),
            None
        );
        // The same bytes again (a plan that is its prior state): kept once.
        assert!(
            kept.keep(&index, Of::Resource("r"), &encoded(b'a').msgpack, text("a"))
                .is_some()
        );
        // Another index's value: its types are not these.
        let other = self::index();
        assert!(
            kept.keep(&other, Of::Resource("r"), &encoded(b'b').msgpack, text("b"))
                .is_some()
        );
        assert_eq!(kept.len(), 1);
    }
}
