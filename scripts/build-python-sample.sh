#!/usr/bin/env bash
# Builds the Python sample (sample-providers/python-hello, with the Python SDK in
# guest-sdk/python) into target/wasm32-wasip2/release/tfwasm_sample_pyhello.wasm using
# componentize-py, which scripts/fetch-componentize-py.sh installs into a cache. Skipped when
# the component is newer than every source.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release"
out="$target/tfwasm_sample_pyhello.wasm"
sources=(sample-providers/python-hello guest-sdk/python/tfwasm_provider wit/since_v0.2.0 scripts/build-python-sample.sh)

newer=$([ -f "$out" ] && find "${sources[@]}" -type f -newer "$out" -not -path '*/__pycache__/*' | head -1 || echo missing)
if [ -z "$newer" ]; then
  echo "python-hello: $out is up to date"
  exit 0
fi
tool="$(bash scripts/fetch-componentize-py.sh)"
mkdir -p "$target"
echo "python-hello: componentize-py → $out"
# Only the SDK and the app on the Python path (not the tool's own site-packages).
VIRTUAL_ENV= "$tool" -q -d wit/since_v0.2.0 -w tfwasm-provider componentize \
  -p guest-sdk/python -p sample-providers/python-hello app -o "$out.tmp" \
  2> >(grep -v 'site-packages directory not found' >&2)
mv "$out.tmp" "$out"
