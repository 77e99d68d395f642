//! A real REST API for the API benchmark: json-server (npm, installed by
//! `scripts/fetch-json-server.sh`) behind a counting TCP forwarder, so each run reports how
//! many connections a provider opened.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// json-server on a loopback port, answering after a fixed delay; stopped when dropped.
pub struct JsonServer {
    child: Child,
    /// Its port.
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl JsonServer {
    /// Starts `json_server` (the executable) with an empty `items` collection.
    ///
    /// # Errors
    /// It does not start or listen within 30 s.
    pub fn start(json_server: &Path, delay_ms: u32) -> anyhow::Result<JsonServer> {
        Self::with_items(json_server, delay_ms, 0)
    }

    /// Starts `json_server` with `count` objects in `items` (ids `1`..=`count`).
    ///
    /// # Errors
    /// It does not start or listen within 30 s.
    pub fn with_items(
        json_server: &Path,
        delay_ms: u32,
        count: usize,
    ) -> anyhow::Result<JsonServer> {
        let dir = tempfile::tempdir()?;
        let db = dir.path().join("db.json");
        let items: Vec<_> = (1..=count)
            .map(|i| serde_json::json!({ "id": i.to_string(), "name": format!("object-{i}"), "size": i }))
            .collect();
        std::fs::write(&db, serde_json::json!({ "items": items }).to_string())?;
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new(json_server)
            .arg(&db)
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--quiet",
            ])
            .args(["--delay", &delay_ms.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", json_server.display()))?;
        let server = JsonServer {
            child,
            port,
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(30) {
                bail!("json-server did not listen on port {port} within 30 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for JsonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Forwards every connection on its own loopback port to `target`, counting them.
pub struct CountingForwarder {
    /// Its port.
    pub port: u16,
    accepted: Arc<AtomicUsize>,
}

impl CountingForwarder {
    /// Starts forwarding to `127.0.0.1:target` (threads live as long as the process).
    ///
    /// # Errors
    /// No port to listen on.
    pub fn start(target: u16) -> anyhow::Result<CountingForwarder> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let Ok(upstream) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = upstream.set_nodelay(true);
                pipe(&client, &upstream);
                pipe(&upstream, &client);
            }
        });
        Ok(CountingForwarder { port, accepted })
    }

    /// Connections accepted since the last call.
    pub fn take(&self) -> usize {
        self.accepted.swap(0, Ordering::SeqCst)
    }
}

/// Copies `from` to `to` on a thread until either side closes.
fn pipe(from: &TcpStream, to: &TcpStream) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(std::net::Shutdown::Write);
    });
}
