#!/usr/bin/env bash
# Prints the path of a Python interpreter with grpcio (gRPC C-core, the client pyvider-rpcplugin
# and most non-Go tooling use), installing it once into a virtualenv in a cache outside the clone.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

version=1.85.1
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
venv="$cache/grpcio-$version"
python="$venv/bin/python3"

has_grpcio() { "$python" -c "import grpc, sys; sys.exit(grpc.__version__ != '$version')" 2>/dev/null; }

if ! has_grpcio; then
  echo "installing grpcio==$version (PyPI) into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$cache"
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    # Debian splits venv out of python3.
    { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2
    python3 -m venv "$venv" >&2
  fi
  "$python" -m pip install --quiet --disable-pip-version-check "grpcio==$version" >&2
  has_grpcio || { echo "grpcio $version did not install into $venv" >&2; exit 1; }
fi
echo "$python"
