#!/usr/bin/env bash
# Runs every fuzz target under libFuzzer (cargo-fuzz, nightly) for FUZZ_SECONDS each and
# prints the executions per target and in total. Exits non-zero on any crash, timeout or
# out-of-memory; the input that caused it is left in fuzz/artifacts/<target>/ (copy it into
# fuzz/corpus/<target>/ with the fix, so `cargo test` keeps it as a regression case).
#   FUZZ_SECONDS  time per target (default 60)
#   FUZZ_TARGETS  space-separated subset (default: all)
#   FUZZ_JOBS     parallel fuzzing processes per target (default: number of CPUs)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-$(nproc)}"
targets="${FUZZ_TARGETS:-msgpack_value json_value schema_json contract_checks settings rpc_requests}"

rustup toolchain list | grep '^nightly' >/dev/null || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked

echo "--- building the fuzz targets (nightly, AddressSanitizer)"
cargo +nightly fuzz build --fuzz-dir fuzz/libfuzzer -O

total=0
failed=""
printf '%-18s %14s %10s\n' target executions exec/s
for t in $targets; do
  scratch="$(mktemp -d)"
  log="$scratch/log"
  mkdir -p "fuzz/artifacts/$t"
  # New inputs go to the scratch directory; the repository's corpus only seeds the run.
  # One job runs in-process (fork mode restarts workers and costs most of the throughput).
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-fork="$jobs" -ignore_crashes=0); fi
  if ! cargo +nightly fuzz run --fuzz-dir fuzz/libfuzzer -O "$t" "$scratch" "fuzz/corpus/$t" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=512 \
      "${parallel[@]}" -print_final_stats=1 \
      -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1; then
    failed="$failed $t"
    # The error and the input, not the whole stack.
    # (`sed -n 1,40p` reads to the end: `head` would end a long grep with SIGPIPE, and pipefail
    # would stop the run before the other targets and the summary.)
    grep -E 'panicked at|ERROR:|SUMMARY|Test unit written|^Base64' -A3 "$log" | sed -n 1,40p || true
  fi
  # -fork reports the total over its workers as "stat::number_of_executed_units" or in its
  # status lines ("#N ... exec/s"); take the largest.
  # A log without either (a target that failed to start) counts 0 runs, not a stopped script.
  runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+|^#[0-9]+' "$log" | grep -oE '[0-9]+' | sort -n | tail -1 || true)
  runs=${runs:-0}
  printf '%-18s %14d %10d\n' "$t" "$runs" $((runs / seconds))
  total=$((total + runs))
  rm -rf "$scratch"
done
echo "total executions: $total"
if [ -n "$failed" ]; then
  echo "FAILED:$failed (inputs in fuzz/artifacts/)" >&2
  exit 1
fi
