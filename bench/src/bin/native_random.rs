//! `native-random`: the random sample provider served natively (no Wasm) by tfwasm's own
//! tfplugin6 server and contract checks — the baseline `make bench` compares `tfwasm` with.
//! Terraform launches it like any provider binary (`terraform-provider-random_vX.Y.Z`).

use tfwasm_bench::native::{NativeProvider, serve_main};

fn main() -> std::process::ExitCode {
    serve_main(
        "random",
        NativeProvider::new(tfwasm_sample_random::RandomProvider),
    )
}
