//! The operator's per-provider settings: `tfwasm.toml` beside the component in a provider
//! package (written by `tfwasm package`), overridable at run time.
//!
//! ```toml
//! [contracts]
//! violations = "warn"            # default "error"
//!
//! [limits]                       # per call; defaults: 10000000000 fuel, 256MiB, 60s, 1MiB stack
//! fuel = 20000000000
//! memory = "512MiB"
//! timeout = "30s"
//! stack = "1MiB"
//! instances = "reuse"            # default; "fresh" runs every call in a new instance
//! concurrent_calls = 64          # default; calls beyond wait: bounds the instances (memory) in use
//! # What the host does on the guest's behalf (defaults shown):
//! log_per_call = "64KiB"         # guest log lines and stdout/stderr; beyond: dropped, one notice
//! log_per_instance = "1MiB"      # an instance past it is retired
//! diagnostics_per_call = 1000    # beyond: replaced by one (an error if any dropped one was)
//! diagnostic_bytes_per_call = "1MiB"
//! state_reports_per_call = 100   # journal writes per apply; later reports stay in memory
//! state_report_bytes_per_call = "64MiB"
//!
//! [limits.rpc.ApplyResourceChange]
//! timeout = "10m"
//!
//! [grants]                       # nothing is granted by default
//! env = ["API_TOKEN"]
//! dirs = ["/srv/data:/data:ro"]
//! http = ["https://api.example.com", "http://127.0.0.1:8080"]
//!
//! [http]                         # how allowed requests are made; the guest never sees these
//! ca_files = ["ca/corp-root.pem"]  # trusted besides the system's roots; relative to this file
//! https_proxy = "http://proxy.internal:3128"  # setting any proxy key replaces the
//! http_proxy = "http://proxy.internal:3128"   # environment's HTTPS_PROXY/HTTP_PROXY/NO_PROXY
//! no_proxy = "localhost,.internal"
//!
//! [record]                       # off by default; for bug reports (`tfwasm replay`)
//! dir = "/tmp/tfwasm-recording"  # relative to this file; never inside a [grants] dir
//! values = "redacted"            # default: no values, only their shape; "non-sensitive"
//!                                # keeps all but sensitive/write-only ones, so it replays
//!
//! [journal]                      # what an apply killed midway had created (see docs/robustness.md)
//! beside_state = true            # in `.tfwasm-journal/` of Terraform's working directory, with
//!                                # a local state, so a CI runner that keeps one keeps both;
//!                                # default: ~/.local/state/tfwasm/journal (TFWASM_JOURNAL_DIR)
//! ```
//!
//! Run-time overrides: `TFWASM_CONFIG` names another settings file to use instead;
//! `TFWASM_RECORD=DIR` records into `DIR`, `TFWASM_RECORD_VALUES` sets `record.values`;
//! `TFWASM_CONTRACT_VIOLATIONS`, `TFWASM_FUEL`, `TFWASM_MEMORY`, `TFWASM_TIMEOUT`,
//! `TFWASM_INSTANCES`, `TFWASM_CONCURRENT_CALLS` and `TFWASM_JOURNAL_BESIDE_STATE` (`1`/`0`)
//! override single values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use tfwasm_contract::Mode;
use tfwasm_runtime::grants::{DirGrant, check_env_name};
use tfwasm_runtime::limits::{ByteSize, HumanDuration, Rpc};
use tfwasm_runtime::{CallLimits, Grants, HttpSettings, LimitsOverride, ProxySettings};

/// File name of the settings file in a provider package.
pub const FILE_NAME: &str = "tfwasm.toml";
/// Names a settings file to use instead of the packaged one.
pub const CONFIG_ENV: &str = "TFWASM_CONFIG";
/// Overrides `contracts.violations` at run time.
pub const VIOLATIONS_ENV: &str = "TFWASM_CONTRACT_VIOLATIONS";

/// Everything an operator can set for one provider.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// Contract checking.
    #[serde(default)]
    pub contracts: Contracts,
    /// Per-call limits.
    #[serde(default, skip_serializing_if = "LimitsConfig::is_empty")]
    pub limits: LimitsConfig,
    /// Capabilities granted to the guest.
    #[serde(default, skip_serializing_if = "GrantsConfig::is_empty")]
    pub grants: GrantsConfig,
    /// How allowed outgoing HTTP is made.
    #[serde(default, skip_serializing_if = "HttpConfig::is_empty")]
    pub http: HttpConfig,
    /// Recording every call for a bug report.
    #[serde(default, skip_serializing_if = "RecordConfig::is_empty")]
    pub record: RecordConfig,
    /// Where the apply journal lives.
    #[serde(default, skip_serializing_if = "JournalConfig::is_empty")]
    pub journal: JournalConfig,
}

/// Overrides `journal.beside_state` at run time.
pub const JOURNAL_BESIDE_STATE_ENV: &str = "TFWASM_JOURNAL_BESIDE_STATE";

/// The folder [`JournalConfig::beside_state`] puts the journal in, in Terraform's working
/// directory (where a local `terraform.tfstate` lives).
pub const JOURNAL_BESIDE_STATE_DIR: &str = ".tfwasm-journal";

/// The `[journal]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalConfig {
    /// Keep the journal in [`JOURNAL_BESIDE_STATE_DIR`] of the working directory instead of
    /// the account's state directory: a throwaway CI runner that keeps the state keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside_state: Option<bool>,
}

impl JournalConfig {
    fn is_empty(&self) -> bool {
        *self == JournalConfig::default()
    }
}

/// The `[record]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    /// Where each provider process writes its session directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// What recordings keep of values (default: none, only their shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<crate::record::Values>,
}

impl RecordConfig {
    fn is_empty(&self) -> bool {
        *self == RecordConfig::default()
    }
}

/// The `[http]` table: trusted CAs and proxies for the requests the grants allow.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// PEM files of CA certificates trusted besides the system's roots (relative paths are
    /// relative to the settings file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ca_files: Vec<String>,
    /// Proxy for `http://` requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_proxy: Option<String>,
    /// Proxy for `https://` requests (tunnelled with CONNECT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub https_proxy: Option<String>,
    /// Hosts reached without the proxy (comma-separated names, IPs, CIDR ranges).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
}

impl HttpConfig {
    fn is_empty(&self) -> bool {
        *self == HttpConfig::default()
    }

    fn resolve(&self, base: &Path) -> anyhow::Result<HttpSettings> {
        let proxy =
            (self.http_proxy.is_some() || self.https_proxy.is_some() || self.no_proxy.is_some())
                .then(|| ProxySettings {
                    http: self.http_proxy.clone(),
                    https: self.https_proxy.clone(),
                    no_proxy: self.no_proxy.clone(),
                });
        if let Some(proxy) = &proxy {
            proxy.validate().context("http")?;
        }
        Ok(HttpSettings {
            ca_files: self.ca_files.iter().map(|f| base.join(f)).collect(),
            proxy,
        })
    }
}

/// The `[contracts]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contracts {
    /// What a violation becomes.
    #[serde(default)]
    pub violations: Violations,
}

/// `error` or `warn`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Violations {
    /// Fail the Terraform run.
    #[default]
    Error,
    /// Show a warning and go on.
    Warn,
}

impl Violations {
    /// The checker's mode.
    pub fn mode(self) -> Mode {
        match self {
            Violations::Error => Mode::Enforce,
            Violations::Warn => Mode::Warn,
        }
    }

    fn parse(text: &str) -> anyhow::Result<Violations> {
        match text.trim() {
            "error" => Ok(Violations::Error),
            "warn" => Ok(Violations::Warn),
            other => bail!("{VIOLATIONS_ENV}={other:?}: expected \"error\" or \"warn\""),
        }
    }
}

/// One set of limits as written (strings for sizes and durations).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitValues {
    /// Fuel per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    /// Memory per instance, e.g. `256MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// Deadline per call, e.g. `30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
}

/// The `[limits]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Defaults for every RPC.
    #[serde(flatten)]
    pub values: LimitValues,
    /// Wasm stack size, e.g. `1MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// `reuse` (default): a call may run in an idle instance whose previous call succeeded;
    /// `fresh`: every call gets a new instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instances: Option<Instances>,
    /// Guest calls running at once (default 64); more wait for one to end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_calls: Option<usize>,
    /// Guest log bytes per call, e.g. `64KiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_per_call: Option<String>,
    /// Guest log bytes per instance, e.g. `1MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_per_instance: Option<String>,
    /// Diagnostics per response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics_per_call: Option<usize>,
    /// Diagnostic text per response, e.g. `1MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic_bytes_per_call: Option<String>,
    /// Journal writes per apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_reports_per_call: Option<u32>,
    /// Journal bytes per apply, e.g. `64MiB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_report_bytes_per_call: Option<String>,
    /// Overrides per RPC name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rpc: BTreeMap<String, LimitValues>,
}

impl LimitsConfig {
    fn is_empty(&self) -> bool {
        *self == LimitsConfig::default()
    }

    /// The host-work limits set here, over the defaults in `work`.
    fn host_work(&self, work: &mut tfwasm_runtime::HostWork) -> anyhow::Result<()> {
        let size = |value: &Option<String>, key: &str, into: &mut usize| -> anyhow::Result<()> {
            if let Some(text) = value {
                *into = text
                    .parse::<ByteSize>()
                    .with_context(|| format!("limits.{key}"))?
                    .0;
            }
            Ok(())
        };
        size(
            &self.log_per_call,
            "log_per_call",
            &mut work.log_bytes_per_call,
        )?;
        size(
            &self.log_per_instance,
            "log_per_instance",
            &mut work.log_bytes_per_instance,
        )?;
        size(
            &self.diagnostic_bytes_per_call,
            "diagnostic_bytes_per_call",
            &mut work.diagnostic_bytes_per_call,
        )?;
        size(
            &self.state_report_bytes_per_call,
            "state_report_bytes_per_call",
            &mut work.state_report_bytes_per_call,
        )?;
        if let Some(n) = self.diagnostics_per_call {
            work.diagnostics_per_call = n;
        }
        if let Some(n) = self.state_reports_per_call {
            work.state_reports_per_call = n;
        }
        if work.log_bytes_per_instance < work.log_bytes_per_call {
            bail!(
                "limits.log_per_instance ({}) is below limits.log_per_call ({})",
                ByteSize(work.log_bytes_per_instance),
                ByteSize(work.log_bytes_per_call)
            );
        }
        Ok(())
    }
}

/// Instance strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Instances {
    /// Reuse an idle instance whose previous call succeeded.
    Reuse,
    /// A new instance for every call.
    Fresh,
}

impl Instances {
    fn parse(text: &str) -> anyhow::Result<Instances> {
        match text.trim() {
            "reuse" => Ok(Instances::Reuse),
            "fresh" => Ok(Instances::Fresh),
            other => bail!("TFWASM_INSTANCES={other:?}: expected \"reuse\" or \"fresh\""),
        }
    }
}

/// The `[grants]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantsConfig {
    /// Environment variable names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// `HOST_DIR:GUEST_DIR[:ro|rw]` entries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dirs: Vec<String>,
    /// HTTP allow-list entries (`scheme://host[:port]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<String>,
}

impl GrantsConfig {
    fn is_empty(&self) -> bool {
        *self == GrantsConfig::default()
    }
}

/// Settings turned into what the runtime needs, validated.
pub struct Resolved {
    /// Contract mode.
    pub mode: Mode,
    /// Limits.
    pub limits: CallLimits,
    /// Grants.
    pub grants: Grants,
    /// Trusted CAs and proxies.
    pub http: HttpSettings,
    /// Where the settings came from, for messages.
    pub source: String,
    /// Record every call, where and how (`tfwasm replay` reads it).
    pub record: Option<crate::record::Settings>,
    /// The settings file read, if any: it decides the guest's grants, so no read-write grant
    /// may hold it (`serve`'s start refuses one that does).
    pub file: Option<PathBuf>,
    /// Keep the apply journal beside the state ([`JOURNAL_BESIDE_STATE_DIR`]).
    pub journal_beside_state: bool,
}

fn apply_values(values: &LimitValues, context: &str) -> anyhow::Result<LimitsOverride> {
    Ok(LimitsOverride {
        fuel: values.fuel,
        memory_bytes: values
            .memory
            .as_deref()
            .map(|m| m.parse::<ByteSize>().map(|b| b.0))
            .transpose()
            .with_context(|| format!("{context}.memory"))?,
        timeout: values
            .timeout
            .as_deref()
            .map(|t| t.parse::<HumanDuration>().map(|d| d.0))
            .transpose()
            .with_context(|| format!("{context}.timeout"))?,
    })
}

impl ProviderConfig {
    /// Validates and converts. Errors name the setting. Relative file names (CA files) are
    /// taken relative to `base`, the settings file's directory.
    pub fn resolve(&self, source: String, base: &Path) -> anyhow::Result<Resolved> {
        let mut limits = CallLimits::new();
        let defaults = apply_values(&self.limits.values, "limits")?;
        limits.default.fuel = defaults.fuel.unwrap_or(limits.default.fuel);
        limits.default.memory_bytes = defaults.memory_bytes.unwrap_or(limits.default.memory_bytes);
        limits.default.timeout = defaults.timeout.unwrap_or(limits.default.timeout);
        if let Some(stack) = &self.limits.stack {
            limits.max_wasm_stack = stack.parse::<ByteSize>().context("limits.stack")?.0;
        }
        if let Some(instances) = self.limits.instances {
            limits.reuse_instances = instances == Instances::Reuse;
        }
        if let Some(calls) = self.limits.concurrent_calls {
            let max = tfwasm_runtime::limits::MAX_CONCURRENT_CALLS;
            if calls == 0 || calls > max {
                return Err(anyhow::anyhow!(
                    "{calls}: expected a number of calls from 1 to {max}"
                ))
                .context("limits.concurrent_calls");
            }
            limits.concurrent_calls = calls;
        }
        self.limits.host_work(&mut limits.host_work)?;
        for (name, values) in &self.limits.rpc {
            let rpc = name
                .parse::<Rpc>()
                .with_context(|| format!("limits.rpc.{name}"))?;
            if !rpc.reaches_guest() {
                bail!(
                    "limits.rpc.{name}: tfwasm answers {name} itself, without calling the provider, so no limit applies to it"
                );
            }
            limits
                .per_rpc
                .insert(rpc, apply_values(values, &format!("limits.rpc.{name}"))?);
        }
        for name in &self.grants.env {
            check_env_name(name).context("grants.env")?;
        }
        let dirs = self
            .grants
            .dirs
            .iter()
            .map(|d| d.parse::<DirGrant>())
            .collect::<Result<Vec<_>, _>>()
            .context("grants.dirs")?;
        let http =
            tfwasm_runtime::HttpAllowList::parse(&self.grants.http).context("grants.http")?;
        let record = self.record.dir.as_ref().map(|d| crate::record::Settings {
            dir: base.join(d),
            values: self.record.values.unwrap_or_default(),
            grants: dirs.clone(),
        });
        Ok(Resolved {
            mode: self.contracts.violations.mode(),
            limits,
            grants: Grants {
                env: self.grants.env.clone(),
                dirs,
                http,
            },
            http: self.http.resolve(base)?,
            source,
            record,
            file: None,
            journal_beside_state: self.journal.beside_state.unwrap_or(false),
        })
    }
}

/// The settings file that belongs to `component` (same directory).
pub fn path_for(component: &Path) -> PathBuf {
    component.with_file_name(FILE_NAME)
}

/// Reads the settings for `component` (`TFWASM_CONFIG`, else `tfwasm.toml` beside it, else
/// defaults), applies the single-value environment overrides, and validates.
///
/// # Errors
/// When a file or value is invalid, naming the file and the setting.
pub fn load(component: &Path) -> anyhow::Result<Resolved> {
    load_adjusted(component, |_| {})
}

/// [`load`], with `adjust` changing the settings after the environment's overrides and
/// before they are validated (a command's own flags: `serve --debug`'s grants, `replay`
/// taking every grant away).
///
/// # Errors
/// As [`load`].
pub fn load_adjusted(
    component: &Path,
    adjust: impl FnOnce(&mut ProviderConfig),
) -> anyhow::Result<Resolved> {
    load_from(component, true, adjust)
}

/// [`load_adjusted`], reading the `tfwasm.toml` beside `component` only when `beside`: a
/// component someone else's recording carries brings no settings (`TFWASM_CONFIG` still
/// applies), so it gets the defaults, no grant among them.
///
/// # Errors
/// As [`load`].
pub fn load_from(
    component: &Path,
    beside: bool,
    adjust: impl FnOnce(&mut ProviderConfig),
) -> anyhow::Result<Resolved> {
    let path = match std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None if beside => path_for(component),
        None => PathBuf::new(),
    };
    let read_file = if path.as_os_str().is_empty() {
        Err(std::io::Error::from(std::io::ErrorKind::NotFound))
    } else {
        std::fs::read_to_string(&path)
    };
    let (text, read) = match read_file {
        Ok(text) => (text, true),
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && std::env::var_os(CONFIG_ENV).is_none() =>
        {
            (String::new(), false)
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut config =
        parse(&text).with_context(|| format!("invalid settings in {}", path.display()))?;
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if let Some(value) = env(VIOLATIONS_ENV) {
        config.contracts.violations = Violations::parse(&value)?;
    }
    if let Some(value) = env("TFWASM_FUEL") {
        config.limits.values.fuel = Some(
            value
                .parse()
                .with_context(|| format!("TFWASM_FUEL={value:?}: expected a whole number"))?,
        );
    }
    if let Some(value) = env("TFWASM_MEMORY") {
        config.limits.values.memory = Some(value);
    }
    if let Some(value) = env("TFWASM_TIMEOUT") {
        config.limits.values.timeout = Some(value);
    }
    if let Some(value) = env("TFWASM_INSTANCES") {
        config.limits.instances = Some(Instances::parse(&value)?);
    }
    if let Some(value) = env("TFWASM_CONCURRENT_CALLS") {
        config.limits.concurrent_calls = Some(value.parse().with_context(|| {
            format!("TFWASM_CONCURRENT_CALLS={value:?}: expected a whole number from 1")
        })?);
    }
    if let Some(value) = env(crate::record::RECORD_ENV) {
        // Relative to where the operator is, unlike the file's setting.
        let dir =
            std::env::current_dir().map_or_else(|_| PathBuf::from(&value), |cwd| cwd.join(&value));
        config.record.dir = Some(dir.display().to_string());
    }
    if let Some(value) = env(crate::record::VALUES_ENV) {
        config.record.values = Some(
            crate::record::Values::parse(&value)
                .with_context(|| format!("{}={value:?}", crate::record::VALUES_ENV))?,
        );
    }
    if let Some(value) = env(JOURNAL_BESIDE_STATE_ENV) {
        config.journal.beside_state = Some(match value.as_str() {
            "1" | "true" => true,
            "0" | "false" => false,
            other => bail!(
                "{JOURNAL_BESIDE_STATE_ENV}={other:?}: expected 1 (beside the state) or 0 (the account's state directory)"
            ),
        });
    }
    adjust(&mut config);
    let base = path.parent().unwrap_or(Path::new("."));
    config
        .resolve(path.display().to_string(), base)
        .map(|resolved| Resolved {
            file: read.then(|| path.clone()),
            ..resolved
        })
        .map_err(|error| {
            // The outermost context names the setting (`limits.memory`); say where it is,
            // unless an environment variable set it.
            let key = error.to_string();
            let from_env = OVERRIDES
                .iter()
                .any(|(setting, var)| *setting == key && env(var).is_some());
            match line_of(&text, &key).filter(|_| !from_env) {
                Some(line) => error.context(format!(
                    "invalid settings in {}, line {line}",
                    path.display()
                )),
                None => error.context(format!(
                    "invalid settings in {} (or the TFWASM_* environment)",
                    path.display()
                )),
            }
        })
}

/// Settings an environment variable replaces.
const OVERRIDES: &[(&str, &str)] = &[
    ("limits.fuel", "TFWASM_FUEL"),
    ("limits.memory", "TFWASM_MEMORY"),
    ("limits.timeout", "TFWASM_TIMEOUT"),
    ("limits.instances", "TFWASM_INSTANCES"),
    ("limits.concurrent_calls", "TFWASM_CONCURRENT_CALLS"),
];

/// The line (from 1) of the dotted setting `key` in the TOML `text`, if it is there.
fn line_of(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::Document::parse(text).ok()?;
    let mut table: &dyn toml_edit::TableLike = doc.as_table();
    let mut segments = key.split('.').peekable();
    while let Some(segment) = segments.next() {
        let (found, item) = table.get_key_value(segment)?;
        if segments.peek().is_none() {
            let start = found.span()?.start;
            return Some(text[..start].matches('\n').count() + 1);
        }
        table = item.as_table_like()?;
    }
    None
}

/// Parses settings text.
pub fn parse(text: &str) -> anyhow::Result<ProviderConfig> {
    Ok(toml::from_str(text)?)
}

/// Settings as text, with a comment saying what the file is.
pub fn render(config: &ProviderConfig) -> anyhow::Result<String> {
    Ok(format!(
        "# tfwasm settings for this provider: contract checks, per-call limits and grants.\n# See `tfwasm package --help`; TFWASM_CONFIG names a replacement file at run time.\n{}",
        toml::to_string(config)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_lives_beside_the_state_only_when_asked() {
        let resolve = |text: &str| {
            parse(text)
                .and_then(|c| c.resolve("x".into(), Path::new(".")))
                .map(|r| r.journal_beside_state)
        };
        assert!(!resolve("").unwrap());
        assert!(resolve("[journal]\nbeside_state = true\n").unwrap());
        assert!(!resolve("[journal]\nbeside_state = false\n").unwrap());
        let error = format!("{:#}", resolve("[journal]\ndir = \"x\"\n").unwrap_err());
        assert!(error.contains("unknown field `dir`"), "{error}");
        let written = render(&ProviderConfig {
            journal: JournalConfig {
                beside_state: Some(true),
            },
            ..ProviderConfig::default()
        })
        .unwrap();
        assert!(
            written.contains("[journal]\nbeside_state = true"),
            "{written}"
        );
    }

    #[test]
    fn defaults_enforce_and_deny() {
        let resolved = parse("")
            .unwrap()
            .resolve("x".into(), Path::new("."))
            .unwrap();
        assert_eq!(resolved.mode, Mode::Enforce);
        assert_eq!(resolved.grants, Grants::default());
        assert_eq!(resolved.limits, CallLimits::new());
    }

    #[test]
    fn concurrent_calls_are_bounded_by_the_operator_within_reason() {
        let resolve = |text: &str| {
            parse(text)
                .and_then(|c| c.resolve("x".into(), Path::new(".")))
                .map(|r| r.limits.concurrent_calls)
        };
        assert_eq!(resolve("").unwrap(), 64);
        assert_eq!(resolve("[limits]\nconcurrent_calls = 4\n").unwrap(), 4);
        for bad in ["0", "100000"] {
            let err = resolve(&format!("[limits]\nconcurrent_calls = {bad}\n")).unwrap_err();
            let text = format!("{err:#}");
            assert!(
                text.contains("limits.concurrent_calls") && text.contains("from 1 to 4096"),
                "{text}"
            );
        }
    }

    #[test]
    fn instance_strategy() {
        let default = parse("")
            .unwrap()
            .resolve("x".into(), Path::new("."))
            .unwrap();
        assert!(default.limits.reuse_instances, "reuse is the default");
        let fresh = parse("[limits]\ninstances = \"fresh\"\n")
            .unwrap()
            .resolve("x".into(), Path::new("."))
            .unwrap();
        assert!(!fresh.limits.reuse_instances);
        let err = parse("[limits]\ninstances = \"sometimes\"\n").unwrap_err();
        assert!(format!("{err:#}").contains("sometimes"), "{err:#}");
        assert!(Instances::parse("fresh").is_ok() && Instances::parse("pooled").is_err());
    }

    #[test]
    fn host_work_limits_parse_name_their_key_and_round_trip() {
        let text = "[limits]\nlog_per_call = \"16KiB\"\nlog_per_instance = \"256KiB\"\ndiagnostics_per_call = 50\ndiagnostic_bytes_per_call = \"64KiB\"\nstate_reports_per_call = 7\nstate_report_bytes_per_call = \"8MiB\"\n";
        let config = parse(text).unwrap();
        assert_eq!(parse(&render(&config).unwrap()).unwrap(), config);
        let work = config
            .resolve("x".into(), Path::new("."))
            .unwrap()
            .limits
            .host_work;
        assert_eq!(
            work,
            tfwasm_runtime::HostWork {
                log_bytes_per_call: 16 << 10,
                log_bytes_per_instance: 256 << 10,
                diagnostics_per_call: 50,
                diagnostic_bytes_per_call: 64 << 10,
                state_reports_per_call: 7,
                state_report_bytes_per_call: 8 << 20,
            }
        );
        let resolve_err = |text: &str| {
            let err = parse(text)
                .unwrap()
                .resolve("x".into(), Path::new("."))
                .err()
                .expect("refused");
            format!("{err:#}")
        };
        let err = resolve_err("[limits]\nlog_per_call = \"lots\"\n");
        assert!(
            err.contains("limits.log_per_call") && err.contains("lots"),
            "{err}"
        );
        let err = resolve_err("[limits]\nlog_per_call = \"2MiB\"\n");
        assert!(err.contains("below limits.log_per_call"), "{err}");
    }

    #[test]
    fn round_trips() {
        let config = parse(
            "[contracts]\nviolations = \"warn\"\n[limits]\nfuel = 5\nmemory = \"64MiB\"\n[limits.rpc.ApplyResourceChange]\ntimeout = \"10m\"\n[grants]\nenv = [\"A\"]\ndirs = [\"/tmp:/t:rw\"]\n",
        )
        .unwrap();
        assert_eq!(parse(&render(&config).unwrap()).unwrap(), config);
        let resolved = config.resolve("x".into(), Path::new(".")).unwrap();
        assert_eq!(resolved.limits.default.fuel, 5);
        assert_eq!(
            resolved.limits.for_rpc(Rpc::ApplyResourceChange).timeout,
            std::time::Duration::from_secs(600)
        );
        assert!(resolved.grants.dirs[0].writable);
    }

    #[test]
    fn recordings_keep_no_values_unless_asked_and_know_the_grants() {
        use crate::record::Values;
        let resolved = parse("[record]\ndir = \"rec\"\n[grants]\ndirs = [\"/srv:/data:rw\"]\n")
            .unwrap()
            .resolve("x".into(), Path::new("/pkg"))
            .unwrap();
        let record = resolved.record.expect("recording on");
        assert_eq!(record.dir, PathBuf::from("/pkg/rec"));
        assert_eq!(record.values, Values::Redacted, "no values by default");
        assert_eq!(
            record.grants, resolved.grants.dirs,
            "checked against the grants"
        );
        let config = parse("[record]\ndir = \"rec\"\nvalues = \"non-sensitive\"\n").unwrap();
        assert_eq!(parse(&render(&config).unwrap()).unwrap(), config);
        let resolved = config.resolve("x".into(), Path::new(".")).unwrap();
        assert_eq!(resolved.record.unwrap().values, Values::NonSensitive);
        let err = parse("[record]\nvalues = \"all\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("all"), "{err}");
        assert!(Values::parse("non-sensitive").is_ok() && Values::parse("clear").is_err());
    }

    #[test]
    fn http_settings_resolve_against_the_file_and_replace_the_environment_proxies() {
        let config = parse(
            "[http]\nca_files = [\"ca/root.pem\", \"/etc/extra.pem\"]\nno_proxy = \"localhost\"\n",
        )
        .unwrap();
        assert_eq!(parse(&render(&config).unwrap()).unwrap(), config);
        let resolved = config.resolve("x".into(), Path::new("/pkg")).unwrap();
        assert_eq!(
            resolved.http.ca_files,
            [
                PathBuf::from("/pkg/ca/root.pem"),
                PathBuf::from("/etc/extra.pem")
            ]
        );
        let proxy = resolved
            .http
            .proxy
            .expect("any proxy key replaces the environment's");
        assert_eq!(proxy.no_proxy.as_deref(), Some("localhost"));
        assert_eq!(proxy.https, None);
        let none = parse("")
            .unwrap()
            .resolve("x".into(), Path::new("."))
            .unwrap();
        assert_eq!(
            none.http,
            HttpSettings::default(),
            "no [http]: environment proxies"
        );
    }

    #[test]
    fn settings_are_found_by_line() {
        let text = "# comment\n[limits]\nfuel = 1\nmemory = \"lots\"\n\n[limits.rpc.Apply]\ntimeout = \"1s\"\n[grants]\nhttp = [\"x\"]\n";
        assert_eq!(line_of(text, "limits.memory"), Some(4));
        assert_eq!(line_of(text, "limits.rpc.Apply"), Some(6));
        assert_eq!(line_of(text, "grants.http"), Some(9));
        assert_eq!(line_of(text, "grants.env"), None);
        assert_eq!(line_of("not toml [", "limits"), None);
    }

    #[test]
    fn mistakes_are_errors_that_say_where() {
        let err = parse("[contracts]\nviolation = \"warn\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("violation"), "{err}");
        for (text, needle) in [
            ("[limits]\nmemory = \"lots\"\n", "limits.memory"),
            ("[limits.rpc.Apply]\ntimeout = \"1s\"\n", "limits.rpc.Apply"),
            (
                "[limits.rpc.GetFunctions]\ntimeout = \"1s\"\n",
                "tfwasm answers GetFunctions itself",
            ),
            ("[grants]\ndirs = [\"/x\"]\n", "grants.dirs"),
            ("[grants]\nenv = [\"A-B\"]\n", "grants.env"),
            ("[grants]\nhttp = [\"x.example.com\"]\n", "grants.http"),
            ("[http]\nhttps_proxy = \"socks5://p:1\"\n", "proxy https"),
        ] {
            let err = format!(
                "{:#}",
                parse(text)
                    .unwrap()
                    .resolve("x".into(), Path::new("."))
                    .err()
                    .unwrap()
            );
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }
}
