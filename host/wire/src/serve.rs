//! Serving a provider the way go-plugin does: bind, announce, serve gRPC until Shutdown.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt as _};
use tfwasm_model::Provider;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch};
use tokio_rustls::TlsAcceptor;
use tonic::transport::server::Connected;
use tonic::{Request, Response, Status};

use crate::authority::FixAuthority;
use crate::handshake::{Address, PluginEnv, handshake_line};
use crate::proto::plugin as go_plugin;
use crate::service::ProviderService;
use crate::tls;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The plugin environment Terraform set.
    pub env: PluginEnv,
    /// Listen on loopback TCP instead of a unix socket.
    pub tcp: bool,
}

/// Serving failed before or while accepting connections.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// No socket could be bound.
    #[error("cannot listen: {0}")]
    Listen(String),
    /// AutoMTLS could not be set up.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The handshake line could not be written.
    #[error("cannot write the handshake to stdout: {0}")]
    Stdout(std::io::Error),
    /// The gRPC server failed.
    #[error("gRPC server failed: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// How long open connections may finish after Shutdown before the server stops anyway.
const GRACE_AFTER_SHUTDOWN: std::time::Duration = std::time::Duration::from_millis(500);

/// Resolves once Shutdown was requested.
fn shutdown_requested(
    shutdown: &watch::Sender<bool>,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let mut rx = shutdown.subscribe();
    async move {
        let _ = rx.wait_for(|requested| *requested).await;
    }
}

/// SIGTERM (a service manager, `kill`, a container stop) ends serving as Shutdown does, so
/// the socket is removed; go-plugin's servers ignore SIGINT, which Terraform handles itself.
fn stop_on_sigterm(shutdown: Arc<watch::Sender<bool>>) {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::spawn(async move {
                if terminate.recv().await.is_some() {
                    tracing::debug!("SIGTERM: stopping");
                    shutdown.send_replace(true);
                }
            });
        }
        Err(error) => tracing::warn!(%error, "cannot watch for SIGTERM"),
    }
}

enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

/// Serves `provider` until Terraform calls `plugin.GRPCController/Shutdown`.
///
/// Prints the handshake line to stdout first; nothing else may be printed to stdout before.
///
/// # Errors
/// When the listener, TLS or stdout cannot be set up, or the gRPC server fails.
pub async fn serve<P: Provider>(provider: P, options: ServeOptions) -> Result<(), ServeError> {
    run(provider, &options, None).await
}

/// Serves `provider` for a debugging session, as terraform-plugin-framework's debug mode
/// does: plaintext (Terraform attaches through `TF_REATTACH_PROVIDERS`, without AutoMTLS),
/// no handshake line, and Shutdown ignored, so one server outlives many Terraform commands.
/// `announce` receives the address once the server listens; serving ends when `stop`
/// resolves (Ctrl-C), and the socket is removed.
///
/// # Errors
/// When the listener cannot be set up or the gRPC server fails.
pub async fn serve_debug<P: Provider>(
    provider: P,
    tcp: bool,
    announce: impl FnOnce(&Address) + Send,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let options = ServeOptions {
        env: PluginEnv {
            port_range: (10000, 25000),
            ..PluginEnv::default()
        },
        tcp,
    };
    let debug = Debug {
        announce: Box::new(announce),
        stop: Box::pin(stop),
    };
    run(provider, &options, Some(debug)).await
}

/// What a debugging session changes in [`run`].
struct Debug<'a> {
    announce: Box<dyn FnOnce(&Address) + Send + 'a>,
    stop: Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

async fn run<P: Provider>(
    provider: P,
    options: &ServeOptions,
    debug: Option<Debug<'_>>,
) -> Result<(), ServeError> {
    let (listener, address) = bind(options)?;
    let tls = options
        .env
        .client_cert
        .as_deref()
        .filter(|_| debug.is_none())
        .map(tls::server_tls)
        .transpose()?;
    let line = handshake_line(
        &address,
        tls.as_ref().map(|t| t.certificate_der.as_slice()),
        options.env.multiplex_grpc,
    );
    let ignore_shutdown = debug.is_some();

    let (shutdown, _) = watch::channel(false);
    let shutdown = Arc::new(shutdown);
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_service_status("plugin", tonic_health::ServingStatus::Serving)
        .await;

    let incoming = accept_loop(listener, tls.map(|t| TlsAcceptor::from(t.config)));

    match debug {
        Some(debug) => {
            (debug.announce)(&address);
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                debug.stop.await;
                shutdown.send_replace(true);
            });
        }
        None => {
            stop_on_sigterm(shutdown.clone());
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{line}")
                .and_then(|()| stdout.flush())
                .map_err(ServeError::Stdout)?;
        }
    }
    tracing::debug!(handshake = %line, "plugin server listening");

    let server = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(
            go_plugin::grpc_controller_server::GrpcControllerServer::new(Controller {
                shutdown: shutdown.clone(),
                ignore: ignore_shutdown,
            }),
        )
        .add_service(go_plugin::grpc_stdio_server::GrpcStdioServer::new(Stdio {
            shutdown: shutdown.clone(),
        }))
        .add_service(ProviderService::new(provider).into_server())
        .serve_with_incoming_shutdown(incoming, shutdown_requested(&shutdown));
    // Graceful shutdown waits for clients to hang up; go-plugin kills us 2 s after Shutdown,
    // so stop waiting well before that.
    let result = tokio::select! {
        result = server => result,
        () = async {
            shutdown_requested(&shutdown).await;
            tokio::time::sleep(GRACE_AFTER_SHUTDOWN).await;
        } => Ok(()),
    };
    if let Address::Unix(path) = &address {
        let _ = std::fs::remove_file(path);
    }
    result.map_err(ServeError::from)
}

fn bind(options: &ServeOptions) -> Result<(Listener, Address), ServeError> {
    if options.tcp {
        let (min, max) = options.env.port_range;
        for port in min..=max.max(min) {
            let Ok(std_listener) = std::net::TcpListener::bind(("127.0.0.1", port)) else {
                continue;
            };
            std_listener
                .set_nonblocking(true)
                .map_err(|e| ServeError::Listen(e.to_string()))?;
            let listener = TcpListener::from_std(std_listener)
                .map_err(|e| ServeError::Listen(e.to_string()))?;
            let addr = listener
                .local_addr()
                .map_err(|e| ServeError::Listen(e.to_string()))?;
            return Ok((Listener::Tcp(listener), Address::Tcp(addr)));
        }
        return Err(ServeError::Listen(format!(
            "no free TCP port on 127.0.0.1 in {min}..={max}"
        )));
    }
    let dir = options
        .env
        .unix_socket_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir);
    let path = unique_socket_path(&dir);
    let listener = UnixListener::bind(&path)
        .map_err(|e| ServeError::Listen(format!("{}: {e}", path.display())))?;
    if let Some(group) = &options.env.unix_socket_group {
        set_socket_group(&path, group).map_err(ServeError::Listen)?;
    }
    Ok((Listener::Unix(listener), Address::Unix(path)))
}

fn unique_socket_path(dir: &Path) -> PathBuf {
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.join(format!("plugin{pid}{nanos:09}"))
}

/// Gives the socket to `group` (name or numeric id) with mode 0660, as go-plugin does.
fn set_socket_group(path: &Path, group: &str) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let gid = match group.parse::<u32>() {
        Ok(gid) => gid,
        Err(_) => {
            let name = std::ffi::CString::new(group)
                .map_err(|_| format!("invalid group name {group:?}"))?;
            // SAFETY: getgrnam reads a NUL-terminated name and returns a pointer into static
            // storage (or null); we only read gr_gid immediately.
            let entry = unsafe { libc::getgrnam(name.as_ptr()) };
            if entry.is_null() {
                return Err(format!(
                    "PLUGIN_UNIX_SOCKET_GROUP: no group named {group:?}"
                ));
            }
            // SAFETY: non-null pointer returned by getgrnam just above.
            unsafe { (*entry).gr_gid }
        }
    };
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| "socket path contains NUL".to_owned())?;
    // SAFETY: valid NUL-terminated path; uid -1 leaves the owner unchanged.
    if unsafe { libc::chown(c_path.as_ptr(), u32::MAX, gid) } != 0 {
        return Err(format!(
            "cannot chown socket to group {group}: {}",
            std::io::Error::last_os_error()
        ));
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .map_err(|e| e.to_string())
}

/// A connection, plain or TLS, over a unix or TCP socket.
type BoxedIo = Box<dyn Io>;
trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// A connection tonic can serve.
pub struct Conn(BoxedIo);

impl Connected for Conn {
    type ConnectInfo = ();
    fn connect_info(&self) {}
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }
}

/// Accepts connections, finishing TLS handshakes off the accept path so one slow client
/// cannot stall the others.
fn accept_loop(
    listener: Listener,
    tls: Option<TlsAcceptor>,
) -> impl Stream<Item = Result<Conn, std::io::Error>> + Send + 'static {
    let (tx, rx) = mpsc::channel::<Result<Conn, std::io::Error>>(16);
    tokio::spawn(async move {
        loop {
            let accepted: std::io::Result<BoxedIo> = match &listener {
                Listener::Unix(l) => l.accept().await.map(|(s, _)| Box::new(s) as BoxedIo),
                Listener::Tcp(l) => l.accept().await.map(|(s, _)| {
                    // Nagle plus delayed ACK would add ~40 ms stalls to small RPCs.
                    let _ = s.set_nodelay(true);
                    Box::new(s) as BoxedIo
                }),
            };
            let stream = match accepted {
                Ok(stream) => stream,
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            };
            match &tls {
                None => {
                    let stream = Box::new(FixAuthority::new(stream));
                    if tx.send(Ok(Conn(stream))).await.is_err() {
                        return;
                    }
                }
                Some(acceptor) => {
                    let acceptor = acceptor.clone();
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        match acceptor.accept(stream).await {
                            Ok(tls_stream) => {
                                let _ = tx.send(Ok(Conn(Box::new(tls_stream)))).await;
                            }
                            Err(error) => {
                                tracing::warn!(%error, "TLS handshake with the client failed")
                            }
                        }
                    });
                }
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

struct Controller {
    shutdown: Arc<watch::Sender<bool>>,
    /// In a debugging session the server outlives each Terraform command.
    ignore: bool,
}

#[tonic::async_trait]
impl go_plugin::grpc_controller_server::GrpcController for Controller {
    async fn shutdown(
        &self,
        _req: Request<go_plugin::Empty>,
    ) -> Result<Response<go_plugin::Empty>, Status> {
        if self.ignore {
            tracing::debug!("shutdown requested by the plugin client; debugging, so still serving");
            return Ok(Response::new(go_plugin::Empty {}));
        }
        tracing::debug!("shutdown requested by the plugin client");
        // At once: Terraform waits for the process to exit after every provider instance it
        // closes (several per command), so any delay here is paid in wall time each time.
        // This response still goes out: a graceful shutdown finishes the calls in flight.
        self.shutdown.send_replace(true);
        Ok(Response::new(go_plugin::Empty {}))
    }
}

struct Stdio {
    shutdown: Arc<watch::Sender<bool>>,
}

type StdioStream =
    Pin<Box<dyn Stream<Item = Result<go_plugin::StdioData, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl go_plugin::grpc_stdio_server::GrpcStdio for Stdio {
    type StreamStdioStream = StdioStream;

    /// Guest output goes to the provider log (stderr) instead, so this stream only stays open
    /// until shutdown, which is what the client expects.
    async fn stream_stdio(
        &self,
        _req: Request<()>,
    ) -> Result<Response<Self::StreamStdioStream>, Status> {
        let requested = shutdown_requested(&self.shutdown);
        let stream = futures::stream::once(async move {
            requested.await;
            None
        })
        .filter_map(|item: Option<Result<go_plugin::StdioData, Status>>| async move { item });
        Ok(Response::new(Box::pin(stream)))
    }
}
