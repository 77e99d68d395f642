//! Starting a provider process as Terraform does (plugin environment, handshake line on
//! stdout) and connecting a tfplugin6 client to its unix socket (or loopback TCP), without TLS.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hyper_util::rt::TokioIo;
use tfwasm_wire::proto::tfplugin6 as pb;
use tonic::transport::{Channel, Endpoint};

/// How to start one provider.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Label in reports.
    pub label: String,
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
}

impl Launch {
    /// A launch of `argv` labelled `label`.
    pub fn new(label: &str, argv: &[&str]) -> Launch {
        Launch {
            label: label.to_owned(),
            argv: argv.iter().map(|s| (*s).to_owned()).collect(),
            env: Vec::new(),
        }
    }
    /// With an extra environment variable.
    pub fn env(mut self, key: &str, value: impl Into<String>) -> Launch {
        self.env.push((key.to_owned(), value.into()));
        self
    }
}

/// A running provider process.
pub struct Plugin {
    child: Child,
    /// The handshake line.
    pub handshake: String,
    /// Time from spawn to the handshake line.
    pub started_in: Duration,
}

impl Plugin {
    /// Spawns `launch` and waits for its handshake line.
    ///
    /// # Errors
    /// The process cannot start or exits before the handshake.
    pub fn start(launch: &Launch) -> anyhow::Result<Plugin> {
        let started = Instant::now();
        let mut command = Command::new(&launch.argv[0]);
        command
            .args(&launch.argv[1..])
            .env(
                "TF_PLUGIN_MAGIC_COOKIE",
                tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
            )
            // As Terraform and OpenTofu offer: a protocol-5 provider (hashicorp/random)
            // picks 5, tfwasm 6.
            .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
            .env_remove("PLUGIN_CLIENT_CERT")
            .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        crate::cpus::pin_provider(&mut command);
        let mut child = command
            .spawn()
            .with_context(|| format!("starting {}", launch.argv[0]))?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let started_in = started.elapsed();
        if !line.starts_with("1|6|") && !line.starts_with("1|5|") {
            let _ = child.kill();
            bail!("{}: no handshake line (got {line:?})", launch.label);
        }
        Ok(Plugin {
            child,
            handshake: line.trim().to_owned(),
            started_in,
        })
    }

    /// What the scheduler has counted for the process so far ([`crate::cpus::sched_totals`]).
    pub fn sched_totals(&self) -> Option<crate::cpus::SchedTotals> {
        crate::cpus::sched_totals(self.child.id())
    }

    /// Resident memory high-water mark of the process, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        crate::terraform::vm_hwm_kib(self.child.id())
    }

    /// A client that has fetched the schema and configured the provider with an empty
    /// provider block, as Terraform does before any resource call.
    ///
    /// # Errors
    /// The socket cannot be reached or either call fails.
    pub async fn configured_client(
        &self,
    ) -> anyhow::Result<pb::provider_client::ProviderClient<Channel>> {
        let mut client = self.client().await?;
        client
            .get_provider_schema(pb::get_provider_schema::Request {})
            .await?;
        client
            .configure_provider(pb::configure_provider::Request {
                terraform_version: "bench".into(),
                config: Some(pb::DynamicValue {
                    msgpack: vec![0x80],
                    json: Vec::new(),
                }),
                client_capabilities: None,
            })
            .await?;
        Ok(client)
    }

    /// A tfplugin6 client over the announced address: a unix socket, or TCP on loopback as
    /// servers that offer no unix socket announce (`tf-provider`'s).
    ///
    /// # Errors
    /// The address cannot be reached.
    pub async fn client(&self) -> anyhow::Result<pb::provider_client::ProviderClient<Channel>> {
        Ok(provider_client(self.channel().await?))
    }

    /// Asks a protocol-6 provider for its schema, as Terraform first does, then closes it as
    /// go-plugin's client does when Terraform is done with it (a `GRPCController/Shutdown`
    /// call on the same connection, then hanging up) and waits for the process to exit:
    /// Terraform waits for that too, for every provider process it starts. Returns the time
    /// from the Shutdown call to the exit.
    ///
    /// # Errors
    /// The provider cannot be reached, its schema call fails, the calls take over 10 s, or
    /// the process has not exited within go-plugin's 2 s of Shutdown. The process is killed
    /// then (`Drop`).
    pub async fn shut_down(self) -> anyhow::Result<Duration> {
        let asked = tokio::time::timeout(Duration::from_secs(10), self.ask_to_shut_down())
            .await
            .context("no answer within 10 s")??;
        let pid = self.child.id();
        // Waited for in a blocking thread, not polled: tokio's timer would round each poll
        // up to a millisecond, as long as what is measured.
        let exit = tokio::task::spawn_blocking(move || crate::terraform::wait_without_reaping(pid));
        tokio::time::timeout(Duration::from_secs(2), exit)
            .await
            .context("the process did not exit within 2 s of Shutdown")???;
        Ok(asked.elapsed())
    }

    /// The schema call (protocol 6) and Shutdown, whose answer is not required: go-plugin's
    /// client ignores it, and a Go server stops its gRPC server inside the call, so the
    /// answer may never come. Returns when Shutdown was sent.
    async fn ask_to_shut_down(&self) -> anyhow::Result<Instant> {
        use tfwasm_wire::proto::plugin as go_plugin;
        let channel = self.channel().await?;
        if self.handshake.starts_with("1|6|") {
            provider_client(channel.clone())
                .get_provider_schema(pb::get_provider_schema::Request {})
                .await?;
        }
        let mut controller = go_plugin::grpc_controller_client::GrpcControllerClient::new(channel);
        let sent = Instant::now();
        let _ = controller.shutdown(go_plugin::Empty {}).await;
        Ok(sent)
    }

    /// The network and address of the handshake line.
    fn address(&self) -> (Option<&str>, Option<&str>) {
        let mut fields = self.handshake.split('|').skip(2);
        (fields.next(), fields.next())
    }

    async fn channel(&self) -> anyhow::Result<Channel> {
        let (network, address) = self.address();
        let address = address.context("no address in the handshake line")?;
        let channel = match network {
            Some("tcp") => {
                Endpoint::try_from(format!("http://{address}"))?
                    .tcp_nodelay(true)
                    .connect()
                    .await?
            }
            _ => {
                let path = PathBuf::from(address);
                Endpoint::try_from("http://[::]:50051")?
                    .connect_with_connector(tower::service_fn(move |_| {
                        let path = path.clone();
                        async move {
                            let stream = tokio::net::UnixStream::connect(path).await?;
                            Ok::<_, std::io::Error>(TokioIo::new(stream))
                        }
                    }))
                    .await?
            }
        };
        Ok(channel)
    }
}

/// A tfplugin6 client that takes answers as large as a provider's schema can be.
fn provider_client(channel: Channel) -> pb::provider_client::ProviderClient<Channel> {
    pb::provider_client::ProviderClient::new(channel).max_decoding_message_size(64 << 20)
}

/// A server killed here cannot remove its own socket: the bench does, or every run would
/// leave one in the temporary directory.
impl Drop for Plugin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let (Some("unix"), Some(path)) = self.address() {
            let _ = std::fs::remove_file(path);
        }
    }
}
