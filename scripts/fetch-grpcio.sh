#!/usr/bin/env bash
# Prints the path of a Python interpreter with grpcio (gRPC C-core, the client pyvider-rpcplugin
# and most non-Go tooling use), installing it once into a virtualenv in the tools cache.
set -euo pipefail

version=1.85.1
venv="$(bash "$(dirname "$0")/pypi-venv.sh" "grpcio-$version" "grpcio==$version")"
echo "$venv/bin/python3"
