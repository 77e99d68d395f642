//! `native-restapi`: the restapi sample served natively by tfwasm's own server, its HTTP
//! going through the SDK's native client (ureq) — the "same code without Wasm" baseline for
//! the API benchmark (`terraform-provider-restapi_vX.Y.Z`).

use tfwasm_bench::native::{NativeProvider, block_in_place, serve_main};

fn main() -> std::process::ExitCode {
    serve_main(
        "restapi",
        NativeProvider::new(tfwasm_sample_restapi::RestApiProvider)
            .with_blocking_io(block_in_place),
    )
}
