#!/usr/bin/env bash
# Usage: fetch-opentofu.sh [MINOR | VERSION]      e.g. 1.12 (its newest patch) or 1.11.5
# Builds OpenTofu's `tofu` from its Go module (the Go module proxy) into the tools cache once,
# then reuses it, and prints the binary's path as its last line. Default: 1.12.
#
# `go install github.com/opentofu/opentofu/cmd/tofu@vX` refuses the module (its go.mod has a
# `replace`), so this builds a small wrapper module that requires OpenTofu at the tag and
# copies the tag's `replace` and `godebug` lines, as OpenTofu's own release does.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

module=github.com/opentofu/opentofu
want="${1:-1.12}"
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -buildvcs=false"

fail() { echo "fetch-opentofu.sh: $*" >&2; exit 1; }

case "$want" in
  [0-9]*.[0-9]*.[0-9]*) minor="" ; version="v${want#v}" ;;
  [0-9]*.[0-9]*) minor="$want" ; version="" ;;
  *) fail "expected a minor such as 1.12 or a version such as 1.12.6, not '$want'" ;;
esac

# A cached build of an exact version needs neither Go nor the network.
# The output is read whole before it is matched: piped into `grep -q`, which exits at the first
# match, tofu's later writes die of SIGPIPE and pipefail fails the check (1 in 20 on a loaded
# machine, seen as a CI failure right after a build).
tofu_version() { TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 "$1" version; }
is_version() {
  [ -x "$1" ] || return 1
  local said
  said=$(tofu_version "$1" 2>/dev/null) || return 1
  grep -qx "OpenTofu $2" <<<"$said"
}
if [ -n "$version" ] && is_version "$cache/opentofu-${version#v}/tofu" "$version"; then
  echo "$cache/opentofu-${version#v}/tofu"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  fail "Go is not installed: OpenTofu is built from its Go module (Go 1.24.3 or newer for tofu 1.10, 1.26.6 for 1.12)"

# The proxy's version list can be incomplete, and so can its releases (some patches are not
# served, some fail checksum verification), so a minor's patches are found by asking for each
# one after the newest listed until four in a row are missing, and the newest that downloads
# and verifies is taken.
exists() { go list -m -json "$module@$1" >/dev/null 2>&1; }
if [ -z "$version" ]; then
  listed=$(go list -m -versions "$module" 2>/dev/null) ||
    fail "cannot reach the Go module proxy ($(go env GOPROXY)) to list $module's versions"
  patches=""
  newest=-1
  for v in $listed; do
    case "$v" in "v$minor".*) p=${v#"v$minor".}; case "$p" in *[!0-9]*) ;; *) patches="$patches $p"; [ "$p" -gt "$newest" ] && newest=$p ;; esac ;; esac
  done
  misses=0
  next=$((newest + 1))
  [ "$newest" -ge 0 ] || next=0
  while [ "$misses" -lt 4 ]; do
    if exists "v$minor.$next"; then patches="$patches $next"; misses=0; else misses=$((misses + 1)); fi
    next=$((next + 1))
  done
  [ -n "$patches" ] || fail "the Go module proxy has no release of OpenTofu $minor"
  for p in $(printf '%s\n' $patches | sort -rn | uniq); do
    # A cached build of a patch that was chosen before needs no download.
    if is_version "$cache/opentofu-$minor.$p/tofu" "v$minor.$p"; then version="v$minor.$p"; break; fi
    if go mod download "$module@v$minor.$p" >/dev/null 2>&1; then version="v$minor.$p"; break; fi
    echo "OpenTofu v$minor.$p is listed but does not download and verify here; trying the one before" >&2
  done
  [ -n "$version" ] || fail "no release of OpenTofu $minor downloads and verifies from the Go module proxy"
fi

out="$cache/opentofu-${version#v}"
if is_version "$out/tofu" "$version"; then
  echo "$out/tofu"
  exit 0
fi

start=$(date +%s)
echo "building OpenTofu $version from the Go module proxy into $out (once; a few minutes)" >&2
src=$(go mod download -json "$module@$version" 2>&1) ||
  fail "cannot download $module@$version from the Go module proxy ($(go env GOPROXY)): $src"
gomod=$(printf '%s' "$src" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
[ -f "$gomod" ] || fail "no go.mod for $module@$version in the download"

need=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")
have=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  fail "OpenTofu $version needs Go $need; this machine has Go $have"
fi

work="$out.build"
rm -rf "$work"
mkdir -p "$work"
{
  echo "module tfwasm.local/build-tofu"
  echo
  echo "go $need"
  echo
  # godebug blocks and replace lines, exactly as the tag has them.
  awk '/^godebug \(/,/^\)/' "$gomod"
  sed -n '/^godebug [^(]/p; /^replace /p' "$gomod"
  echo
  echo "require $module $version"
} >"$work/go.mod"

(
  cd "$work"
  GOFLAGS="$GOFLAGS -mod=mod" go get "$module/cmd/tofu@$version" >&2
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X $module/version.dev=no" -o "$work/tofu" "$module/cmd/tofu" >&2
) || fail "building OpenTofu $version failed (see above)"
mkdir -p "$out"
mv "$work/tofu" "$out/tofu"
rm -rf "$work"
if ! is_version "$out/tofu" "$version"; then
  said=$(tofu_version "$out/tofu" 2>&1) && rc=0 || rc=$?
  fail "the built binary $out/tofu does not report OpenTofu $version: \`tofu version\` exited $rc, printing: $said"
fi
echo "built OpenTofu $version in $(($(date +%s) - start)) s" >&2
echo "$out/tofu"
