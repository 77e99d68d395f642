//! Helpers for tfwasm's end-to-end tests: locating the built artifacts, finding real
//! Terraform/OpenTofu clients, and running them in throwaway workspaces against packaged
//! sample providers.
//!
//! The artifacts come from `make build` (release host, wasm32-wasip2 components); the tests
//! fail with that instruction when they are missing rather than skipping.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

pub mod plugin;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// `path`, when the build made it; else what to tell whoever runs the tests or tools.
pub fn built(path: PathBuf) -> Result<PathBuf, String> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: run `make build` first (CARGO_TARGET_DIR, when set, names the \
             target directory it is looked for in)",
            path.display()
        ))
    }
}

fn require(path: PathBuf) -> PathBuf {
    built(path).unwrap_or_else(|missing| panic!("{missing}"))
}

/// Where the release `tfwasm` binary is built, whether or not it is there yet.
pub fn tfwasm_path() -> PathBuf {
    target_dir().join("release").join("tfwasm")
}

/// The release `tfwasm` binary.
pub fn tfwasm_bin() -> PathBuf {
    require(tfwasm_path())
}

/// The release `tfwasm-runner` (tfwasm without the compiler), which `tfwasm package` ships
/// when it finds it beside `tfwasm`.
pub fn runner_bin() -> PathBuf {
    require(target_dir().join("release").join("tfwasm-runner"))
}

/// The `tfwasm-runner` cross-compiled for linux_arm64 (`scripts/build-runner-arm64.sh`,
/// which `make build` runs).
pub fn arm64_runner_bin() -> PathBuf {
    require(
        target_dir()
            .join("aarch64-unknown-linux-gnu")
            .join("release")
            .join("tfwasm-runner"),
    )
}

/// Debian's `qemu-aarch64` (package qemu-user), which runs arm64 executables here, and the
/// directory holding the arm64 C library they load (package libc6-arm64-cross).
pub fn qemu_aarch64() -> (PathBuf, PathBuf) {
    let qemu = find_on_path("qemu-aarch64")
        .expect("qemu-aarch64 is missing: apt-get install qemu-user (.ci/run does)");
    let sysroot = PathBuf::from("/usr/aarch64-linux-gnu");
    assert!(
        sysroot.join("lib").is_dir(),
        "{} is missing: apt-get install gcc-aarch64-linux-gnu (brings libc6-arm64-cross)",
        sysroot.display()
    );
    (qemu, sysroot)
}

/// Debian's `qemu-x86_64` (package qemu-user): runs this machine's executables on an older
/// CPU model (`-cpu Penryn`: no SSE4.2, no POPCNT), a CPU level this machine lacks.
pub fn qemu_x86_64() -> PathBuf {
    find_on_path("qemu-x86_64")
        .expect("qemu-x86_64 is missing: apt-get install qemu-user (.ci/run does)")
}

/// A sample provider component, e.g. `random`.
pub fn component(sample: &str) -> PathBuf {
    require(
        target_dir()
            .join("wasm32-wasip2")
            .join("release")
            .join(format!("tfwasm_sample_{sample}.wasm")),
    )
}

/// Compile cache shared by every test run, so only the first start compiles.
pub fn cache_dir() -> PathBuf {
    target_dir().join("tfwasm-test-cache")
}

/// A Terraform-compatible client binary.
#[derive(Debug, Clone)]
pub struct Client {
    /// Its version line, e.g. `Terraform v1.0.3`.
    pub name: String,
    /// Path to the binary.
    pub path: PathBuf,
}

impl Client {
    /// `(major, minor, patch)` from the version line (`Terraform v1.11.4`, `OpenTofu v1.9.0`).
    pub fn version(&self) -> (u32, u32, u32) {
        let v = self.name.rsplit('v').next().unwrap_or_default();
        let mut parts = v.split(['.', '-']).map(|p| p.parse().unwrap_or(0));
        (
            parts.next().unwrap_or(0),
            parts.next().unwrap_or(0),
            parts.next().unwrap_or(0),
        )
    }

    /// Whether this is Terraform at least `terraform` or OpenTofu at least `tofu`.
    fn at_least(&self, terraform: (u32, u32, u32), tofu: (u32, u32, u32)) -> bool {
        let needed = if self.name.starts_with("OpenTofu") {
            tofu
        } else {
            terraform
        };
        self.version() >= needed
    }

    /// Provider-defined functions: Terraform >= 1.8, OpenTofu >= 1.7.
    pub fn has_functions(&self) -> bool {
        self.at_least((1, 8, 0), (1, 7, 0))
    }

    /// Ephemeral resources and write-only attributes: Terraform >= 1.11, OpenTofu >= 1.11.
    pub fn has_write_only(&self) -> bool {
        self.at_least((1, 11, 0), (1, 11, 0))
    }

    /// `moved` blocks across resource types (MoveResourceState): Terraform >= 1.8, OpenTofu
    /// >= 1.8.
    pub fn has_cross_type_moves(&self) -> bool {
        self.at_least((1, 8, 0), (1, 8, 0))
    }

    /// Resource identity, `import { identity = {...} }`: Terraform >= 1.12, OpenTofu >= 1.12.
    pub fn has_identity(&self) -> bool {
        self.at_least((1, 12, 0), (1, 12, 0))
    }

    /// GenerateResourceConfig for `plan -generate-config-out`: Terraform >= 1.14; OpenTofu
    /// (to 1.12 at least) generates the configuration itself.
    pub fn has_generate_config(&self) -> bool {
        self.at_least((1, 14, 0), (u32::MAX, 0, 0))
    }

    /// The saved plan's private state sent back when planning during apply
    /// (`store_planned_private`, tfplugin6.11): Terraform >= 1.16.
    pub fn has_saved_plan_private(&self) -> bool {
        self.at_least((1, 16, 0), (u32::MAX, 0, 0))
    }

    /// Computed blocks (`computed_blocks_allowed`, tfplugin6.11): Terraform >= 1.16.
    pub fn has_computed_blocks(&self) -> bool {
        self.at_least((1, 16, 0), (u32::MAX, 0, 0))
    }

    /// `state_store` blocks: Terraform >= 1.15, built with experiments allowed (as
    /// `scripts/fetch-terraform-source.sh` builds it); OpenTofu has none.
    pub fn has_state_stores(&self) -> bool {
        self.at_least((1, 15, 0), (u32::MAX, 0, 0))
    }
}

/// The clients of Terraform >= 1.14 (configuration generation, `terraform query`, actions):
/// never none, so a test of those cannot pass having run nothing.
pub fn clients_of_terraform_1_14() -> Vec<&'static Client> {
    let found: Vec<&Client> = (clients().iter())
        .filter(|c| c.has_generate_config())
        .collect();
    assert!(
        !found.is_empty(),
        "no client of Terraform >= 1.14 (scripts/fetch-terraform-source.sh builds one)"
    );
    found
}

/// An OpenTofu release that added what a test exercises: the test also runs against it, the
/// oldest OpenTofu that has the feature, besides [`clients`].
#[derive(Debug, Clone, Copy)]
pub enum Since {
    /// 1.10: provider-defined functions through `GetFunctions`/`CallFunction`, `moved`
    /// across resource types (MoveResourceState).
    Functions,
    /// 1.11: ephemeral resources, write-only attributes.
    Ephemeral,
}

/// [`clients`] and the oldest OpenTofu with `feature`, built once by
/// `scripts/fetch-opentofu.sh`.
pub fn clients_since(feature: Since) -> Vec<Client> {
    let release = match feature {
        Since::Functions => "1.10",
        Since::Ephemeral => "1.11",
    };
    let mut out = clients().to_vec();
    let path = opentofu(release);
    let name =
        version_line(&path).unwrap_or_else(|| panic!("{} prints no version", path.display()));
    if out.iter().all(|c| c.name != name) {
        out.push(Client { name, path });
    }
    out
}

/// `Terraform v1.0.3` or `OpenTofu v1.12.6`: the line of `version` naming the client (OpenTofu
/// may print a warning about its CLI configuration first).
fn version_line(path: &Path) -> Option<String> {
    let out = Command::new(path)
        .arg("version")
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Terraform v") || l.starts_with("OpenTofu v"))
        .map(str::to_owned)
}

/// A Python interpreter with grpcio (gRPC C-core), fetched and cached by
/// `scripts/fetch-grpcio.sh`: the client most non-Go tooling uses.
pub fn grpcio_python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| fetched("fetch-grpcio.sh")).clone()
}

/// OpenTofu of `release` (a minor such as `1.12`, meaning its newest patch, or an exact
/// version), built once from the Go module proxy by `scripts/fetch-opentofu.sh`.
pub fn opentofu(release: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, path)) = built.iter().find(|(r, _)| r == release) {
        return path.clone();
    }
    let path = fetched_with("fetch-opentofu.sh", &[release]);
    built.push((release.to_owned(), path.clone()));
    path
}

/// Runs `scripts/NAME` (which installs a tool into a cache once) and returns the path it prints.
fn fetched(name: &str) -> PathBuf {
    fetched_with(name, &[])
}

/// [`fetched`] with arguments for the script.
fn fetched_with(name: &str, args: &[&str]) -> PathBuf {
    let script = workspace_root().join("scripts").join(name);
    let out = Command::new("bash")
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run scripts/{name}: {e}"));
    assert!(
        out.status.success(),
        "scripts/{name} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The path is the last line; a script may print progress before it.
    let stdout = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(
        stdout
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .unwrap_or_default(),
    )
}

/// The newest Terraform (1.16), built once from its Go module by
/// `scripts/fetch-terraform-source.sh`.
pub fn terraform_newest() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| fetched_with("fetch-terraform-source.sh", &["1.16"]))
        .clone()
}

/// Every client to test against: Terraform v1.0.3 (fetched and cached by
/// `scripts/fetch-terraform.sh`), the newest Terraform (built once from its Go module by
/// `scripts/fetch-terraform-source.sh`), OpenTofu 1.12 (built once from its Go module by
/// `scripts/fetch-opentofu.sh`), plus a different `tofu` or `terraform` found on PATH.
pub fn clients() -> &'static [Client] {
    static CLIENTS: OnceLock<Vec<Client>> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        let mut clients = Vec::new();
        for path in [
            fetched("fetch-terraform.sh"),
            terraform_newest(),
            opentofu("1.12"),
        ] {
            let name = version_line(&path)
                .unwrap_or_else(|| panic!("{} prints no version", path.display()));
            clients.push(Client { name, path });
        }
        for name in ["tofu", "terraform"] {
            let Some(path) = find_on_path(name) else {
                continue;
            };
            let Some(version) = version_line(&path) else {
                continue;
            };
            if clients.iter().all(|c| c.name != version) {
                clients.push(Client {
                    name: version,
                    path,
                });
            }
        }
        clients
    })
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

/// Every sample provider, packaged as `registry.terraform.io/tfwasm/<name>`.
pub const SAMPLES: &[&str] = &[
    "random",
    "misbehave",
    "hostile",
    "http",
    "restapi",
    "local",
    "policy",
    // sample-providers/hello: the Rust twin of python-hello.
    "hello",
    // sample-providers/python-hello, built by componentize-py (scripts/build-python-sample.sh).
    "pyhello",
    // tests/fixtures/python-fixture, a test fixture built the same way: a call that runs long,
    // private state.
    "pyfixture",
    // sample-providers/go-pets, a terraform-plugin-framework provider built by `tfwasm
    // build-go` (scripts/build-go-samples.sh).
    "gopets",
    // hashicorp/terraform-provider-random itself, its provider package unmodified, built the
    // same way from the Go module proxy.
    "gorandom",
    // tests/fixtures/go-fixture: a framework provider whose call panics, spins, allocates or
    // sleeps on demand.
    "gofixture",
];

/// Files the hostile provider may and may not read: `granted/hello.txt` is inside the
/// directory granted as `/data`, `secret.txt` is beside it, `granted/escape` is a
/// symlink to it and `granted/pipe` a FIFO.
pub fn fixtures() -> PathBuf {
    let dir = target_dir().join("tfwasm-test-fixtures");
    std::fs::create_dir_all(dir.join("granted")).expect("create fixtures");
    std::fs::create_dir_all(dir.join("writable")).expect("create fixtures");
    std::fs::write(dir.join("granted").join("hello.txt"), "hello from the host")
        .expect("write fixture");
    std::fs::write(dir.join("secret.txt"), "must not be readable").expect("write fixture");
    // A symlink inside the granted directory that points out of it.
    let link = dir.join("granted").join("escape");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink("../secret.txt", &link).expect("create symlink fixture");
    }
    // A special file inside the grant: a FIFO nobody writes to, whose open blocks forever.
    let pipe = dir.join("granted").join("pipe");
    if std::fs::symlink_metadata(&pipe).is_err() {
        let path = std::ffi::CString::new(pipe.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path; mkfifo touches nothing else.
        let rc = unsafe { libc::mkfifo(path.as_ptr(), 0o644) };
        assert!(
            rc == 0 || std::io::Error::last_os_error().kind() == std::io::ErrorKind::AlreadyExists,
            "create fifo fixture: {}",
            std::io::Error::last_os_error()
        );
    }
    dir
}

/// The host directory granted to the local sample as `/out` (read-write).
pub fn local_dir() -> PathBuf {
    let dir = target_dir().join("tfwasm-test-fixtures").join("local-out");
    std::fs::create_dir_all(&dir).expect("create the local sample's directory");
    dir
}

/// The host directory granted to go-fixture as `/states` (read-write), where its framework
/// state store keeps Terraform's states.
pub fn go_states_dir() -> PathBuf {
    let dir = target_dir().join("tfwasm-test-fixtures").join("go-states");
    std::fs::create_dir_all(&dir).expect("create go-fixture's state directory");
    dir
}

/// Two loopback HTTP servers for the hostile provider, started once per test process:
/// `(allowed, forbidden)` ports. The allowed one serves `/hello`, `/redirect-in` (to its own
/// `/hello`), `/redirect-out` (to the forbidden server), `/big` (9 MiB) and `/hang` (never
/// answers; how long each client held it open goes to [`hang_held`]); the forbidden one
/// answers everything with a body that must never be seen.
pub fn http_fixture() -> (u16, u16) {
    static PORTS: OnceLock<(u16, u16)> = OnceLock::new();
    *PORTS.get_or_init(|| {
        let forbidden = serve_http(|_, _| (200, None, b"should not be reached".to_vec()));
        let allowed = serve_http(move |path, own| match path {
            "/hello" => (200, None, b"hello over http".to_vec()),
            "/redirect-in" => (
                302,
                Some(format!("http://127.0.0.1:{own}/hello")),
                Vec::new(),
            ),
            "/redirect-out" => (
                302,
                Some(format!("http://127.0.0.1:{forbidden}/secret")),
                Vec::new(),
            ),
            "/big" => (200, None, vec![b'x'; 9 << 20]),
            _ => (404, None, Vec::new()),
        });
        (allowed, forbidden)
    })
}

type Responder = dyn Fn(&str, u16) -> (u16, Option<String>, Vec<u8>) + Send + Sync;

/// How long each request to the fixture's `/hang` was held open before its client closed it.
pub fn hang_held() -> Vec<std::time::Duration> {
    HANG_HELD
        .lock()
        .map(|held| held.clone())
        .unwrap_or_default()
}

static HANG_HELD: std::sync::Mutex<Vec<std::time::Duration>> = std::sync::Mutex::new(Vec::new());

/// A tiny HTTP/1.1 server on 127.0.0.1 answering each request with `respond(path, own port)`.
fn serve_http(
    respond: impl Fn(&str, u16) -> (u16, Option<String>, Vec<u8>) + Send + Sync + 'static,
) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let respond: std::sync::Arc<Responder> = std::sync::Arc::new(respond);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let respond = respond.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    return;
                }
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_owned();
                if path == "/hang" {
                    // Never answer; wait for the client to give up.
                    let started = std::time::Instant::now();
                    let mut rest = Vec::new();
                    let _ = std::io::Read::read_to_end(&mut reader, &mut rest);
                    if let Ok(mut held) = HANG_HELD.lock() {
                        held.push(started.elapsed());
                    }
                    return;
                }
                let (status, location, body) = respond(&path, port);
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                if let Some(location) = location {
                    head.push_str(&format!("location: {location}\r\n"));
                }
                head.push_str("\r\n");
                let mut stream = stream;
                let _ = stream
                    .write_all(head.as_bytes())
                    .and_then(|()| stream.write_all(&body));
            });
        }
    });
    port
}

/// Environment variable granted to the hostile provider in tests.
pub const HOSTILE_GRANTED_ENV: &str = "TFWASM_TEST_GRANTED";
/// Environment variable present but not granted.
pub const HOSTILE_SECRET_ENV: &str = "TFWASM_TEST_SECRET";

/// Extra `tfwasm package` flags per sample: the hostile one runs with tight limits and a
/// few grants, so every attack ends quickly.
pub fn package_flags(sample: &str) -> Vec<String> {
    match sample {
        "hostile" => vec![
            "--fuel".into(),
            "3000000000".into(),
            "--timeout".into(),
            "3s".into(),
            "--memory".into(),
            "128MiB".into(),
            "--allow-dir".into(),
            format!("{}:/data:ro", fixtures().join("granted").display()),
            "--allow-dir".into(),
            format!("{}:/out:rw", fixtures().join("writable").display()),
            "--allow-env".into(),
            HOSTILE_GRANTED_ENV.into(),
            "--allow-http".into(),
            format!("http://127.0.0.1:{}", http_fixture().0),
        ],
        // Small limits, so a spinning or allocating Go call ends soon; fuel to spare, so the
        // deadline is what ends the spinning one.
        "gofixture" => vec![
            "--fuel".into(),
            "1000000000000".into(),
            "--timeout".into(),
            "5s".into(),
            "--memory".into(),
            "128MiB".into(),
            "--allow-http".into(),
            format!("http://127.0.0.1:{}", http_fixture().0),
            // Servers the tests start themselves, by a name other than 127.0.0.1 so the
            // fixture's forbidden port stays ungranted.
            "--allow-http".into(),
            "http://localhost:*".into(),
            "--allow-dir".into(),
            format!("{}:/states:rw", go_states_dir().display()),
        ],
        // Tests start their own servers on loopback ports.
        "http" | "restapi" => vec!["--allow-http".into(), "http://127.0.0.1:*".into()],
        "local" => vec![
            "--allow-dir".into(),
            format!("{}:/out:rw", local_dir().display()),
        ],
        _ => Vec::new(),
    }
}

/// The source address `sample` is packaged as: `registry.terraform.io/tfwasm/<sample>`, except
/// hashicorp/random built as a component (`gorandom`), whose type names are `random_*` like
/// the Rust sample's: `registry.terraform.io/tfwasm-go/random`.
pub fn source(sample: &str) -> String {
    match sample {
        "gorandom" => "registry.terraform.io/tfwasm-go/random".to_owned(),
        _ => format!("registry.terraform.io/tfwasm/{sample}"),
    }
}

/// `tfwasm package`s `sample` as [`source`]`(sample)` 0.1.0 into the
/// mirror at `dir`, with extra flags, through the tests' compile cache.
pub fn package_into(dir: &Path, sample: &str, flags: &[impl AsRef<std::ffi::OsStr>]) {
    let out = Command::new(tfwasm_bin())
        .arg("package")
        .arg(component(sample))
        .args(["--source", &source(sample), "--version", "0.1.0", "--out"])
        .arg(dir)
        .args(flags)
        .env("TFWASM_CACHE_DIR", cache_dir())
        .output()
        .expect("run tfwasm package");
    assert!(
        out.status.success(),
        "tfwasm package failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A filesystem mirror holding every sample provider, packaged once per test process.
fn mirror() -> &'static Path {
    static MIRROR: OnceLock<tempfile::TempDir> = OnceLock::new();
    MIRROR
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            for sample in SAMPLES {
                package_into(dir.path(), sample, &package_flags(sample));
            }
            dir
        })
        .path()
}

/// Terraform's output with the diagnostic box drawing removed and all whitespace collapsed,
/// so assertions do not depend on where Terraform wraps lines.
pub fn flatten(text: &str) -> String {
    text.replace(['│', '╷', '╵'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Longest a single Terraform command may run in a test.
pub const COMMAND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// A throwaway Terraform working directory wired to the sample mirror.
pub struct Workspace {
    dir: tempfile::TempDir,
    client: Client,
}

/// What a Terraform command printed.
#[derive(Debug)]
pub struct Run {
    /// Exit status code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// A client command still running (see [`Workspace::start`]).
pub struct Started {
    child: std::process::Child,
    out_path: PathBuf,
    err_path: PathBuf,
    started: std::time::Instant,
}

impl Started {
    /// The client's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the client (killing it after [`COMMAND_TIMEOUT`]) and collects its output.
    ///
    /// Output goes to files rather than pipes, so a provider process left behind by a
    /// crashing client cannot block the test.
    pub fn wait(mut self) -> Run {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for terraform") {
                break Some(status);
            }
            if self.started.elapsed() > COMMAND_TIMEOUT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut run = Run {
            code: status.and_then(|s| s.code()).unwrap_or(-1),
            stdout: std::fs::read_to_string(&self.out_path).unwrap_or_default(),
            stderr: std::fs::read_to_string(&self.err_path).unwrap_or_default(),
        };
        if status.is_none() {
            run.stderr.push_str(&format!(
                "\n[test harness: killed after {COMMAND_TIMEOUT:?}]"
            ));
        }
        run
    }
}

/// Every process descending from `root`, from `/proc`.
pub fn descendants(root: u32) -> Vec<u32> {
    let parent = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name in parentheses may hold spaces; the ppid follows its end.
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter_map(|pid| Some((pid, parent(pid)?)))
                .collect()
        })
        .unwrap_or_default();
    let mut family = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, ppid) in &all {
            if family.contains(ppid) && !family.contains(pid) {
                family.push(*pid);
                grew = true;
            }
        }
    }
    family.retain(|pid| *pid != root);
    family
}

/// The provider plugins a client process runs, found among its descendants in `/proc` by
/// their executable name (`terraform-provider-…`). Descendants, not children: Terraform
/// 1.0 runs itself under a panic-catching parent process.
pub fn providers_of(client: u32) -> Vec<u32> {
    let is_provider = |pid: &u32| {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmd| {
            let argv0 = cmd.split(|b| *b == 0).next().unwrap_or_default();
            let name = argv0.rsplit(|b| *b == b'/').next().unwrap_or_default();
            name.starts_with(b"terraform-provider-")
        })
    };
    descendants(client)
        .into_iter()
        .filter(is_provider)
        .collect()
}

impl Run {
    /// Both streams, for assertions and failure messages.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

impl Workspace {
    /// A new workspace for `client` with `main.tf` set to `config`.
    pub fn new(client: &Client, config: &str) -> Workspace {
        Workspace::with_mirror(client, config, mirror())
    }

    /// A new workspace installing providers from `mirror` (one a test packaged itself, e.g.
    /// with flags of its own) instead of the shared one.
    pub fn with_mirror(client: &Client, config: &str, mirror: &Path) -> Workspace {
        let dir = tempfile::tempdir().expect("temp dir");
        let rc = format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
            mirror.display().to_string()
        );
        std::fs::write(dir.path().join("cli.tfrc"), rc).expect("write cli.tfrc");
        let ws = Workspace {
            dir,
            client: client.clone(),
        };
        ws.write_config(config);
        ws
    }

    /// The workspace directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Replaces `main.tf`.
    pub fn write_config(&self, config: &str) {
        std::fs::write(self.dir.path().join("main.tf"), config).expect("write main.tf");
    }

    /// Runs the client with `args` in the workspace.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    /// Runs the client with `args` and extra environment variables.
    ///
    /// Output goes to files rather than pipes, so a provider process left behind by a
    /// crashing client cannot block the test, and the client is killed after
    /// [`COMMAND_TIMEOUT`].
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.start(args, env).wait()
    }

    /// Starts the client with `args` and extra environment variables, for a test that acts
    /// while it runs; [`Started::wait`] collects it as [`Workspace::run_with_env`] does.
    pub fn start(&self, args: &[&str], env: &[(&str, &str)]) -> Started {
        let out_path = self.dir.path().join(".stdout");
        let err_path = self.dir.path().join(".stderr");
        let stdout = std::fs::File::create(&out_path).expect("create stdout file");
        let stderr = std::fs::File::create(&err_path).expect("create stderr file");
        let child = Command::new(&self.client.path)
            .args(args)
            .current_dir(self.dir.path())
            .env("TF_CLI_CONFIG_FILE", self.dir.path().join("cli.tfrc"))
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("CHECKPOINT_DISABLE", "1")
            .env("NO_COLOR", "1")
            .env("TFWASM_CACHE_DIR", cache_dir())
            .env("TFWASM_JOURNAL_DIR", self.journal_dir())
            .env_remove("TF_LOG")
            .env_remove("TF_LOG_PROVIDER")
            .env_remove("TF_CLI_ARGS")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("run terraform");
        Started {
            child,
            out_path,
            err_path,
            started: std::time::Instant::now(),
        }
    }

    /// Where providers run in this workspace keep their apply journal.
    pub fn journal_dir(&self) -> PathBuf {
        self.dir.path().join(".journal")
    }

    /// Runs the client and asserts success.
    #[track_caller]
    pub fn ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert_eq!(
            run.code,
            0,
            "{} {:?} failed:\n{}",
            self.client.name,
            args,
            run.all()
        );
        run
    }

    /// `terraform show -json` of the state (or of a saved plan file).
    #[track_caller]
    pub fn show_json(&self, plan_file: Option<&str>) -> Value {
        let mut args = vec!["show", "-json", "-no-color"];
        args.extend(plan_file);
        let run = self.ok(&args);
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("show -json is not JSON ({e}): {}", run.stdout))
    }

    /// Managed resources in the state by address.
    #[track_caller]
    pub fn resources(&self) -> std::collections::BTreeMap<String, Value> {
        let state = self.show_json(None);
        let mut out = std::collections::BTreeMap::new();
        if let Some(list) = state
            .pointer("/values/root_module/resources")
            .and_then(Value::as_array)
        {
            for r in list {
                out.insert(
                    r["address"].as_str().unwrap_or_default().to_owned(),
                    r["values"].clone(),
                );
            }
        }
        out
    }
}

/// A real json-server (npm `json-server@0.17.4`, installed by `scripts/fetch-json-server.sh`)
/// on a loopback port, serving a copy of `db`; stopped when dropped (or when the test thread
/// that started it ends).
pub struct JsonServer {
    child: std::process::Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The database file it reads and writes.
    pub db: PathBuf,
    _dir: tempfile::TempDir,
}

impl JsonServer {
    /// Starts one with `db` (a JSON object of collections), answering after `delay_ms`.
    pub fn start(db: &Value, delay_ms: u32) -> JsonServer {
        static BIN: OnceLock<PathBuf> = OnceLock::new();
        let bin = BIN.get_or_init(|| {
            let out = Command::new("bash")
                .arg(
                    workspace_root()
                        .join("scripts")
                        .join("fetch-json-server.sh"),
                )
                .output()
                .expect("run scripts/fetch-json-server.sh");
            assert!(
                out.status.success(),
                "scripts/fetch-json-server.sh failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        });
        let dir = tempfile::tempdir().expect("temp dir");
        let db_path = dir.path().join("db.json");
        std::fs::write(&db_path, serde_json::to_vec_pretty(db).unwrap()).expect("write db");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = std::fs::File::create(dir.path().join("json-server.log")).expect("log file");
        let mut cmd = Command::new(bin);
        cmd.arg(&db_path)
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--quiet",
            ])
            .args(["--delay", &delay_ms.to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log);
        // SAFETY: prctl is async-signal-safe; it only asks for SIGKILL when this thread ends.
        unsafe {
            use std::os::unix::process::CommandExt as _;
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start json-server");
        let server = JsonServer {
            child,
            port,
            db: db_path,
            _dir: dir,
        };
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "json-server did not listen on {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The database as json-server has it now.
    pub fn db(&self) -> Value {
        serde_json::from_slice(&std::fs::read(&self.db).expect("read db")).expect("db is JSON")
    }

    /// Sends `METHOD path` with an optional JSON body behind Terraform's back and returns the
    /// status and body (a change made on the server, as another client would make it).
    pub fn send(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
        use std::io::{Read as _, Write as _};
        let body = body
            .map(|b| serde_json::to_string(b).unwrap())
            .unwrap_or_default();
        let mut stream =
            std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect to json-server");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).expect("read reply");
        let status = reply
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        let body = reply
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }
}

impl Drop for JsonServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
