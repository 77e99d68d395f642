//! Where the driver and its provider processes run, and how much CPU a process spent.
//!
//! Through gRPC, a call's cost depends on where the scheduler puts the client and the
//! server as much as on the server's code: on two cores the same call can wake a sleeping
//! core, migrate between cores, or share one with its client. Pinning each side
//! (`tfwasm-bench run --client-cpus 0 --provider-cpus 1`) holds that placement fixed, and a
//! provider's CPU time over the calls measures the work it did, whatever the waiting around
//! it cost, as does the count of its threads' moves between CPUs.

use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::terraform::proc_field;

/// CPUs a `cpu_set_t` can name.
const SET_SIZE: usize = 8 * std::mem::size_of::<libc::cpu_set_t>();

/// A set of CPUs by number, as `taskset -c` takes them (`0`, `1`, `0,1`, `0-3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(Vec<usize>);

impl std::str::FromStr for CpuList {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> anyhow::Result<CpuList> {
        // A set, so repeated ranges hold each CPU once.
        let mut cpus = std::collections::BTreeSet::new();
        for part in text.split(',').map(str::trim) {
            // Each number is bounded as it is read, so a huge range is refused, not built.
            let number = |n: &str| {
                let cpu = n
                    .parse::<usize>()
                    .with_context(|| format!("{n:?} in CPU list {text:?} is not a CPU number"))?;
                if cpu >= SET_SIZE {
                    bail!("CPU {cpu} in {text:?} is beyond the {SET_SIZE} CPUs a set can name");
                }
                Ok(cpu)
            };
            match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (number(first)?, number(last)?);
                    if first > last {
                        bail!("CPU range {part:?} in {text:?} runs backwards");
                    }
                    cpus.extend(first..=last);
                }
                None => {
                    cpus.insert(number(part)?);
                }
            }
        }
        Ok(CpuList(cpus.into_iter().collect()))
    }
}

impl std::fmt::Display for CpuList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let numbers: Vec<String> = self.0.iter().map(usize::to_string).collect();
        f.write_str(&numbers.join(","))
    }
}

impl CpuList {
    fn as_set(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in &self.0 {
            // SAFETY: `cpu` is below the set's size (checked when the list was parsed).
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        set
    }
}

/// Restricts the calling thread, and every thread and process it starts afterwards, to
/// `cpus`. Call it before starting threads (an async runtime) to pin a whole process.
///
/// # Errors
/// The kernel refuses the set (a CPU this machine does not have, or none allowed).
pub fn pin_this_thread(cpus: &CpuList) -> anyhow::Result<()> {
    let set = cpus.as_set();
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc != 0 {
        bail!(
            "cannot pin to CPUs {cpus}: {} (this machine has {} online)",
            std::io::Error::last_os_error(),
            std::thread::available_parallelism().map_or(0, std::num::NonZeroUsize::get)
        );
    }
    Ok(())
}

static PROVIDER_CPUS: OnceLock<CpuList> = OnceLock::new();

/// Pins every provider process started after this (by [`crate::plugin::Plugin::start`]) to
/// `cpus`, whatever the driver itself is pinned to. Set once per run.
///
/// # Errors
/// Already set to another list.
pub fn pin_providers(cpus: CpuList) -> anyhow::Result<()> {
    let wanted = cpus.clone();
    let set = PROVIDER_CPUS.get_or_init(|| cpus);
    if *set != wanted {
        bail!("providers are already pinned to CPUs {set}");
    }
    Ok(())
}

/// Makes `command`'s process run on the CPUs [`pin_providers`] named, if it was called.
pub(crate) fn pin_provider(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let Some(cpus) = PROVIDER_CPUS.get() else {
        return;
    };
    let set = cpus.as_set();
    // SAFETY: between fork and exec the hook makes one system call, which is
    // async-signal-safe, on memory the child owns (its copy of `set`).
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// What the scheduler has counted for process `pid` so far, all its threads together;
/// threads that have exited are not in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedTotals {
    /// CPU time, from the nanosecond accounting (`/proc/<pid>/task/*/schedstat`).
    pub cpu: Duration,
    /// Moves of a thread from one CPU to another (`se.nr_migrations` of
    /// `/proc/<pid>/task/*/sched`); `None` on kernels without that file.
    pub migrations: Option<u64>,
}

impl SchedTotals {
    /// Nothing counted yet: the start of a sum.
    pub const ZERO: SchedTotals = SchedTotals {
        cpu: Duration::ZERO,
        migrations: Some(0),
    };

    /// What was counted between `earlier` and `self`.
    #[must_use]
    pub fn since(self, earlier: SchedTotals) -> SchedTotals {
        SchedTotals {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            migrations: self
                .migrations
                .zip(earlier.migrations)
                .map(|(now, then)| now.saturating_sub(then)),
        }
    }

    /// Both counts added up.
    #[must_use]
    pub fn plus(self, other: SchedTotals) -> SchedTotals {
        SchedTotals {
            cpu: self.cpu + other.cpu,
            migrations: self.migrations.zip(other.migrations).map(|(a, b)| a + b),
        }
    }
}

/// [`SchedTotals`] of process `pid`; `None` when the process is gone or the kernel keeps no
/// schedstat.
pub fn sched_totals(pid: u32) -> Option<SchedTotals> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut cpu = 0u64;
    let mut migrations = Some(0u64);
    for task in tasks {
        let dir = task.ok()?.path();
        // A thread that ends between the listing and the read has no more time to add.
        let Ok(text) = std::fs::read_to_string(dir.join("schedstat")) else {
            continue;
        };
        cpu += text.split_whitespace().next()?.parse::<u64>().ok()?;
        let moved = std::fs::read_to_string(dir.join("sched"))
            .ok()
            .and_then(|text| proc_field(&text, "se.nr_migrations"));
        migrations = migrations.zip(moved).map(|(sum, n)| sum + n);
    }
    Some(SchedTotals {
        cpu: Duration::from_nanos(cpu),
        migrations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_taskset_writes_them() {
        let list = |t: &str| t.parse::<CpuList>().map(|l| l.0);
        assert_eq!(list("1").unwrap(), [1]);
        assert_eq!(list("0,2").unwrap(), [0, 2]);
        assert_eq!(list("0-2, 5").unwrap(), [0, 1, 2, 5]);
        assert_eq!(list("1,0-1,1").unwrap(), [0, 1]);
        assert!(list("").is_err());
        assert!(list("a").is_err());
        assert!(list("3-1").unwrap_err().to_string().contains("backwards"));
        assert!(list("100000").unwrap_err().to_string().contains("beyond"));
        assert!(
            list("0-18446744073709551615")
                .unwrap_err()
                .to_string()
                .contains("beyond")
        );
    }

    #[test]
    fn a_busy_thread_shows_in_its_process_cpu_time() {
        let me = std::process::id();
        let cpu = || sched_totals(me).expect("schedstat of this process").cpu;
        let before = cpu();
        // Busy until 10 ms of CPU are counted; the wall-clock bound only ends a broken
        // accounting's test, however loaded the machine.
        let started = std::time::Instant::now();
        let mut x = 0u64;
        let mut spent = Duration::ZERO;
        while spent < Duration::from_millis(10) && started.elapsed() < Duration::from_secs(30) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            // Other test threads end while this one runs, and an ended thread's time leaves
            // the sum, so the total can fall: count from zero then rather than panic.
            spent = cpu().saturating_sub(before);
        }
        assert!(
            spent >= Duration::from_millis(10),
            "only {spent:?} of CPU counted"
        );
    }

    #[test]
    fn a_sched_listing_field_is_read_by_its_name() {
        let listing = "x (1, #threads: 1)\n---\nse.sum_exec_runtime   :   1.5\nse.nr_migrations   :   42\nnr_switches : 7\n";
        assert_eq!(proc_field(listing, "se.nr_migrations"), Some(42));
        assert_eq!(proc_field(listing, "nr_switches"), Some(7));
        assert_eq!(proc_field(listing, "se.sum_exec_runtime"), None);
        assert_eq!(proc_field(listing, "missing"), None);
        let later = SchedTotals {
            cpu: Duration::from_micros(30),
            migrations: Some(5),
        };
        let earlier = SchedTotals {
            cpu: Duration::from_micros(10),
            migrations: None,
        };
        assert_eq!(later.since(earlier).cpu, Duration::from_micros(20));
        assert_eq!(later.since(earlier).migrations, None);
        assert_eq!(later.plus(later).migrations, Some(10));
        assert_eq!(SchedTotals::ZERO.plus(later), later);
    }

    #[test]
    fn a_pinned_thread_runs_only_where_it_was_pinned() {
        fn allowed() -> libc::cpu_set_t {
            // SAFETY: all zeroes is the empty set; `set` is a cpu_set_t of the size passed.
            let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
            assert_eq!(rc, 0);
            set
        }
        let mine = allowed();
        std::thread::spawn(|| {
            // The last CPU this thread may run on: a container may not allow CPU 0.
            let before = allowed();
            // SAFETY: CPU_ISSET reads the set at an index below its size.
            let cpu = (0..SET_SIZE)
                .rev()
                .find(|&c| unsafe { libc::CPU_ISSET(c, &before) })
                .unwrap();
            pin_this_thread(&cpu.to_string().parse().unwrap()).unwrap();
            let after = allowed();
            // SAFETY: CPU_COUNT and CPU_ISSET read the set; sched_getcpu has no preconditions.
            unsafe {
                assert_eq!(libc::CPU_COUNT(&after), 1);
                assert!(libc::CPU_ISSET(cpu, &after));
                assert_eq!(libc::sched_getcpu(), cpu as i32);
            }
        })
        .join()
        .unwrap();
        // Another thread's pinning leaves this one alone.
        // SAFETY: CPU_EQUAL reads both sets.
        assert!(unsafe { libc::CPU_EQUAL(&allowed(), &mine) });
    }
}
