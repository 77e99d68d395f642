#!/usr/bin/env bash
# Prints the path of componentize-py (PyPI; builds Python providers into WebAssembly
# components), installing it once into a virtualenv in the tools cache.
set -euo pipefail

version=0.25.1
venv="$(bash "$(dirname "$0")/pypi-venv.sh" "componentize-py-$version" "componentize-py==$version")"
echo "$venv/bin/componentize-py"
