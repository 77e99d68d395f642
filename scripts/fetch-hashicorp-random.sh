#!/usr/bin/env bash
# Prints the path of hashicorp/terraform-provider-random v3.9.0, built natively from the Go
# module proxy once into the tools cache: the provider operators would run instead of
# tfwasm's random sample, and `make bench`'s yardstick.
#
# Its go.mod declares the module as github.com/terraform-providers/terraform-provider-random
# (the old organization, no /v3), so its tags are refused as versions; the release commit
# (f8d869dc98d9 is v3.9.0) is fetched as a pseudo-version of that module path.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

module=github.com/terraform-providers/terraform-provider-random
version=v1.3.2-0.20260513075824-f8d869dc98d9
release=3.9.0
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
out="$cache/hashicorp-random-$release"
bin="$out/terraform-provider-random"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -buildvcs=false"

fail() { echo "fetch-hashicorp-random.sh: $*" >&2; exit 1; }

if [ ! -x "$bin" ]; then
  command -v go >/dev/null 2>&1 || fail "Go is not installed: hashicorp/random is built from its Go module"
  echo "building hashicorp/terraform-provider-random $release ($module@$version) into $out" >&2
  mkdir -p "$out"
  GOBIN="$out" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "$module@$version" >&2 ||
    fail "building $module@$version failed (see above); the Go module proxy must serve it"
  [ -x "$bin" ] || fail "go install wrote no $bin"
fi
echo "$bin"
