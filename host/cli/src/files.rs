//! Files the commands write for the operator (documentation pages, package files): whole or
//! not at all, and never through a symlink someone planted where they go.

use std::path::Path;

use anyhow::Context as _;

/// Replaces `to` with `bytes` (mode `mode`), never through a symlink
/// ([`tfwasm_runtime::cache::replace`]). A process still running the old file keeps it.
pub fn replace(to: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    tfwasm_runtime::cache::replace(to, &[bytes], mode)
        .with_context(|| format!("writing {}", to.display()))
}

/// Creates `base` (the operator's output directory) and the directories `relative` names
/// below it, refusing to go through a symlink below `base`: one planted there would carry
/// what is written next to wherever it points.
pub fn create_dirs(base: &Path, relative: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
    let mut dir = base.to_owned();
    for component in relative.components() {
        let std::path::Component::Normal(name) = component else {
            anyhow::bail!(
                "{} is not a path below {}",
                relative.display(),
                base.display()
            );
        };
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => anyhow::bail!(
                "{} is a symlink where a directory goes; remove it (it may have been planted by a provider that could write there)",
                dir.display()
            ),
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => anyhow::bail!("{} is not a directory", dir.display()),
            Err(_) => {
                std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?
            }
        }
    }
    Ok(())
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

    /// The twenty-first hostile pass: a symlink planted where an output directory goes led
    /// the package's files elsewhere.
    #[test]
    fn a_planted_symlink_where_a_directory_goes_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let out = dir.path().join("mirror");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("registry.terraform.io")).unwrap();
        let error = create_dirs(&out, Path::new("registry.terraform.io/example/x"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("is a symlink"), "{error}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        create_dirs(&out, Path::new("other/example/x")).unwrap();
        assert!(out.join("other/example/x").is_dir());
    }
}
