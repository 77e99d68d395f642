#!/usr/bin/env bash
# Runs the whole test suite (unit, property, protocol, end-to-end with real Terraform; the Go
# SDK's tests) and ends with one totals line, "N passed, N failed", summed over every test
# binary.
set -uo pipefail
cd "$(dirname "$0")/.."

# The samples' acceptance tests (tfwasm-testing) run Terraform from TF_ACC_TERRAFORM_PATH or
# PATH; without one on PATH, use the Terraform v1.0.3 the end-to-end tests fetch.
if [ -z "${TF_ACC_TERRAFORM_PATH:-}" ] && ! command -v terraform >/dev/null 2>&1; then
  TF_ACC_TERRAFORM_PATH="$(bash scripts/fetch-terraform.sh)"
  export TF_ACC_TERRAFORM_PATH
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

cargo test --workspace "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# The Go SDK's own tests (its adapter against fake servers), counted in the totals.
if command -v go >/dev/null 2>&1; then
  (cd guest-sdk/go && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go test -count=1 -v . ./protocol5 ./internal/guest ./internal/wasihttp) 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
else
  echo "test.sh: Go is not installed: the Go SDK's tests (guest-sdk/go) need it" | tee -a "$log" >&2
  status=1
fi

echo
awk '/^test result:/ {
       for (i = 1; i <= NF; i++) {
         if ($i == "passed;") passed += $(i - 1)
         if ($i == "failed;") failed += $(i - 1)
       }
     }
     /^--- PASS:/ { passed++ }
     /^--- FAIL:/ { failed++ }
     END { printf "%d passed, %d failed\n", passed, failed }' "$log"
exit "$status"
