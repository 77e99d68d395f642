//! Outgoing HTTP for guests (`wasi:http`), only to the operator's allow-list.
//!
//! Every request, and so every redirect hop (wasi:http never follows redirects itself), passes
//! [`HttpGate::send_request`]: scheme, host and port must match an allow-list entry; timeouts
//! are clamped to the call's deadline; bodies are cut at [`MAX_REQUEST_BODY`] and
//! [`MAX_RESPONSE_BODY`]. A
//! denied request fails in the guest with `HttpRequestDenied`, and the call's diagnostics say
//! which entry the operator would add.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

use crate::grants::HttpAllowList;

/// Largest response body a guest may read: 8 MiB.
pub const MAX_RESPONSE_BODY: u64 = 8 << 20;
/// Largest request body a guest may send: 8 MiB.
pub const MAX_REQUEST_BODY: u64 = 8 << 20;
/// Most requests one call may send (redirect loops end here).
pub const MAX_REQUESTS_PER_CALL: u32 = 64;

/// Requests the gate refused during one call, as the allow-list entries that would allow them.
pub(crate) type Denials = Arc<Mutex<Vec<String>>>;

/// The per-store hook that enforces the allow-list.
pub(crate) struct HttpGate {
    pub(crate) allow: Arc<HttpAllowList>,
    pub(crate) denials: Denials,
    pub(crate) timeout: Duration,
    pub(crate) requests: u32,
}

type Sent = Result<
    (
        http::Response<WasiBody>,
        Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ),
    HttpError,
>;

impl WasiHttpHooks for HttpGate {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<dyn Future<Output = Sent> + Send> {
        drop(fut);
        let uri = request.uri();
        let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
        let host = uri.host().unwrap_or_default().to_ascii_lowercase();
        let port = uri
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        self.requests += 1;
        if self.requests > MAX_REQUESTS_PER_CALL {
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        if !self.allow.allows(&scheme, &host, port) {
            let entry = format!("{scheme}://{host}:{port}");
            tracing::warn!(url = %uri, "outgoing request denied; allow it with {entry}");
            if let Ok(mut denials) = self.denials.lock() {
                denials.push(entry);
            }
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        let clamp = |t: Option<Duration>| Some(t.map_or(self.timeout, |t| t.min(self.timeout)));
        let options = RequestOptions {
            connect_timeout: clamp(options.and_then(|o| o.connect_timeout)),
            first_byte_timeout: clamp(options.and_then(|o| o.first_byte_timeout)),
            between_bytes_timeout: clamp(options.and_then(|o| o.between_bytes_timeout)),
        };
        let request = request.map(|body| {
            WasiBody::new(Capped::new(
                body,
                MAX_REQUEST_BODY,
                HttpError::HttpRequestBodySize,
            ))
        });
        Box::new(async move {
            let (response, io) =
                wasmtime_wasi_http::default_send_request(request, Some(options)).await?;
            let response = response.map(|body| {
                WasiBody::new(Capped::new(
                    body,
                    MAX_RESPONSE_BODY,
                    HttpError::HttpResponseBodySize,
                ))
            });
            Ok((
                response,
                Box::new(io) as Box<dyn Future<Output = Result<(), HttpError>> + Send>,
            ))
        })
    }
}

/// A body that fails once it passes `limit` bytes.
struct Capped<B> {
    inner: B,
    seen: u64,
    limit: u64,
    error: fn(Option<u64>) -> HttpError,
}

impl<B> Capped<B> {
    fn new(inner: B, limit: u64, error: fn(Option<u64>) -> HttpError) -> Capped<B> {
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
