//! Files with permission bits, under the operator's read-write directory grants.
//!
//! WASI cannot set modes: a file written with `std::fs` gets the host's default (often
//! `0644`, readable by every user of the machine). [`write_file`] asks the host to create the
//! file with its mode before a byte is written, [`create_dir`] makes a directory with its
//! mode, and [`set_mode`] sets the mode of a file or directory that exists. Paths are the provider's own (`/out/key.pem`), under a directory
//! granted read-write; the host refuses (with why) a path elsewhere, through a symlink, bits
//! beyond `0o777`, or a grant the operator wrote `:rw:fixed-modes`.
//!
//! ```no_run
//! // A secret the way hashicorp/local's local_sensitive_file writes it.
//! tfwasm_sdk::files::write_file("/out/secret.txt", b"s3cret", 0o600)?;
//! # Ok::<(), String>(())
//! ```
//!
//! Natively (tests, benchmarks) both go straight to the file system.

/// Creates (or replaces) the file at `path` with `contents`, with `mode` from the start
/// (narrowed by the operator's umask, as `open(2)` creates files).
///
/// # Errors
/// The host's reason, in words, when it refuses or the file cannot be written.
pub fn write_file(path: &str, contents: &[u8], mode: u32) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    return crate::bindings::tfwasm::provider0_3_0::files::write_file(path, contents, mode);
    #[cfg(not(target_arch = "wasm32"))]
    native::write_file(path, contents, mode).map_err(|e| format!("{path:?}: {e}"))
}

/// Creates the directory `path` (its parent must exist) with `mode`, narrowed by the
/// operator's umask as `mkdir(2)` does.
///
/// # Errors
/// The host's reason, in words, when it refuses or the directory cannot be created.
pub fn create_dir(path: &str, mode: u32) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    return crate::bindings::tfwasm::provider0_3_0::files::create_dir(path, mode);
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new()
            .mode(mode)
            .create(path)
            .map_err(|e| format!("{path:?}: {e}"))
    }
}

/// Sets the mode of the existing file or directory at `path`, exactly (as `chmod(2)`).
///
/// # Errors
/// The host's reason, in words, when it refuses or the mode cannot be set.
pub fn set_mode(path: &str, mode: u32) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    return crate::bindings::tfwasm::provider0_3_0::files::set_mode(path, mode);
    #[cfg(not(target_arch = "wasm32"))]
    native::set_mode(path, mode).map_err(|e| format!("{path:?}: {e}"))
}

/// Parses a mode as Terraform configurations write it: three or four octal digits (`"0644"`).
pub fn parse_mode(text: &str) -> Option<u32> {
    let digits = text
        .strip_prefix('0')
        .filter(|rest| rest.len() == 3)
        .unwrap_or(text);
    (digits.len() == 3 && digits.bytes().all(|b| (b'0'..=b'7').contains(&b)))
        .then(|| u32::from_str_radix(digits, 8).ok())
        .flatten()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::io::Write as _;
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};

    pub(super) fn write_file(path: &str, contents: &[u8], mode: u32) -> std::io::Result<()> {
        let _ = std::fs::remove_file(path);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.write_all(contents)
    }

    pub(super) fn set_mode(path: &str, mode: u32) -> std::io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_as_configurations_write_them() {
        assert_eq!(parse_mode("0644"), Some(0o644));
        assert_eq!(parse_mode("700"), Some(0o700));
        assert_eq!(parse_mode("0777"), Some(0o777));
        assert_eq!(parse_mode("0800"), None);
        assert_eq!(parse_mode("12345"), None);
        assert_eq!(parse_mode(""), None);
    }
}
