//! The digests hashicorp/local exposes for a file's content.

use base64::Engine as _;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

/// Every digest of `content`, as the attributes name them.
pub(crate) struct Hashes {
    /// SHA-1, hex: also the resource's `id`.
    pub(crate) sha1: String,
    pub(crate) md5: String,
    pub(crate) sha256: String,
    pub(crate) base64sha256: String,
    pub(crate) sha512: String,
    pub(crate) base64sha512: String,
}

/// SHA-1 of `content`, hex: the resource's `id`, all Read needs to notice a changed file.
pub(crate) fn sha1_hex(content: &[u8]) -> String {
    hex::encode(Sha1::digest(content))
}

impl Hashes {
    pub(crate) fn of(content: &[u8]) -> Hashes {
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        let sha256 = Sha256::digest(content);
        let sha512 = Sha512::digest(content);
        Hashes {
            sha1: sha1_hex(content),
            md5: hex::encode(Md5::digest(content)),
            sha256: hex::encode(sha256),
            base64sha256: b64(&sha256),
            sha512: hex::encode(sha512),
            base64sha512: b64(&sha512),
        }
    }

    /// `(attribute, value)` pairs, `id` included.
    pub(crate) fn attributes(&self) -> [(&'static str, &str); 7] {
        [
            ("id", &self.sha1),
            ("content_md5", &self.md5),
            ("content_sha1", &self.sha1),
            ("content_sha256", &self.sha256),
            ("content_base64sha256", &self.base64sha256),
            ("content_sha512", &self.sha512),
            ("content_base64sha512", &self.base64sha512),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_known_values() {
        let h = Hashes::of(b"hello");
        assert_eq!(h.sha1, "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d");
        assert_eq!(h.md5, "5d41402abc4b2a76b9719d911017c592");
        assert_eq!(
            h.sha256,
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(
            h.base64sha256,
            "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="
        );
    }
}
