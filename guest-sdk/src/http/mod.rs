//! An HTTP client for providers: methods, headers, query parameters, JSON bodies through
//! serde, timeouts, and retries with backoff for idempotent requests that failed in transit or
//! got 429/5xx (honouring `Retry-After`). Errors name the method, URL and status, and turn
//! into diagnostics with [`HttpError::to_diagnostic`].
//!
//! In a component, requests go through `wasi:http`, so the host's allow-list, pooled
//! connections, trusted CAs and proxies apply; compiled natively (unit tests, benchmark
//! baselines), the same code runs over a native client.
//!
//! ```text
//! let api = Client::new("https://api.example.com")?.bearer_auth(&token);
//! let item: Item = api.get("/items/42").send()?.error_for_status()?.json()?;
//! let created: Item = api.post("/items").json(&new_item)?.send()?.error_for_status()?.json()?;
//! ```

mod error;
#[cfg(not(target_arch = "wasm32"))]
mod native;
mod retry;
#[cfg(target_arch = "wasm32")]
mod wasi;

use std::time::Duration;

pub use error::{DENIED_SUMMARY, ErrorKind, HttpError};
pub use retry::Retry;

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// GET
    Get,
    /// HEAD
    Head,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
    /// OPTIONS
    Options,
}

impl Method {
    /// The method's name, e.g. `GET`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
        }
    }

    /// Parses a method name (any case), e.g. from a provider's configuration.
    pub fn parse(name: &str) -> Option<Method> {
        Some(match name.to_ascii_uppercase().as_str() {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            "OPTIONS" => Method::Options,
            _ => return None,
        })
    }

    /// Whether repeating the request is harmless (RFC 9110 §9.2.2), so it may be retried.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, Method::Post | Method::Patch)
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Default deadline of a request (the host also clamps it to the call's deadline).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A client for one API: a base URL, headers sent with every request, a timeout and a retry
/// policy. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    base: Option<url::Url>,
    headers: Vec<(String, String)>,
    timeout: Duration,
    retry: Retry,
}

impl Default for Client {
    fn default() -> Client {
        Client {
            base: None,
            headers: vec![(
                "user-agent".into(),
                concat!("tfwasm-sdk/", env!("CARGO_PKG_VERSION")).into(),
            )],
            timeout: DEFAULT_TIMEOUT,
            retry: Retry::default(),
        }
    }
}

impl Client {
    /// A client whose request paths are relative to `base_url` (e.g. `https://api.example.com/v1`).
    ///
    /// # Errors
    /// When `base_url` is not an absolute `http://` or `https://` URL.
    pub fn new(base_url: &str) -> Result<Client, HttpError> {
        let base = parse_absolute(Method::Get, base_url)?;
        Ok(Client {
            base: Some(base),
            ..Client::default()
        })
    }

    /// A client without a base URL: every request names an absolute URL.
    pub fn without_base() -> Client {
        Client::default()
    }

    /// Sends `name: value` with every request (replacing an earlier value of the same name).
    pub fn header(mut self, name: &str, value: &str) -> Client {
        set_header(&mut self.headers, name, value);
        self
    }

    /// `Authorization: Bearer TOKEN` on every request.
    pub fn bearer_auth(self, token: &str) -> Client {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// `Authorization: Basic …` on every request.
    pub fn basic_auth(self, username: &str, password: &str) -> Client {
        use base64::Engine as _;
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"));
        self.header("authorization", &format!("Basic {encoded}"))
    }

    /// The deadline of each attempt.
    pub fn timeout(mut self, timeout: Duration) -> Client {
        self.timeout = timeout;
        self
    }

    /// The retry policy ([`Retry::none`] to turn retries off).
    pub fn retry(mut self, retry: Retry) -> Client {
        self.retry = retry;
        self
    }

    /// A request to `path`: relative to the base URL, or absolute.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let url = match &self.base {
            Some(base) => join(method, base, path),
            None => parse_absolute(method, path),
        };
        RequestBuilder {
            method,
            url,
            headers: self.headers.clone(),
            body: None,
            timeout: self.timeout,
            retry: self.retry.clone(),
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> RequestBuilder {
        self.request(Method::Get, path)
    }

    /// `POST path`.
    pub fn post(&self, path: &str) -> RequestBuilder {
        self.request(Method::Post, path)
    }

    /// `PUT path`.
    pub fn put(&self, path: &str) -> RequestBuilder {
        self.request(Method::Put, path)
    }

    /// `PATCH path`.
    pub fn patch(&self, path: &str) -> RequestBuilder {
        self.request(Method::Patch, path)
    }

    /// `DELETE path`.
    pub fn delete(&self, path: &str) -> RequestBuilder {
        self.request(Method::Delete, path)
    }
}

fn parse_absolute(method: Method, text: &str) -> Result<url::Url, HttpError> {
    let url = url::Url::parse(text)
        .map_err(|e| HttpError::new(method, text, ErrorKind::InvalidUrl(e.to_string())))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(HttpError::new(
            method,
            text,
            ErrorKind::InvalidUrl("expected an http:// or https:// URL with a host".into()),
        ));
    }
    Ok(url)
}

/// `base` + `path`: an absolute `path` replaces the base; otherwise the path is appended to
/// the base's path (so `https://h/v1` + `/items` is `https://h/v1/items`, unlike RFC 3986).
fn join(method: Method, base: &url::Url, path: &str) -> Result<url::Url, HttpError> {
    if path.contains("://") {
        return parse_absolute(method, path);
    }
    let mut text = base.as_str().trim_end_matches('/').to_owned();
    if !path.is_empty() && !path.starts_with('/') && !path.starts_with('?') {
        text.push('/');
    }
    text.push_str(path);
    parse_absolute(method, &text)
}

fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    let name = name.to_ascii_lowercase();
    headers.retain(|(n, _)| *n != name);
    headers.push((name, value.to_owned()));
}

/// A request being built; [`RequestBuilder::send`] sends it.
#[derive(Debug)]
#[must_use = "a request does nothing until it is sent"]
pub struct RequestBuilder {
    method: Method,
    url: Result<url::Url, HttpError>,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    timeout: Duration,
    retry: Retry,
}

impl RequestBuilder {
    /// Sets a header (replacing an earlier value of the same name).
    pub fn header(mut self, name: &str, value: &str) -> RequestBuilder {
        set_header(&mut self.headers, name, value);
        self
    }

    /// Appends a query parameter, percent-encoded.
    pub fn query(mut self, name: &str, value: &str) -> RequestBuilder {
        if let Ok(url) = &mut self.url {
            url.query_pairs_mut().append_pair(name, value);
        }
        self
    }

    /// A raw body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> RequestBuilder {
        self.body = Some(body.into());
        self
    }

    /// A JSON body (and `content-type: application/json`).
    ///
    /// # Errors
    /// When `value` cannot be serialized.
    pub fn json<T: serde::Serialize + ?Sized>(
        self,
        value: &T,
    ) -> Result<RequestBuilder, HttpError> {
        let body = serde_json::to_vec(value).map_err(|e| {
            HttpError::new(
                self.method,
                self.url_text(),
                ErrorKind::Encode(e.to_string()),
            )
        })?;
        Ok(self.header("content-type", "application/json").body(body))
    }

    /// The deadline of each attempt.
    pub fn timeout(mut self, timeout: Duration) -> RequestBuilder {
        self.timeout = timeout;
        self
    }

    /// The retry policy of this request.
    pub fn retry(mut self, retry: Retry) -> RequestBuilder {
        self.retry = retry;
        self
    }

    fn url_text(&self) -> String {
        match &self.url {
            Ok(url) => url.to_string(),
            Err(e) => e.url().to_owned(),
        }
    }

    /// Sends the request, retrying as the policy allows. Any status is a response; use
    /// [`Response::error_for_status`] to turn 4xx/5xx into an error.
    ///
    /// # Errors
    /// An invalid URL, or a transport failure (after the retries).
    pub fn send(self) -> Result<Response, HttpError> {
        let url = self.url?;
        let request = Prepared {
            method: self.method,
            url: url.to_string(),
            headers: self.headers,
            body: self.body.unwrap_or_default(),
            timeout: self.timeout,
        };
        retry::run(&self.retry, &request, transport::send)
    }
}

/// A request ready for a transport.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) method: Method,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    pub(crate) timeout: Duration,
}

#[cfg(target_arch = "wasm32")]
use wasi as transport;

#[cfg(not(target_arch = "wasm32"))]
use native as transport;

/// A response, with its whole body read.
#[derive(Debug, Clone)]
pub struct Response {
    method: Method,
    url: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    pub(crate) fn new(
        request: &Prepared,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Response {
        Response {
            method: request.method,
            url: request.url.clone(),
            status,
            headers,
            body,
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every header as received (names lowercase), in order.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The URL that was requested.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The body's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON.
    ///
    /// # Errors
    /// When the body is not JSON of type `T`; the error names the request.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T, HttpError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            HttpError::new(
                self.method,
                &self.url,
                ErrorKind::Decode {
                    status: self.status,
                    message: e.to_string(),
                },
            )
        })
    }

    /// The response when its status is 2xx (or 3xx); an error naming the status and the start
    /// of the body otherwise.
    ///
    /// # Errors
    /// A 4xx or 5xx status.
    pub fn error_for_status(self) -> Result<Response, HttpError> {
        if self.status < 400 {
            return Ok(self);
        }
        Err(HttpError::new(
            self.method,
            &self.url,
            ErrorKind::Status {
                status: self.status,
                body: error::excerpt(&self.body),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_the_base_like_an_api_client_expects() {
        let api = Client::new("https://api.example.com/v1/").unwrap();
        let url = |p: &str| api.get(p).url.unwrap().to_string();
        assert_eq!(url("/items"), "https://api.example.com/v1/items");
        assert_eq!(url("items/7"), "https://api.example.com/v1/items/7");
        assert_eq!(url("http://other.example/x"), "http://other.example/x");
        let q = api.get("/items").query("name", "a b&c").url.unwrap();
        assert_eq!(q.as_str(), "https://api.example.com/v1/items?name=a+b%26c");
    }

    #[test]
    fn bad_urls_are_errors_naming_them() {
        let err = Client::new("ftp://x").unwrap_err();
        assert!(err.to_string().contains("ftp://x"), "{err}");
        let err = Client::without_base().get("/relative").send().unwrap_err();
        assert!(err.to_string().contains("GET /relative"), "{err}");
    }

    #[test]
    fn headers_replace_case_insensitively() {
        let api = Client::without_base()
            .header("X-Token", "a")
            .header("x-token", "b")
            .bearer_auth("t");
        assert_eq!(
            api.headers
                .iter()
                .filter(|(n, _)| n == "x-token")
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>(),
            ["b"]
        );
        assert!(
            api.headers
                .contains(&("authorization".into(), "Bearer t".into()))
        );
    }

    #[test]
    fn idempotent_methods() {
        assert!(Method::Get.is_idempotent() && Method::Put.is_idempotent());
        assert!(!Method::Post.is_idempotent() && !Method::Patch.is_idempotent());
        assert_eq!(Method::parse("head"), Some(Method::Head));
        assert_eq!(Method::parse("BREW"), None);
    }
}
