//! Opens the connections the pool keeps: TCP, straight or through the operator's proxy (a
//! CONNECT tunnel for HTTPS, absolute-form requests for plain HTTP), then TLS for HTTPS.
//!
//! Which requests may be sent at all is decided before this runs (the gate); this only
//! decides how to get there.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::Uri;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tower_service::Service;

use super::trust::Trust;

/// Why a connection could not be opened; the gate turns it into the guest's error code and,
/// where the operator can fix it, a diagnostic.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnectError {
    #[error("connecting to {target}: {source}")]
    Tcp {
        target: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("through proxy {proxy}: {source}")]
    Proxy {
        proxy: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("proxy {proxy} has an unsupported scheme (only http:// and https:// proxies)")]
    ProxyScheme { proxy: String },
    #[error("TLS with {host}: {source}")]
    Tls {
        host: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{host:?} is not a valid TLS server name")]
    ServerName { host: String },
}

impl ConnectError {
    /// The certificate was not trusted (as opposed to any other TLS failure).
    pub(crate) fn is_untrusted_certificate(&self) -> bool {
        let ConnectError::Tls { source, .. } = self else {
            return false;
        };
        source
            .get_ref()
            .and_then(|e| e.downcast_ref::<rustls::Error>())
            .is_some_and(|e| {
                matches!(
                    e,
                    rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented
                )
            })
    }
}

/// A connection the pool holds: plain TCP or TLS over TCP (either possibly via a proxy).
pub(crate) enum Conn {
    Plain {
        io: TokioIo<TcpStream>,
        /// Requests go to a proxy in absolute form.
        proxied: bool,
    },
    /// Boxed: a TLS session is over a kilobyte, and connections move through the pool.
    Tls(Box<TokioIo<TlsStream<TcpStream>>>),
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        match self {
            Conn::Plain { io, proxied } => io.connected().proxy(*proxied),
            Conn::Tls(io) => io.inner().get_ref().0.connected(),
        }
    }
}

impl hyper::rt::Read for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain { io, .. } => Pin::new(io).poll_read(cx, buf),
            Conn::Tls(io) => Pin::new(io.as_mut()).poll_read(cx, buf),
        }
    }
}

impl hyper::rt::Write for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain { io, .. } => Pin::new(io).poll_write(cx, buf),
            Conn::Tls(io) => Pin::new(io.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain { io, .. } => Pin::new(io).poll_flush(cx),
            Conn::Tls(io) => Pin::new(io.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain { io, .. } => Pin::new(io).poll_shutdown(cx),
            Conn::Tls(io) => Pin::new(io.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Opens connections for the pool (cheap to clone: the pool clones it per connection).
#[derive(Clone)]
pub(crate) struct Connector {
    tcp: HttpConnector,
    proxy: Arc<Matcher>,
    trust: Arc<Trust>,
}

impl Connector {
    pub(crate) fn new(proxy: Matcher, trust: Trust) -> Connector {
        let mut tcp = HttpConnector::new();
        // Called with https:// destinations too; TLS is layered on here.
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        // An upper bound only: each request's own (clamped) deadline is enforced by the gate.
        tcp.set_connect_timeout(Some(std::time::Duration::from_secs(60)));
        Connector {
            tcp,
            proxy: Arc::new(proxy),
            trust: Arc::new(trust),
        }
    }

    /// The proxy a request to `uri` goes through, if any (for plain HTTP the gate adds the
    /// proxy's credentials to the request itself).
    pub(crate) fn proxy_for(
        &self,
        uri: &Uri,
    ) -> Option<hyper_util::client::proxy::matcher::Intercept> {
        self.proxy.intercept(uri)
    }

    async fn connect(mut self, dst: Uri) -> Result<Conn, ConnectError> {
        let https = dst.scheme() == Some(&http::uri::Scheme::HTTPS);
        let host = dst.host().unwrap_or_default().to_owned();
        let intercept = self.proxy.intercept(&dst);
        let tcp = match &intercept {
            None => self
                .tcp
                .call(dst.clone())
                .await
                .map_err(|e| ConnectError::Tcp {
                    target: authority(&dst),
                    source: e.into(),
                })?,
            Some(proxy) => {
                let proxy_uri = proxy.uri().clone();
                let shown = authority(&proxy_uri);
                if !matches!(proxy_uri.scheme_str(), Some("http")) {
                    // An https:// proxy would need TLS to the proxy as well; socks is not
                    // supported. Say so rather than sending plaintext somewhere unexpected.
                    return Err(ConnectError::ProxyScheme { proxy: shown });
                }
                if https {
                    let mut tunnel = Tunnel::new(proxy_uri, self.tcp.clone());
                    if let Some(auth) = proxy.basic_auth() {
                        tunnel = tunnel.with_auth(auth.clone());
                    }
                    tunnel
                        .call(dst.clone())
                        .await
                        .map_err(|e| ConnectError::Proxy {
                            proxy: shown,
                            source: Box::new(e),
                        })?
                } else {
                    self.tcp
                        .call(proxy_uri)
                        .await
                        .map_err(|e| ConnectError::Proxy {
                            proxy: shown,
                            source: e.into(),
                        })?
                }
            }
        };
        if !https {
            return Ok(Conn::Plain {
                io: tcp,
                proxied: intercept.is_some(),
            });
        }
        let name = ServerName::try_from(host.trim_start_matches('[').trim_end_matches(']'))
            .map_err(|_| ConnectError::ServerName { host: host.clone() })?
            .to_owned();
        let tls = tokio_rustls::TlsConnector::from(self.trust.client_config())
            .connect(name, tcp.into_inner())
            .await
            .map_err(|source| ConnectError::Tls {
                host: authority(&dst),
                source,
            })?;
        Ok(Conn::Tls(Box::new(TokioIo::new(tls))))
    }
}

/// `host:port` of a URI, with the scheme's default port.
pub(crate) fn authority(uri: &Uri) -> String {
    let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
        Some("https") => 443,
        _ => 80,
    });
    format!("{}:{port}", uri.host().unwrap_or_default())
}

impl Service<Uri> for Connector {
    type Response = Conn;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, ConnectError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), ConnectError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        Box::pin(self.clone().connect(dst))
    }
}
