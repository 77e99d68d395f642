#!/usr/bin/env bash
# Prints the path of `pyvider` (PyPI; a Python tfplugin6 framework that runs providers
# natively) with bench/pyvider-hello installed beside it: the native Python peer that
# `tfwasm-bench --only python` measures. pyvider's virtualenv is installed once into the
# tools cache; the greeting package is reinstalled at every call (a second), so an edit to it
# is always what runs.
set -euo pipefail

version=0.8.1
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(bash "$here/pypi-venv.sh" "pyvider-$version" "pyvider==$version")"
# Built from a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
cp -r "$here/../bench/pyvider-hello" "$copy/"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check --no-deps \
  --force-reinstall "$copy/pyvider-hello" >&2
echo "$venv/bin/pyvider"
