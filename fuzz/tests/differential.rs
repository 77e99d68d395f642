//! The short differential pass CI runs: tfwasm against go-cty and OpenTofu's objchange
//! (`fuzz/src/diff`), on the first cases of each family. `make fuzz-diff` runs millions.
//! Needs Go and the Go module proxy, which `scripts/build-oracle.sh` uses once to build the
//! oracle into the tools cache; without them this test fails saying so.

use std::path::Path;

use tfwasm_fuzz::diff::{self, Family, Totals};

/// Cases per family here: a few seconds each, every kind of generated case many times.
const VALUES: u64 = 20_000;
const CHECKS: u64 = 10_000;

fn pass<F: Family>(name: &str, count: u64) -> Totals {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let oracle = diff::oracle::build(&root).unwrap_or_else(|e| panic!("{e}"));
    let totals = diff::run::<F>(&oracle, 1, count, 2, |_| {})
        .unwrap_or_else(|e| panic!("the oracle failed: {e}"));
    let shown: Vec<String> = totals
        .disagreements
        .iter()
        .take(5)
        .map(|(seed, what)| format!("--- seed {seed}: {what}"))
        .collect();
    assert!(
        totals.disagreements.is_empty(),
        "{name}: {} of {} cases disagree with the reference (reproduce one with \
         `tfwasm-fuzz-diff --seed N --values 1` or `--checks 1`):\n{}",
        totals.disagreements.len(),
        totals.cases,
        shown.join("\n")
    );
    assert_eq!(totals.cases, count);
    totals
}

#[test]
fn values_agree_with_go_cty() {
    let totals = pass::<diff::Values>("values", VALUES);
    // The generator must reach what it is for, or zero disagreements mean little.
    for kind in [
        "decoded, same bytes",
        "equal, one set element",
        "equal, not one set element (unknowns)",
        "refused by both",
    ] {
        assert!(
            totals.agreed.get(kind).copied().unwrap_or(0) > 100,
            "too few cases of {kind}: {:?}",
            totals.agreed
        );
    }
}

#[test]
fn contract_checks_agree_with_opentofu() {
    let totals = pass::<diff::Checks>("checks", CHECKS);
    for kind in ["plan valid", "plan invalid", "apply valid", "apply invalid"] {
        assert!(
            totals.agreed.get(kind).copied().unwrap_or(0) > CHECKS / 10,
            "too few cases of {kind}: {:?}",
            totals.agreed
        );
    }
}
