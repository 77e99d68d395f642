//! `tfwasm dev-overrides`: the development loop. Rebuilding a provider under the same version
//! changes its package's hashes, so `.terraform.lock.hcl` refuses it and `init -upgrade` does
//! not help (the version did not move). Terraform's `dev_overrides` runs a provider straight
//! from a directory with no lock-file check; this command writes the CLI configuration that
//! points each provider packaged under a `tfwasm package --out` folder at its newest package.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use tfwasm_runtime::Platform;

/// Arguments of `tfwasm dev-overrides`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder `tfwasm package --out` wrote (HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/…).
    out: PathBuf,
}

/// One provider's newest package for this machine.
#[derive(Debug, PartialEq)]
struct Newest {
    version: String,
    dir: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let platform = Platform::host()
        .ok_or_else(|| anyhow::anyhow!("tfwasm makes no packages for this machine's platform"))?;
    let out = std::fs::canonicalize(&args.out)
        .with_context(|| format!("reading {}", args.out.display()))?;
    // Terraform reads CLI configuration as HCL 1, where `${` opens an interpolation even in
    // a string and nothing escapes it: only plain paths go into the file.
    if !plain_path(&out.display().to_string()) {
        bail!(
            "{}: a path holding `$`, `%`, quotes, backslashes or control characters cannot be written into a CLI configuration; move the folder",
            crate::hclog::escaped(&out.display().to_string())
        );
    }
    let found = newest_packages(&out, platform.name())?;
    if found.is_empty() {
        bail!(
            "no {platform} package under {}: run `tfwasm package COMPONENT --source HOST/NAMESPACE/TYPE --version X.Y.Z --out {}` first",
            out.display(),
            args.out.display()
        );
    }
    print!("{}", render(&out, &found));
    for (address, newest) in &found {
        eprintln!("{address}: {} ({})", newest.version, newest.dir.display());
    }
    Ok(())
}

/// Every `HOST/NAMESPACE/TYPE` under `out` with a package for `platform`, and its newest.
fn newest_packages(out: &Path, platform: &str) -> anyhow::Result<BTreeMap<String, Newest>> {
    let dirs = |dir: &Path| -> anyhow::Result<Vec<(String, PathBuf)>> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                found.push((
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                ));
            }
        }
        Ok(found)
    };
    let mut found = BTreeMap::new();
    // Folders are whatever is on disk; only provider addresses and versions are taken.
    let dirs = |dir: &Path| -> anyhow::Result<Vec<(String, PathBuf)>> {
        Ok(dirs(dir)?
            .into_iter()
            .filter(|(name, path)| {
                let plain = !name.is_empty()
                    && name.len() <= 128
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._-+:".contains(&b));
                if !plain {
                    eprintln!(
                        "skipping {}: not a provider address or version",
                        crate::hclog::escaped(&path.display().to_string())
                    );
                }
                plain
            })
            .collect())
    };
    for (host, host_dir) in dirs(out)? {
        for (namespace, namespace_dir) in dirs(&host_dir)? {
            for (type_name, type_dir) in dirs(&namespace_dir)? {
                let executable_prefix = format!("terraform-provider-{type_name}_v");
                let newest = dirs(&type_dir)?
                    .into_iter()
                    .map(|(version, dir)| (version, dir.join(platform)))
                    .filter(|(version, dir)| {
                        dir.join(format!("{executable_prefix}{version}")).is_file()
                    })
                    .max_by(|(a, _), (b, _)| version_order(a, b));
                if let Some((version, dir)) = newest {
                    found.insert(
                        format!("{host}/{namespace}/{type_name}"),
                        Newest { version, dir },
                    );
                }
            }
        }
    }
    Ok(found)
}

/// Semantic-version order of `X.Y.Z[-pre]` (a pre-release before its release); anything
/// else after every version, by its text.
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(version: &str) -> Option<(u64, u64, u64, bool, &str)> {
        let (core, pre) = version.split_once('-').unwrap_or((version, ""));
        let mut parts = core
            .split('+')
            .next()?
            .split('.')
            .map(|p| p.parse::<u64>().ok());
        let (x, y, z) = (parts.next()??, parts.next()??, parts.next()??);
        Some((x, y, z, pre.is_empty(), pre))
    }
    match (key(a), key(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// Whether `path` can stand in an HCL 1 string as it is.
fn plain_path(path: &str) -> bool {
    !path
        .chars()
        .any(|c| c.is_control() || matches!(c, '$' | '%' | '"' | '\\' | '{' | '}'))
}

/// The CLI configuration: a `dev_overrides` entry per provider, and `direct {}` for the rest.
fn render(out: &Path, found: &BTreeMap<String, Newest>) -> String {
    // Plain paths and names only (`plain_path`, the folder filter): nothing to escape.
    let quote = |text: &str| format!("\"{text}\"");
    let mut text = format!(
        "# Terraform/OpenTofu CLI configuration for developing the providers packaged in\n# {}: each runs from its newest package, rebuilt or not, with no lock-file\n# check. Use it with TF_CLI_CONFIG_FILE=<this file>; `terraform init` is not needed for\n# these providers. Made by `tfwasm dev-overrides`.\nprovider_installation {{\n  dev_overrides {{\n",
        crate::hclog::escaped(&out.display().to_string())
    );
    for (address, newest) in found {
        text.push_str(&format!(
            "    {} = {}\n",
            quote(address),
            quote(&newest.dir.display().to_string())
        ));
    }
    text.push_str("  }\n  direct {}\n}\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_package_of_each_provider_for_this_platform_is_overridden() {
        let out = tempfile::tempdir().unwrap();
        let package = |address: &str, version: &str, platform: &str| {
            let type_name = address.rsplit('/').next().unwrap();
            let dir = out.path().join(address).join(version).join(platform);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join(format!("terraform-provider-{type_name}_v{version}")),
                b"x",
            )
            .unwrap();
        };
        package("registry.terraform.io/acme/widget", "0.9.0", "linux_amd64");
        package("registry.terraform.io/acme/widget", "0.10.0", "linux_amd64");
        package(
            "registry.terraform.io/acme/widget",
            "0.11.0-rc1",
            "linux_amd64",
        );
        package("registry.terraform.io/acme/widget", "0.12.0", "linux_arm64");
        package("example.com/team/gadget", "1.0.0", "linux_amd64");
        // A folder without the executable is no package.
        std::fs::create_dir_all(out.path().join("example.com/team/empty/1.0.0/linux_amd64"))
            .unwrap();
        let found = newest_packages(out.path(), "linux_amd64").unwrap();
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            [
                "example.com/team/gadget",
                "registry.terraform.io/acme/widget"
            ]
        );
        let widget = &found["registry.terraform.io/acme/widget"];
        assert_eq!(widget.version, "0.11.0-rc1");
        let text = render(out.path(), &found);
        assert!(
            text.contains(&format!(
                "\"registry.terraform.io/acme/widget\" = \"{}\"",
                out.path()
                    .join("registry.terraform.io/acme/widget/0.11.0-rc1/linux_amd64")
                    .display()
            )),
            "{text}"
        );
        assert!(text.contains("direct {}"), "{text}");
    }

    /// The twenty-fifth hostile pass: a version folder named `1.0.0${a` made Terraform's HCL 1
    /// parser drop the whole `provider_installation` block.
    #[test]
    fn odd_folder_names_are_skipped_and_odd_paths_refused() {
        let out = tempfile::tempdir().unwrap();
        for version in ["1.0.0${a", "1.0.0"] {
            let dir = out
                .path()
                .join("registry.terraform.io/acme/widget")
                .join(version)
                .join("linux_amd64");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join(format!("terraform-provider-widget_v{version}")),
                b"x",
            )
            .unwrap();
        }
        let found = newest_packages(out.path(), "linux_amd64").unwrap();
        assert_eq!(found["registry.terraform.io/acme/widget"].version, "1.0.0");
        assert!(!render(out.path(), &found).contains('$'));
        assert!(plain_path("/home/me/mirror"));
        for odd in ["/tmp/a${b}", "/tmp/a\"b", "/tmp/%{x}", "/tmp/a\nb"] {
            assert!(!plain_path(odd), "{odd}");
        }
    }

    #[test]
    fn versions_order_as_semantic_versions() {
        let mut versions = vec!["1.10.0", "1.2.0", "1.10.0-beta", "1.9.9", "odd"];
        versions.sort_by(|a, b| version_order(a, b));
        assert_eq!(versions, ["1.2.0", "1.9.9", "1.10.0-beta", "1.10.0", "odd"]);
    }
}
