#!/usr/bin/env bash
# Builds the Go providers into components with `tfwasm build-go`, against the Go SDK in
# guest-sdk/go:
#   sample-providers/go-pets → target/wasm32-wasip2/release/tfwasm_sample_gopets.wasm
#   tests/fixtures/go-fixture → target/wasm32-wasip2/release/tfwasm_sample_gofixture.wasm (a
#   test fixture: a call that panics, spins, allocates or sleeps)
#   hashicorp/terraform-provider-random v3.9.0, its provider package unmodified, from the
#   Go module proxy (a scratch copy of its module with a tfwasm main added, as its provider
#   package is internal/) → target/wasm32-wasip2/release/tfwasm_sample_gorandom.wasm
# Each is skipped when its component is newer than every source and the tfwasm binary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
out_dir="$target/wasm32-wasip2/release"
tfwasm="$target/release/tfwasm"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -buildvcs=false"

fail() { echo "build-go-samples.sh: $*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || fail "Go (1.24 or newer) is not installed: the Go samples are built with it"
[ -x "$tfwasm" ] || fail "$tfwasm is missing: build the host first (make build)"
mkdir -p "$out_dir"

# Newer than every source and the tfwasm binary?
up_to_date() {
  local out=$1; shift
  [ -f "$out" ] && [ -z "$(find "$@" "$tfwasm" -type f -newer "$out" | head -1)" ]
}

pets="$out_dir/tfwasm_sample_gopets.wasm"
if up_to_date "$pets" sample-providers/go-pets guest-sdk/go scripts/build-go-samples.sh; then
  echo "go-pets: $pets is up to date"
else
  echo "go-pets: tfwasm build-go → $pets"
  (cd sample-providers/go-pets && "$tfwasm" build-go . -o "$pets")
fi

fixture="$out_dir/tfwasm_sample_gofixture.wasm"
if up_to_date "$fixture" tests/fixtures/go-fixture guest-sdk/go scripts/build-go-samples.sh; then
  echo "go-fixture: $fixture is up to date"
else
  echo "go-fixture: tfwasm build-go → $fixture"
  (cd tests/fixtures/go-fixture && "$tfwasm" build-go . -o "$fixture")
fi

# hashicorp/random at v3.9.0: its go.mod names the module by its old path without /v3, so
# the release commit is fetched as a pseudo-version.
module=github.com/terraform-providers/terraform-provider-random
version=v1.3.2-0.20260513075824-f8d869dc98d9
random="$out_dir/tfwasm_sample_gorandom.wasm"
if up_to_date "$random" guest-sdk/go scripts/build-go-samples.sh; then
  echo "hashicorp/random: $random is up to date"
else
  echo "hashicorp/random: fetching $module@$version from the Go module proxy" >&2
  src=$(cd /tmp && go mod download -json "$module@$version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') ||
    fail "the Go module proxy did not serve $module@$version"
  scratch="$target/go-random-src"
  rm -rf "$scratch"
  cp -r "$src" "$scratch"
  chmod -R u+w "$scratch"
  mkdir -p "$scratch/cmd/tfwasm"
  # The only file added: a main serving the provider package as a component (the
  # provider serves protocol 5, as its own main does).
  cat > "$scratch/cmd/tfwasm/main.go" <<'GO'
package main

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/terraform-providers/terraform-provider-random/internal/provider"

	"tfwasm.dev/go/protocol5"
)

func main() {
	protocol5.Serve(providerserver.NewProtocol5(provider.New()))
}
GO
  (
    cd "$scratch"
    go mod edit -require tfwasm.dev/go@v0.0.0 -replace "tfwasm.dev/go=$root/guest-sdk/go"
    go mod tidy >/dev/null 2>&1 || go mod tidy
    echo "hashicorp/random: tfwasm build-go → $random"
    "$tfwasm" build-go ./cmd/tfwasm -o "$random"
  )
fi
