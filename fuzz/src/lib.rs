//! # tfwasm-fuzz
//!
//! The bodies of tfwasm's fuzz targets, one function per target in [`targets`]. cargo-fuzz
//! runs them under libFuzzer from `fuzz/libfuzzer` (`make fuzz`); `cargo test` runs each over
//! its corpus in `fuzz/corpus/<target>/` (every finding is kept there as a regression case)
//! plus a few thousand pseudo-random inputs, so CI exercises them without a nightly toolchain.
//!
//! A target fails by panicking; everything it calls must instead return an error for bad
//! input. Inputs are built structurally with [`arbitrary`] where that reaches deeper than raw
//! bytes would (types, schemas, values that mostly conform to them).

pub mod diff;
pub mod echo;
pub mod shapes;
pub mod targets;

/// A fuzz target: panics when tfwasm misbehaves on `data`.
pub type Target = fn(data: &[u8]);

/// Every target, by the name its corpus directory and libFuzzer binary have.
pub const TARGETS: &[(&str, Target)] = &[
    ("msgpack_value", targets::msgpack_value),
    ("json_value", targets::json_value),
    ("schema_json", targets::schema_json),
    ("contract_checks", targets::contract_checks),
    ("settings", targets::settings),
    ("rpc_requests", targets::rpc_requests),
];

#[cfg(test)]
mod smoke {
    use super::TARGETS;

    /// Pseudo-random inputs per target in `cargo test` (seconds, not the fuzzer's hours).
    const RANDOM_INPUTS: usize = 3_000;

    /// xorshift64*: deterministic, so a failure here reproduces.
    fn bytes(seed: &mut u64, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| {
                *seed ^= *seed >> 12;
                *seed ^= *seed << 25;
                *seed ^= *seed >> 27;
                (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
            })
            .collect()
    }

    #[test]
    fn every_target_survives_its_corpus_and_random_inputs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        for (name, target) in TARGETS {
            let dir = root.join(name);
            let mut corpus = 0;
            for entry in std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{} is missing: {e}", dir.display()))
            {
                let path = entry.unwrap().path();
                target(&std::fs::read(&path).unwrap());
                corpus += 1;
            }
            assert!(corpus > 0, "{name}: the corpus is empty");
            let mut seed = 0x9e37_79b9_7f4a_7c15 ^ name.len() as u64;
            for i in 0..RANDOM_INPUTS {
                let len = (i * 7) % 512;
                target(&bytes(&mut seed, len));
            }
        }
    }
}
