//! Outgoing HTTP as an operator relies on it, through the hostile sample's `http_get`:
//! connections are pooled across calls and instances (counted on the server), HTTPS trusts
//! a private CA only when the operator adds it, and proxies from the settings or from
//! Terraform's environment carry the requests (plain HTTP in absolute form, HTTPS through a
//! CONNECT tunnel) while the allow-list still applies to the target.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::sandbox::{apply, connect, result_of, settings};
use tfwasm_tests::plugin::Server;

/// Connections a test server accepted and requests it answered.
#[derive(Default)]
struct Counts {
    connections: AtomicUsize,
    requests: AtomicUsize,
}

type Respond = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// Answers HTTP/1.1 requests on one connection, keeping it open, until the client closes it.
async fn keep_alive(
    stream: impl AsyncRead + AsyncWrite + Unpin,
    counts: Arc<Counts>,
    respond: Respond,
) {
    let mut stream = BufReader::new(stream);
    loop {
        let Some(target) = read_head(&mut stream).await else {
            return;
        };
        counts.requests.fetch_add(1, Ordering::SeqCst);
        let body = respond(&target);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(reply.as_bytes()).await.is_err() || stream.flush().await.is_err() {
            return;
        }
    }
}

/// Reads one request head and returns its request line's method and target; `None` at EOF.
async fn read_head(stream: &mut (impl AsyncBufReadExt + Unpin)) -> Option<String> {
    let mut first = String::new();
    if stream.read_line(&mut first).await.ok()? == 0 {
        return None;
    }
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? <= 2 {
            break;
        }
    }
    let mut parts = first.split_whitespace();
    Some(format!("{} {}", parts.next()?, parts.next()?))
}

/// A keep-alive HTTP server on loopback, plain or TLS.
async fn start_server(
    tls: Option<tokio_rustls::TlsAcceptor>,
    respond: Respond,
) -> (u16, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counts = Arc::new(Counts::default());
    let shared = counts.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            shared.connections.fetch_add(1, Ordering::SeqCst);
            let (counts, respond, tls) = (shared.clone(), respond.clone(), tls.clone());
            tokio::spawn(async move {
                match tls {
                    None => keep_alive(stream, counts, respond).await,
                    Some(acceptor) => {
                        if let Ok(stream) = acceptor.accept(stream).await {
                            keep_alive(stream, counts, respond).await;
                        }
                    }
                }
            });
        }
    });
    (port, counts)
}

/// A private CA and a server certificate for localhost/127.0.0.1 it signed: (CA PEM, acceptor).
fn private_ca() -> (String, tokio_rustls::TlsAcceptor) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "tfwasm test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    let pem = AsRef::<rcgen::Certificate>::as_ref(&ca).pem();
    (pem, tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// A forward proxy: CONNECT opens a tunnel to the target; any other request is answered by
/// the proxy itself with `via proxy: METHOD TARGET`, so a test sees it went through.
async fn start_proxy() -> (u16, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counts = Arc::new(Counts::default());
    let shared = counts.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            shared.connections.fetch_add(1, Ordering::SeqCst);
            let counts = shared.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                let Some(head) = read_head(&mut stream).await else {
                    return;
                };
                counts.requests.fetch_add(1, Ordering::SeqCst);
                if let Some(target) = head.strip_prefix("CONNECT ") {
                    let Ok(mut upstream) = TcpStream::connect(target).await else {
                        let _ = stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                        return;
                    };
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        .await;
                    let _ = tokio::io::copy_bidirectional(&mut stream, &mut upstream).await;
                } else {
                    let body = format!("via proxy: {head}");
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                }
            });
        }
    });
    (port, counts)
}

fn hello() -> Respond {
    Arc::new(|_| "hello".to_owned())
}

/// Sequential requests share one kept-alive connection, across calls and, with
/// `instances = "fresh"`, across instances too: the pool belongs to the provider process.
#[tokio::test]
async fn connections_are_reused_across_calls_and_instances() {
    let (port, counts) = start_server(None, hello()).await;
    for instances in ["reuse", "fresh"] {
        counts.connections.store(0, Ordering::SeqCst);
        counts.requests.store(0, Ordering::SeqCst);
        let config = settings(&format!(
            "[limits]\ninstances = \"{instances}\"\n[grants]\nhttp = [\"http://127.0.0.1:{port}\"]\n"
        ));
        let path = config.path().display().to_string();
        let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
        let mut client = connect(&server).await;
        let url = format!("http://127.0.0.1:{port}/hello");
        for i in 0..30 {
            let resp = apply(&mut client, "http_get", &url).await;
            assert_eq!(
                result_of(&resp).as_deref(),
                Some("hello"),
                "{instances} call {i}"
            );
        }
        assert_eq!(counts.requests.load(Ordering::SeqCst), 30, "{instances}");
        let opened = counts.connections.load(Ordering::SeqCst);
        assert!(
            opened <= 2,
            "{instances}: 30 sequential requests opened {opened} connections"
        );
    }
}

#[tokio::test]
async fn a_private_ca_is_trusted_only_when_the_operator_adds_it() {
    let (ca_pem, acceptor) = private_ca();
    let (port, counts) = start_server(Some(acceptor), hello()).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("private-ca.pem"), &ca_pem).unwrap();
    let grants = format!("[grants]\nhttp = [\"https://localhost:{port}\"]\n");
    let url = format!("https://localhost:{port}/hello");

    let untrusted = settings(&grants);
    let path = untrusted.path().display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = connect(&server).await;
    let resp = apply(&mut client, "http_get", &url).await;
    let diagnostic = resp
        .diagnostics
        .iter()
        .find(|d| d.summary == "Outgoing HTTPS request to an untrusted server")
        .unwrap_or_else(|| panic!("{:?}", resp.diagnostics));
    for needle in [
        format!("localhost:{port}"),
        "ca_files".into(),
        "--ca-file".into(),
    ] {
        assert!(
            diagnostic.detail.contains(&needle),
            "{needle}: {}",
            diagnostic.detail
        );
    }
    assert_eq!(counts.requests.load(Ordering::SeqCst), 0);
    drop(server);

    // The settings file sits beside the CA file, which it names relative to itself.
    let trusted = dir.path().join("tfwasm.toml");
    std::fs::write(
        &trusted,
        format!("{grants}[http]\nca_files = [\"private-ca.pem\"]\n"),
    )
    .unwrap();
    let path = trusted.display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = connect(&server).await;
    for _ in 0..5 {
        let resp = apply(&mut client, "http_get", &url).await;
        assert_eq!(
            result_of(&resp).as_deref(),
            Some("hello"),
            "{:?}",
            resp.diagnostics
        );
    }
    assert_eq!(
        counts.connections.load(Ordering::SeqCst),
        2,
        "one refused handshake, then one TLS connection for five requests"
    );
}

#[tokio::test]
async fn proxies_carry_allowed_requests_only() {
    let (proxy, proxy_counts) = start_proxy().await;
    let (ca_pem, acceptor) = private_ca();
    let (tls_port, tls_counts) = start_server(Some(acceptor), hello()).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ca.pem"), &ca_pem).unwrap();
    let settings_file = dir.path().join("tfwasm.toml");
    std::fs::write(
        &settings_file,
        format!(
            "[grants]\nhttp = [\"http://api.example.test\", \"https://localhost:{tls_port}\"]\n[http]\nca_files = [\"ca.pem\"]\nhttp_proxy = \"http://127.0.0.1:{proxy}\"\nhttps_proxy = \"http://127.0.0.1:{proxy}\"\n"
        ),
    )
    .unwrap();
    let path = settings_file.display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = connect(&server).await;

    // Plain HTTP: the proxy gets the absolute URL (the name need not resolve here).
    let resp = apply(&mut client, "http_get", "http://api.example.test/items?x=1").await;
    assert_eq!(
        result_of(&resp).as_deref(),
        Some("via proxy: GET http://api.example.test/items?x=1"),
        "{:?}",
        resp.diagnostics
    );
    // HTTPS: a CONNECT tunnel, and the private CA still verifies the server behind it.
    let resp = apply(
        &mut client,
        "http_get",
        &format!("https://localhost:{tls_port}/hi"),
    )
    .await;
    assert_eq!(
        result_of(&resp).as_deref(),
        Some("hello"),
        "{:?}",
        resp.diagnostics
    );
    assert_eq!(tls_counts.requests.load(Ordering::SeqCst), 1);
    // The allow-list is checked before the proxy sees anything.
    let before = proxy_counts.requests.load(Ordering::SeqCst);
    let resp = apply(&mut client, "http_get", "http://other.example.test/").await;
    assert!(
        resp.diagnostics
            .iter()
            .any(|d| d.summary == "Outgoing HTTP request denied"),
        "{:?}",
        resp.diagnostics
    );
    assert_eq!(proxy_counts.requests.load(Ordering::SeqCst), before);
    drop(server);

    // Without [http] proxy keys the environment's are used, and NO_PROXY exempts a host.
    let (direct, direct_counts) = start_server(None, hello()).await;
    let plain = settings(&format!(
        "[grants]\nhttp = [\"http://api.example.test\", \"http://127.0.0.1:{direct}\"]\n"
    ));
    let path = plain.path().display().to_string();
    let proxy_url = format!("http://127.0.0.1:{proxy}");
    let server = Server::start_with(
        "hostile",
        &[
            ("TFWASM_CONFIG", path.as_str()),
            ("HTTP_PROXY", proxy_url.as_str()),
            ("NO_PROXY", "127.0.0.1"),
        ],
        None,
    );
    let mut client = connect(&server).await;
    let resp = apply(&mut client, "http_get", "http://api.example.test/env").await;
    assert_eq!(
        result_of(&resp).as_deref(),
        Some("via proxy: GET http://api.example.test/env")
    );
    let resp = apply(
        &mut client,
        "http_get",
        &format!("http://127.0.0.1:{direct}/"),
    )
    .await;
    assert_eq!(result_of(&resp).as_deref(), Some("hello"));
    assert_eq!(direct_counts.requests.load(Ordering::SeqCst), 1);
}
