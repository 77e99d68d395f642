//! The per-store hook every guest request passes: allow-list, request count, clamped
//! timeouts and body caps, before the pool sees the request.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

use super::body::Capped;
use super::outbound::{Outbound, Timeouts};
use super::{MAX_REQUEST_BODY, MAX_REQUESTS_PER_CALL, Problem, Problems};
use crate::grants::HttpAllowList;

/// The per-store hook that enforces the allow-list.
pub(crate) struct HttpGate {
    pub(crate) allow: Arc<HttpAllowList>,
    pub(crate) outbound: Arc<Outbound>,
    /// What went wrong in this call that the operator can fix.
    pub(crate) problems: Problems,
    /// The call's deadline; every request timeout is clamped to it.
    pub(crate) timeout: Duration,
    /// Requests sent in this call.
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
            if let Ok(mut problems) = self.problems.lock() {
                problems.push(Problem::Denied { entry });
            }
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        let clamp = |t: Option<Duration>| t.map_or(self.timeout, |t| t.min(self.timeout));
        let timeouts = Timeouts {
            connect: clamp(options.and_then(|o| o.connect_timeout)),
            first_byte: clamp(options.and_then(|o| o.first_byte_timeout)),
            between_bytes: clamp(options.and_then(|o| o.between_bytes_timeout)),
        };
        let request =
            request.map(|body| Capped::new(body, MAX_REQUEST_BODY, HttpError::HttpRequestBodySize));
        let outbound = self.outbound.clone();
        let problems = self.problems.clone();
        Box::new(async move {
            let response = outbound.send(request, timeouts, &problems).await?;
            // The pool drives the connection itself; there is no per-request I/O task.
            let io = async { Ok(()) };
            Ok((
                response,
                Box::new(io) as Box<dyn Future<Output = Result<(), HttpError>> + Send>,
            ))
        })
    }
}
