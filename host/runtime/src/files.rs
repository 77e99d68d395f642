//! What a guest may do to files under its read-write directory grants beyond WASI, which
//! cannot set permission bits (WIT 0.3.0 `files`): create a file with a mode, and set the mode
//! of a file or directory, and create a directory with a mode. Without it a secret a provider writes (`local_sensitive_file`)
//! lands with the host's default mode, readable by other users of the machine.
//!
//! Every path is resolved by the kernel beneath the grant's directory (`openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`), so no `..`, absolute or symlinked step leaves
//! it, whatever the guest planted there; a file is created under an unguessable name with
//! its mode before a byte is written, then renamed into place.

use std::ffi::CString;
use std::io::Write as _;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};

use crate::grants::DirGrant;

/// A mode a guest may set: permission bits only (no setuid, setgid or sticky bit).
const PERMISSION_BITS: u32 = 0o777;

/// Creates (or replaces) the file at guest path `path` with `contents` and `mode`.
pub(crate) fn write_file(
    grants: &[DirGrant],
    path: &str,
    contents: &[u8],
    mode: u32,
) -> Result<(), String> {
    let (grant, relative) = locate(grants, path, mode)?;
    let name = relative
        .file_name()
        .ok_or_else(|| format!("{path:?} names no file"))?
        .to_owned();
    let parent = open_beneath(
        &grant.host,
        relative.parent().unwrap_or(Path::new("")),
        true,
    )
    .map_err(|e| format!("the directory of {path:?}: {}", words(&e)))?;
    let temporary = format!(".tfwasm-{:016x}.tmp", crate::cache::unguessable());
    let temporary = CString::new(temporary).map_err(|e| e.to_string())?;
    // SAFETY: `parent` is an open directory descriptor and `temporary` a NUL-terminated
    // name; a returned descriptor is owned by the File made from it.
    let fd = unsafe {
        libc::openat(
            parent.as_raw_fd(),
            temporary.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o600 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(format!(
            "creating {path:?}: {}",
            words(&std::io::Error::last_os_error())
        ));
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    let remove = || {
        // SAFETY: as above; unlinking the temporary name we created.
        unsafe { libc::unlinkat(parent.as_raw_fd(), temporary.as_ptr(), 0) };
    };
    // Created 0600, set to the mode asked (narrowed by the umask, as open(2) would) before
    // any content.
    let written = fchmod(&file, mode & !umask())
        .and_then(|()| file.write_all(contents))
        .and_then(|()| file.sync_data());
    if let Err(e) = written {
        remove();
        return Err(format!("writing {path:?}: {}", words(&e)));
    }
    let name = CString::new(name.as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: both names are NUL-terminated and relative to the same open directory.
    let renamed = unsafe {
        libc::renameat(
            parent.as_raw_fd(),
            temporary.as_ptr(),
            parent.as_raw_fd(),
            name.as_ptr(),
        )
    };
    if renamed != 0 {
        let e = std::io::Error::last_os_error();
        remove();
        return Err(format!("replacing {path:?}: {}", words(&e)));
    }
    Ok(())
}

/// Creates the directory at guest path `path` with `mode` (the kernel applies the umask).
pub(crate) fn create_dir(grants: &[DirGrant], path: &str, mode: u32) -> Result<(), String> {
    let (grant, relative) = locate(grants, path, mode)?;
    let name = relative
        .file_name()
        .ok_or_else(|| format!("{path:?} is the granted directory itself, which exists"))?
        .to_owned();
    let parent = open_beneath(
        &grant.host,
        relative.parent().unwrap_or(Path::new("")),
        true,
    )
    .map_err(|e| format!("the parent of {path:?}: {}", words(&e)))?;
    let name = CString::new(name.as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: `parent` is an open directory descriptor, `name` NUL-terminated; mkdirat
    // never follows a symlink at the name it creates.
    if unsafe { libc::mkdirat(parent.as_raw_fd(), name.as_ptr(), mode as libc::mode_t) } != 0 {
        return Err(format!(
            "creating {path:?}: {}",
            words(&std::io::Error::last_os_error())
        ));
    }
    Ok(())
}

/// This process's umask, read without changing it (`umask(2)` can only set it, which would
/// race with other threads creating files).
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Umask:"))?;
            u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
        })
        .unwrap_or(0o022)
}

/// Sets the mode of the existing file or directory at guest path `path`.
pub(crate) fn set_mode(grants: &[DirGrant], path: &str, mode: u32) -> Result<(), String> {
    let (grant, relative) = locate(grants, path, mode)?;
    if relative.as_os_str().is_empty() {
        return Err(format!(
            "{path:?} is the granted directory itself, whose mode is the operator's"
        ));
    }
    let target = open_beneath(&grant.host, &relative, false)
        .map_err(|e| format!("{path:?}: {}", words(&e)))?;
    // The descriptor names the object itself (O_PATH, no symlink followed); its /proc link
    // is how Linux changes the mode of what an O_PATH descriptor holds.
    let link = format!("/proc/self/fd/{}", target.as_raw_fd());
    std::fs::set_permissions(&link, std::os::unix::fs::PermissionsExt::from_mode(mode))
        .map_err(|e| format!("setting the mode of {path:?}: {}", words(&e)))
}

/// The read-write grant holding guest path `path` and the path below it, or why the guest
/// may not set `mode` there.
/// The longest path the host takes from a guest (Linux's `PATH_MAX`).
const PATH_MAX: usize = 4096;

fn locate<'g>(
    grants: &'g [DirGrant],
    path: &str,
    mode: u32,
) -> Result<(&'g DirGrant, PathBuf), String> {
    // Before anything is parsed or quoted: a path is at most what the kernel takes, so what
    // the host builds and quotes from it stays small (a 120 MiB path took 3.9 GB of host
    // memory, outside the instance's limit).
    if path.len() > PATH_MAX {
        return Err(format!(
            "the path is {} bytes long; a path may be at most {PATH_MAX} bytes",
            path.len()
        ));
    }
    if mode & !PERMISSION_BITS != 0 {
        return Err(format!(
            "mode {mode:#o} has bits beyond {PERMISSION_BITS:#o} (setuid, setgid or sticky), which a provider may not set"
        ));
    }
    let steps = |text: &str| -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for component in Path::new(text).components() {
            match component {
                Component::RootDir | Component::CurDir => {}
                Component::Normal(name) => out.push(name.to_string_lossy().into_owned()),
                Component::ParentDir | Component::Prefix(_) => {
                    return Err(format!("{path:?} holds `..`; give the path without it"));
                }
            }
        }
        Ok(out)
    };
    if !path.starts_with('/') {
        return Err(format!(
            "{path:?} is not absolute: give the path as the provider sees it, under a granted directory"
        ));
    }
    let wanted = steps(path)?;
    let grant = grants
        .iter()
        .filter_map(|grant| {
            let root = steps(&grant.guest).ok()?;
            wanted.starts_with(&root).then_some((grant, root.len()))
        })
        .max_by_key(|(_, depth)| *depth)
        .ok_or_else(|| format!("{path:?} is not under a directory granted to this provider"))?;
    let (grant, depth) = grant;
    if !grant.writable {
        return Err(format!(
            "{path:?} is under {}, granted read-only",
            grant.guest
        ));
    }
    if !grant.modes {
        return Err(format!(
            "{path:?} is under {}, granted with fixed-modes: the operator does not let providers set modes there",
            grant.guest
        ));
    }
    Ok((grant, wanted[depth..].iter().collect()))
}

/// Opens `relative` beneath `root` without following any symlink or leaving `root`: an
/// `O_PATH` descriptor of the object (a directory when `directory`).
fn open_beneath(root: &Path, relative: &Path, directory: bool) -> std::io::Result<OwnedFd> {
    let root = std::fs::File::open(root)?;
    let relative = if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    };
    let name = CString::new(relative.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: open_how is plain data; zeroed is its documented "no options" value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_PATH
        | libc::O_NOFOLLOW
        | libc::O_CLOEXEC
        | if directory { libc::O_DIRECTORY } else { 0 }) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: the root descriptor is open, `name` NUL-terminated, `how` lives across the
    // call and its size is passed; a returned descriptor is owned by the OwnedFd made here.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            name.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new descriptor owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    // With O_PATH|O_NOFOLLOW, a final step that is a symlink yields the link itself.
    // SAFETY: `stat` is plain data written by the call; `fd` is open.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if stat.st_mode & libc::S_IFMT == libc::S_IFLNK {
        return Err(std::io::Error::from_raw_os_error(libc::ELOOP));
    }
    Ok(fd)
}

fn fchmod(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    // SAFETY: the descriptor is open for the life of `file`.
    if unsafe { libc::fchmod(file.as_raw_fd(), mode as libc::mode_t) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// An OS error in words, with the two a guest meets most explained.
fn words(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(libc::ELOOP) => "a step of the path is a symlink, which tfwasm does not follow".into(),
        Some(libc::EXDEV) => "the path leaves the granted directory".into(),
        Some(libc::ENOTDIR) => {
            "a step of the path is not a directory (or is a symlink, which tfwasm does not follow)"
                .into()
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// The twenty-fourth hostile pass: a 120 MiB path was split into a `String` per step
    /// before anything checked it (3.9 GB of host memory for one call).
    #[test]
    fn a_path_longer_than_path_max_is_refused_before_it_is_parsed() {
        let grant: super::DirGrant = "/tmp:/out:rw".parse().unwrap();
        let long = format!("/out/{}x", "a/".repeat(1 << 20));
        let error = super::locate(std::slice::from_ref(&grant), &long, 0o600).unwrap_err();
        assert!(
            error.contains("at most 4096 bytes"),
            "{}",
            &error[..error.len().min(200)]
        );
        assert!(error.len() < 200, "the path is not quoted");
    }
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn grant(host: &Path, guest: &str, writable: bool, modes: bool) -> DirGrant {
        DirGrant {
            host: host.to_owned(),
            guest: guest.into(),
            writable,
            modes,
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    #[test]
    fn files_are_written_with_their_mode_and_modes_set_under_a_read_write_grant() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("keys")).unwrap();
        let grants = [grant(dir.path(), "/out", true, true)];
        write_file(&grants, "/out/keys/secret.pem", b"secret", 0o600).unwrap();
        let secret = dir.path().join("keys/secret.pem");
        assert_eq!(std::fs::read(&secret).unwrap(), b"secret");
        assert_eq!(mode(&secret), 0o600 & !umask());
        // Replacing keeps nothing of the old file's mode.
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_file(&grants, "/out/keys/secret.pem", b"again", 0o700).unwrap();
        assert_eq!(mode(&secret), 0o700 & !umask());
        // As open(2) would: the umask narrows a created file's mode.
        write_file(&grants, "/out/open.txt", b"x", 0o777).unwrap();
        assert_eq!(mode(&dir.path().join("open.txt")), 0o777 & !umask());
        create_dir(&grants, "/out/keys/private", 0o700).unwrap();
        assert_eq!(mode(&dir.path().join("keys/private")), 0o700 & !umask());
        assert!(create_dir(&grants, "/out/keys/private", 0o700).is_err());
        set_mode(&grants, "/out/keys", 0o700).unwrap();
        assert_eq!(mode(&dir.path().join("keys")), 0o700);
        set_mode(&grants, "/out/keys/secret.pem", 0o755).unwrap();
        assert_eq!(mode(&secret), 0o755);
        // No temporary file is left behind.
        assert_eq!(
            std::fs::read_dir(dir.path().join("keys")).unwrap().count(),
            2
        );
    }

    #[test]
    fn nothing_outside_a_read_write_grant_or_through_a_symlink_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let (granted, outside, readonly, fixed) = (
            dir.path().join("granted"),
            dir.path().join("outside"),
            dir.path().join("readonly"),
            dir.path().join("fixed"),
        );
        for d in [&granted, &outside, &readonly, &fixed] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(outside.join("victim"), b"v").unwrap();
        std::fs::set_permissions(
            outside.join("victim"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, granted.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.join("victim"), granted.join("victim")).unwrap();
        let grants = [
            grant(&granted, "/out", true, true),
            grant(&readonly, "/ro", false, true),
            grant(&fixed, "/fixed", true, false),
        ];
        let refused = |result: Result<(), String>, why: &str| {
            let error = result.unwrap_err();
            assert!(error.contains(why), "{error}");
        };
        refused(set_mode(&grants, "/out/victim", 0o777), "symlink");
        refused(set_mode(&grants, "/out/escape/victim", 0o777), "symlink");
        refused(
            write_file(&grants, "/out/escape/new", b"x", 0o644),
            "symlink",
        );
        refused(create_dir(&grants, "/out/escape/new", 0o700), "symlink");
        refused(set_mode(&grants, "/out/../outside/victim", 0o777), "`..`");
        refused(
            set_mode(&grants, "/elsewhere/x", 0o644),
            "not under a directory granted",
        );
        refused(write_file(&grants, "/ro/x", b"x", 0o644), "read-only");
        refused(write_file(&grants, "/fixed/x", b"x", 0o644), "fixed-modes");
        refused(set_mode(&grants, "/out/x", 0o4755), "beyond");
        refused(
            set_mode(&grants, "/out", 0o777),
            "the granted directory itself",
        );
        refused(write_file(&grants, "relative", b"x", 0o644), "not absolute");
        assert_eq!(mode(&outside.join("victim")), 0o600);
        assert!(!outside.join("new").exists());
        assert_eq!(std::fs::read_dir(&granted).unwrap().count(), 2);
    }
}
