//! Terraform applies and refreshing plans of many resources against a provider in a
//! filesystem mirror, timed, with the provider processes' peak memory sampled from `/proc`
//! while they run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// A `/proc/<pid>/status` field in KiB; 0 when unreadable.
fn status_kib(pid: u32, field: &str) -> u64 {
    proc_kib(pid, "status", field)
}

/// A field in KiB of `/proc/<pid>/<file>` (`field` with its colon, `VmHWM:`); 0 when
/// unreadable.
fn proc_kib(pid: u32, file: &str, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/{file}"))
        .ok()
        .and_then(|listing| proc_field(&listing, field.trim_end_matches(':')))
        .unwrap_or(0)
}

/// The whole number that follows `name` in a `/proc` listing of `name: value [unit]` lines,
/// with or without spaces before the colon (`status`, `smaps_rollup`, `sched`).
pub(crate) fn proc_field(listing: &str, name: &str) -> Option<u64> {
    listing.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == name).then(|| value.split_whitespace().next()?.parse().ok())?
    })
}

/// `VmHWM` (peak resident set, file-backed code pages included) of process `pid`, in KiB.
pub fn vm_hwm_kib(pid: u32) -> u64 {
    status_kib(pid, "VmHWM:")
}

/// `VmRSS` (resident memory now) of process `pid`, in KiB.
pub fn vm_rss_kib(pid: u32) -> u64 {
    status_kib(pid, "VmRSS:")
}

/// `Pss` (resident memory now, each page divided among the mappings sharing it) of process
/// `pid`, in KiB. Unlike RSS it counts a file page once however often it is mapped: a
/// component's heap image is mapped once per instance slot, and RSS counts it in each.
pub fn pss_kib(pid: u32) -> u64 {
    proc_kib(pid, "smaps_rollup", "Pss:")
}

/// `RssAnon` (resident private memory now, without mapped files) of process `pid`, in KiB.
pub fn rss_anon_kib(pid: u32) -> u64 {
    status_kib(pid, "RssAnon:")
}

/// Terraform's provider processes: every process descending from `root` (a Python
/// provider's command is `pyvider` or `python3`, so not by name) that has left the client's
/// image.
fn descendants(root: u32) -> Vec<u32> {
    let mut family = tfwasm_tests::descendants(root);
    // A child between Go's fork and exec still runs Terraform's image and shows Terraform's
    // memory; only processes that have become something else are providers.
    let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let client = exe(root);
    family.retain(|pid| exe(*pid) != client);
    family
}

/// A provider laid out in a filesystem mirror, and a workspace using it.
pub struct Setup {
    /// Label in reports.
    pub label: String,
    /// The Terraform working directory.
    pub dir: PathBuf,
    terraform: PathBuf,
    cache_dir: PathBuf,
    provider_type: &'static str,
    /// Also sample the providers' PSS (see [`pss_kib`]). Off by default: reading
    /// `smaps_rollup` walks the whole address space, many GiB reserved for tfwasm's instance
    /// pool, and would cost tfwasm more than a native baseline on a shared CPU.
    pub sample_pss: bool,
}

/// What a setup's configuration creates, and with which provider.
pub struct Workload {
    /// The provider type (`random`, `restapi`), installed as `registry.terraform.io/tfwasm/TYPE`.
    pub provider_type: &'static str,
    /// `main.tf` without the `terraform` block.
    pub config: String,
    /// Extra `tfwasm package` flags (grants).
    pub package_flags: Vec<String>,
}

impl Workload {
    /// `count` `random_string`s of length 16.
    pub fn random_strings(count: usize) -> Workload {
        Workload {
            provider_type: "random",
            config: format!(
                "resource \"random_string\" \"s\" {{\n  count  = {count}\n  length = 16\n}}\n"
            ),
            package_flags: Vec::new(),
        }
    }

    /// `count` `TYPE_greeting`s (the greeting samples: `pyhello` in Python, `hello` in
    /// Rust), each rendering its own name.
    pub fn greetings(provider_type: &'static str, count: usize) -> Workload {
        Workload {
            provider_type,
            config: format!(
                "resource \"{provider_type}_greeting\" \"g\" {{\n  count = {count}\n  name  = \"g-${{count.index}}\"\n}}\n"
            ),
            package_flags: Vec::new(),
        }
    }

    /// `count` `restapi_object`s under `/items` of the API at `uri` (granted to tfwasm).
    pub fn restapi_objects(count: usize, uri: &str) -> Workload {
        Workload {
            provider_type: "restapi",
            config: format!(
                "provider \"restapi\" {{\n  uri                   = \"{uri}\"\n  create_returns_object = true\n}}\n\
                 resource \"restapi_object\" \"o\" {{\n  count = {count}\n  path  = \"/items\"\n  data  = jsonencode({{ name = \"object-${{count.index}}\", size = count.index }})\n}}\n"
            ),
            package_flags: vec!["--allow-http".into(), uri.to_owned()],
        }
    }

    /// Only a `restapi` provider block for the API at `uri` (granted to tfwasm), for
    /// workloads that are queries rather than resources.
    pub fn restapi_provider(uri: &str) -> Workload {
        Workload {
            provider_type: "restapi",
            config: format!("provider \"restapi\" {{\n  uri = \"{uri}\"\n}}\n"),
            package_flags: vec!["--allow-http".into(), uri.to_owned()],
        }
    }

    fn source(&self) -> String {
        format!("registry.terraform.io/tfwasm/{}", self.provider_type)
    }
}

/// One timed Terraform command (apply or plan).
#[derive(Debug, Clone, Copy)]
pub struct ApplyRun {
    /// Wall-clock time of the command.
    pub elapsed: Duration,
    /// Largest peak RSS among the provider processes, in KiB.
    pub provider_peak_kib: u64,
    /// Largest anonymous (private, not file-backed) RSS seen in a provider process, in KiB.
    pub provider_anon_kib: u64,
    /// Largest proportional set size seen in a provider process, in KiB (0 unless
    /// [`Setup::sample_pss`]).
    pub provider_pss_kib: u64,
    /// How many provider processes Terraform started.
    pub provider_processes: usize,
    /// CPU time (user and system) of the whole command: Terraform (and the copy of itself
    /// Terraform 1.0.3 forks to catch panics) and every provider process, all of which it
    /// waits for. Terraform's share is the same work whichever provider answers, so
    /// differences between providers are theirs and what their answers make Terraform do.
    pub command_cpu: Duration,
}

/// CPU time (user + system) process `pid` and the children it has waited for have used
/// (`utime` + `stime` + `cutime` + `cstime`); zero when unreadable.
pub fn cpu_time_with_children(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The command name (field 2) may hold spaces; the fields after its ')' are fixed.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime and cstime are fields 14 to 17 of the line, 12 to 15 after the
    // name.
    let ticks: Option<u64> = [11, 12, 13, 14]
        .iter()
        .map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    let Some(ticks) = ticks else {
        return Duration::ZERO;
    };
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if per_second <= 0 {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// Waits until process `pid` (a child of this one) has exited, leaving it unreaped so that its
/// `/proc` entry can still be read.
pub(crate) fn wait_without_reaping(pid: u32) -> std::io::Result<()> {
    loop {
        // SAFETY: `info` is written by waitid; WNOWAIT leaves the child to `Child::wait`.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

const VERSION: &str = "0.1.0";

impl Setup {
    /// Lays out a native provider binary as `terraform-provider-TYPE_v0.1.0` in a mirror
    /// under `root` (or, with a component, runs `tfwasm package`), writes the workload's
    /// configuration and runs `terraform init`.
    ///
    /// # Errors
    /// Packaging or init fails.
    pub fn new(
        label: &str,
        root: &Path,
        terraform: &Path,
        provider: Provider<'_>,
        workload: &Workload,
        cache_dir: &Path,
    ) -> anyhow::Result<Setup> {
        let source = workload.source();
        let provider_type = workload.provider_type;
        let base = root.join(label);
        let mirror = base.join("mirror");
        let dir = base.join("work");
        std::fs::create_dir_all(&dir)?;
        match provider {
            Provider::Native(binary) => {
                let target = package_dir(&mirror, provider_type);
                std::fs::create_dir_all(&target)?;
                std::fs::copy(
                    binary,
                    target.join(format!("terraform-provider-{provider_type}_v{VERSION}")),
                )?;
            }
            Provider::Wasm { tfwasm, component } => {
                let status = Command::new(tfwasm)
                    .arg("package")
                    .arg(component)
                    .args(["--source", &source, "--version", VERSION, "--out"])
                    .arg(&mirror)
                    .args(&workload.package_flags)
                    .env("TFWASM_CACHE_DIR", cache_dir)
                    .stdout(Stdio::null())
                    .status()?;
                if !status.success() {
                    bail!("tfwasm package failed for {label}");
                }
            }
        }
        std::fs::write(
            base.join("cli.tfrc"),
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
                mirror.display().to_string()
            ),
        )?;
        std::fs::write(
            dir.join("main.tf"),
            format!(
                "terraform {{\n  required_providers {{\n    {provider_type} = {{ source = \"{source}\" }}\n  }}\n}}\n{}",
                workload.config
            ),
        )?;
        let setup = Setup {
            label: label.to_owned(),
            dir,
            terraform: terraform.to_owned(),
            cache_dir: cache_dir.to_owned(),
            provider_type,
            sample_pss: false,
        };
        let out = setup.command(&["init", "-no-color"]).output()?;
        if !out.status.success() {
            bail!(
                "terraform init for {label} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(setup)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.terraform);
        cmd.args(args)
            .current_dir(&self.dir)
            .env(
                "TF_CLI_CONFIG_FILE",
                self.dir.parent().unwrap_or(&self.dir).join("cli.tfrc"),
            )
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("CHECKPOINT_DISABLE", "1")
            .env("TFWASM_CACHE_DIR", &self.cache_dir)
            .env_remove("TF_LOG")
            .env_remove("TF_CLI_ARGS")
            .stdin(Stdio::null());
        cmd
    }

    /// Removes the state and times `terraform apply -parallelism=N` creating everything.
    ///
    /// # Errors
    /// The apply fails.
    pub fn apply(&self, parallelism: usize) -> anyhow::Result<ApplyRun> {
        for f in ["terraform.tfstate", "terraform.tfstate.backup"] {
            let _ = std::fs::remove_file(self.dir.join(f));
        }
        self.timed(&["apply", "-auto-approve"], parallelism)
    }

    /// Times `terraform plan -refresh=true -parallelism=N` against the current state (an
    /// earlier [`Setup::apply`]): every resource is upgraded, read and planned.
    ///
    /// # Errors
    /// The plan fails.
    pub fn plan(&self, parallelism: usize) -> anyhow::Result<ApplyRun> {
        self.timed(&["plan", "-refresh=true"], parallelism)
    }

    /// Runs `terraform destroy` (untimed), e.g. to empty an API between applies.
    ///
    /// # Errors
    /// The destroy fails.
    pub fn destroy(&self, parallelism: usize) -> anyhow::Result<()> {
        self.timed(&["destroy", "-auto-approve"], parallelism)
            .map(drop)
    }

    /// Times `terraform query` (Terraform >= 1.14) of `query`, written as the workspace's
    /// `.tfquery.hcl` file, sampling the provider's memory as [`Setup::apply`] does.
    ///
    /// # Errors
    /// The query fails.
    pub fn query(&self, query: &str) -> anyhow::Result<ApplyRun> {
        std::fs::write(self.dir.join("bench.tfquery.hcl"), query)?;
        self.timed_argv(&["query", "-no-color"])
    }

    /// `terraform query`'s output for `query`, untimed (to check what a timed run lists).
    ///
    /// # Errors
    /// The query fails.
    pub fn query_output(&self, query: &str) -> anyhow::Result<String> {
        std::fs::write(self.dir.join("bench.tfquery.hcl"), query)?;
        let out = self.command(&["query", "-no-color"]).output()?;
        if !out.status.success() {
            bail!(
                "terraform query ({}) failed:\n{}",
                self.label,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs one Terraform command, as [`Self::timed_argv`] with `-parallelism`.
    fn timed(&self, args: &[&str], parallelism: usize) -> anyhow::Result<ApplyRun> {
        let parallelism = format!("-parallelism={parallelism}");
        let mut argv = args.to_vec();
        argv.extend(["-no-color", parallelism.as_str()]);
        self.timed_argv(&argv)
    }

    /// Runs `terraform ARGV`: its wall and CPU time (its own and its providers'), and its
    /// provider processes' memory, sampled.
    fn timed_argv(&self, args: &[&str]) -> anyhow::Result<ApplyRun> {
        let started = Instant::now();
        let mut child = self
            .command(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting terraform {}", args[0]))?;
        let root = child.id();
        let Some(mut stderr) = child.stderr.take() else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("terraform {}: no stderr pipe", args[0]);
        };
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
            text
        });
        let done = Arc::new(AtomicBool::new(false));
        let sample_pss = self.sample_pss;
        let sampler = {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut peaks: std::collections::BTreeMap<u32, (u64, u64, u64)> =
                    Default::default();
                while !done.load(Ordering::Relaxed) {
                    for pid in descendants(root) {
                        let pss = if sample_pss { pss_kib(pid) } else { 0 };
                        let (hwm, anon) = (vm_hwm_kib(pid), rss_anon_kib(pid));
                        let slot = peaks.entry(pid).or_default();
                        *slot = (slot.0.max(hwm), slot.1.max(anon), slot.2.max(pss));
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
                peaks
            })
        };
        // Terraform has reaped its providers by the time it exits; read what it and they
        // used before reaping it.
        let waited = wait_without_reaping(root).map(|()| {
            let elapsed = started.elapsed();
            (elapsed, cpu_time_with_children(root))
        });
        if waited.is_err() {
            let _ = child.kill();
        }
        // Reaped on every path, and the sampler stopped, before any error returns.
        let status = child.wait();
        done.store(true, Ordering::Relaxed);
        let peaks = sampler.join().unwrap_or_default();
        let stderr = reader.join().unwrap_or_default();
        let (elapsed, command_cpu) = waited.context("waiting for terraform")?;
        let status = status.context("reaping terraform")?;
        if !status.success() {
            bail!(
                "terraform {} ({}) failed:\n{}",
                args[0],
                self.label,
                String::from_utf8_lossy(&stderr)
            );
        }
        Ok(ApplyRun {
            elapsed,
            provider_peak_kib: peaks.values().map(|p| p.0).max().unwrap_or(0),
            provider_anon_kib: peaks.values().map(|p| p.1).max().unwrap_or(0),
            provider_pss_kib: peaks.values().map(|p| p.2).max().unwrap_or(0),
            provider_processes: peaks.len(),
            command_cpu,
        })
    }

    /// Bytes of the provider package as installed (every file of the package directory,
    /// which Terraform hashes against the lock file at every command).
    pub fn package_bytes(&self) -> u64 {
        std::fs::read_dir(self.package())
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }

    /// The packaged provider executable (what Terraform starts).
    pub fn provider_executable(&self) -> PathBuf {
        self.package().join(format!(
            "terraform-provider-{}_v{VERSION}",
            self.provider_type
        ))
    }

    /// The package directory in this setup's mirror.
    fn package(&self) -> PathBuf {
        package_dir(
            &self.dir.parent().unwrap_or(&self.dir).join("mirror"),
            self.provider_type,
        )
    }

    /// `terraform version`'s first line.
    pub fn version(&self) -> String {
        self.command(&["version"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().next().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// The package directory of provider `provider_type` in `mirror`.
fn package_dir(mirror: &Path, provider_type: &str) -> PathBuf {
    mirror.join(format!(
        "registry.terraform.io/tfwasm/{provider_type}/{VERSION}/linux_amd64"
    ))
}

/// What goes into the mirror.
pub enum Provider<'a> {
    /// A native provider binary.
    Native(&'a Path),
    /// tfwasm with a component (packaged with `tfwasm package`).
    Wasm {
        /// The tfwasm binary.
        tfwasm: &'a Path,
        /// The component.
        component: &'a Path,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_with_children_counts_a_child_once_it_is_reaped() {
        // The spinning is a subshell's, so its CPU reaches the outer shell only as a child's
        // (cutime), once the outer shell has waited for it.
        let mut child = std::process::Command::new("sh")
            .args([
                "-c",
                "sleep 0.3; (i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done); sleep 0.2",
            ])
            .spawn()
            .unwrap();
        let pid = child.id();
        std::thread::sleep(Duration::from_millis(100));
        let before = cpu_time_with_children(pid);
        wait_without_reaping(pid).unwrap();
        let exited = cpu_time_with_children(pid);
        assert!(
            exited >= before + Duration::from_millis(50),
            "{before:?} → {exited:?} for a subshell spinning"
        );
        child.wait().unwrap();
        assert_eq!(cpu_time_with_children(u32::MAX), Duration::ZERO);
    }
}
