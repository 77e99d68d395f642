//! The Python provider (sample-providers/python-hello, CPython inside the component) beside
//! the Rust random sample, both as Terraform runs them: component and package size, the first
//! compile (`tfwasm package` into an empty cache), a packaged start to the handshake, and
//! `terraform apply` of `count` resources with the provider's peak memory. Both resources
//! do the same kind of work: plan computed attributes, create without I/O.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::plugin::{Launch, Plugin};
use crate::stats::{median, ms};
use crate::terraform::{ApplyRun, Provider, Setup, Workload};

/// One provider's figures.
pub struct Side {
    /// `python (pyhello_greeting)` or `rust (random_string)`.
    pub label: &'static str,
    /// The component file.
    pub component_bytes: u64,
    /// The installed package (executable, component, precompiled code).
    pub package_bytes: u64,
    /// `tfwasm package` into an empty compile cache.
    pub first_compile: Duration,
    /// The packaged executable, exec to handshake line (median).
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
    /// Python first, Rust second.
    pub sides: Vec<Side>,
}

/// Measures both components with `terraform` (runs interleaved).
///
/// # Errors
/// A build artifact is missing, or packaging, a start or an apply fails.
pub fn compare(
    tfwasm: &Path,
    components: &Path,
    terraform: &Path,
    work: &Path,
    count: usize,
    runs: usize,
) -> anyhow::Result<PythonReport> {
    let cases = [
        (
            "python (pyhello_greeting)",
            components.join("tfwasm_sample_pyhello.wasm"),
            Workload::greetings(count),
        ),
        (
            "rust (random_string)",
            components.join("tfwasm_sample_random.wasm"),
            Workload::random_strings(count),
        ),
    ];
    let mut sides = Vec::new();
    let mut setups = Vec::new();
    for (i, (label, component, workload)) in cases.into_iter().enumerate() {
        if !component.is_file() {
            bail!("missing {}: run `make build` first", component.display());
        }
        let cache = work.join(format!("python-cache-{i}"));
        let setup = Setup::new(
            &format!("python-cmp-{i}"),
            work,
            terraform,
            Provider::Wasm {
                tfwasm,
                component: &component,
            },
            &workload,
            &cache,
        )?;
        // Setup::new packages and runs `terraform init`; the compile is timed on its own,
        // into a second empty cache.
        let cold = work.join(format!("python-cold-{i}"));
        let first_compile = time_package(tfwasm, &component, workload.provider_type, &cold)?;
        let exe = setup.provider_executable();
        let exe = exe.to_str().context("non-UTF-8 path")?.to_owned();
        let launch = Launch::new(label, &[&exe]).env("TFWASM_CACHE_DIR", cache.to_string_lossy());
        let mut starts = Vec::new();
        let mut idle_rss_kib = 0;
        for _ in 0..10 {
            let plugin = Plugin::start(&launch)?;
            starts.push(plugin.started_in);
            idle_rss_kib = idle_rss_kib.max(plugin.peak_rss_kib());
        }
        sides.push(Side {
            label,
            component_bytes: std::fs::metadata(&component)?.len(),
            package_bytes: setup.package_bytes(),
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
            "\n## Python providers (componentize-py)\n\nsample-providers/python-hello (the Python SDK in guest-sdk/python, CPython inside the component) beside the Rust random sample, both packaged by `tfwasm package` and run by {} as operators run them. `apply` creates {} resources from an empty state (-parallelism=10), median of {} runs, interleaved; peak memory is the largest `VmHWM` of one provider process. First compile is `tfwasm package` into an empty compile cache (the machine code then ships in the package).\n",
            self.client,
            self.count,
            self.sides.first().map_or(0, |s| s.applies.len())
        );
        let _ = writeln!(
            w,
            "| | component | package | first compile | start (exec → handshake) | idle peak RSS | apply | provider peak RSS during apply |\n|---|---|---|---|---|---|---|---|"
        );
        for side in &self.sides {
            let elapsed: Vec<Duration> = side.applies.iter().map(|a| a.elapsed).collect();
            let peak = side
                .applies
                .iter()
                .map(|a| a.provider_peak_kib)
                .max()
                .unwrap_or(0);
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {:.1} MiB | {} | {:.1} MiB |",
                side.label,
                mib(side.component_bytes),
                mib(side.package_bytes),
                ms(side.first_compile),
                ms(side.start),
                side.idle_rss_kib as f64 / 1024.0,
                ms(median(&elapsed)),
                peak as f64 / 1024.0
            );
        }
        s
    }
}
