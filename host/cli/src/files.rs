//! Files the commands write for the operator (documentation pages, package files): whole or
//! not at all, and never through a symlink someone planted where they go.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use anyhow::Context as _;

/// Replaces `to` with `bytes` (mode `mode`): written to a new file under a name nobody can
/// guess beside it, never through a symlink, then renamed over `to` (a rename replaces a
/// symlink, it does not follow it). A process still running the old file keeps it.
pub fn replace(to: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    let dir = to.parent().unwrap_or(Path::new("."));
    let name = to.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{:016x}.tmp", nonce()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(mode)
        .open(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, to));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("writing {}", to.display()))
}

/// [`replace`] with the contents and mode of `from`.
pub fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let bytes = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    let mode = std::fs::metadata(from)
        .map(|m| m.permissions().mode() & 0o777)
        .with_context(|| format!("reading {}", from.display()))?;
    replace(to, &bytes, mode)
}

fn nonce() -> u64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twentieth hostile pass: `tfwasm docs` and `package` wrote through symlinks a guest
    /// had planted where their files go, onto files outside every grant.
    #[test]
    fn a_planted_symlink_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let page = dir.path().join("act.md");
        std::os::unix::fs::symlink(&victim, &page).unwrap();
        replace(&page, b"# page", 0o644).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "# page");
        assert!(!std::fs::symlink_metadata(&page).unwrap().is_symlink());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2, "no temporary file left");
    }
}
