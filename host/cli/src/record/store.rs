//! A recording on disk: a private root, a private directory per session, and files that are
//! only ever created where nothing is.
//!
//! A guest that can reach the recording can plant a symlink at the name the host writes next
//! and have the host overwrite any file the user can write (issue 31). So the root must lie
//! outside every directory granted to the guest ([`check_outside_grants`]), must belong to
//! this user and be writable by no one else, and every file is created by `openat` under an
//! opened directory handle with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode `0600`, in directories
//! created `0700`: a name that exists, symlink or not, fails the write instead of being
//! followed.

use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{
    DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use tfwasm_runtime::DirGrant;

/// Mode of every directory a recording creates.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file a recording creates.
pub const FILE_MODE: u32 = 0o600;

/// An opened directory: files are created and read relative to this handle, never by path.
pub struct Dir {
    handle: File,
    path: PathBuf,
}

impl Dir {
    /// Creates `path` (and missing parents) `0700` and opens it. Refused when it is owned by
    /// another user or writable by group or others: whoever can write it could swap the
    /// files other processes of the run read (the sensitive-attribute list, the lock).
    pub fn open_root(path: &Path) -> anyhow::Result<Dir> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(path)
            .with_context(|| format!("cannot create the recording directory {}", path.display()))?;
        let path = std::fs::canonicalize(path).with_context(|| {
            format!("cannot resolve the recording directory {}", path.display())
        })?;
        let handle = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .with_context(|| format!("cannot open the recording directory {}", path.display()))?;
        let meta = handle.metadata()?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            bail!(
                "the recording directory {} is owned by uid {}, not by this user (uid {me}); record into a directory of your own",
                path.display(),
                meta.uid()
            );
        }
        if meta.mode() & 0o022 != 0 {
            bail!(
                "the recording directory {} is writable by other users (mode {:o}); `chmod go-w` it or record elsewhere",
                path.display(),
                meta.mode() & 0o777
            );
        }
        Ok(Dir { handle, path })
    }

    /// Where this directory is (for messages, and for listing it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the subdirectory `name`, mode `0700`, and opens it; fails when `name` exists.
    pub fn create_dir(&self, name: &str) -> io::Result<Dir> {
        sys::mkdirat(&self.handle, name, DIR_MODE)?;
        let dir = self.open_dir(name)?;
        // Exactly 0700 whatever the umask.
        dir.handle
            .set_permissions(std::fs::Permissions::from_mode(DIR_MODE))?;
        Ok(dir)
    }

    /// Opens the subdirectory `name`; a symlink there is refused.
    pub fn open_dir(&self, name: &str) -> io::Result<Dir> {
        let handle = sys::openat(
            &self.handle,
            name,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )?;
        Ok(Dir {
            handle,
            path: self.path.join(name),
        })
    }

    /// Writes a new file `name`, mode `0600`; fails when anything (a symlink included) is
    /// already there, leaving it as it was.
    pub fn create_new(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let mut file = sys::openat(
            &self.handle,
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW,
            FILE_MODE,
        )?;
        file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        file.write_all(bytes)
    }

    /// Replaces the file `name` with `bytes` at once (a new file renamed over it), so a reader
    /// sees the old or the new content, never part of it.
    pub fn replace(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let temp = format!(".{name}.{}.tmp", std::process::id());
        // Left by a process of the same pid that died mid-write; unlinking removes the name,
        // never what a symlink there points to.
        match sys::unlinkat(&self.handle, &temp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.create_new(&temp, bytes)?;
        sys::renameat(&self.handle, &temp, name)
    }

    /// Removes the file `name` (a symlink there is removed, not what it points to).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        sys::unlinkat(&self.handle, name)
    }

    /// The content of the regular file `name`, or `None` when there is none. A symlink, FIFO
    /// or directory there is an error, not followed or waited on.
    pub fn read(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        let mut file = match sys::openat(
            &self.handle,
            name,
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
            0,
        ) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                self.path.join(name).display()
            )));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(Some(bytes))
    }

    /// Takes the exclusive lock of the file `name` (created `0600` if missing), held until
    /// the returned file is dropped: every process recording into one root writes under it.
    pub fn lock(&self, name: &str) -> io::Result<File> {
        let file = sys::openat(
            &self.handle,
            name,
            libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_NONBLOCK,
            FILE_MODE,
        )?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                self.path.join(name).display()
            )));
        }
        file.lock()?;
        Ok(file)
    }

    /// The names in this directory. Listed by path; every name is then opened through the
    /// handle without following symlinks, so a swapped path cannot redirect a write.
    pub fn names(&self) -> io::Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)?
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        Ok(names)
    }
}

/// Refuses a recording directory a guest could reach: inside a directory granted to it
/// (read-only grants too: the guest would read every recorded value), or holding one. Paths
/// are compared with symlinks resolved, as far as they exist.
pub fn check_outside_grants(root: &Path, grants: &[DirGrant]) -> anyhow::Result<()> {
    let recording = tfwasm_runtime::grants::resolved(root);
    for grant in grants {
        let granted = tfwasm_runtime::grants::resolved(&grant.host);
        let relation = if recording.starts_with(&granted) {
            "lies inside"
        } else if granted.starts_with(&recording) {
            "holds"
        } else {
            continue;
        };
        bail!(
            "recording refused: the recording directory {} {relation} the directory {} granted to the guest as {} ({}), so the guest could read the recording and plant symlinks where it is written; record outside every grant",
            recording.display(),
            granted.display(),
            grant.guest,
            if grant.writable {
                "read-write"
            } else {
                "read-only"
            },
        );
    }
    Ok(())
}

/// The `*at` calls std does not offer, each on a directory handle and one plain name.
mod sys {
    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd as _, FromRawFd as _};

    /// `name` as one path component: no `/`, not empty, not `.` or `..`.
    fn component(name: &str) -> io::Result<CString> {
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{name:?} is not a file name"),
            ));
        }
        CString::new(name).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    }

    fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(rc)
        }
    }

    pub fn openat(dir: &File, name: &str, flags: libc::c_int, mode: u32) -> io::Result<File> {
        let name = component(name)?;
        // SAFETY: `dir` is an open descriptor for the whole call and `name` a NUL-terminated
        // string that outlives it.
        let fd = check(unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr(),
                flags | libc::O_CLOEXEC,
                mode as libc::c_uint,
            )
        })?;
        // SAFETY: `fd` was just returned by openat and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    pub fn mkdirat(dir: &File, name: &str, mode: u32) -> io::Result<()> {
        let name = component(name)?;
        // SAFETY: as in `openat`.
        check(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), mode as libc::mode_t) })?;
        Ok(())
    }

    pub fn renameat(dir: &File, from: &str, to: &str) -> io::Result<()> {
        let (from, to) = (component(from)?, component(to)?);
        // SAFETY: as in `openat`, for both names.
        check(unsafe {
            libc::renameat(dir.as_raw_fd(), from.as_ptr(), dir.as_raw_fd(), to.as_ptr())
        })?;
        Ok(())
    }

    pub fn unlinkat(dir: &File, name: &str) -> io::Result<()> {
        let name = component(name)?;
        // SAFETY: as in `openat`.
        check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn directories_are_0700_and_files_0600() {
        let tmp = tempfile::tempdir().unwrap();
        let root_path = tmp.path().join("a").join("recording");
        let root = Dir::open_root(&root_path).unwrap();
        assert_eq!(mode(&root_path), 0o700);
        let session = root.create_dir("s1").unwrap();
        assert_eq!(mode(&root_path.join("s1")), 0o700);
        session.create_new("000001-X.json", b"{}").unwrap();
        assert_eq!(mode(&root_path.join("s1").join("000001-X.json")), 0o600);
        root.replace("shared.json", b"1").unwrap();
        root.replace("shared.json", b"2").unwrap();
        assert_eq!(mode(&root_path.join("shared.json")), 0o600);
        assert_eq!(
            root.read("shared.json").unwrap().as_deref(),
            Some(&b"2"[..])
        );
        assert_eq!(root.read("missing").unwrap(), None);
    }

    #[test]
    fn a_planted_symlink_is_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let root = Dir::open_root(&tmp.path().join("rec")).unwrap();
        let session = root.create_dir("s1").unwrap();
        let link = tmp
            .path()
            .join("rec")
            .join("s1")
            .join("000002-ReadResource.json");
        std::os::unix::fs::symlink("../../victim.txt", &link).unwrap();

        let error = session
            .create_new("000002-ReadResource.json", b"overwritten")
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists, "{error}");
        assert!(
            session.read("000002-ReadResource.json").is_err(),
            "reads do not follow it either"
        );
        // A symlinked session directory or lock file is refused too.
        std::os::unix::fs::symlink(tmp.path(), tmp.path().join("rec").join("s2")).unwrap();
        assert!(root.open_dir("s2").is_err());
        std::os::unix::fs::symlink(&victim, tmp.path().join("rec").join("lock")).unwrap();
        assert!(root.lock("lock").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            session.create_new("../escape", b"x").is_err(),
            "one name only"
        );
    }

    #[test]
    fn a_root_others_can_write_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let shared = tmp.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = Dir::open_root(&shared).err().unwrap().to_string();
        assert!(error.contains("writable by other users"), "{error}");
    }

    fn grant(host: &Path, writable: bool) -> DirGrant {
        let access = if writable { "rw" } else { "ro" };
        format!("{}:/data:{access}", host.display())
            .parse()
            .unwrap()
    }

    #[test]
    fn a_recording_inside_or_around_a_grant_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let granted = tmp.path().join("granted");
        std::fs::create_dir_all(granted.join("sub")).unwrap();
        let alias = tmp.path().join("alias");
        std::os::unix::fs::symlink(&granted, &alias).unwrap();
        for (recording, writable) in [
            (granted.join("rec"), true),
            (granted.join("sub").join("not").join("yet"), false),
            (alias.join("rec"), true),
            (
                tmp.path().join("x").join("..").join("granted").join("rec"),
                false,
            ),
            (tmp.path().to_owned(), true),
        ] {
            let error = check_outside_grants(&recording, &[grant(&granted, writable)])
                .err()
                .unwrap_or_else(|| panic!("{} was allowed", recording.display()))
                .to_string();
            assert!(
                error.contains("recording refused")
                    && error.contains(
                        &std::fs::canonicalize(&granted)
                            .unwrap()
                            .display()
                            .to_string()
                    )
                    && error.contains("/data"),
                "{error}"
            );
        }
        check_outside_grants(&tmp.path().join("elsewhere"), &[grant(&granted, true)]).unwrap();
        check_outside_grants(&tmp.path().join("granted2"), &[grant(&granted, true)]).unwrap();
    }
}
