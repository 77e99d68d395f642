#!/usr/bin/env bash
# make bench: every benchmark side by side in one run, written to docs/benchmarks.md.
#  1. criterion microbenchmarks (contract checks, guest calls, the layers of one RPC);
#  2. tfwasm-bench: per-RPC latency (tfwasm vs native baseline vs gRPC floor), cold start,
#     I/O-bound concurrency, `terraform apply` of 1,000 resources with peak RSS, sizes.
# Uses tofu/terraform from PATH (or $TFWASM_BENCH_TERRAFORM), else Terraform v1.0.3.
# Quick run for a smoke test: BENCH_ARGS="--resources 100 --runs 1 --iterations 200".
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac

if [ -n "${TFWASM_BENCH_TERRAFORM:-}" ]; then tf="$TFWASM_BENCH_TERRAFORM"
elif command -v tofu >/dev/null 2>&1; then tf="$(command -v tofu)"
elif command -v terraform >/dev/null 2>&1; then tf="$(command -v terraform)"
else tf="$(bash "$root/scripts/fetch-terraform.sh")"
fi

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

# Fresh criterion output, so the report lists only this run's figures.
rm -rf "$target/criterion"
criterion_args=(--warm-up-time 1 --measurement-time 3)
step "cargo bench: contract checks"
cargo bench -p tfwasm-contract --bench check -- "${criterion_args[@]}"
step "cargo bench: guest calls (fuel vs epoch, pooling)"
cargo bench -p tfwasm-runtime --bench call -- "${criterion_args[@]}"
step "cargo bench: the layers of one RPC (native SDK, checks, Wasm reused/fresh)"
cargo bench -p tfwasm-bench --bench layers -- "${criterion_args[@]}"

step "tfwasm-bench run (terraform: $tf)"
# shellcheck disable=SC2086
"$target/release/tfwasm-bench" run \
  --tfwasm "$target/release/tfwasm" \
  --native "$target/release/native-random" \
  --components "$target/wasm32-wasip2/release" \
  --terraform "$tf" \
  --criterion "$target/criterion" \
  --out "$root/docs/benchmarks.md" \
  ${BENCH_ARGS:-}
