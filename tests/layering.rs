//! The direction of dependencies ARCHITECTURE.md promises, read from each host crate's
//! manifest: `model` at the bottom, `contract` (no IO), `wire` (the only crate that knows
//! gRPC) and `runtime` (the only one that knows wasmtime) on it, `cli` on top.

use std::path::Path;

/// The names under `[dependencies]` of `host/CRATE/Cargo.toml`.
fn dependencies(krate: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../host/{krate}/Cargo.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.push(name.to_owned());
        }
    }
    assert!(
        !names.is_empty() || krate == "contract",
        "{krate}: no dependencies read"
    );
    names
}

const GRPC: &[&str] = &[
    "tonic",
    "tonic-prost",
    "tonic-health",
    "prost",
    "prost-types",
];
const WASM: &[&str] = &["wasmtime", "wasmtime-wasi", "wasmtime-wasi-http"];
const ASYNC_IO: &[&str] = &["tokio", "hyper", "hyper-util", "rustls", "libc"];

fn refuses(krate: &str, forbidden: &[&[&str]], why: &str) {
    let deps = dependencies(krate);
    for name in forbidden.iter().flat_map(|list| list.iter()) {
        assert!(
            !deps.iter().any(|d| d == name),
            "{krate} depends on {name}: {why}"
        );
    }
}

#[test]
fn model_knows_no_grpc_wasm_or_io() {
    refuses(
        "model",
        &[GRPC, WASM, ASYNC_IO],
        "it compiles for guests too",
    );
}

#[test]
fn contract_is_plain_rust_on_the_model() {
    refuses(
        "contract",
        &[GRPC, WASM, ASYNC_IO],
        "`tfwasm check` runs it offline",
    );
    for dep in dependencies("contract") {
        assert!(
            dep == "tfwasm-model" || dep.starts_with("serde"),
            "contract depends on {dep}: only the model and plain data crates"
        );
    }
}

#[test]
fn only_wire_knows_grpc_and_only_runtime_knows_wasmtime() {
    // The manifests are read as they are: each layer has what it is the only one to know.
    assert!(dependencies("wire").iter().any(|d| d == "tonic"));
    assert!(dependencies("runtime").iter().any(|d| d == "wasmtime"));
    refuses("wire", &[WASM], "only the runtime knows wasmtime");
    refuses("runtime", &[GRPC], "only the wire knows gRPC");
    refuses(
        "testing",
        &[GRPC, WASM],
        "it drives providers through the runtime",
    );
    for krate in ["cli", "runner"] {
        refuses(
            krate,
            &[GRPC, WASM],
            "the CLI reaches both through wire and runtime",
        );
    }
    for lower in ["contract", "wire", "runtime"] {
        assert!(
            !dependencies(lower)
                .iter()
                .any(|d| d == "tfwasm" || d.starts_with("tfwasm-cli")),
            "{lower} depends on the CLI"
        );
    }
}

/// `tfwasm-tls` sits beside the model: the wire and the runtime both use it, it knows
/// neither, nor gRPC, wasm or any tfwasm crate.
#[test]
fn tls_is_a_leaf_both_wire_and_runtime_use() {
    refuses("tls", &[GRPC, WASM], "it is shared by wire and runtime");
    assert!(
        !dependencies("tls").iter().any(|d| d.starts_with("tfwasm")),
        "tls depends on a tfwasm crate"
    );
    for user in ["wire", "runtime"] {
        assert!(
            dependencies(user).iter().any(|d| d == "tfwasm-tls"),
            "{user} makes TLS connections without tfwasm-tls's provider"
        );
    }
}
