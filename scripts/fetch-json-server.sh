#!/usr/bin/env bash
# Prints the path of a json-server executable (npm json-server@0.17.4, a real REST server the
# http and restapi samples are tested against), installing it once into a cache outside the
# clone. Needs node and npm.
#   TFWASM_TOOLS_DIR  cache directory (default: $XDG_CACHE_HOME/tfwasm-tools or ~/.cache/tfwasm-tools)
set -euo pipefail

version=0.17.4
cache="${TFWASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfwasm-tools}"
dir="$cache/json-server-$version"
bin="$dir/node_modules/.bin/json-server"

if [ ! -x "$bin" ]; then
  command -v npm >/dev/null 2>&1 || { echo "json-server needs node and npm (e.g. apt-get install nodejs npm)" >&2; exit 1; }
  echo "installing json-server@$version from npm into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --silent "json-server@$version" >&2
  [ -x "$bin" ] || { echo "npm did not install $bin" >&2; exit 1; }
fi
echo "$bin"
