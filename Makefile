# tfwasm — run `make help` for the targets.
CARGO ?= cargo
SAMPLES := tfwasm-sample-random tfwasm-sample-misbehave tfwasm-sample-hostile tfwasm-sample-http tfwasm-sample-restapi tfwasm-sample-local tfwasm-sample-policy tfwasm-sample-hello

.PHONY: help build build-demo demo docs test bench load fuzz fuzz-diff lint fmt clean terraform

help: ## List targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-10s %s\n", $$1, $$2}'

# The runner's build settings (scripts/runner-build.env: fat LTO, one codegen unit). Its
# dependencies compile a second time for it, so the demo's quicker build (build-demo) leaves
# this out.
RUNNER_FOR_SIZE := $(or $(shell grep -v '^\#' scripts/runner-build.env 2>/dev/null),$(error scripts/runner-build.env is missing or empty: run make from the repository's root))

build: ## Build the host (target/release/tfwasm and the runners packages carry, amd64 and arm64), the load driver (tfwasm-bench) and every sample component (Python's with componentize-py, Go's with tfwasm build-go)
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
	# Only the binaries something here runs: `make load` runs tfwasm-bench; `make bench`
	# builds the native baselines and the floor itself, as the runner is (scripts/bench.sh).
	$(CARGO) build --release -p tfwasm -p tfwasm-bench --bin tfwasm --bin tfwasm-bench
	# On its own, so Cargo does not unify the compiler back into it (host/runner/Cargo.toml),
	# and optimized for size: every package carries it and Terraform hashes it at every command.
	$(RUNNER_FOR_SIZE) $(CARGO) build --release -p tfwasm-runner
	# The linux_arm64 runner, cross-compiled: `tfwasm package --platform linux_arm64` ships it.
	bash scripts/build-runner-arm64.sh >/dev/null
	$(CARGO) build --release --target wasm32-wasip2 $(addprefix -p ,$(SAMPLES))
	bash scripts/build-python-sample.sh
	bash scripts/build-go-samples.sh

# Only what the demo runs: the host, the runner packages carry, and two sample components
# (not the benchmarks, nor the samples only tests use), so a fresh clone's first demo compiles
# as little as it can.
build-demo: ## Build only what `make demo` needs
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
	$(CARGO) build --release -p tfwasm
	$(CARGO) build --release -p tfwasm-runner
	$(CARGO) build --release --target wasm32-wasip2 -p tfwasm-sample-random -p tfwasm-sample-restapi

demo: build-demo ## Package the random and restapi samples and run a real OpenTofu (built once if missing) init, apply, plan, destroy
	bash scripts/demo.sh

docs: build ## The SDK's API reference (rustdoc of tfwasm-sdk and tfwasm-testing, target/doc) and the samples' documentation (sample-providers/*/docs, with `tfwasm docs`)
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p tfwasm-sdk -p tfwasm-testing
	@echo "API reference: $${CARGO_TARGET_DIR:-target}/doc/tfwasm_sdk/index.html, $${CARGO_TARGET_DIR:-target}/doc/tfwasm_testing/index.html"
	for s in random policy local restapi; do \
	  ex=sample-providers/$$s/examples; \
	  $${CARGO_TARGET_DIR:-target}/release/tfwasm docs $${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/tfwasm_sample_$$s.wasm \
	    $$( [ -d $$ex ] && echo --examples $$ex ) --out sample-providers/$$s/docs; \
	done

test: build ## Unit, property, protocol and end-to-end tests (real Terraform 1.0.3 and OpenTofu 1.10-1.12)
	bash scripts/test.sh

bench: build ## Benchmarks side by side (Terraform and OpenTofu; tfwasm vs hashicorp/random and an independent native provider, Wasm vs native, gRPC floor); writes docs/benchmarks.md
	bash scripts/bench.sh

load: build ## 100,000 RPCs on one AutoMTLS connection, 64 in flight, 2 % hostile (fuel, memory, panic, deadline); fails on any unexpected outcome
	$${CARGO_TARGET_DIR:-target}/release/tfwasm-bench load \
	  --component $${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/tfwasm_sample_hostile.wasm

fuzz: ## Fuzz every target under libFuzzer for FUZZ_SECONDS (default 60) each; needs nightly (installed if missing)
	bash scripts/fuzz.sh

fuzz-diff: ## Differential tests against go-cty and OpenTofu's objchange: DIFF_CASES value cases (default 1,000,000) and a tenth as many check cases; needs Go
	$(CARGO) build --release -p tfwasm-fuzz --bin fuzz-diff
	DIFF_CASES=$${DIFF_CASES:-1000000} $${CARGO_TARGET_DIR:-target}/release/fuzz-diff

lint: ## Format check and clippy for host and guest; gofmt and go vet for the Go SDK and samples
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p tfwasm-runner -- -D warnings
	$(CARGO) clippy --target wasm32-wasip2 $(addprefix -p ,$(SAMPLES)) -- -D warnings
	# The benchmark's outside crate (its own workspace), so an SDK change that breaks it shows here.
	$(CARGO) fmt --manifest-path bench/outside-blocks/Cargo.toml -- --check
	$(CARGO) clippy --locked --manifest-path bench/outside-blocks/Cargo.toml --target wasm32-wasip2 --target-dir $${CARGO_TARGET_DIR:-target}/outside -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p tfwasm-sdk -p tfwasm-testing
	@unformatted="$$(gofmt -l guest-sdk/go sample-providers/go-pets tests/fixtures/go-fixture)"; \
	  [ -z "$$unformatted" ] || { echo "gofmt wants to change: $$unformatted" >&2; exit 1; }
	cd guest-sdk/go && go vet . ./protocol5 ./internal/guest ./internal/wasihttp
	cd sample-providers/go-pets && go vet ./...

fmt: ## Format everything
	$(CARGO) fmt --all

terraform: ## Fetch (once) and print the path of Terraform v1.0.3
	@bash scripts/fetch-terraform.sh

clean: ## Remove build output
	$(CARGO) clean
