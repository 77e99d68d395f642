//! Starting `tfwasm serve` as Terraform would (plugin environment, optional AutoMTLS with a
//! P-521 client certificate like Terraform's) and connecting a gRPC channel to it, pinning the
//! server certificate from the handshake as go-plugin does. Used by the protocol tests and
//! by `make load`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tonic::transport::{Channel, Endpoint};

/// A client identity like Terraform's: self-signed ECDSA P-521, CA:TRUE.
pub struct TlsClient {
    /// The certificate, as `PLUGIN_CLIENT_CERT` carries it.
    pub pem: String,
    der: Vec<u8>,
    key: Vec<u8>,
}

impl TlsClient {
    /// A fresh identity.
    pub fn generate() -> TlsClient {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "localhost");
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "HashiCorp");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.extended_key_usages = vec![
            rcgen::ExtendedKeyUsagePurpose::ClientAuth,
            rcgen::ExtendedKeyUsagePurpose::ServerAuth,
        ];
        let cert = params.self_signed(&key).unwrap();
        TlsClient {
            pem: cert.pem(),
            der: cert.der().to_vec(),
            key: key.serialize_der(),
        }
    }
}

/// A running `tfwasm serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// The handshake line it printed.
    pub handshake: String,
}

impl Server {
    /// Starts the server on the random component; with `tls`, AutoMTLS for that client.
    pub fn start(tls: Option<&TlsClient>) -> Server {
        Server::start_with("random", &[], tls)
    }

    /// Starts the server on a sample component with extra environment variables.
    pub fn start_with(sample: &str, env: &[(&str, &str)], tls: Option<&TlsClient>) -> Server {
        Server::start_component(&crate::component(sample), env, tls)
    }

    /// Starts the server on the component at `path`.
    pub fn start_component(
        path: &std::path::Path,
        env: &[(&str, &str)],
        tls: Option<&TlsClient>,
    ) -> Server {
        Server::spawn(path, env, tls, Stdio::inherit())
    }

    /// Starts the server on the random component in plaintext, its log (stderr) going to `log`.
    pub fn start_logged(env: &[(&str, &str)], log: &std::path::Path) -> Server {
        Server::start_logged_component(&crate::component("random"), env, log)
    }

    /// Starts the server on the component at `path` in plaintext, its log going to `log`.
    pub fn start_logged_component(
        path: &std::path::Path,
        env: &[(&str, &str)],
        log: &std::path::Path,
    ) -> Server {
        let log = std::fs::File::create(log).expect("create the server log");
        Server::spawn(path, env, None, log.into())
    }

    fn spawn(
        path: &std::path::Path,
        env: &[(&str, &str)],
        tls: Option<&TlsClient>,
        stderr: Stdio,
    ) -> Server {
        let mut cmd = Command::new(crate::tfwasm_bin());
        // Hermetic: a proxy in the developer's environment must not catch loopback requests;
        // tests that want one pass it in `env`.
        for proxy in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"] {
            cmd.env_remove(proxy).env_remove(proxy.to_ascii_lowercase());
        }
        cmd.arg("serve")
            .arg("--component")
            .arg(path)
            .env(
                "TF_PLUGIN_MAGIC_COOKIE",
                tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
            )
            .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
            .env("TFWASM_CACHE_DIR", crate::cache_dir())
            .env_remove("PLUGIN_CLIENT_CERT")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(tls) = tls {
            cmd.env("PLUGIN_CLIENT_CERT", &tls.pem);
        }
        Server::from_child(cmd.spawn().expect("start tfwasm serve"))
    }

    /// A server the caller spawned itself (stdout piped), once its handshake line is read.
    pub fn from_child(mut child: Child) -> Server {
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the handshake line");
        assert!(
            line.ends_with('\n'),
            "handshake line ends with a newline: {line:?}"
        );
        Server {
            child,
            handshake: line.trim().to_owned(),
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory of the server process, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// The unix socket from the handshake line.
    pub fn socket_path(&self) -> PathBuf {
        PathBuf::from(self.handshake.split('|').nth(3).unwrap())
    }

    fn server_cert(&self) -> Vec<u8> {
        let b64 = self.handshake.split('|').nth(5).unwrap();
        base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(b64)
            .expect("base64 certificate")
    }

    /// [`Server::try_channel`], panicking on failure.
    pub async fn channel(&self, tls: Option<&TlsClient>) -> Channel {
        self.try_channel(tls).await.expect("connect")
    }

    /// Connects over the unix socket, with TLS when `tls` is given (pinning the server cert).
    pub async fn try_channel(
        &self,
        tls: Option<&TlsClient>,
    ) -> Result<Channel, Box<dyn std::error::Error>> {
        match tls {
            None => self.connect(None).await,
            Some(client) => self.connect(Some(Some(client))).await,
        }
    }

    /// Connects with TLS (pinning the server cert) but presents no client certificate.
    pub async fn try_tls_channel_without_client_cert(
        &self,
    ) -> Result<Channel, Box<dyn std::error::Error>> {
        self.connect(Some(None)).await
    }

    /// `tls`: `None` for plaintext, `Some(client)` for TLS with that client certificate, if any.
    async fn connect(
        &self,
        tls: Option<Option<&TlsClient>>,
    ) -> Result<Channel, Box<dyn std::error::Error>> {
        let path = self.socket_path();
        let connector = match tls {
            None => None,
            Some(client) => {
                let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
                let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
                    .with_safe_default_protocol_versions()?
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(PinnedServer {
                        der: self.server_cert(),
                        algorithms: provider.signature_verification_algorithms,
                    }));
                let mut config = match client {
                    Some(client) => builder.with_client_auth_cert(
                        vec![CertificateDer::from(client.der.clone())],
                        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(client.key.clone())),
                    )?,
                    None => builder.with_no_client_auth(),
                };
                config.alpn_protocols = vec![b"h2".to_vec()];
                Some(tokio_rustls::TlsConnector::from(Arc::new(config)))
            }
        };
        let channel = Endpoint::try_from("http://[::]:50051")?
            .connect_with_connector(tower::service_fn(move |_| {
                let path = path.clone();
                let connector = connector.clone();
                async move {
                    let stream = tokio::net::UnixStream::connect(path).await?;
                    match connector {
                        None => {
                            Ok::<_, std::io::Error>(TokioIo::new(Box::new(stream) as Box<dyn Io>))
                        }
                        Some(connector) => {
                            let name = ServerName::try_from("localhost").unwrap();
                            let tls = connector.connect(name, stream).await?;
                            Ok(TokioIo::new(Box::new(tls) as Box<dyn Io>))
                        }
                    }
                }
            }))
            .await?;
        // TLS 1.3 reports a rejected client certificate only on the first read: make one.
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "plugin".into(),
            })
            .await?;
        Ok(channel)
    }

    /// Sends `signal` to the server process.
    pub fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
    }

    /// Waits up to `limit` for the process to exit.
    pub fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

/// Killed rather than shut down, so the server cannot remove its own socket: removed here, or
/// every test would leave one in the temporary directory. Tests of the server's own clean-up
/// look before this runs.
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut fields = self.handshake.split('|').skip(2);
        if let (Some("unix"), Some(path)) = (fields.next(), fields.next()) {
            let _ = std::fs::remove_file(path);
        }
    }
}

trait Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static> Io for T {}

/// Trusts exactly the certificate from the handshake line, as go-plugin's client does.
#[derive(Debug)]
struct PinnedServer {
    der: Vec<u8>,
    algorithms: rustls::crypto::WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.der.as_slice() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "server certificate does not match the handshake".into(),
            ))
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
