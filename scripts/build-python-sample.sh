#!/usr/bin/env bash
# Builds the Python providers with componentize-py (installed into a cache by
# scripts/fetch-componentize-py.sh) against the Python SDK in guest-sdk/python:
#   sample-providers/python-hello → target/wasm32-wasip2/release/tfwasm_sample_pyhello.wasm
#   tests/fixtures/python-fixture    → target/wasm32-wasip2/release/tfwasm_sample_pyfixture.wasm (a test fixture)
# Each is skipped when its component is newer than every source.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release"

build() {
  local app=$1 out="$target/tfwasm_sample_$2.wasm"
  local sources=("$app" guest-sdk/python/tfwasm_provider wit/since_v0.2.0 scripts/build-python-sample.sh)
  local newer
  newer=$([ -f "$out" ] && find "${sources[@]}" -type f -newer "$out" -not -path '*/__pycache__/*' | head -1 || echo missing)
  if [ -z "$newer" ]; then
    echo "$app: $out is up to date"
    return
  fi
  local tool
  tool="$(bash scripts/fetch-componentize-py.sh)"
  mkdir -p "$target"
  echo "$app: componentize-py → $out"
  # Only the SDK and the app on the Python path (not the tool's own site-packages).
  VIRTUAL_ENV= "$tool" -q -d wit/since_v0.2.0 -w tfwasm-provider componentize \
    -p guest-sdk/python -p "$app" app -o "$out.tmp" \
    2> >(grep -v 'site-packages directory not found' >&2)
  mv "$out.tmp" "$out"
}

build sample-providers/python-hello pyhello
build tests/fixtures/python-fixture pyfixture
