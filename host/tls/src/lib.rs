//! The one rustls crypto provider tfwasm's TLS connections use (the AutoMTLS server and the
//! guests' outgoing HTTPS), and the self-signed certificate the AutoMTLS server announces.
//!
//! Why a crate of its own: Terraform's AutoMTLS client certificate is P-521, which ring does
//! not verify. aws-lc-rs does, but it seeds its random generator from CPU-jitter entropy on
//! first use (~40 ms of every provider start unless aws-lc-sys is *built* with
//! `AWS_LC_SYS_NO_JITTER_ENTROPY`, which `cargo install` or a distribution would not set)
//! and, for that one algorithm, put a C library of its own into every package. So everything
//! comes from ring (OS entropy, no start-up cost) except P-521 signature verification, which
//! comes from RustCrypto's `p521` (module [`p521`]): verification draws no randomness and
//! needs no constant time, as everything it reads is public. Tests below fail if any of it
//! moves to another backend.

mod p521;

use std::sync::Arc;

use rcgen::{PublicKeyData, SignatureAlgorithm, SigningKey};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair as _};
use rustls::crypto::{CryptoProvider, ring as ring_provider};

/// The crypto provider: ring for everything, with P-521 signature verification added.
#[must_use]
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        signature_verification_algorithms: p521::ring_and_p521(),
        ..ring_provider::default_provider()
    })
}

/// Making the certificate failed (the OS gave no randomness, or rcgen refused the parameters).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CertificateError(String);

/// A self-signed certificate and its private key.
pub struct SelfSigned {
    /// DER of the certificate.
    pub certificate_der: Vec<u8>,
    /// PKCS#8 DER of its P-256 private key.
    pub private_key_pkcs8: Vec<u8>,
}

/// Signs `params` as a self-signed certificate with a fresh P-256 key made and used by ring.
///
/// # Errors
/// When the OS gives no randomness or rcgen refuses the parameters.
pub fn self_signed(params: &rcgen::CertificateParams) -> Result<SelfSigned, CertificateError> {
    let key = RingP256::generate()?;
    let mut params = params.clone();
    if params.serial_number.is_none() {
        // rcgen derives one only with a crypto backend of its own, which this crate leaves
        // out; 16 random bytes, positive and without a leading zero, as RFC 5280 asks.
        let mut serial = [0u8; 16];
        ring::rand::SecureRandom::fill(&key.rng, &mut serial)
            .map_err(|_| CertificateError("the OS gave no randomness for a serial".into()))?;
        serial[0] = 0x40 | (serial[0] & 0x3f);
        params.serial_number = Some(rcgen::SerialNumber::from_slice(&serial));
    }
    let cert = params
        .self_signed(&key)
        .map_err(|e| CertificateError(e.to_string()))?;
    Ok(SelfSigned {
        certificate_der: cert.der().to_vec(),
        private_key_pkcs8: key.pkcs8,
    })
}

/// A P-256 key that signs through ring, whichever backend rcgen was built with.
struct RingP256 {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
    rng: SystemRandom,
}

impl RingP256 {
    fn generate() -> Result<Self, CertificateError> {
        let rng = SystemRandom::new();
        let fail = |what: &str| CertificateError(format!("{what} a P-256 key"));
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            .map_err(|_| fail("cannot generate"))?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|_| fail("cannot load"))?;
        Ok(Self {
            pair,
            pkcs8: pkcs8.as_ref().to_vec(),
            rng,
        })
    }
}

impl PublicKeyData for RingP256 {
    fn der_bytes(&self) -> &[u8] {
        self.pair.public_key().as_ref()
    }

    fn algorithm(&self) -> &'static SignatureAlgorithm {
        &rcgen::PKCS_ECDSA_P256_SHA256
    }
}

impl SigningKey for RingP256 {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, rcgen::Error> {
        self.pair
            .sign(&self.rng, msg)
            .map(|signature| signature.as_ref().to_vec())
            .map_err(|_| rcgen::Error::RingUnspecified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::SignatureScheme;

    /// The provider's `Debug` names the backend of each part; a start-up cost comes back the
    /// moment one of these names `AwsLcRs`.
    #[test]
    fn randomness_key_exchange_and_keys_come_from_ring() {
        let provider = provider();
        assert_eq!(format!("{:?}", provider.secure_random), "Ring");
        assert_eq!(format!("{:?}", provider.key_provider), "Ring");
        for group in &provider.kx_groups {
            assert!(
                !format!("{group:?}").contains("AwsLc"),
                "key exchange {group:?} draws aws-lc randomness"
            );
        }
        assert_eq!(
            provider.kx_groups.len(),
            ring_provider::default_provider().kx_groups.len()
        );
        for algorithm in provider.signature_verification_algorithms.all {
            assert!(
                !format!("{algorithm:?}").contains("AwsLc"),
                "{algorithm:?} verifies with aws-lc"
            );
        }
    }

    #[test]
    fn verification_covers_terraforms_p521_certificates() {
        let schemes = provider()
            .signature_verification_algorithms
            .supported_schemes();
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP256_SHA256));
    }

    #[test]
    fn the_certificate_verifies_under_its_own_key() {
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let cert = self_signed(&params).unwrap();
        // rustls accepts the pair: the key matches the certificate and ring can load it.
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.private_key_pkcs8.clone().into());
        let signer = provider().key_provider.load_private_key(key).unwrap();
        assert!(
            signer
                .choose_scheme(&[SignatureScheme::ECDSA_NISTP256_SHA256])
                .is_some()
        );
        rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.certificate_der.clone().into()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(cert.private_key_pkcs8.into()),
            )
            .unwrap();
        // Two certificates never share a key.
        let other = self_signed(&params).unwrap();
        assert_ne!(other.certificate_der, cert.certificate_der);
    }

    /// The build that ships has no rcgen backend, so nothing derives a serial for us: the
    /// first start with the shipped runner failed without one. Tests build rcgen with
    /// aws-lc-rs (for P-521), so check that the serial is ours, not rcgen's.
    #[test]
    fn the_serial_is_set_here_not_by_rcgen() {
        let params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        let a = self_signed(&params).unwrap();
        let b = self_signed(&params).unwrap();
        let serial = |der: &[u8]| {
            let (_, cert) = x509_parser::parse_x509_certificate(der).unwrap();
            cert.raw_serial().to_vec()
        };
        assert_eq!(serial(&a.certificate_der).len(), 16);
        assert_ne!(serial(&a.certificate_der), serial(&b.certificate_der));
    }
}
