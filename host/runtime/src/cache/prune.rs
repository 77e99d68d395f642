//! Keeping the compile cache from growing without end.
//!
//! Every component, package and tfwasm build adds an entry (3.5 MB of code for the random
//! sample, 36 MB for a CPython provider) and an index file, and nothing removed them: the
//! test suite's cache reached 12 GB in a day of builds. An entry's modification time now says
//! when it was last used (a load sets it, at most once an hour, so a warm start only reads
//! the time of each file it opens), and after each new entry is stored:
//! - entries and index files nobody used for [`KEEP_DAYS_ENV`] days (30 by default) go, with
//!   any temporary file a killed writer left a day ago;
//! - then, while the entries still take more than [`MAX_GIB_ENV`] GiB (4 by default), the
//!   least recently used go, never the one just stored.
//!
//! Only files the cache itself names (entry, index and their temporary names), regular and
//! not links, are removed, each relative to the directory handle already checked to be
//! private ([`Private`]): the listing, the status and the removal never follow a path again.
//! A process that loses an entry to the pruning compiles or unpacks it again (an entry a
//! process marks used between another's look at its time and its removal is lost the same
//! way); one that has it open or mapped keeps it (an unlinked file lives until closed).

use std::ffi::{CStr, CString};
use std::fs::File;
use std::os::fd::AsRawFd as _;
use std::time::{Duration, SystemTime};

use super::{Private, is_entry_name, is_unpacked_entry_name};

/// Environment variable naming how many days an entry nobody loads is kept (`never`: for as
/// long as the size allows).
pub const KEEP_DAYS_ENV: &str = "TFWASM_CACHE_KEEP_DAYS";

/// Environment variable naming the most GiB the entries may take (`never`: no bound).
pub const MAX_GIB_ENV: &str = "TFWASM_CACHE_MAX_GIB";

/// Days an entry nobody loads is kept by default: a provider version used once a month stays.
const DEFAULT_KEEP_DAYS: u32 = 30;

/// GiB the entries may take by default: about a hundred CPython providers, a thousand small
/// ones.
const DEFAULT_MAX_GIB: u32 = 4;

/// How stale an entry's time may be before a load sets it again: a warm start writes no
/// metadata, and the time is never more than this behind the last use.
const MARK_EVERY: Duration = Duration::from_secs(3600);

/// A temporary file this old is no write in progress (those take seconds) but the leftover
/// of a writer killed before its rename.
const ABANDONED_AFTER: Duration = Duration::from_secs(24 * 3600);

const DAY: Duration = Duration::from_secs(24 * 3600);
const GIB: u64 = 1 << 30;

/// Records that the cache file open as `file` was used now, if its time is over
/// [`MARK_EVERY`] old (or ahead of the clock, which went back). A failure only makes the file
/// look older to [`prune`].
pub(crate) fn mark_used(file: &File) {
    let now = SystemTime::now();
    let stale = file
        .metadata()
        .and_then(|meta| meta.modified())
        .is_ok_and(|modified| match now.duration_since(modified) {
            Ok(age) => age > MARK_EVERY,
            Err(_) => true,
        });
    if stale {
        let _ = file.set_modified(now);
    }
}

/// What the operator asked of the cache's size and age.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// How long an entry nobody loads is kept; `None`: no age bound.
    pub(crate) keep: Option<Duration>,
    /// How many bytes the entries may take; `None`: no size bound.
    pub(crate) max_bytes: Option<u64>,
}

impl Bounds {
    /// From [`KEEP_DAYS_ENV`] and [`MAX_GIB_ENV`] (a whole number from 1, or `never`); a value
    /// that is neither is warned about once and the default kept.
    pub(crate) fn from_env() -> Bounds {
        static WARNED: std::sync::Once = std::sync::Once::new();
        let mut bad = Vec::new();
        let mut read = |name: &str, default: u32, max: u32| {
            let value = std::env::var_os(name);
            bound(value.as_deref(), default, max).unwrap_or_else(|()| {
                bad.push(format!(
                    "{name}={:?}",
                    value.unwrap_or_default().to_string_lossy()
                ));
                Some(default)
            })
        };
        let keep = read(KEEP_DAYS_ENV, DEFAULT_KEEP_DAYS, 36_500);
        let max_gib = read(MAX_GIB_ENV, DEFAULT_MAX_GIB, 1 << 20);
        if !bad.is_empty() {
            WARNED.call_once(|| {
                tracing::warn!(
                    values = %bad.join(", "),
                    "not a whole number from 1 or `never`; using the default compile cache bounds ({DEFAULT_KEEP_DAYS} days unused, {DEFAULT_MAX_GIB} GiB)"
                );
            });
        }
        Bounds {
            keep: keep.map(|days| DAY * days),
            max_bytes: max_gib.map(|gib| u64::from(gib) * GIB),
        }
    }
}

/// A bound from its variable's value: unset is `default`, `never` none, else a whole number
/// from 1 to `max`; `Err` for anything else.
fn bound(value: Option<&std::ffi::OsStr>, default: u32, max: u32) -> Result<Option<u32>, ()> {
    let Some(value) = value else {
        return Ok(Some(default));
    };
    match value.to_str().map(str::trim) {
        Some("never") => Ok(None),
        Some(n) if n.bytes().all(|b| b.is_ascii_digit()) => match n.parse::<u32>() {
            Ok(n @ 1..) if n <= max => Ok(Some(n)),
            _ => Err(()),
        },
        _ => Err(()),
    }
}

/// What one pruning removed.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pruned {
    files: usize,
    bytes: u64,
}

/// Removes from the cache what the operator's bounds ([`Bounds::from_env`]) no longer allow,
/// never the entry `stored` (just written), and says what it removed in the log. Run after a
/// new entry is stored, which is rare (a compile or an unpack), so listing the directory
/// costs nothing a start would notice.
pub(crate) fn prune(private: &Private, stored: &str) {
    let pruned = prune_within(private, Bounds::from_env(), stored, SystemTime::now());
    if pruned.files > 0 {
        tracing::info!(
            dir = %private.path.display(),
            files = pruned.files,
            mib = %format_args!("{:.1}", pruned.bytes as f64 / (1024.0 * 1024.0)),
            "removed compile cache files unused for longer than {KEEP_DAYS_ENV} days or past {MAX_GIB_ENV} GiB, least recently used first"
        );
    }
}

/// A file the cache names, as found in a listing.
struct Found {
    name: CString,
    modified: SystemTime,
    bytes: u64,
}

/// [`prune`] at `now` within `bounds`: the cache directory's entries and temporary files,
/// its `index/`, then the entries past the size bound.
fn prune_within(private: &Private, bounds: Bounds, stored: &str, now: SystemTime) -> Pruned {
    let mut pruned = Pruned::default();
    let mut remove = |dir: &File, found: &Found| {
        // SAFETY: the directory descriptor is open for the call, `name` is a NUL-terminated
        // name of one step.
        if unsafe { libc::unlinkat(dir.as_raw_fd(), found.name.as_ptr(), 0) } == 0 {
            pruned.files += 1;
            pruned.bytes += found.bytes;
        }
    };
    let older = |found: &Found, keep: Option<Duration>| {
        keep.is_some_and(|keep| {
            now.duration_since(found.modified)
                .is_ok_and(|age| age > keep)
        })
    };

    let mut entries = Vec::new();
    for found in listed(&private.dir) {
        let Ok(name) = found.name.to_str() else {
            continue;
        };
        if is_entry_name(name) || is_unpacked_entry_name(name) {
            if older(&found, bounds.keep) && name != stored {
                remove(&private.dir, &found);
            } else {
                entries.push(found);
            }
        } else if is_temporary_name(name, |n| is_entry_name(n) || is_unpacked_entry_name(n))
            && older(&found, Some(ABANDONED_AFTER))
        {
            remove(&private.dir, &found);
        }
    }
    // Opened without following a link; a file there lists as nothing.
    if let Ok(index) = private.open("index") {
        for found in listed(&index) {
            let Ok(name) = found.name.to_str() else {
                continue;
            };
            let removable = (is_index_name(name) && older(&found, bounds.keep))
                || (is_temporary_name(name, is_index_name) && older(&found, Some(ABANDONED_AFTER)));
            if removable {
                remove(&index, &found);
            }
        }
    }
    if let Some(max) = bounds.max_bytes {
        let mut total: u64 = entries.iter().map(|found| found.bytes).sum();
        // Least recently used first; the entry just stored is never the one to go.
        entries.sort_by_key(|found| found.modified);
        for found in &entries {
            if total <= max {
                break;
            }
            if found.name.to_bytes() != stored.as_bytes() {
                remove(&private.dir, found);
                total -= found.bytes;
            }
        }
    }
    pruned
}

/// The regular files of `dir`, read through the handle (whatever its path names now): their
/// names, times and sizes. Links, directories and anything else are left out.
fn listed(dir: &File) -> Vec<Found> {
    let mut found = Vec::new();
    // A descriptor of its own for the stream, which `closedir` closes.
    // SAFETY: a valid directory descriptor and a NUL-terminated name.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c".".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return found;
    }
    // SAFETY: `fd` is an open directory descriptor owned by nothing else; on success the
    // stream owns it.
    let stream = unsafe { libc::fdopendir(fd) };
    if stream.is_null() {
        // SAFETY: the stream was not made, so `fd` is still ours to close.
        unsafe { libc::close(fd) };
        return found;
    }
    loop {
        // SAFETY: `stream` is open until `closedir` below; the entry it returns stays valid
        // until the next call, and its name is copied out before then.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: `d_name` is NUL-terminated within the entry.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) }.to_owned();
        if let Some(stat) = stat_at(dir, &name)
            && stat.st_mode & libc::S_IFMT == libc::S_IFREG
        {
            found.push(Found {
                name,
                modified: SystemTime::UNIX_EPOCH
                    + Duration::from_secs(u64::try_from(stat.st_mtime).unwrap_or(0))
                    + Duration::from_nanos(u64::try_from(stat.st_mtime_nsec).unwrap_or(0)),
                bytes: u64::try_from(stat.st_size).unwrap_or(0),
            });
        }
    }
    // SAFETY: the stream is open and closed once, here.
    unsafe { libc::closedir(stream) };
    found
}

/// `name`'s status in `dir`, not following a link.
fn stat_at(dir: &File, name: &CStr) -> Option<libc::stat> {
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

/// An index file's name: a 16-digit hex identity, `-unpacked` for a packed artifact's.
fn is_index_name(name: &str) -> bool {
    let identity = name.strip_suffix("-unpacked").unwrap_or(name);
    identity.len() == 16 && identity.chars().all(|c| c.is_ascii_hexdigit())
}

/// The name [`super::replace`] gives a file `target` it is writing, before its rename
/// (`.<target>.<pid>.<16 hex digits>.tmp`), for a `target` the cache names.
fn is_temporary_name(name: &str, names_target: impl Fn(&str) -> bool) -> bool {
    let Some(inner) = name
        .strip_prefix('.')
        .and_then(|rest| rest.strip_suffix(".tmp"))
    else {
        return false;
    };
    let mut parts = inner.rsplitn(3, '.');
    let (Some(nonce), Some(pid), Some(target)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    nonce.len() == 16
        && nonce.chars().all(|c| c.is_ascii_hexdigit())
        && !pid.is_empty()
        && pid.chars().all(|c| c.is_ascii_digit())
        && names_target(target)
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::Path;

    use super::*;

    const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// Sets the time of `path` itself (a link, not its target) `age` back.
    fn aged(path: &Path, age: Duration) {
        let then = SystemTime::now() - age;
        let since = then.duration_since(SystemTime::UNIX_EPOCH).unwrap();
        let time = libc::timespec {
            tv_sec: since.as_secs() as libc::time_t,
            tv_nsec: since.subsec_nanos() as libc::c_long,
        };
        let c_path = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path and two valid timespecs.
        let status = unsafe {
            libc::utimensat(
                libc::AT_FDCWD,
                c_path.as_ptr(),
                [time, time].as_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        assert_eq!(status, 0, "{}", std::io::Error::last_os_error());
    }

    fn write_aged(path: &Path, bytes: usize, age: Duration) {
        std::fs::write(path, vec![0u8; bytes]).unwrap();
        aged(path, age);
    }

    fn entry(n: u8) -> String {
        format!("{DIGEST}-{:016x}.cwasm", n)
    }

    const BY_AGE: Bounds = Bounds {
        keep: Some(Duration::from_secs(30 * 24 * 3600)),
        max_bytes: None,
    };

    #[test]
    fn files_unused_past_the_keep_time_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let private = super::super::private_dir(&cache).unwrap();
        std::fs::create_dir(cache.join("index")).unwrap();
        let month = DAY * 30;
        let (old, used) = (entry(1), entry(2));
        let unpacked = format!("{DIGEST}-unpacked.cwasm");
        let old_tmp = format!(".{}.12.00ff00ff00ff00ff.tmp", entry(3));
        let new_tmp = format!(".{}.13.00ff00ff00ff00ff.tmp", entry(4));
        let files = [
            (old.as_str(), month + DAY, false),
            (used.as_str(), month - DAY, true),
            (unpacked.as_str(), month + DAY, false),
            ("index/0123456789abcdef", month + DAY, false),
            ("index/0123456789abcdef-unpacked", DAY, true),
            (
                "index/.0123456789abcdef.7.0000000000000001.tmp",
                DAY * 2,
                false,
            ),
            // A killed writer's leftover, and a write in progress.
            (old_tmp.as_str(), DAY * 2, false),
            (new_tmp.as_str(), Duration::from_secs(60), true),
            // Not the cache's names, whatever their age: an operator's files.
            ("README", month * 12, true),
            (".notes.tmp", month * 12, true),
            (".x.cwasm.12.00ff00ff00ff00ff.tmp", month * 12, true),
            ("index/notes.txt", month * 12, true),
        ];
        for (name, age, _) in files {
            write_aged(&cache.join(name), 4, age);
        }
        // Nor anything but a regular file with an entry's name, however old.
        let (link, subdir, fifo) = (entry(5), entry(6), entry(7));
        std::os::unix::fs::symlink(cache.join("README"), cache.join(&link)).unwrap();
        std::fs::create_dir(cache.join(&subdir)).unwrap();
        let c_fifo = CString::new(cache.join(&fifo).as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o600) }, 0);
        for odd in [&link, &subdir, &fifo] {
            aged(&cache.join(odd), month * 12);
        }

        let pruned = prune_within(&private, BY_AGE, "", SystemTime::now());
        assert_eq!(
            pruned,
            Pruned {
                files: 5,
                bytes: 20
            }
        );
        for (name, _, kept) in files {
            assert_eq!(cache.join(name).exists(), kept, "{name}");
        }
        for odd in [&link, &subdir, &fifo] {
            assert!(cache.join(odd).symlink_metadata().is_ok(), "{odd}");
        }
        assert!(cache.join("README").exists(), "the link's target");
    }

    #[test]
    fn an_index_that_is_a_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        write_aged(&outside.join("0123456789abcdef"), 4, DAY * 400);
        let private = super::super::private_dir(&cache).unwrap();
        std::os::unix::fs::symlink(&outside, cache.join("index")).unwrap();

        assert_eq!(
            prune_within(&private, BY_AGE, "", SystemTime::now()),
            Pruned::default()
        );
        assert!(outside.join("0123456789abcdef").exists());
    }

    #[test]
    fn past_the_size_bound_the_least_recently_used_go_but_never_the_one_just_stored() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let private = super::super::private_dir(&cache).unwrap();
        // Oldest first: 1, 2, 3, 4; 4 was just stored (its time set back by a clock change).
        for (n, hours) in [(1, 40), (2, 30), (3, 20), (4, 50)] {
            write_aged(
                &cache.join(entry(n)),
                100,
                Duration::from_secs(hours * 3600),
            );
        }
        let bounds = Bounds {
            keep: None,
            max_bytes: Some(250),
        };
        let pruned = prune_within(&private, bounds, &entry(4), SystemTime::now());
        assert_eq!(
            pruned,
            Pruned {
                files: 2,
                bytes: 200
            }
        );
        let left: Vec<bool> = (1..=4).map(|n| cache.join(entry(n)).exists()).collect();
        assert_eq!(left, [false, false, true, true]);

        // The one just stored stays even alone past the bound.
        let bounds = Bounds {
            keep: None,
            max_bytes: Some(50),
        };
        prune_within(&private, bounds, &entry(4), SystemTime::now());
        assert!(!cache.join(entry(3)).exists() && cache.join(entry(4)).exists());
    }

    #[test]
    fn a_load_marks_a_stale_entry_used_and_leaves_a_fresh_one_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("entry");
        let age = |p: &Path| {
            SystemTime::now()
                .duration_since(std::fs::metadata(p).unwrap().modified().unwrap())
                .unwrap_or_default()
        };
        write_aged(&path, 4, DAY * 40);
        // Read-only, as entries are opened.
        mark_used(&File::open(&path).unwrap());
        assert!(age(&path) < Duration::from_secs(60), "{:?}", age(&path));

        aged(&path, Duration::from_secs(600));
        mark_used(&File::open(&path).unwrap());
        assert!(age(&path) >= Duration::from_secs(599), "not written again");

        // A time ahead of the clock (which went back) is set to now.
        let file = File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() + DAY).unwrap();
        mark_used(&File::open(&path).unwrap());
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(modified <= SystemTime::now());
    }

    #[test]
    fn bounds_are_whole_numbers_from_one_or_never_and_anything_else_is_refused() {
        use std::ffi::OsStr;
        assert_eq!(bound(None, 30, 100), Ok(Some(30)));
        assert_eq!(bound(Some(OsStr::new("7")), 30, 100), Ok(Some(7)));
        assert_eq!(bound(Some(OsStr::new(" 2 ")), 30, 100), Ok(Some(2)));
        assert_eq!(bound(Some(OsStr::new("100")), 30, 100), Ok(Some(100)));
        assert_eq!(bound(Some(OsStr::new("never")), 30, 100), Ok(None));
        for bad in ["0", "-1", "+5", "1.5", "", "forever", "101", "99999999999"] {
            assert_eq!(bound(Some(OsStr::new(bad)), 30, 100), Err(()), "{bad}");
        }
    }

    #[test]
    fn temporary_names_are_those_of_the_cache_s_own_files() {
        let target = entry(1);
        assert!(is_temporary_name(
            &format!(".{target}.42.0123456789abcdef.tmp"),
            is_entry_name
        ));
        for other in [
            ".notes.tmp".to_owned(),
            format!(".{target}.tmp"),
            format!(".{target}.x.0123456789abcdef.tmp"),
            format!(".{target}.42.0123.tmp"),
            ".README.42.0123456789abcdef.tmp".to_owned(),
            format!("{target}.42.0123456789abcdef.tmp"),
        ] {
            assert!(!is_temporary_name(&other, is_entry_name), "{other}");
        }
    }
}
