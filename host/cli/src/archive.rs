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
    /// The other zips `SHA256SUMS` lists: archives of this version made by earlier runs
    /// into the same folder (other platforms), said so the operator knows what is signed.
    pub earlier: Vec<String>,
}

/// Zips the `files` (paths inside `package`, one platform's unpacked package, each written by
/// this run) for `platform` into `dist/HOST/NAMESPACE/TYPE/`, and updates the mirror's
/// `index.json` and `VERSION.json` and the version's `SHA256SUMS` there (other platforms and
/// versions already listed stay). Only the files named are read, never through a symlink: a
/// package directory can hold what a provider with a grant around it planted.
pub fn archive(
    package: &Path,
    files: &[String],
    release: &Release<'_>,
    platform: &str,
    dist: &Path,
) -> anyhow::Result<Archived> {
    let files = package_files(package, files)?;
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
    let mut version = read_json(&version_file)?;
    table(&mut version, "archives", &version_file)?.insert(
        platform.to_owned(),
        serde_json::json!({ "url": name, "hashes": [h1] }),
    );
    write_json(&version_file, &serde_json::Value::Object(version))?;
    let index_file = dir.join("index.json");
    let mut index = read_json(&index_file)?;
    table(&mut index, "versions", &index_file)?
        .insert(release.version.to_owned(), serde_json::json!({}));
    write_json(&index_file, &serde_json::Value::Object(index))?;
    let earlier = write_sums(&dir, &prefix)?
        .into_iter()
        .filter(|listed| *listed != name)
        .collect();
    Ok(Archived {
        file,
        zh,
        h1,
        earlier,
    })
}

/// The object under `key` in `document` (created when absent), or an error naming `file`.
fn table<'d>(
    document: &'d mut serde_json::Map<String, serde_json::Value>,
    key: &str,
    file: &Path,
) -> anyhow::Result<&'d mut serde_json::Map<String, serde_json::Value>> {
    document
        .entry(key)
        .or_insert_with(|| serde_json::json!({}))
        .as_object_mut()
        .with_context(|| {
            format!(
                "{}: \"{key}\" is not an object; remove the file to start over",
                file.display()
            )
        })
}

/// Reads a file of this run's package without following a symlink.
pub(crate) fn read_no_follow(path: &Path) -> anyhow::Result<(Vec<u8>, std::fs::Metadata)> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .with_context(|| format!("reading {} (a symlink is not followed)", path.display()))?;
    let meta = file.metadata()?;
    anyhow::ensure!(meta.is_file(), "{} is not a regular file", path.display());
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    Ok((bytes, meta))
}

/// The named files of the package by their path inside it (`/`-separated), sorted.
fn package_files(
    package: &Path,
    names: &[String],
) -> anyhow::Result<BTreeMap<String, (Vec<u8>, bool)>> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut out = BTreeMap::new();
    for name in names {
        let (bytes, meta) = read_no_follow(&package.join(name))?;
        out.insert(
            name.clone(),
            (bytes, meta.permissions().mode() & 0o111 != 0),
        );
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

/// `PREFIX_SHA256SUMS`: every zip of this version in `dir`, as `sha256sum` writes them, read
/// without following a symlink (one is refused, named). Returns the names listed.
fn write_sums(dir: &Path, prefix: &str) -> anyhow::Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(&format!("{prefix}_")) && name.ends_with(".zip") {
            let (bytes, _) = read_no_follow(&dir.join(&name))?;
            lines.push(format!("{}  {name}\n", hex::encode(Sha256::digest(&bytes))));
            names.push(name);
        }
    }
    lines.sort();
    names.sort();
    let path = dir.join(format!("{prefix}_SHA256SUMS"));
    crate::files::replace(&path, lines.concat().as_bytes(), 0o644)?;
    Ok(names)
}

/// A JSON document that must be an object (empty when the file is missing).
pub(crate) fn read_json(path: &Path) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    let not = || {
        format!(
            "{} is not a JSON object; remove it to start over",
            path.display()
        )
    };
    match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice(&bytes).with_context(not)? {
            serde_json::Value::Object(map) => Ok(map),
            _ => Err(anyhow::anyhow!(not())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(serde_json::Map::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

pub(crate) fn write_json(path: &Path, value: &serde_json::Value) -> anyhow::Result<()> {
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
        let names = [
            "component.cwasm".to_owned(),
            "terraform-provider-x_v1.0.0".to_owned(),
        ];
        let dist = tempfile::tempdir().unwrap();
        let release = Release {
            host: "registry.terraform.io",
            namespace: "acme",
            type_name: "x",
            version: "1.0.0",
        };
        let first = archive(package.path(), &names, &release, "linux_amd64", dist.path()).unwrap();
        let bytes = std::fs::read(&first.file).unwrap();
        let again = archive(package.path(), &names, &release, "linux_amd64", dist.path()).unwrap();
        assert_eq!(
            std::fs::read(&again.file).unwrap(),
            bytes,
            "same files, same zip"
        );
        assert_eq!((first.zh.clone(), first.h1.clone()), (again.zh, again.h1));
        archive(
            package.path(),
            &names,
            &release,
            "darwin_arm64",
            dist.path(),
        )
        .unwrap();

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

    /// The twenty-third hostile pass: a package directory holding a symlink a provider
    /// planted (to the operator's SSH key) was zipped, published and signed, and a zip planted
    /// in the archive folder was listed in the signed sums; a JSON document of another shape
    /// there panicked.
    #[test]
    fn only_the_files_named_are_zipped_never_through_a_symlink() {
        let package = tempfile::tempdir().unwrap();
        let secret = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(secret.path(), b"PRIVATE KEY").unwrap();
        std::fs::write(package.path().join("component.cwasm"), b"ELF").unwrap();
        std::os::unix::fs::symlink(secret.path(), package.path().join("NOTICE")).unwrap();
        let dist = tempfile::tempdir().unwrap();
        let release = Release {
            host: "h",
            namespace: "n",
            type_name: "x",
            version: "1.0.0",
        };
        let names = ["component.cwasm".to_owned()];
        let zipped = archive(package.path(), &names, &release, "linux_amd64", dist.path()).unwrap();
        let bytes = std::fs::read(&zipped.file).unwrap();
        assert!(!bytes.windows(11).any(|w| w == b"PRIVATE KEY"));
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(zip.len(), 1);
        assert!(zip.by_name("NOTICE").is_err());

        // A name this run wrote, replaced by a symlink, is refused rather than followed.
        std::fs::remove_file(package.path().join("component.cwasm")).unwrap();
        std::os::unix::fs::symlink(secret.path(), package.path().join("component.cwasm")).unwrap();
        let error = archive(package.path(), &names, &release, "linux_amd64", dist.path())
            .unwrap_err()
            .to_string();
        assert!(error.contains("symlink"), "{error}");
        std::fs::remove_file(package.path().join("component.cwasm")).unwrap();
        std::fs::write(package.path().join("component.cwasm"), b"ELF").unwrap();

        // A zip already in the folder is listed, and said to be from earlier.
        let mirror = dist.path().join("h/n/x");
        std::fs::write(mirror.join("x_other.zip"), b"unrelated").unwrap();
        std::fs::write(
            mirror.join("terraform-provider-x_1.0.0_linux_arm64.zip"),
            b"z",
        )
        .unwrap();
        let zipped = archive(package.path(), &names, &release, "linux_amd64", dist.path()).unwrap();
        assert_eq!(
            zipped.earlier,
            ["terraform-provider-x_1.0.0_linux_arm64.zip"]
        );

        // Documents of another shape are an error naming the file, not a panic.
        for (file, text) in [("index.json", "[]"), ("1.0.0.json", r#"{"archives": 5}"#)] {
            std::fs::write(mirror.join(file), text).unwrap();
            let error = archive(package.path(), &names, &release, "linux_amd64", dist.path())
                .unwrap_err()
                .to_string();
            assert!(error.contains(file), "{error}");
            std::fs::remove_file(mirror.join(file)).unwrap();
        }
    }
}
