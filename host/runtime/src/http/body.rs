//! Response and request bodies under the gate's limits: a size cap, and for responses a
//! deadline between chunks (wasi:http's `between-bytes-timeout`).

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use wasmtime_wasi_http::Error as HttpError;

/// A body that fails once it passes `limit` bytes.
pub(crate) struct Capped<B> {
    inner: B,
    seen: u64,
    limit: u64,
    error: fn(Option<u64>) -> HttpError,
}

impl<B> Capped<B> {
    pub(crate) fn new(inner: B, limit: u64, error: fn(Option<u64>) -> HttpError) -> Capped<B> {
        Capped {
            inner,
            seen: 0,
            limit,
            error,
        }
    }
}

impl<B: Body<Data = Bytes, Error = HttpError> + Unpin> Body for Capped<B> {
    type Data = Bytes;
    type Error = HttpError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, HttpError>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.seen += data.len() as u64;
            if self.seen > self.limit {
                return Poll::Ready(Some(Err((self.error)(Some(self.seen)))));
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that fails when no chunk arrives for `gap` or once the call that asked
/// for it has ended, and maps hyper's errors to wasi:http's.
pub(crate) struct Paced {
    inner: hyper::body::Incoming,
    gap: Duration,
    timer: Pin<Box<tokio::time::Sleep>>,
    call_ended: Pin<Box<dyn std::future::Future<Output = ()> + Send + Sync>>,
}

impl Paced {
    pub(crate) fn new(
        inner: hyper::body::Incoming,
        gap: Duration,
        mut call_ended: tokio::sync::watch::Receiver<()>,
    ) -> Paced {
        Paced {
            inner,
            gap,
            timer: Box::pin(tokio::time::sleep(gap)),
            call_ended: Box::pin(async move {
                let _ = call_ended.changed().await;
            }),
        }
    }
}

impl Body for Paced {
    type Data = Bytes;
    type Error = HttpError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, HttpError>>> {
        if self.call_ended.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(HttpError::InternalError(Some(
                "the call that sent this request ended".into(),
            )))));
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let next = tokio::time::Instant::now() + self.gap;
                self.timer.as_mut().reset(next);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(if e.is_timeout() {
                HttpError::HttpResponseTimeout
            } else {
                HttpError::Hyper(e)
            }))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(HttpError::ConnectionReadTimeout))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
