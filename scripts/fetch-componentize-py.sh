#!/usr/bin/env bash
# Prints the path of componentize-py (PyPI; builds Python providers into WebAssembly
# components), installing it once into a virtualenv in a cache outside the clone.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

version=0.25.1
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
venv="$cache/componentize-py-$version"
tool="$venv/bin/componentize-py"

has_tool() { [ -x "$tool" ] && "$tool" --version 2>/dev/null | grep -q "$version"; }

if ! has_tool; then
  echo "installing componentize-py==$version (PyPI) into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    # Debian splits venv out of python3.
    { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2
    python3 -m venv "$venv" >&2
  fi
  "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "componentize-py==$version" >&2
  has_tool || { echo "componentize-py $version did not install into $venv" >&2; exit 1; }
fi
echo "$tool"
