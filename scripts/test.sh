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
# A run that fails without naming a failed test (a build error, a timeout, no Go) counts as
# one failure, so the totals never read "0 failed" for a red run.
go_failed() {
  echo "--- FAIL: the Go SDK's tests ($1)" | tee -a "$log"
  status=1
}
if command -v go >/dev/null 2>&1; then
  go_log="$(mktemp)"
  (cd guest-sdk/go && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go test -count=1 -v . ./protocol5 ./internal/guest ./internal/wasihttp) 2>&1 | tee "$go_log"
  go_status=${PIPESTATUS[0]}
  cat "$go_log" >>"$log"
  if [ "$go_status" -ne 0 ] && ! grep -q '^--- FAIL:' "$go_log"; then
    go_failed "go test exited $go_status"
  elif [ "$go_status" -ne 0 ]; then
    status=1
  fi
  rm -f "$go_log"
else
  go_failed "Go is not installed"
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
