#!/usr/bin/env bash
# Usage: fetch-terraform-source.sh [MINOR | VERSION]      e.g. 1.16 (its newest patch) or 1.16.4
# Builds Terraform from its Go module (the Go module proxy) into the tools cache once, then
# reuses it, and prints the binary's path as its last line. Default: 1.16, the newest minor
# whose protocol (tfplugin6.11, list resources, actions, state stores) tfwasm serves.
#
# Terraform's go.mod replaces ten nested modules (`internal/legacy` and the remote-state
# backends) by local directories, and a module's zip holds no nested module, so a wrapper
# cannot copy those replaces as OpenTofu's fetch does. It points each one at the same nested
# module fetched from the proxy as a pseudo-version of the tag's commit instead.
# The binary allows language experiments (`state_store` blocks need them), as a dev build does.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

module=github.com/hashicorp/terraform
want="${1:-1.16}"
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -buildvcs=false"

fail() { echo "fetch-terraform-source.sh: $*" >&2; exit 1; }

case "$want" in
  [0-9]*.[0-9]*.[0-9]*) minor="" ; version="v${want#v}" ;;
  [0-9]*.[0-9]*) minor="$want" ; version="" ;;
  *) fail "expected a minor such as 1.16 or a version such as 1.16.4, not '$want'" ;;
esac

is_version() {
  [ -x "$1" ] || return 1
  local line
  line=$(TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 "$1" version 2>/dev/null | sed -n 1p)
  [ "$line" = "Terraform $2" ]
}
if [ -n "$version" ] && is_version "$cache/terraform-${version#v}/terraform" "$version"; then
  echo "$cache/terraform-${version#v}/terraform"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  fail "Go is not installed: Terraform is built from its Go module (Go 1.26.8 or newer for 1.16)"

# The proxy's version list is incomplete (it lists 1.13.3 as the newest while 1.16.x is
# served), so a minor's patches are found by asking for each one until four in a row miss.
exists() { go list -m -json "$module@$1" >/dev/null 2>&1; }
if [ -z "$version" ]; then
  echo "looking for Terraform $minor's newest patch on the Go module proxy ($(go env GOPROXY))" >&2
  newest="" misses=0 p=0
  while [ "$misses" -lt 4 ]; do
    if exists "v$minor.$p"; then newest=$p; misses=0; else misses=$((misses + 1)); fi
    p=$((p + 1))
  done
  [ -n "$newest" ] || fail "the Go module proxy has no release of Terraform $minor"
  version="v$minor.$newest"
fi

out="$cache/terraform-${version#v}"
if is_version "$out/terraform" "$version"; then
  echo "$out/terraform"
  exit 0
fi

start=$(date +%s)
echo "building Terraform $version from the Go module proxy into $out (once; a few minutes)" >&2
info=$(go list -m -json "$module@$version" 2>&1) ||
  fail "cannot find $module@$version on the Go module proxy ($(go env GOPROXY)): $info"
# The first match, and no pipe: a `| head -1` could end sed with SIGPIPE, and pipefail would
# fail the assignment.
field() { sed -n "/^[[:space:]]*\"$1\": \"\(.*\)\",*$/{s//\1/p;q}" <<<"$info"; }
hash=$(field Hash)
time=$(field Time)
[ -n "$hash" ] && [ -n "$time" ] || fail "the proxy gave no commit or time for $module@$version"
# A pseudo-version names the commit by its UTC time and 12 hex digits.
stamp=$(printf '%s' "$time" | tr -d -- '-:TZ' | cut -c1-14)
pseudo="v0.0.0-$stamp-${hash:0:12}"

src=$(go mod download -json "$module@$version" 2>&1) ||
  fail "cannot download $module@$version from the Go module proxy: $src"
gomod=$(printf '%s' "$src" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
[ -f "$gomod" ] || fail "no go.mod for $module@$version in the download"

need=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")
have=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  fail "Terraform $version needs Go $need; this machine has Go $have"
fi

work="$out.build"
rm -rf "$work"
mkdir -p "$work"
{
  echo "module tfwasm.local/build-terraform"
  echo
  echo "go $need"
  echo
  awk '/^godebug \(/,/^\)/' "$gomod"
  sed -n '/^godebug [^(]/p' "$gomod"
  # Replaces to other modules carry over; local ones become the nested module at the tag.
  sed -n '/^replace .* => [^.]/p' "$gomod"
  sed -n 's#^replace \([^ ]*\) => \./.*$#\1#p' "$gomod" | while read -r nested; do
    echo "replace $nested => $nested $pseudo"
  done
  echo
  echo "require $module $version"
} >"$work/go.mod"
echo "nested modules at $pseudo (commit ${hash:0:12} of $version)" >&2

(
  cd "$work"
  GOFLAGS="$GOFLAGS -mod=mod" go get "$module@$version" >&2
  CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X $module/version.dev=no -X main.experimentsAllowed=yes" \
    -o "$work/terraform" "$module" >&2
) || fail "building Terraform $version failed (see above; $work/go.mod is what was built)"
mkdir -p "$out"
mv "$work/terraform" "$out/terraform"
rm -rf "$work"
is_version "$out/terraform" "$version" || fail "the built binary does not report Terraform $version"
echo "built Terraform $version in $(($(date +%s) - start)) s" >&2
echo "$out/terraform"
