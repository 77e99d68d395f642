#!/usr/bin/env bash
# make bench: every benchmark side by side in one run, written to docs/benchmarks.md.
#  1. criterion microbenchmarks (contract checks, guest calls, the layers of one RPC);
#  2. tfwasm-bench: Terraform apply and refreshing plan against the independent native
#     baseline (bench/independent, on the tf-provider crate), per-RPC latency (tfwasm vs
#     the same code natively vs the gRPC floor), start-up with AutoMTLS, I/O-bound
#     concurrency, sizes, and a provider that talks to an API (restapi against json-server,
#     tfwasm vs native-restapi, with connections counted), and planning a set of 1,000 and
#     10,000 nested blocks (the policy sample, tfwasm vs native-policy; and bench/outside-blocks,
#     plain blocks in a crate outside the workspace), and Python
#     providers (tfwasm's Python SDK vs its Rust twin vs pyvider, natively).
# Clients: Terraform v1.0.3 (fetched once) and OpenTofu 1.12 (built once), or only
# $TFWASM_BENCH_TERRAFORM when set. The yardstick operators would pick instead:
# hashicorp/terraform-provider-random itself, built natively once from the Go module proxy.
# Quick run for a smoke test: BENCH_ARGS="--resources 50 --runs 1 --client-runs 1 --iterations 200".
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac

clients=()
if [ -n "${TFWASM_BENCH_TERRAFORM:-}" ]; then
  clients+=("$TFWASM_BENCH_TERRAFORM")
else
  clients+=("$(bash "$root/scripts/fetch-terraform.sh")")
  clients+=("$(bash "$root/scripts/fetch-opentofu.sh" 1.12 | tail -n 1)")
fi

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "independent baseline (bench/independent on tf-provider; its build needs protoc)"
if ! command -v protoc >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq protobuf-compiler
fi
cargo build --release --manifest-path bench/independent/Cargo.toml --target-dir "$target/independent"
independent="$target/independent/release/independent-random"

# The floor, the native baselines and the driver, built as the package's runner is
# (scripts/runner-build.env): through gRPC the same code built without LTO answers 13-27 us
# slower a call, which would read as part of the Wasm layer.
runner_build=$(grep -v '^#' "$root/scripts/runner-build.env")
step "the floor and the native baselines, built as the runner is (scripts/runner-build.env: $(echo $runner_build))"
# shellcheck disable=SC2086 # one NAME=value word per line of the file
env $runner_build \
  cargo build --release -p tfwasm-bench --target-dir "$target/lto"
bench="$target/lto/release"

step "bench/outside-blocks (a provider crate outside the workspace, as an author writes one)"
cargo build --release --target wasm32-wasip2 --manifest-path bench/outside-blocks/Cargo.toml --target-dir "$target/outside"
outside_blocks="$target/outside/wasm32-wasip2/release/outside_blocks.wasm"

# Fresh criterion output, so the report lists only this run's figures.
rm -rf "$target/criterion"
criterion_args=(--warm-up-time 1 --measurement-time 3)
step "cargo bench: contract checks"
cargo bench -p tfwasm-contract --bench check -- "${criterion_args[@]}"
step "cargo bench: guest calls (fuel vs epoch, pooling)"
cargo bench -p tfwasm-runtime --bench call -- "${criterion_args[@]}"
step "cargo bench: the layers of one RPC (native SDK, checks, Wasm reused/fresh)"
cargo bench -p tfwasm-bench --bench layers -- "${criterion_args[@]}"

step "hashicorp/terraform-provider-random (Go, built once from the Go module proxy)"
hashicorp_random="$(bash "$root/scripts/fetch-hashicorp-random.sh")"

json_server="$(bash "$root/scripts/fetch-json-server.sh")"
# The Python section's native peer: the greeting provider written with pyvider (PyPI).
pyvider="$(bash "$root/scripts/fetch-pyvider.sh")"
# The listing section's client: Terraform >= 1.14 has `terraform query` (built from its Go
# module once, cached).
query_terraform="$(bash "$root/scripts/fetch-terraform-source.sh" | tail -n 1)"

step "tfwasm-bench run (terraform: ${clients[*]})"
tf_args=()
for c in "${clients[@]}"; do tf_args+=(--terraform "$c"); done
# shellcheck disable=SC2086
"$bench/tfwasm-bench" run \
  --tfwasm "$target/release/tfwasm" \
  --native "$bench/native-random" \
  --native-restapi "$bench/native-restapi" \
  --native-policy "$bench/native-policy" \
  --outside-blocks "$outside_blocks" \
  --json-server "$json_server" \
  --query-terraform "$query_terraform" \
  --pyvider "$pyvider" \
  --independent "$independent" \
  --hashicorp-random "$hashicorp_random" \
  --components "$target/wasm32-wasip2/release" \
  "${tf_args[@]}" \
  --criterion "$target/criterion" \
  --out "$root/docs/benchmarks.md" \
  ${BENCH_ARGS:-}
