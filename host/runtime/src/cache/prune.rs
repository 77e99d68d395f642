//! Keeping the compile cache from growing without end.
//!
//! Every component, package and tfwasm build adds an entry (a random provider's code is
//! 15 MB, a CPython one's 36 MB) and an index file, and nothing removed them: a developer's
//! cache reached 12 GB in a day of builds. An entry's modification time now says when it was
//! last used (a load sets it, at most once an hour, so a warm start pays one `fstat`), and
//! after each new entry is stored, the entries and index files nobody used for
//! [`KEEP_DAYS_ENV`] days (30 by default) are removed, with any temporary file a killed
//! writer left.
//!
//! Only files the cache itself names (entry, index and temporary names), regular and not
//! links, are removed, each relative to the directory handle already checked to be private
//! ([`Private`]). A process that loses an entry to the pruning compiles or unpacks it again;
//! one that has it open or mapped keeps it (an unlinked file lives until closed).

use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd as _, FromRawFd as _};
use std::time::{Duration, SystemTime};

use super::{Private, is_entry_name, is_unpacked_entry_name};

/// Environment variable naming how many days an unused cache entry is kept (`never`: kept
/// for ever).
pub const KEEP_DAYS_ENV: &str = "TFWASM_CACHE_KEEP_DAYS";

/// Days an entry nobody loads is kept by default: a provider version used once a month stays.
const DEFAULT_KEEP_DAYS: u64 = 30;

/// How stale an entry's time may be before a load sets it again: a warm start writes no
/// metadata, and the time is never more than this behind the last use.
const MARK_EVERY: Duration = Duration::from_secs(3600);

/// A temporary file this old is no write in progress (those take seconds) but the leftover
/// of a writer killed before its rename.
const ABANDONED_AFTER: Duration = Duration::from_secs(24 * 3600);

const DAY: Duration = Duration::from_secs(24 * 3600);

/// Records that the cache file open as `file` was used now, if its time is over
/// [`MARK_EVERY`] old. A failure only makes the file look older to [`prune`].
pub(crate) fn mark_used(file: &File) {
    let now = SystemTime::now();
    let stale = file
        .metadata()
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|modified| now.duration_since(modified).ok())
        .is_some_and(|age| age > MARK_EVERY);
    if stale {
        let _ = file.set_modified(now);
    }
}

/// How long an unused entry is kept: [`KEEP_DAYS_ENV`] (a whole number of days, at least 1,
/// or `never`), else [`DEFAULT_KEEP_DAYS`]. `None`: never removed. A value that is neither is
/// warned about once and the default kept.
pub(crate) fn keep_time() -> Option<Duration> {
    keep_time_from(std::env::var_os(KEEP_DAYS_ENV).as_deref())
}

fn keep_time_from(value: Option<&std::ffi::OsStr>) -> Option<Duration> {
    static WARNED: std::sync::Once = std::sync::Once::new();
    let default = Some(DAY * DEFAULT_KEEP_DAYS as u32);
    let Some(value) = value else {
        return default;
    };
    let text = value.to_string_lossy();
    match text.trim() {
        "never" => None,
        days => match days.parse::<u32>() {
            Ok(days @ 1..=36_500) => Some(DAY * days),
            _ => {
                WARNED.call_once(|| {
                    tracing::warn!(
                        value = %text.escape_debug(),
                        "{KEEP_DAYS_ENV} is not a number of days from 1 to 36500 or `never`; keeping unused compile cache entries {DEFAULT_KEEP_DAYS} days"
                    );
                });
                default
            }
        },
    }
}

/// What one pruning removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pruned {
    pub(crate) files: usize,
    pub(crate) bytes: u64,
}

/// Removes from the cache what was unused for the keep time ([`keep_time`]), and says what
/// it removed in the log. Run after a new entry is stored, which is rare (a compile or an
/// unpack), so listing the directory costs nothing a start would notice.
pub(crate) fn prune(private: &Private) {
    let Some(keep) = keep_time() else {
        return;
    };
    let pruned = prune_older(private, keep, SystemTime::now());
    if pruned.files > 0 {
        tracing::info!(
            dir = %private.path.display(),
            files = pruned.files,
            mib = %format_args!("{:.1}", pruned.bytes as f64 / (1024.0 * 1024.0)),
            "removed compile cache files nobody used for {} days (set {KEEP_DAYS_ENV} to change)",
            keep.as_secs() / DAY.as_secs()
        );
    }
}

/// [`prune`] at `now` with `keep`: the cache directory's entries and temporary files, then
/// its `index/`.
pub(crate) fn prune_older(private: &Private, keep: Duration, now: SystemTime) -> Pruned {
    let mut pruned = Pruned::default();
    let top = |name: &str| {
        if is_entry_name(name) || is_unpacked_entry_name(name) {
            Some(keep)
        } else if is_temporary_name(name) {
            Some(ABANDONED_AFTER)
        } else {
            None
        }
    };
    prune_dir(&private.dir, top, now, &mut pruned);
    if let Some(index) = open_subdir(&private.dir, "index") {
        let in_index = |name: &str| {
            if is_index_name(name) {
                Some(keep)
            } else if is_temporary_name(name) {
                Some(ABANDONED_AFTER)
            } else {
                None
            }
        };
        prune_dir(&index, in_index, now, &mut pruned);
    }
    pruned
}

/// Removes from `dir` every regular file whose name `keep_for` knows and whose time is older
/// than what it answers.
fn prune_dir(
    dir: &File,
    keep_for: impl Fn(&str) -> Option<Duration>,
    now: SystemTime,
    pruned: &mut Pruned,
) {
    // Listed through the handle: whatever the path names now, names are only ever used
    // relative to the directory checked.
    let Ok(listing) = std::fs::read_dir(format!("/proc/self/fd/{}", dir.as_raw_fd())) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(keep) = keep_for(name) else { continue };
        let Ok(c_name) = CString::new(name) else {
            continue;
        };
        let Some(stat) = stat_at(dir, &c_name) else {
            continue;
        };
        if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
            continue;
        }
        let modified = SystemTime::UNIX_EPOCH
            + Duration::from_secs(u64::try_from(stat.st_mtime).unwrap_or(0))
            + Duration::from_nanos(u64::try_from(stat.st_mtime_nsec).unwrap_or(0));
        if now.duration_since(modified).is_ok_and(|age| age > keep) {
            // SAFETY: the directory descriptor is open for the call, `c_name` is a
            // NUL-terminated name of one step.
            if unsafe { libc::unlinkat(dir.as_raw_fd(), c_name.as_ptr(), 0) } == 0 {
                pruned.files += 1;
                pruned.bytes += u64::try_from(stat.st_size).unwrap_or(0);
            }
        }
    }
}

/// `name`'s status in `dir`, not following a link.
fn stat_at(dir: &File, name: &CString) -> Option<libc::stat> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is written in full by a successful call; the descriptor and name are
    // valid for the call.
    let status = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    // SAFETY: the call succeeded, so it filled `stat`.
    (status == 0).then(|| unsafe { stat.assume_init() })
}

/// The directory `name` below `dir`, not through a link.
fn open_subdir(dir: &File, name: &str) -> Option<File> {
    let name = CString::new(name).ok()?;
    // SAFETY: valid descriptor and NUL-terminated name; a returned descriptor is owned by
    // the File made here.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    // SAFETY: `fd` was just opened and is owned by nothing else.
    (fd >= 0).then(|| unsafe { File::from_raw_fd(fd) })
}

/// An index file's name: a 16-digit hex identity, `-unpacked` for a packed artifact's.
fn is_index_name(name: &str) -> bool {
    let identity = name.strip_suffix("-unpacked").unwrap_or(name);
    identity.len() == 16 && identity.chars().all(|c| c.is_ascii_hexdigit())
}

/// A name [`super::replace`] writes before its rename (`.<name>.<pid>.<nonce>.tmp`).
fn is_temporary_name(name: &str) -> bool {
    name.len() > ".x.tmp".len() && name.starts_with('.') && name.ends_with(".tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn aged(path: &std::path::Path, age: Duration) {
        let file = File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
    }

    #[test]
    fn files_unused_past_the_keep_time_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let private = super::super::private_dir(&cache).unwrap();
        std::fs::create_dir(cache.join("index")).unwrap();
        let month = DAY * 30;
        let old_entry = format!("{DIGEST}-0123456789abcdef.cwasm");
        let used_entry = format!("{DIGEST}-fedcba9876543210.cwasm");
        let old_unpacked = format!("{DIGEST}-unpacked.cwasm");
        let files = [
            (old_entry.as_str(), month + DAY, false),
            (used_entry.as_str(), month - DAY, true),
            (old_unpacked.as_str(), month + DAY, false),
            ("index/0123456789abcdef", month + DAY, false),
            ("index/0123456789abcdef-unpacked", DAY, true),
            // A killed writer's leftover, and a write in progress.
            (".x.cwasm.12.00ff00ff00ff00ff.tmp", DAY * 2, false),
            (
                ".y.cwasm.13.00ff00ff00ff00ff.tmp",
                Duration::from_secs(60),
                true,
            ),
            // Not the cache's names: an operator's notes, whatever their age.
            ("README", month * 12, true),
            ("index/notes.txt", month * 12, true),
        ];
        for (name, age, _) in files {
            std::fs::write(cache.join(name), b"code").unwrap();
            aged(&cache.join(name), age);
        }
        // Nor a link or a directory with an entry's name.
        let linked = format!("{DIGEST}-1111111111111111.cwasm");
        std::os::unix::fs::symlink(cache.join("README"), cache.join(&linked)).unwrap();
        let subdir = format!("{DIGEST}-2222222222222222.cwasm");
        std::fs::create_dir(cache.join(&subdir)).unwrap();

        let pruned = prune_older(&private, month, SystemTime::now());
        assert_eq!(
            pruned,
            Pruned {
                files: 4,
                bytes: 16
            }
        );
        for (name, _, kept) in files {
            assert_eq!(cache.join(name).exists(), kept, "{name}");
        }
        assert!(cache.join(&linked).symlink_metadata().is_ok());
        assert!(cache.join(&subdir).is_dir());
    }

    #[test]
    fn a_load_marks_a_stale_entry_used_and_leaves_a_fresh_one_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("entry");
        std::fs::write(&path, b"code").unwrap();
        aged(&path, DAY * 40);
        // Read-only, as entries are opened.
        mark_used(&File::open(&path).unwrap());
        let age = |p: &std::path::Path| {
            SystemTime::now()
                .duration_since(std::fs::metadata(p).unwrap().modified().unwrap())
                .unwrap_or_default()
        };
        assert!(age(&path) < Duration::from_secs(60), "{:?}", age(&path));

        aged(&path, Duration::from_secs(600));
        mark_used(&File::open(&path).unwrap());
        assert!(age(&path) >= Duration::from_secs(599), "not written again");
    }

    #[test]
    fn the_keep_time_is_days_or_never_and_anything_else_is_the_default() {
        use std::ffi::OsStr;
        let default = Some(DAY * 30);
        assert_eq!(keep_time_from(None), default);
        assert_eq!(keep_time_from(Some(OsStr::new("7"))), Some(DAY * 7));
        assert_eq!(keep_time_from(Some(OsStr::new(" 2 "))), Some(DAY * 2));
        assert_eq!(keep_time_from(Some(OsStr::new("never"))), None);
        for bad in ["0", "-1", "1.5", "", "forever", "99999999999"] {
            assert_eq!(keep_time_from(Some(OsStr::new(bad))), default, "{bad}");
        }
    }
}
