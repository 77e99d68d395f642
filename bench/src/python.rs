//! Python providers, side by side as Terraform runs them: the greeting provider written with
//! tfwasm's Python SDK (sample-providers/python-hello, CPython inside the component), its
//! Rust twin (sample-providers/hello) and the same provider written with pyvider
//! (bench/pyvider-hello, PyPI's Python tfplugin6 framework, run natively from its
//! virtualenv by a launcher in the style of `pyvider install`). Measured: what is installed,
//! the first compile (`tfwasm package` into an empty cache), a start to the handshake, and
//! `terraform apply` of `count` greetings with the provider's peak memory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::plugin::{Launch, Plugin};
use crate::stats::{median, ms};
use crate::terraform::{ApplyRun, Provider, Setup, Workload};

/// One provider's figures.
pub struct Side {
    /// `tfwasm, Python SDK (pyhello)` and so on; pyvider's names its installed version.
    pub label: String,
    /// The component file; none for a native provider.
    pub component_bytes: Option<u64>,
    /// What is installed: the package (executable, component, precompiled code), or for
    /// pyvider the launcher and the virtualenv it runs.
    pub installed_bytes: u64,
    /// `tfwasm package` into an empty compile cache; none for a native provider.
    pub first_compile: Option<Duration>,
    /// The installed executable, exec to handshake line (median).
    pub start: Duration,
    /// Peak RSS of a started provider that served nothing yet, KiB.
    pub idle_rss_kib: u64,
    /// `terraform apply` from an empty state, one per run.
    pub applies: Vec<ApplyRun>,
}

/// The comparison.
pub struct PythonReport {
    /// Terraform's version line.
    pub client: String,
    /// Resources per apply.
    pub count: usize,
    /// tfwasm Python, tfwasm Rust, then pyvider when it was given.
    pub sides: Vec<Side>,
}

/// How one side is installed.
enum Install {
    Component(PathBuf),
    /// A launcher script, and the virtualenv it runs (counted as installed).
    Native {
        launcher: PathBuf,
        venv: PathBuf,
    },
}

/// Measures the providers with `terraform` (runs interleaved). `pyvider` is the `pyvider`
/// executable of a virtualenv where bench/pyvider-hello is installed
/// (`scripts/fetch-pyvider.sh`); without it, that side is left out.
///
/// # Errors
/// A build artifact is missing, or packaging, a start or an apply fails.
pub fn compare(
    tfwasm: &Path,
    components: &Path,
    pyvider: Option<&Path>,
    terraform: &Path,
    work: &Path,
    count: usize,
    runs: usize,
) -> anyhow::Result<PythonReport> {
    let mut cases = vec![
        (
            "tfwasm, Python SDK (pyhello)".to_owned(),
            Install::Component(components.join("tfwasm_sample_pyhello.wasm")),
            Workload::greetings("pyhello", count),
        ),
        (
            "tfwasm, Rust SDK (hello)".to_owned(),
            Install::Component(components.join("tfwasm_sample_hello.wasm")),
            Workload::greetings("hello", count),
        ),
    ];
    if let Some(pyvider) = pyvider {
        let venv = pyvider_venv(pyvider)?;
        cases.push((
            format!("pyvider {}, native (pyhello)", pyvider_version(&venv)?),
            pyvider_launcher(venv, work)?,
            Workload::greetings("pyhello", count),
        ));
    }
    let mut sides = Vec::new();
    let mut setups = Vec::new();
    for (i, (label, install, workload)) in cases.into_iter().enumerate() {
        let cache = work.join(format!("python-cache-{i}"));
        let provider = match &install {
            Install::Component(component) => {
                if !component.is_file() {
                    bail!("missing {}: run `make build` first", component.display());
                }
                Provider::Wasm { tfwasm, component }
            }
            Install::Native { launcher, .. } => Provider::Native(launcher),
        };
        let mut setup = Setup::new(
            &format!("python-cmp-{i}"),
            work,
            terraform,
            provider,
            &workload,
            &cache,
        )?;
        setup.sample_pss = true;
        let (component_bytes, first_compile, installed_bytes) = match &install {
            Install::Component(component) => {
                // Setup::new packaged into `cache`; the compile is timed on its own, into a
                // second empty cache.
                let cold = work.join(format!("python-cold-{i}"));
                let compile = time_package(tfwasm, component, workload.provider_type, &cold)?;
                (
                    Some(std::fs::metadata(component)?.len()),
                    Some(compile),
                    setup.package_bytes(),
                )
            }
            Install::Native { venv, .. } => (None, None, setup.package_bytes() + tree_bytes(venv)),
        };
        let exe = setup.provider_executable();
        let exe = exe.to_str().context("non-UTF-8 path")?.to_owned();
        let launch = Launch::new(&label, &[&exe]).env("TFWASM_CACHE_DIR", cache.to_string_lossy());
        let mut starts = Vec::new();
        let mut idle_rss_kib = 0;
        for _ in 0..10 {
            let plugin = Plugin::start(&launch)?;
            starts.push(plugin.started_in);
            idle_rss_kib = idle_rss_kib.max(plugin.peak_rss_kib());
        }
        sides.push(Side {
            label,
            component_bytes,
            installed_bytes,
            first_compile,
            start: median(&starts),
            idle_rss_kib,
            applies: Vec::new(),
        });
        setups.push(setup);
    }
    for _ in 0..runs {
        for (side, setup) in sides.iter_mut().zip(&setups) {
            side.applies.push(setup.apply(10)?);
        }
    }
    Ok(PythonReport {
        client: setups[0].version(),
        count,
        sides,
    })
}

/// The virtualenv the `pyvider` executable was installed into (it sits in its `bin/`).
fn pyvider_venv(pyvider: &Path) -> anyhow::Result<PathBuf> {
    let pyvider = pyvider
        .canonicalize()
        .with_context(|| format!("pyvider at {}", pyvider.display()))?;
    Ok(pyvider
        .parent()
        .and_then(Path::parent)
        .context("pyvider is not in a virtualenv's bin/")?
        .to_owned())
}

/// Writes the launcher Terraform starts for the pyvider provider: what `pyvider install`
/// writes in development mode (the virtualenv's `pyvider`, told that a wrapper started it),
/// minus its checks.
fn pyvider_launcher(venv: PathBuf, work: &Path) -> anyhow::Result<Install> {
    let launcher = work.join("terraform-provider-pyhello-pyvider");
    std::fs::write(
        &launcher,
        format!(
            "#!/bin/bash\nexport PLUGIN_MAGIC_COOKIE_VALUE=\"$TF_PLUGIN_MAGIC_COOKIE\"\nexec {:?} provide \"$@\"\n",
            venv.join("bin/pyvider").display().to_string()
        ),
    )?;
    let mut permissions = std::fs::metadata(&launcher)?.permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&launcher, permissions)?;
    Ok(Install::Native { launcher, venv })
}

/// The version of pyvider installed in `venv`, as its metadata says.
fn pyvider_version(venv: &Path) -> anyhow::Result<String> {
    let python = venv.join("bin/python3");
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('pyvider'))",
        ])
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !out.status.success() {
        bail!(
            "cannot read pyvider's version: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Bytes of every regular file under `dir` (symbolic links not followed).
fn tree_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .map(|(path, kind)| {
            if kind.is_dir() {
                tree_bytes(&path)
            } else if kind.is_file() {
                std::fs::metadata(&path).map_or(0, |m| m.len())
            } else {
                0
            }
        })
        .sum()
}

fn time_package(
    tfwasm: &Path,
    component: &Path,
    provider_type: &str,
    dir: &Path,
) -> anyhow::Result<Duration> {
    let source = format!("registry.terraform.io/tfwasm/{provider_type}");
    let started = Instant::now();
    let out = std::process::Command::new(tfwasm)
        .arg("package")
        .arg(component)
        .args(["--source", &source, "--version", "0.1.0", "--out"])
        .arg(dir.join("mirror"))
        .env("TFWASM_CACHE_DIR", dir.join("cache"))
        .output()?;
    if !out.status.success() {
        bail!(
            "tfwasm package failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(started.elapsed())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

impl PythonReport {
    /// The report's markdown section.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let w = &mut s;
        let _ = writeln!(
            w,
            "\n## Python providers (componentize-py)\n\nOne greeting provider three ways: with tfwasm's Python SDK (sample-providers/python-hello, CPython inside the component), its Rust twin (sample-providers/hello), both packaged by `tfwasm package`, and written with pyvider (bench/pyvider-hello; PyPI's Python tfplugin6 framework, run natively from its virtualenv by a launcher like the one `pyvider install` writes). All run by {} as operators run them. `apply` creates {} greetings from an empty state (-parallelism=10), median of {} runs, interleaved; peak RSS is the largest `VmHWM` of one provider process, which counts the file-backed pages of mapped machine code and heap images (shared with the page cache); PSS is the largest proportional set size, which counts such a page once however many mappings share it (tfwasm maps a component's heap image once per instance slot, and RSS counts it in each); private memory is the largest `RssAnon`, the memory the process alone holds. Installed is the package as Terraform installs it (for pyvider, with the virtualenv it runs, but not the system Python the virtualenv links to; tfwasm's package carries its CPython inside the component). First compile is `tfwasm package` into an empty compile cache (the machine code then ships in the package). Start is exec to the handshake line, without AutoMTLS, median of 10.\n",
            self.client,
            self.count,
            self.sides.first().map_or(0, |s| s.applies.len())
        );
        let _ = writeln!(
            w,
            "| | component | installed | first compile | start | idle peak RSS | apply | during apply: peak RSS | PSS | private memory |\n|---|---|---|---|---|---|---|---|---|---|"
        );
        for side in &self.sides {
            let elapsed: Vec<Duration> = side.applies.iter().map(|a| a.elapsed).collect();
            let most = |of: fn(&ApplyRun) -> u64| {
                side.applies.iter().map(of).max().unwrap_or(0) as f64 / 1024.0
            };
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {:.1} MiB | {} | {:.1} MiB | {:.1} MiB | {:.1} MiB |",
                side.label,
                side.component_bytes.map_or("—".into(), mib),
                mib(side.installed_bytes),
                side.first_compile.map_or("—".into(), ms),
                ms(side.start),
                side.idle_rss_kib as f64 / 1024.0,
                ms(median(&elapsed)),
                most(|a| a.provider_peak_kib),
                most(|a| a.provider_pss_kib),
                most(|a| a.provider_anon_kib)
            );
        }
        if let (Some(ours), Some(pyvider)) = (self.sides.first(), self.sides.get(2)) {
            let apply =
                |side: &Side| median(&side.applies.iter().map(|a| a.elapsed).collect::<Vec<_>>());
            let most = |side: &Side, of: fn(&ApplyRun) -> u64| {
                side.applies.iter().map(of).max().unwrap_or(0).max(1) as f64
            };
            let _ = writeln!(
                w,
                "\ntfwasm Python / pyvider: start {:.2}×, idle peak RSS {:.2}×, apply {:.2}×, during apply peak RSS {:.2}×, PSS {:.2}×, private memory {:.2}× (below 1 is tfwasm ahead).",
                ours.start.as_secs_f64() / pyvider.start.as_secs_f64().max(1e-9),
                ours.idle_rss_kib as f64 / pyvider.idle_rss_kib.max(1) as f64,
                apply(ours).as_secs_f64() / apply(pyvider).as_secs_f64().max(1e-9),
                most(ours, |a| a.provider_peak_kib) / most(pyvider, |a| a.provider_peak_kib),
                most(ours, |a| a.provider_pss_kib) / most(pyvider, |a| a.provider_pss_kib),
                most(ours, |a| a.provider_anon_kib) / most(pyvider, |a| a.provider_anon_kib)
            );
        }
        s
    }
}
