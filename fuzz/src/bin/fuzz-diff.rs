//! `tfwasm-fuzz-diff`: tfwasm against the reference implementations (go-cty, OpenTofu's
//! objchange), case by generated case, as `make fuzz-diff` runs it. Exits 1 on any
//! disagreement, printing each with the seed that reproduces it.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use tfwasm_fuzz::diff::{self, Family, Totals};

const USAGE: &str = "\
usage: tfwasm-fuzz-diff [--values N] [--checks N] [--seed S] [--jobs J] [--oracle PATH] [--show N]

Generates cases from seeds S, S+1, ... and compares tfwasm with go-cty and OpenTofu's
objchange on each (the oracle is built by scripts/build-oracle.sh unless --oracle names it).
  --values N   value cases: codecs, equality, set membership   (default 1000000)
  --checks N   contract-check cases: plan and apply checks      (default 100000)
  --seed S     first seed                                        (default 1)
  --jobs J     oracle processes at once                          (default: CPUs)
  --show N     disagreements printed in full                     (default 20)
Environment: DIFF_CASES=N sets --values N and --checks N/10.";

fn main() {
    let mut values: u64 = 1_000_000;
    let mut checks: u64 = 100_000;
    if let Some(n) = std::env::var("DIFF_CASES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        values = n;
        checks = n / 10;
    }
    let mut seed: u64 = 1;
    let mut show = 20usize;
    let mut jobs = std::thread::available_parallelism().map_or(1, usize::from);
    let mut oracle: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.replace('_', "").parse().ok())
                .unwrap_or_else(|| fail(&format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--values" => values = number("--values"),
            "--checks" => checks = number("--checks"),
            "--seed" => seed = number("--seed"),
            "--show" => show = number("--show") as usize,
            "--jobs" => jobs = number("--jobs").max(1) as usize,
            "--oracle" => {
                oracle = Some(
                    args.next()
                        .map(PathBuf::from)
                        .unwrap_or_else(|| fail("--oracle needs a path")),
                )
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            other => fail(&format!("unknown argument {other:?}")),
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let oracle = oracle.unwrap_or_else(|| diff::oracle::build(&root).unwrap_or_else(|e| fail(&e)));
    let mut failed = false;
    if values > 0 {
        failed |= family::<diff::Values>("values", &oracle, seed, values, jobs, show);
    }
    if checks > 0 {
        failed |= family::<diff::Checks>("checks", &oracle, seed, checks, jobs, show);
    }
    std::process::exit(i32::from(failed));
}

fn family<F: Family>(
    name: &str,
    oracle: &std::path::Path,
    seed: u64,
    count: u64,
    jobs: usize,
    show: usize,
) -> bool {
    let started = Instant::now();
    let mut last = Instant::now();
    let totals = diff::run::<F>(oracle, seed, count, jobs, |t: &Totals| {
        if last.elapsed().as_secs() >= 5 || t.cases == count {
            last = Instant::now();
            eprint!(
                "\r{name}: {} / {count} cases, {} disagreements, {:.0} cases/s   ",
                t.cases,
                t.disagreements.len(),
                t.cases as f64 / started.elapsed().as_secs_f64()
            );
            let _ = std::io::stderr().flush();
        }
    })
    .unwrap_or_else(|e| fail(&format!("the oracle failed: {e}")));
    eprintln!();
    println!(
        "{name}: {} cases (seeds {seed}..{}), {} comparisons in {:.1} s: {} disagreements, {} inputs the reference panicked on",
        totals.cases,
        seed + count,
        totals.comparisons,
        started.elapsed().as_secs_f64(),
        totals.disagreements.len(),
        totals.oracle_panics
    );
    for (kind, n) in &totals.agreed {
        println!("  agreed: {n} × {kind}");
    }
    for (why, n) in &totals.panic_samples {
        println!("  reference panicked {n} × {why}");
    }
    for (why, n) in &totals.deliberate {
        println!("  deliberate: {n} × {why}");
    }
    for (seed, what) in totals.disagreements.iter().take(show) {
        println!("--- seed {seed}: {what}");
    }
    !totals.disagreements.is_empty()
}

fn fail(message: &str) -> ! {
    eprintln!("tfwasm-fuzz-diff: {message}");
    std::process::exit(2);
}
