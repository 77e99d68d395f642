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
    /// Changes (its sender drops) when the call ends: its requests and response bodies
    /// stop then, instead of running on in a task nobody waits for.
    pub(crate) call_ended: tokio::sync::watch::Receiver<()>,
}

/// Where a request goes, as the allow-list sees it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) scheme: String,
    pub(crate) host: String,
    pub(crate) port: u16,
}

/// Why a request is refused before the allow-list is asked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unsendable {
    /// `user:password@` in the authority: the allow-list matches the host after `@`, but
    /// the whole authority would travel in `Host` and the request line, to the server and
    /// any proxy. No allowed URL needs it (credentials go in headers).
    Userinfo,
    /// A host that is neither a DNS name nor an IP literal (`*`, `*.com`): it cannot be
    /// reached, and written into the "add this grant" advice it would be a wildcard.
    NotAHost,
}

/// Whether `host` (lowercased, as `Uri::host` gives it) is a DNS name or an IP literal:
/// letters, digits, `-`, `_` and `.`, or `[...]` holding an IPv6 address.
fn plain_host(host: &str) -> bool {
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok();
    }
    !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// At most 256 bytes of a guest-chosen URL or host, for log lines.
fn short(text: &str) -> &str {
    &text[..text.floor_char_boundary(256)]
}

/// The target of `uri`, refusing what the allow-list cannot judge.
pub(crate) fn target(uri: &http::Uri) -> Result<Target, Unsendable> {
    if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
        return Err(Unsendable::Userinfo);
    }
    let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
    let host = uri.host().unwrap_or_default().to_ascii_lowercase();
    if !plain_host(&host) {
        return Err(Unsendable::NotAHost);
    }
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Ok(Target { scheme, host, port })
}

type Sent = Result<
    (
        http::Response<WasiBody>,
        Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ),
    HttpError,
>;

impl WasiHttpHooks for HttpGate {
    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        super::unsent::BODY_CHUNK
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<dyn Future<Output = Sent> + Send> {
        drop(fut);
        let uri = request.uri();
        self.requests += 1;
        if self.requests > MAX_REQUESTS_PER_CALL {
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        let Target { scheme, host, port } = match target(uri) {
            Ok(target) => target,
            Err(Unsendable::Userinfo) => {
                tracing::warn!(
                    host = short(uri.host().unwrap_or_default()),
                    "outgoing request denied: its URL holds user information (user:password@)"
                );
                if let Ok(mut problems) = self.problems.lock() {
                    problems.push(Problem::Userinfo {
                        host: uri.host().unwrap_or_default().to_owned(),
                    });
                }
                return Box::new(async { Err(HttpError::HttpRequestDenied) });
            }
            Err(Unsendable::NotAHost) => {
                let host = short(uri.host().unwrap_or_default()).to_owned();
                tracing::warn!(
                    host = %tfwasm_model::quote::escaped(&host),
                    "outgoing request denied: its host is not a host name or an IP address"
                );
                if let Ok(mut problems) = self.problems.lock() {
                    problems.push(Problem::NotAHost { host });
                }
                return Box::new(async { Err(HttpError::HttpRequestDenied) });
            }
        };
        if !self.allow.allows(&scheme, &host, port) {
            let entry = format!("{scheme}://{host}:{port}");
            tracing::warn!("{}", denied_line(&entry, uri));
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
        let call_ended = self.call_ended.clone();
        Box::new(async move {
            let mut ended = call_ended.clone();
            let response = tokio::select! {
                response = outbound.send(request, timeouts, &problems, call_ended) => response?,
                _ = ended.changed() => return Err(HttpError::InternalError(Some("the call that sent this request ended".into()))),
            };
            // The pool drives the connection itself; there is no per-request I/O task.
            let io = async { Ok(()) };
            Ok((
                response,
                Box::new(io) as Box<dyn Future<Output = Result<(), HttpError>> + Send>,
            ))
        })
    }
}

/// The log line of a denied request: where it went, not what it carried. A path holds
/// tokens as often as a query does (webhook URLs, bot tokens, presigned paths), so only its
/// length is said.
fn denied_line(entry: &str, uri: &http::Uri) -> String {
    format!(
        "outgoing request denied: {} (a path of {} bytes); allow it with {}",
        short(entry),
        uri.path().len(),
        short(entry)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eighteenth hostile pass: a denied request was logged with its path, where webhook
    /// tokens live.
    #[test]
    fn a_denied_request_is_logged_without_its_path_or_query() {
        let uri: http::Uri =
            "https://hooks.slack.com/services/T0000/B0000/SECRETTOKEN?key=SECRETKEY"
                .parse()
                .unwrap();
        let line = denied_line("https://hooks.slack.com:443", &uri);
        assert!(!line.contains("SECRET"), "{line}");
        assert!(line.contains("https://hooks.slack.com:443"), "{line}");
    }

    #[test]
    fn userinfo_is_refused_in_every_spelling() {
        for url in [
            "http://127.0.0.1:18081@127.0.0.1:18080/",
            "http://user:pw@127.0.0.1:18080/",
            "http://user@127.0.0.1:18080/x?y",
            "http://@127.0.0.1:18080/",
            "https://evil.example:443@api.example.com/",
            "http://a%40b@127.0.0.1:18080/",
            "http://:@127.0.0.1/",
        ] {
            let uri: http::Uri = url.parse().unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(target(&uri), Err(Unsendable::Userinfo), "{url}");
        }
        let plain: http::Uri = "HTTP://API.example.com/a@b".parse().unwrap();
        assert_eq!(
            target(&plain),
            Ok(Target {
                scheme: "http".into(),
                host: "api.example.com".into(),
                port: 80
            }),
            "an @ in the path is not userinfo"
        );
    }

    /// The twenty-sixth hostile pass: `https://*/` reached the allow-list, and the denial's
    /// advice told the operator to grant `https://*:443`, every HTTPS host.
    #[test]
    fn a_host_that_is_no_name_or_address_is_refused_before_the_allow_list() {
        for url in ["https://*/", "https://*.com/x", "http://a*b:80/"] {
            let uri: http::Uri = url.parse().unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(target(&uri), Err(Unsendable::NotAHost), "{url}");
        }
        for url in [
            "http://[::1]:8080/",
            "http://my_service:80/",
            "https://10.0.0.1/",
        ] {
            let uri: http::Uri = url.parse().unwrap();
            assert!(target(&uri).is_ok(), "{url}");
        }
    }
}
