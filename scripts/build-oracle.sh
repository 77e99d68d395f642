#!/usr/bin/env bash
# Prints the path of tfwasm-oracle (fuzz/oracle/main.go): the differential tests' reference,
# go-cty and OpenTofu's objchange. objchange is internal to OpenTofu, so the oracle is built
# inside a scratch copy of the OpenTofu module from the Go module proxy, once per version of
# main.go, into the tools cache.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
#   ORACLE_OPENTOFU   the OpenTofu release whose objchange and go-cty are the reference (default v1.12.6)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
module=github.com/opentofu/opentofu
version="${ORACLE_OPENTOFU:-v1.12.6}"
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}/oracle"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -buildvcs=false"

fail() { echo "build-oracle.sh: $*" >&2; exit 1; }

main="$root/fuzz/oracle/main.go"
key=$( (echo "$version"; cat "$main") | sha256sum | cut -c1-16)
bin="$cache/tfwasm-oracle-$key"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  fail "Go is not installed: the oracle is built from go-cty and OpenTofu's Go module (Go 1.26.6 or newer)"
# Test binaries ask for the oracle in parallel: one builds, the others wait and reuse it.
mkdir -p "$cache"
exec 9>"$cache/.build.lock"
command -v flock >/dev/null 2>&1 || fail "flock is not installed (util-linux)"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
echo "building tfwasm-oracle against OpenTofu $version (go-cty and objchange, from the Go module proxy) into $cache" >&2
info=$(go mod download -json "$module@$version" 2>&1) ||
  fail "cannot download $module@$version from the Go module proxy ($(go env GOPROXY)): $info"
dir=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -d "$dir" ] || fail "no source directory for $module@$version in the download"

src="$cache/src-$version"
if [ ! -f "$src/go.mod" ]; then
  rm -rf "$src.tmp"
  mkdir -p "$cache"
  cp -r "$dir" "$src.tmp"
  chmod -R u+w "$src.tmp"
  mv "$src.tmp" "$src"
fi
mkdir -p "$src/internal/tfwasmoracle"
cp "$main" "$src/internal/tfwasmoracle/main.go"
(cd "$src" && CGO_ENABLED=0 go build -o "$bin.tmp" ./internal/tfwasmoracle >&2) ||
  fail "building the oracle failed (see above)"
mv "$bin.tmp" "$bin"
echo "$bin"
