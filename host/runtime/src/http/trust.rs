//! Which servers outgoing HTTPS trusts: the system's roots plus the operator's CA files.
//!
//! The operator's files are read when the provider loads, so a bad path fails `tfwasm
//! package` or the provider's start with the file named. The system roots are read on the
//! first HTTPS connection only: most providers never make one in most processes (Terraform
//! starts a provider just to read its schema), and start-up is paid 3–4 times per command.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// A CA file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("CA file {}: {reason}", path.display())]
pub struct CaFileError {
    /// The file as given.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

/// The trust roots of one provider, and the TLS client configuration built from them once.
pub(crate) struct Trust {
    extra: Vec<CertificateDer<'static>>,
    config: OnceLock<Arc<rustls::ClientConfig>>,
}

impl Trust {
    /// Reads every certificate of `files` (PEM bundles).
    pub(crate) fn load(files: &[PathBuf]) -> Result<Trust, CaFileError> {
        let mut extra = Vec::new();
        for path in files {
            extra.extend(read_pem(path)?);
        }
        Ok(Trust {
            extra,
            config: OnceLock::new(),
        })
    }

    /// The client configuration: built on first use, shared afterwards.
    pub(crate) fn client_config(&self) -> Arc<rustls::ClientConfig> {
        self.config
            .get_or_init(|| {
                let mut roots = rustls::RootCertStore::empty();
                let system = rustls_native_certs::load_native_certs();
                for error in &system.errors {
                    tracing::warn!(%error, "reading the system's CA certificates");
                }
                let (added, ignored) = roots.add_parsable_certificates(system.certs);
                tracing::debug!(added, ignored, "system CA certificates");
                let (added, ignored) = roots.add_parsable_certificates(self.extra.iter().cloned());
                tracing::debug!(added, ignored, "operator CA certificates");
                let provider = tfwasm_tls::provider();
                let config = rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map(|b| b.with_root_certificates(roots).with_no_client_auth())
                    // The default protocol versions are always supported by ring.
                    .unwrap_or_else(|_| unreachable!("ring supports TLS 1.2 and 1.3"));
                Arc::new(config)
            })
            .clone()
    }
}

fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>, CaFileError> {
    let fail = |reason: String| CaFileError {
        path: path.to_owned(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("not a PEM certificate bundle ({e})")))?;
    if certs.is_empty() {
        return Err(fail(
            "no certificates in it (expected PEM blocks starting with -----BEGIN CERTIFICATE-----)"
                .into(),
        ));
    }
    // Fail now rather than at the first request: every certificate must parse as a root.
    let mut probe = rustls::RootCertStore::empty();
    for (i, cert) in certs.iter().enumerate() {
        probe
            .add(cert.clone())
            .map_err(|e| fail(format!("certificate {} is not usable: {e}", i + 1)))?;
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_empty_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem");
        let err = Trust::load(std::slice::from_ref(&missing))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("nope.pem"), "{err}");

        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "hello\n").unwrap();
        let err = Trust::load(&[empty]).err().unwrap().to_string();
        assert!(
            err.contains("empty.pem") && err.contains("no certificates"),
            "{err}"
        );
    }

    #[test]
    fn a_generated_ca_loads_and_builds_a_config() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, crate::http::test_ca::ca_pem()).unwrap();
        let trust = Trust::load(&[ca]).unwrap();
        assert_eq!(trust.extra.len(), 1);
        let config = trust.client_config();
        assert!(Arc::ptr_eq(&config, &trust.client_config()));
    }
}
