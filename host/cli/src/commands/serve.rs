//! `tfwasm serve`: the plugin server Terraform talks to.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use tfwasm_contract::Checked;
use tfwasm_runtime::cache;
use tfwasm_runtime::{LoadOptions, WasmProvider};
use tfwasm_wire::handshake::{NOT_A_PLUGIN_MESSAGE, PluginEnv};
use tfwasm_wire::{ServeOptions, serve};
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::hclog::{GuestLog, HclogLayer, log_filter, max_level};
use crate::record::{Recorded, Recorder};
use tfwasm_model::rpc::Handled;

/// Arguments of `tfwasm serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`), or a package's precompiled
    /// `component.cwasm`. Defaults to the `component.cwasm` next to this executable, which
    /// is where `tfwasm package` puts it.
    #[arg(long, value_name = "PATH")]
    component: Option<PathBuf>,
    /// Listen on loopback TCP (in PLUGIN_MIN_PORT..PLUGIN_MAX_PORT) instead of a unix socket.
    #[arg(long)]
    tcp: bool,
    /// Directory of the compiled-component cache [default: $TFWASM_CACHE_DIR, else
    /// $XDG_CACHE_HOME/tfwasm, else ~/.cache/tfwasm]. When a new entry is stored, those
    /// nobody loaded for $TFWASM_CACHE_KEEP_DAYS days (default 30) are removed, then the least
    /// recently used past $TFWASM_CACHE_MAX_GIB GiB (default 4); `never` lifts either bound.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Debug mode, for provider authors: serve until Ctrl-C and print the
    /// `TF_REATTACH_PROVIDERS` value that attaches Terraform, run in another shell, to this
    /// process (plaintext, logs on this terminal at `TF_LOG`'s level, default debug). Attach
    /// a debugger to the printed pid, or read the guest's log lines here.
    #[arg(long)]
    debug: bool,
    /// The provider's source address in debug mode [default:
    /// registry.terraform.io/tfwasm/TYPE, TYPE the prefix its resource and data source type
    /// names share (`random` for `random_string`), else the component's file name].
    #[arg(long, value_name = "ADDRESS", requires = "debug")]
    source: Option<String>,
    /// In debug mode, grants added to the component's settings (tfwasm.toml beside it), as
    /// `tfwasm package` takes them: debug the provider with what its package will grant.
    #[command(
        flatten,
        next_help_heading = "Grants in debug mode (as for tfwasm package)"
    )]
    grants: super::grant_flags::GrantFlags,
}

impl Args {
    /// What Terraform's plain start (no arguments) means.
    pub fn implied() -> Args {
        Args {
            component: None,
            tcp: false,
            cache_dir: None,
            debug: false,
            source: None,
            grants: super::grant_flags::GrantFlags::default(),
        }
    }
}

/// Serves until Terraform shuts the plugin down. Exit code 1 on any start-up failure, with
/// the reason on stderr (Terraform shows it in its error).
pub fn run(args: Args, env: PluginEnv) -> ExitCode {
    // SAFETY: getppid has no preconditions and cannot fail. Read first thing, before the
    // parent has any chance to go away.
    let parent = unsafe { libc::getppid() };
    if !args.debug && !args.grants.is_empty() {
        eprintln!(
            "error: grant flags (--allow-http, --allow-dir, ...) are for --debug; a package takes its grants from its tfwasm.toml (tfwasm package writes them there)"
        );
        return ExitCode::from(2);
    }
    if args.debug {
        return run_debug(args);
    }
    if !env.has_magic_cookie() {
        eprint!("{NOT_A_PLUGIN_MESSAGE}");
        return ExitCode::FAILURE;
    }
    let level = max_level();
    init_logging(level);
    raise_open_file_limit();
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    let served = {
        let _guard = runtime.enter();
        exit_when_orphaned(parent);
        runtime.block_on(serve_component(args, env, level))
    };
    stop(runtime);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("tfwasm: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Raises the soft limit on open files to the hard limit, as Go's runtime does for every Go
/// program: each instance may hold up to 1024 handles (files among them), and the soft
/// limit a plugin inherits (often 1024) would let one guest's open files starve the
/// host's own sockets and journal.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read or write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 || limit.rlim_cur >= limit.rlim_max
        {
            return;
        }
        let before = limit.rlim_cur;
        limit.rlim_cur = limit.rlim_max;
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
            tracing::debug!(
                from = before,
                to = limit.rlim_cur,
                "raised the open file limit"
            );
        }
    }
}

/// How long a stopping server waits for host calls still blocked in the OS.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Stops the runtime without waiting for host I/O that never ends: a guest call past its
/// deadline may have left a blocking thread in `open` on a FIFO or a hung network disk, and
/// dropping the runtime would wait for it forever.
fn stop(runtime: tokio::runtime::Runtime) {
    runtime.shutdown_timeout(STOP_GRACE);
}

async fn serve_component(args: Args, env: PluginEnv, level: tracing::Level) -> anyhow::Result<()> {
    if let Err(message) = env.negotiate() {
        tracing::warn!("{message}");
    }
    ignore_interrupts();
    let (provider, _) = load(args.component, args.cache_dir, level, |_| {})?;
    serve(provider, ServeOptions { env, tcp: args.tcp }).await?;
    Ok(())
}

fn init_logging(level: tracing::Level) {
    let subscriber = tracing_subscriber::registry().with(HclogLayer.with_filter(log_filter(level)));
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// The server's async runtime; a failure to start it is reported on stderr.
fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some(runtime),
        Err(error) => {
            eprintln!("tfwasm: cannot start the async runtime: {error}");
            None
        }
    }
}

/// `tfwasm serve --debug`: logs on the terminal, the reattach value on stdout, until Ctrl-C.
fn run_debug(args: Args) -> ExitCode {
    // Debugging wants detail: TF_LOG's level when set, else debug.
    let level =
        if std::env::var_os("TF_LOG").is_some() || std::env::var_os("TF_LOG_PROVIDER").is_some() {
            max_level()
        } else {
            tracing::Level::DEBUG
        };
    crate::hclog::set_human_readable();
    init_logging(level);
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    let served = runtime.block_on(serve_debugging(args, level));
    stop(runtime);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tfwasm: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_debugging(args: Args, level: tracing::Level) -> anyhow::Result<()> {
    let grants = args.grants;
    let (provider, component) = load(args.component, args.cache_dir, level, |config| {
        grants.add_to(config);
    })?;
    let source = match args.source {
        Some(source) => source,
        None => {
            // Terraform refuses a type name that does not start with the provider's.
            let schema = tfwasm_model::rpc::ProviderServer::get_provider_schema(&provider).await;
            let types = (schema.resources.keys()).chain(schema.data_sources.keys());
            let name = shared_type_prefix(types).unwrap_or_else(|| provider_name(&component));
            format!("registry.terraform.io/tfwasm/{name}")
        }
    };
    // Ctrl-C or SIGTERM (a script's `kill`) both stop the server, which removes its socket.
    let stop = async {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => tracing::info!("interrupted; stopping"),
            () = terminate => tracing::info!("terminated; stopping"),
        }
    };
    tfwasm_wire::serve_debug(
        provider,
        args.tcp,
        |address| {
            let value = tfwasm_wire::handshake::reattach_providers(&source, address, std::process::id());
            println!(
                "tfwasm is serving {} as {source} (pid {}).\n\nTo attach Terraform, run this in the shell you run it from:\n\n    export TF_REATTACH_PROVIDERS='{value}'\n\nCtrl-C stops the provider.",
                component.display(),
                std::process::id()
            );
            // Scripts read the value from stdout as soon as it is there.
            let _ = std::io::Write::flush(&mut std::io::stdout());
        },
        stop,
    )
    .await?;
    Ok(())
}

/// The provider `serve` runs: checked, and recorded when the operator asks for it.
type Served = Handled<Recorded<Checked<WasmProvider>>>;

/// Loads the component (the packaged one by default) with its operator settings, behind
/// the contract checks and the recorder.
fn load(
    component: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    level: tracing::Level,
    adjust: impl FnOnce(&mut crate::config::ProviderConfig),
) -> anyhow::Result<(Served, PathBuf)> {
    let component = component.or_else(crate::packaged_component).ok_or_else(|| {
        anyhow::anyhow!(
            "no provider component: pass --component PATH, or run a package made by `tfwasm package` (component.cwasm beside the executable)"
        )
    })?;
    let (provider, record) = load_checked(&component, cache_dir, level, adjust)?;
    let recorder = record
        .map(|settings| Recorder::start(&settings, &component, &provider_name(&component)))
        .transpose()
        .context("cannot start recording ([record] dir or TFWASM_RECORD)")?;
    Ok((Handled(Recorded::new(provider, recorder)), component))
}

/// Loads `component` with its operator settings (changed by `adjust`, a command's own
/// flags) behind the contract checks; also returns where and how the settings ask calls to
/// be recorded.
pub(crate) fn load_checked(
    component: &Path,
    cache_dir: Option<PathBuf>,
    level: tracing::Level,
    adjust: impl FnOnce(&mut crate::config::ProviderConfig),
) -> anyhow::Result<(Checked<WasmProvider>, Option<crate::record::Settings>)> {
    load_checked_from(component, Trust::Operator, cache_dir, level, adjust)
}

/// Whose a component file (and the directory it is in) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trust {
    /// The operator's: the settings beside it and a package's precompiled code are used.
    Operator,
    /// Named by, or carried in, someone else's recording: compiled here from its bytes in the
    /// sandbox, never loaded as native code, with no settings but `TFWASM_CONFIG`.
    Recording,
}

/// [`load_checked`] for a component of the given [`Trust`].
pub(crate) fn load_checked_from(
    component: &Path,
    trust: Trust,
    cache_dir: Option<PathBuf>,
    level: tracing::Level,
    adjust: impl FnOnce(&mut crate::config::ProviderConfig),
) -> anyhow::Result<(Checked<WasmProvider>, Option<crate::record::Settings>)> {
    let settings = crate::config::load_from(component, trust == Trust::Operator, adjust)?;
    let cache_dir = cache_dir.unwrap_or_else(cache::default_dir);
    // The settings decide the guest's grants; a CA file decides whom its requests trust.
    let protected = (settings.http.ca_files.iter())
        .chain(settings.file.as_ref())
        .map(|file| tfwasm_runtime::host_paths::HostPath {
            what: "a settings file (it decides the guest's grants) or a CA file it names",
            path: file.clone(),
            risk: tfwasm_runtime::host_paths::HOST_CODE,
            fix: "keep the settings (TFWASM_CONFIG) and their files outside every read-write grant",
            contents_run: false,
        })
        .collect();
    let journal = open_journal(
        component,
        settings.journal_beside_state,
        &settings.grants.dirs,
    );
    let options = LoadOptions {
        limits: settings.limits,
        grants: settings.grants,
        cache_dir,
        precompiled: match trust {
            Trust::Operator => crate::packaged_code(component),
            Trust::Recording => None,
        },
        log_sink: Arc::new(GuestLog {
            max_level: crate::hclog::guest_level(level),
        }),
        settings_hint: settings.source,
        display_name: Some(provider_name(component)),
        http: settings.http,
        journal,
        protected,
    };
    let (provider, report) = WasmProvider::load(component, options)?;
    let provider = Checked::new(provider, provider_name(component), settings.mode);
    tracing::debug!(
        component = %component.display(),
        origin = report.origin.as_str(),
        elapsed_ms = report.elapsed.as_millis() as u64,
        "component loaded"
    );
    Ok((provider, settings.record))
}

/// The apply journal for `component` in this working directory: beside the state when the
/// settings say so, else in the account's state directory; without one (no usable
/// directory, or one a read-write grant holds), a warning, and applies are served as before.
/// The grants are checked before the directory is touched: the guest could have planted a
/// symlink anywhere on the way to it.
fn open_journal(
    component: &Path,
    beside_state: bool,
    grants: &[tfwasm_runtime::DirGrant],
) -> Option<tfwasm_runtime::Journal> {
    let root = if beside_state {
        PathBuf::from(crate::config::JOURNAL_BESIDE_STATE_DIR)
    } else {
        tfwasm_runtime::journal::default_root()?
    };
    journal_in(&root, beside_state, component, grants)
}

/// [`open_journal`] under `root`.
fn journal_in(
    root: &Path,
    beside_state: bool,
    component: &Path,
    grants: &[tfwasm_runtime::DirGrant],
) -> Option<tfwasm_runtime::Journal> {
    let setting = if beside_state {
        "use the account's journal: TFWASM_JOURNAL_BESIDE_STATE=0"
    } else {
        "set TFWASM_JOURNAL_DIR outside every grant"
    };
    let dir = if beside_state {
        tfwasm_runtime::Journal::dir_beside_state(root, &provider_name(component))
    } else {
        tfwasm_runtime::Journal::dir_for(root, component)
    };
    // The journal's own folder and every one on the way to it.
    if let Some(grant) = tfwasm_runtime::grants::writable_grant_holding(grants, &dir) {
        tracing::warn!(
            "the apply journal {} lies inside {}, granted read-write to the guest as {}, which could plant symlinks where it is written: objects created by an apply that is killed midway will not be reported ({setting})",
            dir.display(),
            grant.host.display(),
            grant.guest,
        );
        return None;
    }
    tfwasm_runtime::Journal::open_dir(dir)
        .inspect_err(|e| {
            tracing::warn!(
                "{e}: objects created by an apply that is killed midway will not be reported (set {} to use another directory)",
                tfwasm_runtime::journal::JOURNAL_DIR_ENV
            );
        })
        .ok()
}

/// The provider's type name for diagnostics: from the packaged executable's name
/// (`terraform-provider-TYPE_vX.Y.Z`), else the component's file name.
pub(crate) fn provider_name(component: &Path) -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    if let Some(rest) = exe
        .as_deref()
        .and_then(|n| n.strip_prefix("terraform-provider-"))
    {
        return rest.split("_v").next().unwrap_or(rest).to_owned();
    }
    component.file_stem().map_or_else(
        || "provider".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// The provider type every one of `types` starts with (`random` for `random_string` and
/// `random_id`), if they share one.
fn shared_type_prefix<'a>(types: impl Iterator<Item = &'a String>) -> Option<String> {
    let mut shared: Option<&str> = None;
    for name in types {
        let prefix = name.split_once('_').map_or(name.as_str(), |(p, _)| p);
        match shared {
            None => shared = Some(prefix),
            Some(p) if p == prefix => {}
            Some(_) => return None,
        }
    }
    shared.filter(|p| !p.is_empty()).map(str::to_owned)
}

/// How often the server checks that Terraform is still there.
const PARENT_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// Exits when the process that started us goes away. Terraform normally stops its plugins
/// with Shutdown, but if it crashes it leaves them running, holding its output pipes open.
fn exit_when_orphaned(parent: libc::pid_t) {
    if parent <= 1 {
        return;
    }
    // An apply that answers after the client died keeps its journal entry.
    tfwasm_runtime::journal::watch_client(parent);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(PARENT_CHECK_INTERVAL).await;
            // SAFETY: getppid has no preconditions and cannot fail.
            if unsafe { libc::getppid() } != parent {
                tracing::warn!("the plugin client (pid {parent}) is gone; exiting");
                // Stop as SIGTERM does (the socket is removed); exit anyway if that stalls.
                // SAFETY: raise has no memory preconditions.
                unsafe { libc::raise(libc::SIGTERM) };
                tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                std::process::exit(0);
            }
        }
    });
}

/// go-plugin servers ignore SIGINT: Terraform handles Ctrl-C itself and sends StopProvider.
fn ignore_interrupts() {
    if let Ok(mut signals) =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
    {
        tokio::spawn(async move {
            while signals.recv().await.is_some() {
                tracing::debug!("ignoring SIGINT; Terraform stops providers with StopProvider");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    /// The nineteenth hostile pass: with a read-write grant holding the host's own files, a
    /// guest could replace what a later start loads (precompiled code, settings) or plant
    /// symlinks where the host writes. The start is refused, naming both.
    /// The twenty-fourth hostile pass: a guest granted the working directory planted
    /// `.tfwasm-journal -> ../outside`, which resolves outside every grant, and the next
    /// process wrote its journal there. The way to the journal counts, and nothing under it
    /// is touched when a grant holds it.
    #[test]
    fn a_journal_reached_through_a_grant_is_not_used_or_touched() {
        let base = tempfile::tempdir().unwrap();
        let work = base.path().join("work");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink("../outside", work.join(".tfwasm-journal")).unwrap();
        let grants = [tfwasm_runtime::DirGrant {
            host: work.clone(),
            guest: "/work".into(),
            writable: true,
            modes: true,
        }];
        let component = base.path().join("p.wasm");
        assert!(
            super::journal_in(&work.join(".tfwasm-journal"), true, &component, &grants).is_none()
        );
        assert!(super::journal_in(&outside, true, &component, &grants).is_some());
        assert!(super::journal_in(&work.join(".tfwasm-journal"), true, &component, &[]).is_some());
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            0,
            "opening creates nothing until an entry is written"
        );
    }

    /// The debug address names the provider type its resources share: a file name
    /// (`tfwasm_sample_random`, `terraform_provider_acme`) makes an address Terraform refuses.
    #[test]
    fn the_debug_address_takes_the_type_its_resources_share() {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let shared = |list: &[&str]| super::shared_type_prefix(names(list).iter());
        assert_eq!(
            shared(&["random_string", "random_id"]).as_deref(),
            Some("random")
        );
        assert_eq!(shared(&["acme"]).as_deref(), Some("acme"));
        assert_eq!(shared(&["aws_s3", "google_bucket"]), None);
        assert_eq!(shared(&[]), None);
    }

    fn open_file_limit() -> libc::rlimit {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct passed.
        assert_eq!(
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
            0
        );
        limit
    }

    #[test]
    fn the_open_file_limit_is_raised_to_the_hard_limit() {
        let mut limit = open_file_limit();
        // Just below the hard limit, so other tests in this process keep their descriptors.
        limit.rlim_cur = limit.rlim_max - 1;
        // SAFETY: setrlimit only reads the struct passed.
        assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
        super::raise_open_file_limit();
        let raised = open_file_limit();
        assert_eq!(raised.rlim_cur, raised.rlim_max);
    }
}
