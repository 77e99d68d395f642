//! go-plugin AutoMTLS, server side.
//!
//! Terraform passes its client certificate in `PLUGIN_CLIENT_CERT` (a fresh self-signed
//! P-521, CA:TRUE certificate per plugin start) and expects the server's certificate in the
//! handshake line. Each side then pins the other's exact certificate. webpki's chain
//! verifier rejects a CA certificate used as an end entity, so the client check here is a
//! byte comparison with the announced certificate, plus signature verification of the TLS
//! handshake with `tfwasm_tls::provider()` (ring, with RustCrypto's P-521 verification added:
//! ring does not verify P-521, and aws-lc-rs would cost every start its entropy seeding).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    CertificateError, DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme,
};

/// Setting up TLS failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// `PLUGIN_CLIENT_CERT` holds no PEM certificate.
    #[error("PLUGIN_CLIENT_CERT does not contain a PEM certificate")]
    NoClientCertificate,
    /// Generating the server certificate failed.
    #[error("cannot generate the server certificate: {0}")]
    Generate(String),
    /// rustls rejected the configuration.
    #[error("cannot configure TLS: {0}")]
    Config(String),
}

/// A server TLS configuration and the certificate to announce in the handshake line.
pub struct ServerTls {
    /// rustls configuration: TLS 1.2+, ALPN `h2`, client certificate required and pinned.
    pub config: Arc<ServerConfig>,
    /// DER of the server's certificate.
    pub certificate_der: Vec<u8>,
}

/// Builds the server side of AutoMTLS for the client certificate in `client_cert_pem`.
///
/// # Errors
/// When the PEM holds no certificate, or certificate generation fails.
pub fn server_tls(client_cert_pem: &str) -> Result<ServerTls, TlsError> {
    let client_cert = rustls_pemfile::certs(&mut client_cert_pem.as_bytes())
        .next()
        .and_then(Result::ok)
        .ok_or(TlsError::NoClientCertificate)?;

    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .map_err(|e| TlsError::Generate(e.to_string()))?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, "tfwasm");
    // Mirror go-plugin's own certificates: self-signed CA that is also the server leaf.
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
        rcgen::KeyUsagePurpose::KeyCertSign,
    ];
    params.extended_key_usages = vec![
        rcgen::ExtendedKeyUsagePurpose::ServerAuth,
        rcgen::ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let now = std::time::SystemTime::now();
    params.not_before = (now - std::time::Duration::from_secs(30)).into();
    params.not_after = (now + std::time::Duration::from_secs(30 * 365 * 24 * 3600)).into();
    let tfwasm_tls::SelfSigned {
        certificate_der,
        private_key_pkcs8,
    } = tfwasm_tls::self_signed(&params).map_err(|e| TlsError::Generate(e.to_string()))?;

    let provider = tfwasm_tls::provider();
    let verifier = PinnedClientCert {
        expected: client_cert.into_owned(),
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(
            vec![CertificateDer::from(certificate_der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(private_key_pkcs8)),
        )
        .map_err(|e| TlsError::Config(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(ServerTls {
        config: Arc::new(config),
        certificate_der,
    })
}

/// Accepts exactly one client certificate, compared byte for byte.
#[derive(Debug)]
struct PinnedClientCert {
    expected: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.expected.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p521_client_pem() -> String {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).unwrap().pem()
    }

    #[test]
    fn builds_config_for_a_p521_ca_client_cert() {
        let tls = server_tls(&p521_client_pem()).unwrap();
        assert_eq!(tls.config.alpn_protocols, vec![b"h2".to_vec()]);
        assert!(!tls.certificate_der.is_empty());
    }

    #[test]
    fn verifier_schemes_include_p521() {
        let provider = tfwasm_tls::provider();
        let v = PinnedClientCert {
            expected: CertificateDer::from(vec![1, 2, 3]),
            algorithms: provider.signature_verification_algorithms,
        };
        assert!(
            v.supported_verify_schemes()
                .contains(&SignatureScheme::ECDSA_NISTP521_SHA512)
        );
        assert!(
            v.verify_client_cert(&CertificateDer::from(vec![1, 2, 3]), &[], UnixTime::now())
                .is_ok()
        );
        assert!(
            v.verify_client_cert(&CertificateDer::from(vec![1, 2, 4]), &[], UnixTime::now())
                .is_err()
        );
    }

    #[test]
    fn garbage_pem_is_rejected() {
        assert!(matches!(
            server_tls("not a cert"),
            Err(TlsError::NoClientCertificate)
        ));
    }
}
