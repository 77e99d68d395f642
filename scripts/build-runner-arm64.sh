#!/usr/bin/env bash
# Cross-compiles the runner (the executable every provider package carries) for linux_arm64
# on an amd64 machine, with rustup's aarch64-unknown-linux-gnu target and Debian's
# gcc-aarch64-linux-gnu (the linker, and the C compiler ring and zstd need). Installs
# what is missing, saying so, and prints the runner's path on stdout.
#   tfwasm package provider.wasm --platform linux_arm64 --runner "$(bash scripts/build-runner-arm64.sh)" ...
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu

if ! rustup target list --installed 2>/dev/null | grep -x "$target" >/dev/null; then
  echo "fetching the Rust standard library for $target (rustup target add)" >&2
  rustup target add "$target" >&2
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
  echo "installing Debian's gcc-aarch64-linux-gnu (cross linker and C compiler)" >&2
  if ! { apt-get update -qq && apt-get install -y -qq gcc-aarch64-linux-gnu; } >&2; then
    echo "missing aarch64-linux-gnu-gcc: install Debian's gcc-aarch64-linux-gnu" >&2
    exit 1
  fi
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
# As the amd64 runner is built (scripts/runner-build.env): every package carries it.
runner_build=$(grep -v '^#' scripts/runner-build.env)
# shellcheck disable=SC2086 # one NAME=value word per line of the file
env $runner_build \
  "${CARGO:-cargo}" build --release --target "$target" -p tfwasm-runner >&2
echo "${CARGO_TARGET_DIR:-$PWD/target}/$target/release/tfwasm-runner"
