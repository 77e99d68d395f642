//! ECDSA on P-521, verification only, as a rustls signature verification algorithm.

use std::sync::OnceLock;

use p521::ecdsa::{Signature, VerifyingKey, signature::hazmat::PrehashVerifier};
use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{
    AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm, alg_id,
};

/// P-521 keys with the three digests certificates sign with: SHA-512 is what TLS 1.3's
/// `ecdsa_secp521r1_sha512` (Terraform's AutoMTLS) uses; the others appear in chains and TLS
/// 1.2. (aws-lc also verified P-256 and P-384 keys with SHA-512, and ML-DSA, which ring does
/// not; no Terraform or common server certificate uses them.)
static P521_SHA256: P521 = P521(Digest::Sha256);
static P521_SHA384: P521 = P521(Digest::Sha384);
static P521_SHA512: P521 = P521(Digest::Sha512);

/// ring's algorithms with P-521 added: to the list for certificate chains, and to
/// the TLS signature schemes (`ecdsa_secp521r1_sha512` its own; in TLS 1.2 a scheme names only
/// the digest, so P-521 joins the SHA-256 and SHA-384 ones).
pub(crate) fn ring_and_p521() -> WebPkiSupportedAlgorithms {
    static ADDED: OnceLock<WebPkiSupportedAlgorithms> = OnceLock::new();
    *ADDED.get_or_init(|| {
        let base = rustls::crypto::ring::default_provider().signature_verification_algorithms;
        let ours: [&'static dyn SignatureVerificationAlgorithm; 3] =
            [&P521_SHA256, &P521_SHA384, &P521_SHA512];
        let all: Vec<_> = base.all.iter().copied().chain(ours).collect();
        let mut mapping: Vec<(
            SignatureScheme,
            &'static [&'static dyn SignatureVerificationAlgorithm],
        )> = base
            .mapping
            .iter()
            .map(|&(scheme, algs)| {
                let extra: Option<&'static dyn SignatureVerificationAlgorithm> = match scheme {
                    SignatureScheme::ECDSA_NISTP256_SHA256 => Some(&P521_SHA256),
                    SignatureScheme::ECDSA_NISTP384_SHA384 => Some(&P521_SHA384),
                    _ => None,
                };
                match extra {
                    Some(extra) => (scheme, leak(algs.iter().copied().chain([extra]).collect())),
                    None => (scheme, algs),
                }
            })
            .collect();
        mapping.push((
            SignatureScheme::ECDSA_NISTP521_SHA512,
            leak(vec![&P521_SHA512]),
        ));
        WebPkiSupportedAlgorithms {
            all: leak(all),
            mapping: leak(mapping),
        }
    })
}

/// Made once per process (the `OnceLock` above), so nothing accumulates.
fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

/// Bytes of a P-521 field element: 521 bits.
const FIELD_BYTES: usize = 66;

/// `message`'s digest under `D`, with leading zeros to a field element's width.
fn widened<D: sha2::Digest>(message: &[u8]) -> [u8; FIELD_BYTES] {
    let digest = D::digest(message);
    let mut prehash = [0u8; FIELD_BYTES];
    prehash[FIELD_BYTES - digest.len()..].copy_from_slice(&digest);
    prehash
}

#[derive(Debug, Clone, Copy)]
enum Digest {
    Sha256,
    Sha384,
    Sha512,
}

#[derive(Debug)]
struct P521(Digest);

impl SignatureVerificationAlgorithm for P521 {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        // Uncompressed points only, as ring and webpki take them (SEC1 also has compressed,
        // hybrid and "compact" forms, which no certificate needs).
        if public_key.first() != Some(&0x04) {
            return Err(InvalidSignature);
        }
        let key = VerifyingKey::from_sec1_bytes(public_key).map_err(|_| InvalidSignature)?;
        let signature = Signature::from_der(signature).map_err(|_| InvalidSignature)?;
        // ECDSA takes a digest shorter than the curve's order as the integer it is; the
        // `ecdsa` crate refuses one shorter than half the field (SHA-256 on P-521), so it is
        // widened with leading zeros, which keeps that integer.
        let prehash = match self.0 {
            Digest::Sha256 => widened::<sha2::Sha256>(message),
            Digest::Sha384 => widened::<sha2::Sha384>(message),
            Digest::Sha512 => widened::<sha2::Sha512>(message),
        };
        key.verify_prehash(&prehash, &signature)
            .map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::ECDSA_P521
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        match self.0 {
            Digest::Sha256 => alg_id::ECDSA_SHA256,
            Digest::Sha384 => alg_id::ECDSA_SHA384,
            Digest::Sha512 => alg_id::ECDSA_SHA512,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{KeyPair, PKCS_ECDSA_P521_SHA512, PublicKeyData as _, SigningKey as _};

    /// Signatures made by another implementation (aws-lc, through rcgen), as Terraform's Go
    /// client makes them, verify here; a changed message, another key or a damaged signature
    /// does not.
    #[test]
    fn p521_signatures_from_another_implementation_verify_and_nothing_else_does() {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P521_SHA512).unwrap();
        let other = KeyPair::generate_for(&PKCS_ECDSA_P521_SHA512).unwrap();
        let message = b"TLS 1.3, server CertificateVerify: the transcript hash";
        let signature = key.sign(message).unwrap();
        let public = key.der_bytes();

        P521_SHA512
            .verify_signature(public, message, &signature)
            .unwrap();
        assert!(
            P521_SHA512
                .verify_signature(public, b"another transcript", &signature)
                .is_err()
        );
        assert!(
            P521_SHA512
                .verify_signature(other.der_bytes(), message, &signature)
                .is_err()
        );
        // The same signature under another digest is another statement.
        assert!(
            P521_SHA384
                .verify_signature(public, message, &signature)
                .is_err()
        );
        let mut damaged = signature.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert!(
            P521_SHA512
                .verify_signature(public, message, &damaged)
                .is_err()
        );
        assert!(P521_SHA512.verify_signature(public, message, b"").is_err());
        assert!(
            P521_SHA512
                .verify_signature(b"not a point", message, &signature)
                .is_err()
        );
    }

    /// Every digest verifies what aws-lc signs with it on P-521 (certificates in a chain may
    /// be signed with any of them), and only under its own digest.
    #[test]
    fn each_digest_verifies_aws_lc_signatures_made_with_it() {
        use aws_lc_rs::rand::SystemRandom;
        use aws_lc_rs::signature::{self as lc, EcdsaKeyPair, KeyPair as _};
        let rng = SystemRandom::new();
        let message = b"a certificate's to-be-signed bytes";
        for (signing, ours, other) in [
            (
                &lc::ECDSA_P521_SHA256_ASN1_SIGNING,
                &P521_SHA256,
                &P521_SHA512,
            ),
            (
                &lc::ECDSA_P521_SHA384_ASN1_SIGNING,
                &P521_SHA384,
                &P521_SHA256,
            ),
            (
                &lc::ECDSA_P521_SHA512_ASN1_SIGNING,
                &P521_SHA512,
                &P521_SHA384,
            ),
        ] {
            let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).unwrap();
            let pair = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref()).unwrap();
            let signature = pair.sign(&rng, message).unwrap();
            let public = pair.public_key().as_ref();
            ours.verify_signature(public, message, signature.as_ref())
                .unwrap_or_else(|_| panic!("{ours:?}"));
            assert!(
                other
                    .verify_signature(public, message, signature.as_ref())
                    .is_err()
            );
            assert!(
                ours.verify_signature(public, b"other bytes", signature.as_ref())
                    .is_err()
            );
        }
    }

    /// Only the uncompressed point form is taken for a key.
    #[test]
    fn keys_in_another_point_form_are_refused() {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P521_SHA512).unwrap();
        let message = b"transcript";
        let signature = key.sign(message).unwrap();
        let mut public = key.der_bytes().to_vec();
        P521_SHA512
            .verify_signature(&public, message, &signature)
            .unwrap();
        public[0] = 0x05;
        assert!(
            P521_SHA512
                .verify_signature(&public, message, &signature)
                .is_err()
        );
    }

    #[test]
    fn every_p521_algorithm_is_listed_for_chains_and_the_tls_scheme_maps_to_sha512() {
        let algorithms = ring_and_p521();
        let p521_ids: Vec<_> = algorithms
            .all
            .iter()
            .filter(|a| a.public_key_alg_id() == alg_id::ECDSA_P521)
            .map(|a| a.signature_alg_id())
            .collect();
        assert_eq!(
            p521_ids,
            [
                alg_id::ECDSA_SHA256,
                alg_id::ECDSA_SHA384,
                alg_id::ECDSA_SHA512
            ]
        );
        let (_, for_521) = algorithms
            .mapping
            .iter()
            .find(|(scheme, _)| *scheme == SignatureScheme::ECDSA_NISTP521_SHA512)
            .unwrap();
        assert_eq!(for_521.len(), 1);
        assert_eq!(for_521[0].signature_alg_id(), alg_id::ECDSA_SHA512);
        // ring's own algorithms are all still there.
        let ring = rustls::crypto::ring::default_provider().signature_verification_algorithms;
        assert_eq!(algorithms.all.len(), ring.all.len() + 3);
        assert_eq!(algorithms.mapping.len(), ring.mapping.len() + 1);
    }
}
