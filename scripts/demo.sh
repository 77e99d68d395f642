#!/usr/bin/env bash
# The main job: package sample components as providers and run a real terraform (or tofu)
# against them, all local: the random sample (init / apply / plan / destroy), then the
# restapi sample against a local json-server it was granted, and nothing else.
# Runs OpenTofu, the client tfwasm is built for: `tofu` from PATH, else OpenTofu 1.12 built once
# from its Go module (scripts/fetch-opentofu.sh, a few minutes the first time). Only when that
# build is impossible (no Go, no module proxy) does it say why and use Terraform: `terraform`
# from PATH, else Terraform v1.0.3 (fetched once).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
tfwasm="$target/release/tfwasm"
component="$target/wasm32-wasip2/release/tfwasm_sample_random.wasm"
restapi="$target/wasm32-wasip2/release/tfwasm_sample_restapi.wasm"
for f in "$tfwasm" "$component" "$restapi"; do
  [ -f "$f" ] || { echo "missing $f: run 'make build' first" >&2; exit 1; }
done

if command -v tofu >/dev/null 2>&1; then
  tf="$(command -v tofu)"
else
  echo "==> No tofu on PATH: building OpenTofu 1.12 from the Go module proxy (once, then cached)"
  started=$(date +%s)
  if tf="$(bash "$root/scripts/fetch-opentofu.sh" 1.12 | tail -n 1)" && [ -x "$tf" ]; then
    echo "==> OpenTofu ready in $(($(date +%s) - started)) s: $tf"
  else
    echo "==> OpenTofu could not be built (the reason is above); using Terraform instead" >&2
    if command -v terraform >/dev/null 2>&1; then tf="$(command -v terraform)"
    else tf="$(bash "$root/scripts/fetch-terraform.sh")"
    fi
  fi
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

step "Using $("$tf" version | grep -E '^(OpenTofu|Terraform) v' | head -n1) ($tf)"
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

# A provider that talks to an API: restapi against a local json-server, granted exactly it.
json_server="$(bash "$root/scripts/fetch-json-server.sh")"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo '{ "items": [] }' > "$work/db.json"
"$json_server" "$work/db.json" --host 127.0.0.1 --port "$port" --quiet >"$work/json-server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

step "Packaging the restapi component, granted only http://127.0.0.1:$port (json-server)"
"$tfwasm" package "$restapi" --source registry.terraform.io/tfwasm/restapi --version 0.1.0 \
  --out "$work/mirror" --allow-http "http://127.0.0.1:$port"
mkdir -p "$work/api"
cat > "$work/api/main.tf" <<TF
terraform {
  required_providers {
    restapi = { source = "registry.terraform.io/tfwasm/restapi" }
  }
}

provider "restapi" {
  uri                   = "http://127.0.0.1:$port"
  create_returns_object = true
}

resource "restapi_object" "team" {
  path = "/items"
  data = jsonencode({ name = "platform", members = 4 })
}

output "id" { value = restapi_object.team.id }
output "api_data" { value = restapi_object.team.api_data }
TF
cd "$work/api"
"$tf" init -no-color >/dev/null
step "apply (creates the object through the API)"
"$tf" apply -auto-approve -no-color
step "what json-server holds now"
cat "$work/db.json"
step "destroy"
"$tf" destroy -auto-approve -no-color
step "Demo finished: Wasm component providers planned, applied and destroyed real resources, one of them through an API it was granted."
