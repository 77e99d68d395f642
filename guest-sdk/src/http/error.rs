//! What went wrong with a request, naming the method and URL, ready to become a diagnostic.

use super::Method;
use crate::Diagnostic;

/// Most body bytes an error quotes.
const EXCERPT: usize = 512;

/// The summary of a request the host refused, the same as the host's own diagnostic for it:
/// tfwasm keeps the host's, which names the setting to change, in place of the guest's.
pub const DENIED_SUMMARY: &str = tfwasm_model::HTTP_DENIED_SUMMARY;

/// A failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError {
    method: Method,
    url: String,
    kind: ErrorKind,
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The URL is not an absolute http(s) URL.
    InvalidUrl(String),
    /// The request body could not be serialized.
    Encode(String),
    /// No response: the connection failed or broke (retried for idempotent requests).
    Transport(String),
    /// No response, and trying again will not help: the server's certificate is not
    /// trusted, or TLS failed.
    Refused(String),
    /// The host refused to send the request: its allow-list does not include the
    /// destination, or the call sent too many. Not retried. Its diagnostic carries the
    /// host's summary, [`DENIED_SUMMARY`], so the host's own (which names the grant to add)
    /// takes its place and the user reads one error.
    Denied,
    /// Redirects went on for too long.
    TooManyRedirects,
    /// The deadline passed before the response arrived.
    Timeout,
    /// The server answered 4xx/5xx (from [`super::Response::error_for_status`]).
    Status {
        /// The status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The response body is not what was expected.
    Decode {
        /// The status code.
        status: u16,
        /// The parser's message.
        message: String,
    },
}

impl HttpError {
    pub(crate) fn new(method: Method, url: impl Into<String>, kind: ErrorKind) -> HttpError {
        HttpError {
            method,
            url: url.into(),
            kind,
        }
    }

    /// The request's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The request's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Why it failed.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The response status, when there was a response.
    pub fn status(&self) -> Option<u16> {
        match &self.kind {
            ErrorKind::Status { status, .. } | ErrorKind::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// An error diagnostic whose summary says how far the request got ("HTTP request not
    /// sent", "No HTTP response", "HTTP request failed" for an answer that is an error, or
    /// [`DENIED_SUMMARY`]), with a detail naming method, URL and why.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let summary = match self.kind {
            ErrorKind::Denied => DENIED_SUMMARY,
            ErrorKind::InvalidUrl(_) | ErrorKind::Encode(_) | ErrorKind::Refused(_) => {
                "HTTP request not sent"
            }
            ErrorKind::Transport(_) | ErrorKind::Timeout | ErrorKind::TooManyRedirects => {
                "No HTTP response"
            }
            ErrorKind::Status { .. } | ErrorKind::Decode { .. } => "HTTP request failed",
        };
        Diagnostic::error(summary, self.to_string())
    }
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let HttpError { method, url, kind } = self;
        match kind {
            ErrorKind::InvalidUrl(why) => write!(f, "{method} {url}: invalid URL: {why}"),
            ErrorKind::Encode(why) => write!(f, "{method} {url}: cannot encode the body: {why}"),
            ErrorKind::Transport(why) | ErrorKind::Refused(why) => {
                write!(f, "{method} {url} failed: {why}")
            }
            ErrorKind::Denied => write!(
                f,
                "{method} {url}: the host refused to send it (its allow-list does not include this destination, or the call sent too many requests)"
            ),
            ErrorKind::TooManyRedirects => write!(f, "{method} {url}: too many redirects"),
            ErrorKind::Timeout => write!(f, "{method} {url} timed out"),
            ErrorKind::Status { status, body } if body.is_empty() => {
                write!(f, "{method} {url} answered HTTP {status}")
            }
            ErrorKind::Status { status, body } => {
                write!(f, "{method} {url} answered HTTP {status}: {body}")
            }
            ErrorKind::Decode { status, message } => write!(
                f,
                "{method} {url} answered HTTP {status} with a body that is not the expected JSON: {message}"
            ),
        }
    }
}

impl std::error::Error for HttpError {}

impl From<HttpError> for Diagnostic {
    fn from(error: HttpError) -> Diagnostic {
        error.to_diagnostic()
    }
}

/// The start of a body, as text, for error messages.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT)]);
    let mut text = text.trim().replace(['\r', '\n'], " ");
    if body.len() > EXCERPT {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host drops a guest error carrying the host's summary for a refused request and
    /// keeps its own, which names the grant: the two must agree word for word.
    #[test]
    fn a_denied_request_carries_the_hosts_summary() {
        let error = HttpError::new(Method::Post, "http://api.internal/items", ErrorKind::Denied);
        let diagnostic = error.to_diagnostic();
        assert_eq!(diagnostic.summary, "Outgoing HTTP request denied");
        assert_eq!(diagnostic.summary, DENIED_SUMMARY);
        assert!(diagnostic.detail.contains("POST http://api.internal/items"));
        let refused = HttpError::new(Method::Get, "https://x/", ErrorKind::Refused("tls".into()));
        assert_ne!(refused.to_diagnostic().summary, DENIED_SUMMARY);
    }
}
