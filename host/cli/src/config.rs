//! The operator's per-provider settings: `tfwasm.toml` beside the component in a provider
//! package, overridable at run time by environment variables.
//!
//! ```toml
//! [contracts]
//! # "error" (default): a provider result that breaks a lifecycle contract fails the run.
//! # "warn": report it as a warning instead, for authors migrating a provider.
//! violations = "warn"
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use tfwasm_contract::Mode;

/// File name of the settings file in a provider package.
pub const FILE_NAME: &str = "tfwasm.toml";
/// Overrides `contracts.violations` at run time.
pub const VIOLATIONS_ENV: &str = "TFWASM_CONTRACT_VIOLATIONS";

/// Everything an operator can set for one provider.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// Contract checking.
    #[serde(default)]
    pub contracts: Contracts,
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
            other => anyhow::bail!("{VIOLATIONS_ENV}={other:?}: expected \"error\" or \"warn\""),
        }
    }
}

/// The settings file that belongs to `component` (same directory).
pub fn path_for(component: &Path) -> PathBuf {
    component.with_file_name(FILE_NAME)
}

/// Reads the settings beside `component` (defaults when there is none) and applies the
/// environment overrides.
///
/// # Errors
/// When the file exists but is not valid, naming the file and the problem.
pub fn load(component: &Path) -> anyhow::Result<ProviderConfig> {
    let path = path_for(component);
    let mut config = match std::fs::read_to_string(&path) {
        Ok(text) => {
            parse(&text).with_context(|| format!("invalid settings in {}", path.display()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ProviderConfig::default(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if let Ok(value) = std::env::var(VIOLATIONS_ENV)
        && !value.is_empty()
    {
        config.contracts.violations = Violations::parse(&value)?;
    }
    Ok(config)
}

/// Parses settings text.
pub fn parse(text: &str) -> anyhow::Result<ProviderConfig> {
    Ok(toml::from_str(text)?)
}

/// Settings as text, with a comment saying what the file is.
pub fn render(config: &ProviderConfig) -> anyhow::Result<String> {
    Ok(format!(
        "# tfwasm settings for this provider (see `tfwasm package --help`).\n{}",
        toml::to_string(config)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_enforce() {
        assert_eq!(parse("").unwrap().contracts.violations, Violations::Error);
    }

    #[test]
    fn round_trips() {
        let config = ProviderConfig {
            contracts: Contracts {
                violations: Violations::Warn,
            },
        };
        assert_eq!(parse(&render(&config).unwrap()).unwrap(), config);
    }

    #[test]
    fn typos_are_errors_that_say_where() {
        let err = parse("[contracts]\nviolation = \"warn\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("violation"), "{err}");
        assert!(parse("[contracts]\nviolations = \"loud\"\n").is_err());
    }
}
