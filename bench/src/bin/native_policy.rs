//! `native-policy`: the policy sample served natively (no Wasm) by tfwasm's own tfplugin6
//! server and contract checks, for the set-scaling benchmark.

use tfwasm_bench::native::{NativeProvider, serve_main};

fn main() -> std::process::ExitCode {
    serve_main(
        "policy",
        NativeProvider::new(tfwasm_sample_policy::PolicyProvider),
    )
}
