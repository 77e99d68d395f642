//! The provider's outgoing HTTP client: one pool of keep-alive connections per provider
//! process, shared by every call and instance, so a provider making a thousand requests to
//! one API pays a handful of TCP and TLS handshakes, as a native provider does.

use std::time::Duration;

use http::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use wasmtime_wasi_http::{Error as HttpError, WasiBody};

use super::body::{Capped, Paced};
use super::connector::{ConnectError, Connector};
use super::trust::Trust;
use super::{HttpSettings, HttpSettingsError, MAX_RESPONSE_BODY, Problem, Problems};

/// Idle connections kept per scheme/host/port.
const MAX_IDLE_PER_HOST: usize = 32;
/// An idle connection is closed after this long (servers often close at 60–120 s).
const IDLE_TIMEOUT: Duration = Duration::from_secs(50);

pub(crate) type RequestBody = Capped<WasiBody>;

/// The deadlines of one request, already clamped to the call's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub(crate) connect: Duration,
    pub(crate) first_byte: Duration,
    pub(crate) between_bytes: Duration,
}

/// The pool and how it connects.
pub(crate) struct Outbound {
    client: Client<Connector, RequestBody>,
    connector: Connector,
}

impl Outbound {
    /// Reads the operator's CA files and proxy settings; no connection is opened yet.
    pub(crate) fn new(settings: &HttpSettings) -> Result<Outbound, HttpSettingsError> {
        let trust = Trust::load(&settings.ca_files)?;
        let connector = Connector::new(settings.proxy_matcher()?, trust);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(IDLE_TIMEOUT)
            .pool_max_idle_per_host(MAX_IDLE_PER_HOST)
            .pool_timer(TokioTimer::new())
            .build(connector.clone());
        Ok(Outbound { client, connector })
    }

    /// Sends one request the gate allowed. Failures the operator can fix are recorded in
    /// `problems` (the call's diagnostics name them); the guest gets wasi:http's error code.
    pub(crate) async fn send(
        &self,
        mut request: Request<RequestBody>,
        timeouts: Timeouts,
        problems: &Problems,
        call_ended: tokio::sync::watch::Receiver<()>,
    ) -> Result<Response<WasiBody>, HttpError> {
        if request.uri().scheme() == Some(&http::uri::Scheme::HTTP)
            && let Some(proxy) = self.connector.proxy_for(request.uri())
            && let Some(auth) = proxy.basic_auth()
        {
            // Plain HTTP through a proxy: the credentials travel with each request (HTTPS
            // sends them once, in the CONNECT that opens the tunnel).
            request
                .headers_mut()
                .insert(http::header::PROXY_AUTHORIZATION, auth.clone());
        }
        let sent = tokio::time::timeout(
            timeouts.connect + timeouts.first_byte,
            self.client.request(request),
        )
        .await;
        let response = match sent {
            Err(_elapsed) => return Err(HttpError::HttpResponseTimeout),
            Ok(Err(error)) => return Err(classify(&error, problems)),
            Ok(Ok(response)) => response,
        };
        Ok(response.map(|body| {
            WasiBody::new(Capped::new(
                Paced::new(body, timeouts.between_bytes, call_ended),
                MAX_RESPONSE_BODY,
                HttpError::HttpResponseBodySize,
            ))
        }))
    }
}

/// The guest's error code for a failed request, recording what the operator should know.
fn classify(error: &hyper_util::client::legacy::Error, problems: &Problems) -> HttpError {
    let record = |problem: Problem| {
        if let Ok(mut list) = problems.lock() {
            list.push(problem);
        }
    };
    let connect = chain(error).find_map(|e| e.downcast_ref::<ConnectError>());
    match connect {
        Some(e @ ConnectError::Tls { host, source }) if e.is_untrusted_certificate() => {
            record(Problem::Untrusted {
                host: host.clone(),
                reason: source.to_string(),
            });
            HttpError::TlsCertificateError
        }
        Some(ConnectError::Tls { .. } | ConnectError::ServerName { .. }) => {
            HttpError::TlsProtocolError
        }
        Some(e @ (ConnectError::Proxy { .. } | ConnectError::ProxyScheme { .. })) => {
            let text = message(e);
            record(Problem::Proxy {
                message: text.clone(),
            });
            HttpError::InternalError(Some(text))
        }
        Some(e @ ConnectError::Tcp { .. }) => {
            let io = chain(e).find_map(|e| e.downcast_ref::<std::io::Error>());
            match io.map(std::io::Error::kind) {
                Some(std::io::ErrorKind::ConnectionRefused) => HttpError::ConnectionRefused,
                Some(std::io::ErrorKind::TimedOut) => HttpError::ConnectionTimeout,
                _ => HttpError::InternalError(Some(message(e))),
            }
        }
        None => HttpError::InternalError(Some(message(error))),
    }
}

/// An error and its sources.
fn chain<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |e| e.source())
}

/// An error with its sources, `a: b: c`, skipping sources already in the text.
fn message(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    for e in chain(error) {
        let part = e.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}
