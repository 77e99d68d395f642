#!/usr/bin/env bash
# Runs the whole test suite (unit, property, protocol, end-to-end with real Terraform) and
# ends with one totals line, "N passed, N failed", summed over every test binary.
set -uo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

cargo test --workspace "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

echo
awk '/^test result:/ {
       for (i = 1; i <= NF; i++) {
         if ($i == "passed;") passed += $(i - 1)
         if ($i == "failed;") failed += $(i - 1)
       }
     }
     END { printf "%d passed, %d failed\n", passed, failed }' "$log"
exit "$status"
