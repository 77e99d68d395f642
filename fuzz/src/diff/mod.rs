//! Differential testing against the reference implementations: go-cty for values and
//! OpenTofu's objchange for the contract checks (`tfwasm-oracle`, `fuzz/oracle/main.go`).
//! Cases are generated from a seed ([`rng::Rng`]), so a case number reproduces its case;
//! `make fuzz-diff` runs millions, `cargo test` a short pass.

pub mod checks;
pub mod oracle;
pub mod rng;
pub mod values;
pub mod wire;

use oracle::Oracle;

/// How one comparison came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Both sides agree.
    Agree,
    /// Both sides agree, on this kind of answer (counted, so a run shows its mix).
    AgreeOn(&'static str),
    /// tfwasm differs from the reference on purpose, for this listed reason.
    Deliberate(&'static str),
    /// The reference panicked on the input (go-cty and objchange expect well-formed input);
    /// nothing to compare.
    OraclePanicked(String),
    /// A disagreement, described for a reproducer.
    Disagree(String),
}

/// Totals of a run.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// Cases run.
    pub cases: u64,
    /// Comparisons made (several per case).
    pub comparisons: u64,
    /// Deliberate differences, by reason.
    pub deliberate: std::collections::BTreeMap<&'static str, u64>,
    /// Agreements by kind of answer.
    pub agreed: std::collections::BTreeMap<&'static str, u64>,
    /// Inputs the reference panicked on.
    pub oracle_panics: u64,
    /// The first few panics, by their message.
    pub panic_samples: std::collections::BTreeMap<String, u64>,
    /// Disagreements: the case's seed and what differed.
    pub disagreements: Vec<(u64, String)>,
}

impl Totals {
    fn add(&mut self, seed: u64, outcomes: Vec<Outcome>) {
        self.cases += 1;
        for outcome in outcomes {
            self.comparisons += 1;
            match outcome {
                Outcome::Agree => {}
                Outcome::AgreeOn(kind) => *self.agreed.entry(kind).or_default() += 1,
                Outcome::Deliberate(why) => *self.deliberate.entry(why).or_default() += 1,
                Outcome::OraclePanicked(why) => {
                    self.oracle_panics += 1;
                    let key: String = why.chars().take(120).collect();
                    if self.panic_samples.len() < 20 || self.panic_samples.contains_key(&key) {
                        *self.panic_samples.entry(key).or_default() += 1;
                    }
                }
                Outcome::Disagree(what) => self.disagreements.push((seed, what)),
            }
        }
    }
}

/// What a family of cases provides to the runner.
pub trait Family {
    /// A case.
    type Case;
    /// The case of `seed`.
    fn generate(seed: u64) -> Self::Case;
    /// Its questions for the oracle.
    fn requests(case: &Self::Case) -> Vec<oracle::Request>;
    /// tfwasm's answers judged against the oracle's.
    fn judge(case: &Self::Case, answers: &[oracle::Answer]) -> Vec<Outcome>;
}

/// Value cases ([`values`]).
pub struct Values;

impl Family for Values {
    type Case = values::Case;
    fn generate(seed: u64) -> values::Case {
        values::generate(seed)
    }
    fn requests(case: &values::Case) -> Vec<oracle::Request> {
        values::requests(case)
    }
    fn judge(case: &values::Case, answers: &[oracle::Answer]) -> Vec<Outcome> {
        values::judge(case, answers)
    }
}

/// Contract-check cases ([`checks`]).
pub struct Checks;

impl Family for Checks {
    type Case = checks::Case;
    fn generate(seed: u64) -> checks::Case {
        checks::generate(seed)
    }
    fn requests(case: &checks::Case) -> Vec<oracle::Request> {
        checks::requests(case)
    }
    fn judge(case: &checks::Case, answers: &[oracle::Answer]) -> Vec<Outcome> {
        checks::judge(case, answers)
    }
}

/// Cases per exchange with an oracle.
const BATCH: u64 = 1_000;

/// Runs cases `first..first + count` of family `F` against `jobs` oracle processes at once,
/// in batches, calling `progress` after each batch.
///
/// # Errors
/// When an oracle cannot start or fails.
pub fn run<F: Family>(
    oracle: &std::path::Path,
    first: u64,
    count: u64,
    jobs: usize,
    mut progress: impl FnMut(&Totals),
) -> std::io::Result<Totals> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let next = AtomicU64::new(first);
    let end = first + count;
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<Vec<(u64, Vec<Outcome>)>>>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut process = match Oracle::start(oracle) {
                    Ok(p) => p,
                    Err(e) => return drop(tx.send(Err(e))),
                };
                loop {
                    let start = next.fetch_add(BATCH, Ordering::Relaxed);
                    if start >= end {
                        return;
                    }
                    let batch = batch::<F>(&mut process, start, (start + BATCH).min(end));
                    let failed = batch.is_err();
                    if tx.send(batch).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut totals = Totals::default();
        for batch in rx {
            for (seed, outcomes) in batch? {
                totals.add(seed, outcomes);
            }
            progress(&totals);
        }
        totals.disagreements.sort_by_key(|(seed, _)| *seed);
        Ok(totals)
    })
}

fn batch<F: Family>(
    oracle: &mut Oracle,
    start: u64,
    end: u64,
) -> std::io::Result<Vec<(u64, Vec<Outcome>)>> {
    let cases: Vec<(u64, F::Case)> = (start..end).map(|s| (s, F::generate(s))).collect();
    let mut requests = Vec::new();
    let mut spans = Vec::with_capacity(cases.len());
    for (_, case) in &cases {
        let asked = F::requests(case);
        spans.push(asked.len());
        requests.extend(asked);
    }
    let answers = oracle.ask(&requests)?;
    let mut at = 0;
    let mut out = Vec::with_capacity(cases.len());
    for ((seed, case), n) in cases.iter().zip(spans) {
        out.push((*seed, F::judge(case, &answers[at..at + n])));
        at += n;
    }
    Ok(out)
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
