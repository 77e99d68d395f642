//! `tfwasm package`: write a provider package Terraform can install from a filesystem mirror.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use tfwasm_model::rpc::prelude::*;
use tfwasm_runtime::{DiscardLog, LoadOptions, Platform, WasmProvider, cache};

/// Arguments of `tfwasm package`.
///
/// Writes `OUT/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION` (the
/// runner: tfwasm without its compiler) with the component's code beside it, precompiled
/// for the platform's baseline CPU and zstd-compressed (unless `--uncompressed`), as
/// `component.cwasm`, and the settings as `tfwasm.toml`.
/// The `.wasm` itself stays out unless the executable is a full tfwasm (`--runner`), which
/// can compile it when that code cannot be used: the runner cannot, and Terraform hashes
/// every byte of a package at every command. Point Terraform at it with
/// `provider_installation { filesystem_mirror { path = "OUT" } }` and run `terraform init`;
/// no network is needed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`).
    component: PathBuf,
    /// Provider source address, HOST/NAMESPACE/TYPE (e.g. registry.terraform.io/example/random).
    #[arg(long, value_name = "HOST/NAMESPACE/TYPE")]
    source: String,
    /// Provider version, X.Y.Z.
    #[arg(long = "version", id = "provider_version", value_name = "X.Y.Z")]
    provider_version: String,
    /// Also write the package as a zip archive into DIR, in the layout a network mirror
    /// serves (`HOST/NAMESPACE/TYPE/index.json`, `VERSION.json`, the zip) with the
    /// `SHA256SUMS` a private registry takes, and print its `h1:` and `zh:` hashes for
    /// `.terraform.lock.hcl`. Run once per platform (`--platform`, `--runner`) into the
    /// same DIR to list them all.
    #[arg(long, value_name = "DIR")]
    archive: Option<PathBuf>,
    /// With --archive, also make DIR a private registry: sign the version's SHA256SUMS with
    /// this ASCII-armored OpenPGP secret key (passphrase in TFWASM_SIGNING_KEY_PASSPHRASE)
    /// and write the registry protocol's documents (`v1/providers/…`,
    /// `.well-known/terraform.json`); serve DIR over HTTPS at a host's root.
    #[arg(long, value_name = "FILE", requires = "archive")]
    signing_key: Option<PathBuf>,
    /// Mirror directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The platform to package for: linux_amd64 or linux_arm64, from either. Another
    /// platform than this machine's needs its runner (`--runner`;
    /// scripts/build-runner-arm64.sh cross-compiles the arm64 one) [default: this
    /// machine's, e.g. linux_amd64].
    #[arg(long, value_name = "OS_ARCH")]
    platform: Option<String>,
    /// The executable to ship as the provider [default: `tfwasm-runner` beside this tfwasm,
    /// else this tfwasm itself, which is larger (it carries the compiler)].
    #[arg(long, value_name = "PATH")]
    runner: Option<PathBuf>,
    /// Ship this tfwasm, with its compiler, and the component instead of the compiler-less
    /// runner: on a machine whose CPU cannot run the precompiled code (one older than
    /// x86-64-v2, or an emulator offering less), the provider is compiled for that CPU once,
    /// into its compile cache, instead of refusing to start. The package is larger. For
    /// this machine's platform.
    #[arg(long, conflicts_with = "runner")]
    fallback_compiler: bool,
    /// Keep the apply journal (what an apply killed midway had created) in
    /// `.tfwasm-journal/` of Terraform's working directory, beside a local state, instead of
    /// the account's state directory, so a CI runner that keeps its state keeps it too.
    /// Written to tfwasm.toml; TFWASM_JOURNAL_BESIDE_STATE=1/0 overrides it at run time.
    #[arg(long)]
    journal_beside_state: bool,
    /// What a lifecycle-contract violation by this provider becomes: `error` fails the run,
    /// `warn` only reports it (for authors migrating a provider). Written to tfwasm.toml;
    /// TFWASM_CONTRACT_VIOLATIONS overrides it at run time.
    #[arg(long, value_enum, value_name = "MODE", default_value = "error")]
    contract_violations: crate::config::Violations,
    /// Fuel per call (deterministic CPU budget) [default: 10000000000].
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Memory per instance, e.g. 256MiB [default: 256MiB].
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,
    /// Wall-clock deadline per call, e.g. 30s [default: 60s].
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,
    /// Instance strategy: `reuse` an instance whose previous call succeeded (default) or a
    /// `fresh` instance for every call.
    #[arg(long, value_enum, value_name = "STRATEGY")]
    instances: Option<crate::config::Instances>,
    /// Guest calls that run at once; more wait for one to end, which bounds the memory the
    /// provider holds under load [default: 64].
    #[arg(long, value_name = "N")]
    concurrent_calls: Option<usize>,
    /// Ship the precompiled code uncompressed: 3–4× larger (Terraform hashes every byte of
    /// a package at every command), mapped at each start instead of unpacked once into the
    /// compile cache.
    #[arg(long)]
    uncompressed: bool,
    /// What the provider may reach, written to the package's tfwasm.toml.
    #[command(flatten)]
    grants: super::grant_flags::GrantFlags,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (host, namespace, type_name) = parse_source(&args.source)?;
    check_version(&args.provider_version)?;
    let (platform, host_platform) = platforms(args.platform.as_deref())?;
    // Read (and tried) before any work, so a wrong key or passphrase fails first.
    let signing_key = (args.signing_key.as_deref())
        .map(crate::registry::SigningKey::read)
        .transpose()?;
    let runner = Runner::find(
        args.runner.as_deref(),
        platform,
        host_platform,
        args.fallback_compiler,
    )?;
    let mut settings = crate::config::ProviderConfig {
        contracts: crate::config::Contracts {
            violations: args.contract_violations,
        },
        limits: crate::config::LimitsConfig {
            values: crate::config::LimitValues {
                fuel: args.fuel,
                memory: args.memory.clone(),
                timeout: args.timeout.clone(),
            },
            instances: args.instances,
            concurrent_calls: args.concurrent_calls,
            ..Default::default()
        },
        grants: Default::default(),
        http: Default::default(),
        // Recording is switched on where the package runs, not baked in.
        record: Default::default(),
        journal: crate::config::JournalConfig {
            beside_state: args.journal_beside_state.then_some(true),
        },
    };
    args.grants.add_to(&mut settings);
    let resolved = settings.resolve("the tfwasm package flags".into(), Path::new("."))?;
    for out in std::iter::once(&args.out).chain(args.archive.as_ref()) {
        super::refuse_output_in_writable_grants(out, &resolved.grants.dirs)?;
    }
    // Compile for the package now, and load the component from that code, so a broken
    // component (or code this machine cannot run) fails here rather than in the operator's
    // first `terraform plan`.
    let wasm = std::fs::read(&args.component)
        .with_context(|| format!("reading {}", args.component.display()))?;
    let cache_dir = cache::default_dir();
    let compile = |platform| {
        tfwasm_runtime::precompile_portable(
            &wasm,
            &resolved.limits,
            &args.component,
            &cache_dir,
            platform,
        )
    };
    // The check runs this machine's code; another platform's is compiled from the same
    // component with the same settings, for its baseline CPU.
    let host_code = compile(host_platform)?;
    let code = if platform == host_platform {
        host_code.clone()
    } else {
        compile(platform)?
    };
    // The code the package ships: compressed unless asked not to, and checked to unpack to
    // exactly the code (the load below checks the code itself, uncompressed, so it leaves
    // nothing in the compile cache).
    let unpacked_len = code.len();
    let code = match args.uncompressed {
        true => code,
        false => {
            let packed =
                tfwasm_runtime::code::pack(&code).context("compressing the precompiled code")?;
            match tfwasm_runtime::code::unpack(&packed) {
                Ok(unpacked) if unpacked == code => packed,
                Ok(_) => bail!("the compressed precompiled code does not unpack to the code"),
                Err(why) => bail!("the compressed precompiled code does not unpack: {why}"),
            }
        }
    };
    let staged = Staged::write(&host_code, &cache_dir)?;
    // The schema call that checks the package needs none of the grants; run it with none, so
    // the guest cannot reach the output or the compile cache while it is written.
    let options = LoadOptions {
        limits: resolved.limits,
        grants: tfwasm_runtime::Grants::default(),
        cache_dir: cache_dir.clone(),
        precompiled: Some(staged.0.clone()),
        log_sink: Arc::new(DiscardLog),
        settings_hint: crate::config::FILE_NAME.into(),
        display_name: None,
        http: resolved.http,
        journal: None,
        protected: Vec::new(),
    };
    let (provider, report) = WasmProvider::load(&args.component, options)
        .with_context(|| format!("checking {}", args.component.display()))?;
    drop(staged);
    if report.origin != tfwasm_runtime::Origin::Packaged {
        bail!(
            "the code compiled for the package does not load on this machine; if this repeats, remove the compile cache {}",
            cache_dir.display()
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let schema = runtime.block_on(provider.get_provider_schema());
    if let Some(error) = schema.diagnostics.iter().find(|d| d.is_error()) {
        bail!("the component's schema is not usable: {error}");
    }
    let prefix = format!("{type_name}_");
    if let Some(bad) = schema
        .resources
        .keys()
        .chain(schema.data_sources.keys())
        .find(|n| !n.starts_with(&prefix) && **n != type_name)
    {
        bail!(
            "type {bad:?} does not start with {prefix:?}; Terraform would not route it to provider {type_name:?}"
        );
    }

    let dir = args
        .out
        .join(host)
        .join(namespace)
        .join(type_name)
        .join(&args.provider_version)
        .join(platform.name());
    crate::files::create_dirs(&args.out, dir.strip_prefix(&args.out).unwrap_or(&dir))?;
    let binary_name = format!("terraform-provider-{type_name}_v{}", args.provider_version);
    refuse_strays(&dir, &binary_name)?;
    let binary = dir.join(&binary_name);
    copy(&runner.path, &binary)?;
    write(&dir.join(crate::PACKAGED_CODE), &code)?;
    let source = dir.join(crate::PACKAGED_SOURCE);
    if runner.lean {
        // Left by an earlier package of this version made with a full tfwasm.
        if source.is_file() {
            std::fs::remove_file(&source)
                .with_context(|| format!("removing {}", source.display()))?;
        }
    } else {
        write(&source, &wasm)?;
    }
    // The package carries its CA files, so it keeps working when the mirror moves.
    settings.http.ca_files = package_ca_files(&args.grants.ca_files, &dir)?;
    let settings_path = dir.join(crate::config::FILE_NAME);
    write(&settings_path, crate::config::render(&settings)?.as_bytes())?;
    println!("{}", binary.display());
    eprintln!(
        "packaged {} ({} resource types, {} data sources) as {}/{}/{} {} for {platform}",
        args.component.display(),
        schema.resources.len(),
        schema.data_sources.len(),
        host,
        namespace,
        type_name,
        args.provider_version
    );
    eprintln!(
        "  rebuilding under the same version? `tfwasm dev-overrides {}` prints a CLI configuration that runs the newest package with no lock-file check",
        args.out.display()
    );
    eprintln!(
        "  provider executable: {} ({}), precompiled code {}",
        runner.describe(),
        megabytes(std::fs::metadata(&binary).map(|m| m.len()).unwrap_or(0)),
        match args.uncompressed {
            true => megabytes(code.len() as u64),
            false => format!(
                "{} ({} unpacked, once, into the compile cache)",
                megabytes(code.len() as u64),
                megabytes(unpacked_len as u64)
            ),
        },
    );
    if let Some(dist) = &args.archive {
        let release = crate::archive::Release {
            host,
            namespace,
            type_name,
            version: &args.provider_version,
        };
        // Exactly the files this run wrote.
        let mut files = vec![
            binary_name.clone(),
            crate::PACKAGED_CODE.to_owned(),
            crate::config::FILE_NAME.to_owned(),
        ];
        if !runner.lean {
            files.push(crate::PACKAGED_SOURCE.to_owned());
        }
        files.extend(settings.http.ca_files.iter().cloned());
        let archived = crate::archive::archive(&dir, &files, &release, platform.name(), dist)?;
        eprintln!(
            "  archive: {} ({})\n  lock-file hashes for {platform}: \"{}\", \"{}\"",
            archived.file.display(),
            megabytes(
                std::fs::metadata(&archived.file)
                    .map(|m| m.len())
                    .unwrap_or(0)
            ),
            archived.h1,
            archived.zh
        );
        if !archived.earlier.is_empty() {
            eprintln!(
                "  SHA256SUMS also lists archives this run did not make (earlier runs into {}{}): {}",
                dist.display(),
                if signing_key.is_some() {
                    ", signed too"
                } else {
                    ""
                },
                archived.earlier.join(", ")
            );
        }
        if let Some(key) = &signing_key {
            let written = crate::registry::write(dist, &release, key)?;
            eprintln!(
                "  registry: {} signed by key {}; versions at {}",
                written.signature.display(),
                key.key_id,
                written.versions.display()
            );
        }
    }
    Ok(())
}

/// Refuses a package directory holding anything `tfwasm package` does not write there (a
/// file, a directory or a symlink planted by a provider that had a grant around it, which
/// Terraform would install with the package): names it, to be removed by hand.
fn refuse_strays(dir: &Path, binary_name: &str) -> anyhow::Result<()> {
    let ours = [
        binary_name,
        crate::PACKAGED_CODE,
        crate::PACKAGED_SOURCE,
        crate::config::FILE_NAME,
        "ca",
    ];
    let mut strays: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !ours.contains(&name.as_str()))
        .collect();
    let ca = dir.join("ca");
    if std::fs::symlink_metadata(&ca).is_ok_and(|m| !m.is_dir()) {
        strays.push("ca (not a directory)".into());
    }
    if strays.is_empty() {
        return Ok(());
    }
    strays.sort();
    bail!(
        "{} holds files tfwasm package did not write there: {}; remove them (a provider with a read-write grant around this directory could have planted them) and package again",
        dir.display(),
        crate::hclog::escaped(&strays.join(", "))
    )
}

/// The package's code in a temporary file while the component is checked with it: in the
/// compile cache's private directory (this user's, writable by no one else, outside every
/// read-write grant), under a name nobody can guess, never through a symlink. A shared temp
/// directory would let another user, or a guest granted it, swap the native code loaded.
struct Staged(PathBuf);

impl Staged {
    fn write(code: &[u8], cache_dir: &Path) -> anyhow::Result<Staged> {
        tfwasm_runtime::cache::make_private_dir(cache_dir).map_err(|why| {
            anyhow::anyhow!(
                "cannot stage the package's code in {}: {why}",
                cache_dir.display()
            )
        })?;
        let path = cache_dir.join(format!("package-{}.cwasm", std::process::id()));
        crate::files::replace(&path, code, 0o600)?;
        Ok(Staged(path))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // The loaded component maps the file; removing the name keeps the mapping valid.
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The executable a package ships: the compiler-less runner when there is one.
struct Runner {
    path: PathBuf,
    /// False when this tfwasm ships itself (no runner found, or `--fallback-compiler`).
    lean: bool,
    /// `--fallback-compiler` asked for this tfwasm.
    fallback: bool,
}

/// The runner's file name, installed beside `tfwasm`.
const RUNNER_NAME: &str = "tfwasm-runner";

impl Runner {
    fn find(
        explicit: Option<&Path>,
        platform: Platform,
        host: Platform,
        fallback_compiler: bool,
    ) -> anyhow::Result<Runner> {
        if fallback_compiler {
            if platform != host {
                bail!(
                    "--fallback-compiler ships this tfwasm, which runs on {host}, not {platform}: package {platform} with its runner"
                );
            }
            let exe = std::env::current_exe().context("locating the tfwasm executable")?;
            return Ok(Runner {
                path: exe,
                lean: false,
                fallback: true,
            });
        }
        if platform != host {
            let path = explicit.ok_or_else(|| {
                anyhow::anyhow!(
                    "--platform {platform} needs --runner PATH: the tfwasm-runner built for {platform} (scripts/build-runner-arm64.sh cross-compiles it on {host})"
                )
            })?;
            check_foreign_runner(path, platform)?;
            return Ok(Runner {
                path: path.to_owned(),
                lean: true,
                fallback: false,
            });
        }
        let exe = std::env::current_exe().context("locating the tfwasm executable")?;
        let path = match explicit {
            Some(path) => path.to_owned(),
            None => {
                let beside = exe.with_file_name(RUNNER_NAME);
                if !beside.is_file() {
                    return Ok(Runner {
                        path: exe,
                        lean: false,
                        fallback: false,
                    });
                }
                beside
            }
        };
        check_runner_version(&path)?;
        let same = |a: &Path, b: &Path| {
            std::fs::canonicalize(a)
                .ok()
                .is_some_and(|a| std::fs::canonicalize(b).ok() == Some(a))
        };
        let lean = !same(&path, &exe);
        Ok(Runner {
            path,
            lean,
            fallback: false,
        })
    }

    fn describe(&self) -> String {
        if self.lean {
            format!("runner {}", self.path.display())
        } else if self.fallback {
            "this tfwasm, with its compiler and the component (--fallback-compiler)".to_owned()
        } else {
            format!(
                "this tfwasm (no {RUNNER_NAME} beside it; the runner leaves out the compiler and is smaller)"
            )
        }
    }
}

/// A runner for another platform cannot run here: its ELF header says which CPU it is for
/// and the mark it carries ([`crate::RUNNER_VERSION_MARK`]) which tfwasm built it.
fn check_foreign_runner(path: &Path, platform: Platform) -> anyhow::Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let machine = (bytes.len() > 20 && bytes.starts_with(b"\x7fELF"))
        .then(|| u16::from_le_bytes([bytes[18], bytes[19]]));
    if machine != Some(platform.elf_machine()) {
        let what = match machine {
            Some(62) => "an x86-64 executable",
            Some(183) => "an arm64 executable",
            Some(_) => "an executable for another CPU",
            None => "not a Linux (ELF) executable",
        };
        bail!(
            "--runner {} is not an {} executable ({what}): pass the tfwasm-runner built for {platform}",
            path.display(),
            platform.arch()
        );
    }
    let mark = crate::RUNNER_VERSION_MARK.as_bytes();
    if !bytes.windows(mark.len()).any(|w| w == mark) {
        let prefix = b"\ntfwasm-runner-version ";
        let found = bytes
            .windows(prefix.len())
            .position(|w| w == prefix)
            .map(|at| {
                let rest = &bytes[at + prefix.len()..];
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(0).min(32);
                String::from_utf8_lossy(&rest[..end]).into_owned()
            });
        match found {
            Some(version) => bail!(
                "--runner {} is tfwasm-runner {version:?}, not this tfwasm's version ({}): its code would not load",
                path.display(),
                env!("CARGO_PKG_VERSION")
            ),
            None => bail!(
                "--runner {} is not a tfwasm-runner (it carries no version mark)",
                path.display()
            ),
        }
    }
    Ok(())
}

/// A runner from another tfwasm release could not load the code this one compiles.
fn check_runner_version(path: &Path) -> anyhow::Result<()> {
    let output = std::process::Command::new(path)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", path.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.split_whitespace().nth(1).unwrap_or_default();
    if !output.status.success() || version != env!("CARGO_PKG_VERSION") {
        bail!(
            "{} is not a tfwasm runner of this version ({}): it says {:?}",
            path.display(),
            env!("CARGO_PKG_VERSION"),
            text.trim()
        );
    }
    Ok(())
}

/// The platform to package for (`--platform`, else this machine's) and this machine's.
fn platforms(requested: Option<&str>) -> anyhow::Result<(Platform, Platform)> {
    let host = Platform::host().ok_or_else(|| {
        anyhow::anyhow!(
            "tfwasm cannot make packages on {}/{}: packages are made on and for {}",
            std::env::consts::OS,
            std::env::consts::ARCH,
            Platform::names()
        )
    })?;
    let target = match requested {
        None => host,
        Some(name) => Platform::named(name).ok_or_else(|| {
            anyhow::anyhow!(
                "--platform {name:?}: packages can be made for {} (darwin needs a runner built on macOS: README, \"Other platforms\")",
                Platform::names()
            )
        })?,
    };
    Ok((target, host))
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// Copies each CA file to `ca/N-NAME` in the package and returns the paths relative to it.
fn package_ca_files(files: &[PathBuf], dir: &Path) -> anyhow::Result<Vec<String>> {
    let ca_dir = dir.join("ca");
    if ca_dir.exists() {
        // A re-package replaces the old set rather than accumulating files.
        std::fs::remove_dir_all(&ca_dir)
            .with_context(|| format!("removing {}", ca_dir.display()))?;
    }
    if files.is_empty() {
        return Ok(Vec::new());
    }
    crate::files::create_dirs(dir, Path::new("ca"))?;
    files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let name = file
                .file_name()
                .map_or_else(|| "ca.pem".into(), |n| n.to_string_lossy().into_owned());
            let relative = format!("ca/{}-{name}", i + 1);
            copy(file, &dir.join(&relative))?;
            Ok(relative)
        })
        .collect()
}

/// Writes `bytes` to `to` the way [`copy`] does: complete or not at all.
fn write(to: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    crate::files::replace(to, bytes, 0o644)
}

fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    // Replace rather than overwrite in place: Terraform may be running the old binary.
    crate::files::copy(from, to)
}

fn parse_source(source: &str) -> anyhow::Result<(&str, &str, &str)> {
    let parts: Vec<&str> = source.split('/').collect();
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    };
    match parts.as_slice() {
        [host, namespace, type_name] if valid(host) && valid(namespace) && valid(type_name) => {
            if !type_name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            {
                bail!("provider type {type_name:?} must be lowercase letters and digits");
            }
            Ok((host, namespace, type_name))
        }
        _ => bail!(
            "--source {source:?} must be HOST/NAMESPACE/TYPE, e.g. registry.terraform.io/example/random"
        ),
    }
}

fn check_version(version: &str) -> anyhow::Result<()> {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()))
    {
        bail!("--version {version:?} must be a semantic version X.Y.Z");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_must_have_three_parts() {
        assert_eq!(
            parse_source("registry.terraform.io/acme/random").unwrap(),
            ("registry.terraform.io", "acme", "random")
        );
        assert!(parse_source("acme/random").is_err());
        assert!(parse_source("a/b/Random").is_err());
        assert!(parse_source("a//c").is_err());
    }

    /// The twenty-third hostile pass: a symlink planted in the package directory was zipped,
    /// published and signed.
    #[test]
    fn a_package_directory_holding_what_package_does_not_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("component.cwasm"), b"x").unwrap();
        std::fs::write(dir.path().join("terraform-provider-x_v1.0.0"), b"x").unwrap();
        refuse_strays(dir.path(), "terraform-provider-x_v1.0.0").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("NOTICE")).unwrap();
        let error = refuse_strays(dir.path(), "terraform-provider-x_v1.0.0")
            .unwrap_err()
            .to_string();
        assert!(error.contains("NOTICE"), "{error}");
        std::fs::remove_file(dir.path().join("NOTICE")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("ca")).unwrap();
        assert!(refuse_strays(dir.path(), "terraform-provider-x_v1.0.0").is_err());
    }

    #[test]
    fn packages_are_made_for_the_platforms_listed() {
        let (target, host) = platforms(None).unwrap();
        assert_eq!(target, host);
        let (arm, _) = platforms(Some("linux_arm64")).unwrap();
        assert_eq!(arm.name(), "linux_arm64");
        let error = platforms(Some("windows_sparc")).unwrap_err().to_string();
        assert!(error.contains("linux_amd64, linux_arm64"), "{error}");
    }

    #[test]
    fn a_foreign_runner_is_checked_by_its_header_and_mark() {
        let dir = tempfile::tempdir().unwrap();
        let arm = Platform::named("linux_arm64").unwrap();
        let elf = |machine: u16, tail: &[u8]| {
            let mut bytes = b"\x7fELF".to_vec();
            bytes.resize(18, 0);
            bytes.extend_from_slice(&machine.to_le_bytes());
            bytes.resize(64, 0);
            bytes.extend_from_slice(tail);
            bytes
        };
        let write = |name: &str, bytes: Vec<u8>| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let good = write("good", elf(183, crate::RUNNER_VERSION_MARK.as_bytes()));
        check_foreign_runner(&good, arm).unwrap();
        let x86 = write("x86", elf(62, crate::RUNNER_VERSION_MARK.as_bytes()));
        let error = check_foreign_runner(&x86, arm).unwrap_err().to_string();
        assert!(error.contains("an x86-64 executable"), "{error}");
        let old = write("old", elf(183, b"\ntfwasm-runner-version 0.0.9\n"));
        let error = check_foreign_runner(&old, arm).unwrap_err().to_string();
        assert!(error.contains("\"0.0.9\""), "{error}");
        let none = write("none", elf(183, b"just a program"));
        let error = check_foreign_runner(&none, arm).unwrap_err().to_string();
        assert!(error.contains("not a tfwasm-runner"), "{error}");
    }

    #[test]
    fn version_must_be_semver() {
        assert!(check_version("1.2.3").is_ok());
        assert!(check_version("1.2.3-beta.1").is_ok());
        assert!(check_version("1.2").is_err());
        assert!(check_version("v1.2.3").is_err());
    }
}
