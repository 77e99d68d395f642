#!/usr/bin/env bash
# The main job: package the random sample component as a provider, then run a real
# terraform (or tofu) init / apply / plan / destroy against it, all local (no network).
# Uses tofu or terraform from PATH when present, else Terraform v1.0.3 (fetched once).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
tfwasm="$target/release/tfwasm"
component="$target/wasm32-wasip2/release/tfwasm_sample_random.wasm"
for f in "$tfwasm" "$component"; do
  [ -f "$f" ] || { echo "missing $f: run 'make build' first" >&2; exit 1; }
done

if command -v tofu >/dev/null 2>&1; then tf="$(command -v tofu)"
elif command -v terraform >/dev/null 2>&1; then tf="$(command -v terraform)"
else tf="$(bash "$root/scripts/fetch-terraform.sh")"
fi

work="$target/demo"
rm -rf "$work"
mkdir -p "$work/project"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "Packaging the random component as registry.terraform.io/tfwasm/random 0.1.0"
"$tfwasm" package "$component" --source registry.terraform.io/tfwasm/random --version 0.1.0 --out "$work/mirror"

cat > "$work/cli.tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path = "$work/mirror"
  }
}
RC

cat > "$work/project/main.tf" <<'TF'
terraform {
  required_providers {
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}

resource "random_pet" "server" {
  length = 3
}

resource "random_string" "password" {
  count   = 2
  length  = 20
  keepers = { server = random_pet.server.id }
}

resource "random_integer" "port" {
  min = 8000
  max = 8999
}

resource "random_id" "bucket" {
  byte_length = 6
  prefix      = "bucket-"
}

output "server" { value = random_pet.server.id }
output "port" { value = random_integer.port.result }
output "bucket" { value = random_id.bucket.hex }
output "passwords" { value = random_string.password[*].result }
TF

export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
cd "$work/project"

step "Using $("$tf" version | head -n1) ($tf)"
step "init (from the local filesystem mirror)"
"$tf" init -no-color
step "apply"
"$tf" apply -auto-approve -no-color
step "plan (expect no changes)"
set +e
"$tf" plan -detailed-exitcode -no-color
code=$?
set -e
[ "$code" -eq 0 ] || { echo "expected an empty plan, got exit code $code" >&2; exit 1; }
step "destroy"
"$tf" destroy -auto-approve -no-color
step "Demo finished: a Wasm component provider planned, applied and destroyed real resources."
