#!/usr/bin/env bash
# Usage: pypi-venv.sh NAME DIST==VERSION...
# Prints the path of the virtualenv NAME in the tools cache, creating it and installing the
# pinned PyPI distributions once; an existing one is reused while every pin is installed at
# its version. The fetch-*.sh scripts share it.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 NAME DIST==VERSION..." >&2; exit 2; }
name=$1
shift
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
venv="$cache/$name"

pinned() {
  "$venv/bin/python3" - "$@" 2>/dev/null <<'PY'
import importlib.metadata as metadata
import sys

for pin in sys.argv[1:]:
    dist, _, version = pin.partition("==")
    try:
        if metadata.version(dist) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
PY
}

if ! pinned "$@"; then
  echo "installing $* (PyPI) into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    # Debian splits venv out of python3.
    { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2
    python3 -m venv "$venv" >&2
  fi
  "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "$@" >&2
  pinned "$@" || { echo "$* did not install into $venv" >&2; exit 1; }
fi
echo "$venv"
