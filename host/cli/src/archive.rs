//! Provider archives as network mirrors and private registries serve them: one zip per
//! platform (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`), the mirror's `index.json` and
//! `VERSION.json` beside them, a `SHA256SUMS` file, and the `h1:`/`zh:` hashes Terraform
//! records in `.terraform.lock.hcl`.
//!
//! Archives are reproducible (sorted entries, fixed times and modes), so packaging the same
//! files again gives the same bytes and the same hashes.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use base64::Engine as _;
use sha2::{Digest as _, Sha256};

/// Where a provider's archives go and what they are called.
pub struct Release<'a> {
    /// `registry.terraform.io`.
    pub host: &'a str,
    /// `example`.
    pub namespace: &'a str,
    /// `random`.
    pub type_name: &'a str,
    /// `0.1.0`.
    pub version: &'a str,
}

/// One archive written.
#[derive(Debug)]
pub struct Archived {
    /// The zip file.
    pub file: PathBuf,
    /// `zh:` hash: SHA-256 of the zip, what registries sign in SHA256SUMS.
    pub zh: String,
    /// `h1:` hash: over the unpacked files, what Terraform checks an installed package with.
    pub h1: String,
}

/// Zips `package` (one platform's unpacked package) for `platform` into
/// `dist/HOST/NAMESPACE/TYPE/`, and updates the mirror's `index.json` and `VERSION.json` and
/// the version's `SHA256SUMS` there (other platforms and versions already listed stay).
pub fn archive(
    package: &Path,
    release: &Release<'_>,
    platform: &str,
    dist: &Path,
) -> anyhow::Result<Archived> {
    let files = package_files(package)?;
    let below = Path::new(release.host)
        .join(release.namespace)
        .join(release.type_name);
    crate::files::create_dirs(dist, &below)?;
    let dir = dist.join(below);
    let prefix = format!(
        "terraform-provider-{}_{}",
        release.type_name, release.version
    );
    let name = format!("{prefix}_{platform}.zip");
    let bytes = zip_files(&files)?;
    let file = dir.join(&name);
    crate::files::replace(&file, &bytes, 0o644)?;
    let zh = format!("zh:{}", hex::encode(Sha256::digest(&bytes)));
    let h1 = h1(&files);

    let version_file = dir.join(format!("{}.json", release.version));
    let mut version: serde_json::Value = read_json(&version_file)?;
    version["archives"][platform] = serde_json::json!({ "url": name, "hashes": [h1] });
    write_json(&version_file, &version)?;
    let index_file = dir.join("index.json");
    let mut index: serde_json::Value = read_json(&index_file)?;
    index["versions"][release.version] = serde_json::json!({});
    write_json(&index_file, &index)?;
    write_sums(&dir, &prefix)?;
    Ok(Archived { file, zh, h1 })
}

/// The package's files by their path inside it (`/`-separated), sorted.
fn package_files(package: &Path) -> anyhow::Result<BTreeMap<String, (Vec<u8>, bool)>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![package.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(package)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let executable = {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::metadata(&path)?.permissions().mode() & 0o111 != 0
            };
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            out.insert(relative, (bytes, executable));
        }
    }
    anyhow::ensure!(!out.is_empty(), "{} holds no package", package.display());
    Ok(out)
}

fn zip_files(files: &BTreeMap<String, (Vec<u8>, bool)>) -> anyhow::Result<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, (bytes, executable)) in files {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(if *executable { 0o755 } else { 0o644 });
        zip.start_file(name.as_str(), options)?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// Go's `dirhash.Hash1` over the files as Terraform unpacks them: SHA-256 of the lines
/// `HEX  NAME\n` (each file's SHA-256 and name, sorted by name), base64.
fn h1(files: &BTreeMap<String, (Vec<u8>, bool)>) -> String {
    let mut summary = String::new();
    for (name, (bytes, _)) in files {
        summary.push_str(&format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))));
    }
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(summary.as_bytes()))
    )
}

/// `PREFIX_SHA256SUMS`: every zip of this version in `dir`, as `sha256sum` writes them.
fn write_sums(dir: &Path, prefix: &str) -> anyhow::Result<()> {
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(&format!("{prefix}_")) && name.ends_with(".zip") {
            let bytes = std::fs::read(dir.join(&name))?;
            lines.push(format!("{}  {name}\n", hex::encode(Sha256::digest(&bytes))));
        }
    }
    lines.sort();
    let path = dir.join(format!("{prefix}_SHA256SUMS"));
    crate::files::replace(&path, lines.concat().as_bytes(), 0o644)
}

fn read_json(path: &Path) -> anyhow::Result<serde_json::Value> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not JSON; remove it to start over", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(serde_json::json!({})),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn write_json(path: &Path, value: &serde_json::Value) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    crate::files::replace(path, text.as_bytes(), 0o644)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h1_is_gos_dirhash_of_the_unpacked_files() {
        // dirhash.Hash1 of {"a": "hello\n"}: sha256("hello\n") = 5891b5b5…, line
        // "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a\n".
        let files: BTreeMap<String, (Vec<u8>, bool)> =
            [("a".to_owned(), (b"hello\n".to_vec(), false))]
                .into_iter()
                .collect();
        let summary = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a\n";
        let want = format!(
            "h1:{}",
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(summary))
        );
        assert_eq!(h1(&files), want);
    }

    #[test]
    fn archives_are_reproducible_and_listed_for_the_mirror() {
        let package = tempfile::tempdir().unwrap();
        std::fs::write(package.path().join("component.cwasm"), b"ELF").unwrap();
        std::fs::write(package.path().join("terraform-provider-x_v1.0.0"), b"#!").unwrap();
        let dist = tempfile::tempdir().unwrap();
        let release = Release {
            host: "registry.terraform.io",
            namespace: "acme",
            type_name: "x",
            version: "1.0.0",
        };
        let first = archive(package.path(), &release, "linux_amd64", dist.path()).unwrap();
        let bytes = std::fs::read(&first.file).unwrap();
        let again = archive(package.path(), &release, "linux_amd64", dist.path()).unwrap();
        assert_eq!(
            std::fs::read(&again.file).unwrap(),
            bytes,
            "same files, same zip"
        );
        assert_eq!((first.zh.clone(), first.h1.clone()), (again.zh, again.h1));
        archive(package.path(), &release, "darwin_arm64", dist.path()).unwrap();

        let dir = dist.path().join("registry.terraform.io/acme/x");
        let version: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("1.0.0.json")).unwrap()).unwrap();
        assert_eq!(
            version["archives"]["linux_amd64"]["url"],
            "terraform-provider-x_1.0.0_linux_amd64.zip"
        );
        assert_eq!(version["archives"]["linux_amd64"]["hashes"][0], first.h1);
        assert!(version["archives"]["darwin_arm64"].is_object());
        let index: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
        assert_eq!(index, serde_json::json!({"versions": {"1.0.0": {}}}));
        let sums =
            std::fs::read_to_string(dir.join("terraform-provider-x_1.0.0_SHA256SUMS")).unwrap();
        assert_eq!(sums.lines().count(), 2, "{sums}");
        assert!(sums.contains(&format!(
            "{}  terraform-provider-x_1.0.0_linux_amd64.zip",
            &first.zh[3..]
        )));
    }
}
