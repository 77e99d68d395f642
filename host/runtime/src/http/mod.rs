//! Outgoing HTTP for guests (`wasi:http`), only to the operator's allow-list.
//!
//! - [`gate`]: every request, and so every redirect hop (wasi:http never follows redirects
//!   itself), is checked against the allow-list before any connection is opened or reused;
//!   timeouts are clamped to the call's deadline, bodies capped, requests per call counted.
//! - [`outbound`]: one pool of keep-alive connections per provider process, shared by every
//!   call and instance.
//! - [`unsent`]: bounds on what a request the guest holds but has not sent keeps in host
//!   memory.
//! - [`connector`]: how a connection is opened (straight or through the operator's proxy,
//!   then TLS), [`trust`]: which servers TLS trusts (system roots plus the operator's CAs).
//!
//! Failures the operator can fix (a denied host, an untrusted certificate, a failing proxy)
//! become [`Problem`]s that the call's diagnostics explain, naming the setting to change;
//! the guest only sees wasi:http's error code.

mod body;
mod connector;
pub(crate) mod gate;
pub(crate) mod outbound;
mod trust;
pub(crate) mod unsent;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hyper_util::client::proxy::matcher::Matcher;

pub use trust::CaFileError;

/// Largest response body a guest may read: 8 MiB.
pub const MAX_RESPONSE_BODY: u64 = 8 << 20;
/// Largest request body a guest may send: 8 MiB.
pub const MAX_REQUEST_BODY: u64 = 8 << 20;
/// Most requests one call may send (redirect loops end here).
pub const MAX_REQUESTS_PER_CALL: u32 = 64;

/// How the host makes the requests a guest is allowed to make: whom TLS trusts and which
/// proxy to go through. The guest never sees these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpSettings {
    /// PEM bundles of CA certificates trusted in addition to the system's roots.
    pub ca_files: Vec<PathBuf>,
    /// Proxies; `None` takes `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (or
    /// their lowercase forms) from the environment, as curl does.
    pub proxy: Option<ProxySettings>,
}

/// Proxies set explicitly (replacing the environment's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxySettings {
    /// Proxy for `http://` requests, e.g. `http://proxy.internal:3128`.
    pub http: Option<String>,
    /// Proxy for `https://` requests (tunnelled with CONNECT).
    pub https: Option<String>,
    /// Hosts reached directly: comma-separated names (matching subdomains too), IPs and
    /// CIDR ranges, or `*`.
    pub no_proxy: Option<String>,
}

/// HTTP settings that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HttpSettingsError {
    /// A CA file is missing or holds no usable certificate.
    #[error(transparent)]
    CaFile(#[from] CaFileError),
    /// A proxy URL is malformed or of an unsupported kind.
    #[error("proxy {setting} = {value:?}: {reason}")]
    Proxy {
        /// Which setting (`http`, `https`).
        setting: &'static str,
        /// The value as written.
        value: String,
        /// What is wrong.
        reason: &'static str,
    },
}

impl ProxySettings {
    /// Checks that each proxy is an `http://host[:port]` URL.
    ///
    /// # Errors
    /// The first proxy that is not.
    pub fn validate(&self) -> Result<(), HttpSettingsError> {
        for (setting, value) in [("http", &self.http), ("https", &self.https)] {
            let Some(value) = value else { continue };
            let fail = |reason| HttpSettingsError::Proxy {
                setting,
                value: value.clone(),
                reason,
            };
            let uri = value
                .parse::<http::Uri>()
                .map_err(|_| fail("not a URL (expected http://host:port)"))?;
            if uri.scheme_str() != Some("http") {
                return Err(fail(
                    "only http:// proxies are supported (HTTPS requests are tunnelled through them with CONNECT)",
                ));
            }
            if uri.host().is_none_or(str::is_empty) {
                return Err(fail("no host (expected http://host:port)"));
            }
        }
        Ok(())
    }
}

impl HttpSettings {
    fn proxy_matcher(&self) -> Result<Matcher, HttpSettingsError> {
        let Some(proxy) = &self.proxy else {
            return Ok(Matcher::from_env());
        };
        proxy.validate()?;
        let mut builder = Matcher::builder();
        if let Some(http) = &proxy.http {
            builder = builder.http(http.clone());
        }
        if let Some(https) = &proxy.https {
            builder = builder.https(https.clone());
        }
        if let Some(no) = &proxy.no_proxy {
            builder = builder.no(no.clone());
        }
        Ok(builder.build())
    }
}

/// Something about one request the operator can fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The allow-list has no entry for the target; `entry` would allow it.
    Denied { entry: String },
    /// The server's certificate did not verify against the trusted roots.
    Untrusted { host: String, reason: String },
    /// The proxy could not be used.
    Proxy { message: String },
    /// The URL carried user information (`user:password@host`), which is never sent.
    Userinfo { host: String },
    /// The URL's host is no host name or IP address (`*`): nothing to grant.
    NotAHost { host: String },
}

/// The problems of one call.
pub(crate) type Problems = Arc<Mutex<Vec<Problem>>>;

#[cfg(test)]
pub(crate) mod test_ca {
    /// A self-signed CA certificate in PEM.
    pub(crate) fn ca_pem() -> String {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).unwrap().pem()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxies_must_be_plain_http_urls() {
        let ok = ProxySettings {
            http: Some("http://proxy.internal:3128".into()),
            https: Some("http://user:pw@10.0.0.1:8080".into()),
            no_proxy: Some("localhost,.internal".into()),
        };
        ok.validate().unwrap();
        for bad in ["socks5://p:1080", "https://p:443", "not a url", "http://"] {
            let settings = ProxySettings {
                https: Some(bad.into()),
                ..Default::default()
            };
            let err = settings.validate().err().unwrap().to_string();
            assert!(err.contains("proxy https") && err.contains(bad), "{err}");
        }
    }
}
