//! A private provider registry from a static folder: the provider registry protocol's
//! documents (`v1/providers/NAMESPACE/TYPE/versions` and one `…/VERSION/download/OS/ARCH`
//! per platform) beside the network mirror [`crate::archive`] writes, pointing at its zips
//! and its `SHA256SUMS` by relative URLs, with a detached OpenPGP signature of those sums.
//! Terraform and OpenTofu verify that signature with the public key the download document
//! carries; the key is the operator's, read from an ASCII-armored secret key and used by
//! rPGP in process (no `gpg` at packaging time).
//!
//! Serve the folder over HTTPS at a host's root: `.well-known/terraform.json` announces
//! `providers.v1` for service discovery.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use pgp::composed::{Deserializable as _, DetachedSignature, SignedSecretKey};
use pgp::crypto::hash::HashAlgorithm;
use pgp::types::{KeyDetails as _, Password};

use crate::archive::{Release, write_json};

/// Environment variable holding the signing key's passphrase, when it has one.
pub const PASSPHRASE_ENV: &str = "TFWASM_SIGNING_KEY_PASSPHRASE";

/// The tfplugin protocol every tfwasm package speaks.
const PROTOCOLS: &[&str] = &["6.0"];

/// The operator's signing key, and what the download documents publish of it.
pub struct SigningKey {
    key: SignedSecretKey,
    passphrase: Password,
    /// The public key, ASCII-armored.
    pub public_armor: String,
    /// The 16-hex-digit key id Terraform shows.
    pub key_id: String,
}

impl SigningKey {
    /// Reads an ASCII-armored OpenPGP secret key (`gpg --armor --export-secret-keys ID`);
    /// its passphrase, if any, comes from [`PASSPHRASE_ENV`]. The key is tried once here, so
    /// a wrong passphrase fails before anything is written.
    ///
    /// # Errors
    /// When the file is not such a key, or it cannot sign.
    pub fn read(path: &Path) -> anyhow::Result<SigningKey> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the signing key {}", path.display()))?;
        let (key, _) = SignedSecretKey::from_string(&text).with_context(|| {
            format!(
                "{} is not an ASCII-armored OpenPGP secret key (export one with `gpg --armor --export-secret-keys KEY_ID`)",
                path.display()
            )
        })?;
        let passphrase = std::env::var(PASSPHRASE_ENV)
            .map(Password::from)
            .unwrap_or_else(|_| Password::empty());
        let public_armor = key
            .to_public_key()
            .to_armored_string(Default::default())
            .context("armoring the public key")?;
        let key_id = hex::encode_upper(key.primary_key.legacy_key_id().as_ref());
        let signing = SigningKey {
            key,
            passphrase,
            public_armor,
            key_id,
        };
        signing.sign(b"tfwasm").with_context(|| {
            format!(
                "the key in {} cannot sign (protected by a passphrase? set {PASSPHRASE_ENV})",
                path.display()
            )
        })?;
        Ok(signing)
    }

    /// A binary detached signature of `bytes`, as Terraform checks `SHA256SUMS.sig`.
    fn sign(&self, bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
        use pgp::ser::Serialize as _;
        let signature = DetachedSignature::sign_binary_data(
            rand::thread_rng(),
            &self.key.primary_key,
            &self.passphrase,
            HashAlgorithm::Sha256,
            bytes,
        )?;
        let mut out = Vec::new();
        signature.to_writer(&mut out)?;
        Ok(out)
    }
}

/// What [`write`] made: the signature and the documents.
pub struct Written {
    /// `…_SHA256SUMS.sig`.
    pub signature: PathBuf,
    /// The versions document.
    pub versions: PathBuf,
}

/// Signs the version's `SHA256SUMS` in `dist` (made by [`crate::archive::archive`]) and
/// writes the registry documents for every platform it lists.
///
/// # Errors
/// When the sums or an archive cannot be read, or a document cannot be written.
pub fn write(dist: &Path, release: &Release<'_>, key: &SigningKey) -> anyhow::Result<Written> {
    let mirror = dist
        .join(release.host)
        .join(release.namespace)
        .join(release.type_name);
    let prefix = format!(
        "terraform-provider-{}_{}",
        release.type_name, release.version
    );
    let sums_name = format!("{prefix}_SHA256SUMS");
    let (sums, _) = crate::archive::read_no_follow(&mirror.join(&sums_name))?;
    let signature = mirror.join(format!("{sums_name}.sig"));
    crate::files::replace(&signature, &key.sign(&sums)?, 0o644)?;

    // From `v1/providers/NS/TYPE/VERSION/download/OS/` (the document's base) back to `dist`.
    let up = "../".repeat(7);
    let to_mirror = format!(
        "{up}{}/{}/{}",
        release.host, release.namespace, release.type_name
    );
    let providers = Path::new("v1/providers")
        .join(release.namespace)
        .join(release.type_name);
    let mut platforms = Vec::new();
    for line in String::from_utf8_lossy(&sums).lines() {
        let Some((shasum, filename)) = line.split_once("  ") else {
            continue;
        };
        let Some(platform) = filename
            .strip_prefix(&format!("{prefix}_"))
            .and_then(|rest| rest.strip_suffix(".zip"))
        else {
            continue;
        };
        let Some((os, arch)) = platform.split_once('_') else {
            continue;
        };
        let download = serde_json::json!({
            "protocols": PROTOCOLS,
            "os": os,
            "arch": arch,
            "filename": filename,
            "download_url": format!("{to_mirror}/{filename}"),
            "shasums_url": format!("{to_mirror}/{sums_name}"),
            "shasums_signature_url": format!("{to_mirror}/{sums_name}.sig"),
            "shasum": shasum,
            "signing_keys": { "gpg_public_keys": [{
                "key_id": key.key_id,
                "ascii_armor": key.public_armor,
            }]},
        });
        let below = providers.join(release.version).join("download").join(os);
        crate::files::create_dirs(dist, &below)?;
        write_json(&dist.join(below).join(arch), &download)?;
        platforms.push(serde_json::json!({ "os": os, "arch": arch }));
    }
    anyhow::ensure!(
        !platforms.is_empty(),
        "{} lists no archive of version {}",
        mirror.join(&sums_name).display(),
        release.version
    );

    let versions_path = dist.join(&providers).join("versions");
    let mut versions = crate::archive::read_json(&versions_path)?;
    let listed = match versions.get("versions") {
        None => Vec::new(),
        Some(serde_json::Value::Array(list)) => list.clone(),
        Some(_) => anyhow::bail!(
            "{}: \"versions\" is not a list; remove the file to start over",
            versions_path.display()
        ),
    };
    let mut list: Vec<serde_json::Value> = listed
        .into_iter()
        .filter(|v| v.get("version").and_then(|v| v.as_str()) != Some(release.version))
        .collect();
    list.push(serde_json::json!({
        "version": release.version,
        "protocols": PROTOCOLS,
        "platforms": platforms,
    }));
    versions.insert("versions".into(), serde_json::Value::Array(list));
    write_json(&versions_path, &serde_json::Value::Object(versions))?;

    crate::files::create_dirs(dist, Path::new(".well-known"))?;
    write_json(
        &dist.join(".well-known/terraform.json"),
        &serde_json::json!({ "providers.v1": "/v1/providers/" }),
    )?;
    Ok(Written {
        signature,
        versions: versions_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_file() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/registry/signing-key.asc")
    }

    #[test]
    fn documents_point_at_the_mirror_and_the_signature_verifies() {
        let dist = tempfile::tempdir().unwrap();
        let release = Release {
            host: "registry.example.com",
            namespace: "acme",
            type_name: "thing",
            version: "1.2.0",
        };
        let mirror = dist.path().join("registry.example.com/acme/thing");
        std::fs::create_dir_all(&mirror).unwrap();
        let sums = "aa11  terraform-provider-thing_1.2.0_linux_amd64.zip\nbb22  terraform-provider-thing_1.2.0_linux_arm64.zip\n";
        std::fs::write(
            mirror.join("terraform-provider-thing_1.2.0_SHA256SUMS"),
            sums,
        )
        .unwrap();
        let key = SigningKey::read(&key_file()).unwrap();
        assert_eq!(key.key_id.len(), 16);
        let written = write(dist.path(), &release, &key).unwrap();

        let doc: serde_json::Value = serde_json::from_slice(
            &std::fs::read(
                dist.path()
                    .join("v1/providers/acme/thing/1.2.0/download/linux/arm64"),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(doc["shasum"], "bb22");
        assert_eq!(doc["protocols"][0], "6.0");
        // Resolved against the document's URL, the relative URLs reach the mirror's files.
        let base = dist
            .path()
            .join("v1/providers/acme/thing/1.2.0/download/linux");
        let resolved = |field: &str| {
            let mut path = base.clone();
            for part in doc[field].as_str().unwrap().split('/') {
                match part {
                    ".." => {
                        path.pop();
                    }
                    part => path.push(part),
                }
            }
            path
        };
        assert_eq!(
            resolved("shasums_url"),
            mirror.join("terraform-provider-thing_1.2.0_SHA256SUMS")
        );
        assert_eq!(resolved("shasums_signature_url"), written.signature);
        assert_eq!(
            resolved("download_url"),
            mirror.join("terraform-provider-thing_1.2.0_linux_arm64.zip")
        );
        let versions: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&written.versions).unwrap()).unwrap();
        assert_eq!(
            versions["versions"][0]["platforms"]
                .as_array()
                .unwrap()
                .len(),
            2
        );

        // The signature is a detached one over the sums, by the published key.
        let signature =
            DetachedSignature::from_bytes(&std::fs::read(&written.signature).unwrap()[..]).unwrap();
        let (public, _) = pgp::composed::SignedPublicKey::from_string(
            doc["signing_keys"]["gpg_public_keys"][0]["ascii_armor"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        signature.verify(&public, sums.as_bytes()).unwrap();
        assert!(signature.verify(&public, b"tampered sums").is_err());

        // Again for the same version: one entry, not two.
        write(dist.path(), &release, &key).unwrap();
        let versions: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&written.versions).unwrap()).unwrap();
        assert_eq!(versions["versions"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_file_that_is_no_secret_key_is_refused_saying_how_to_make_one() {
        let dir = tempfile::tempdir().unwrap();
        let public = dir.path().join("public.asc");
        std::fs::write(
            &public,
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxx\n-----END PGP PUBLIC KEY BLOCK-----\n",
        )
        .unwrap();
        let error = SigningKey::read(&public).err().unwrap().to_string();
        assert!(error.contains("--export-secret-keys"), "{error}");
    }
}
