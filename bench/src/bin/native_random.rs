//! `native-random`: the random sample provider served natively (no Wasm) by tfwasm's own
//! tfplugin6 server and contract checks — the baseline `make bench` compares `tfwasm` with.
//! Terraform launches it like any provider binary (`terraform-provider-random_vX.Y.Z`).

use std::process::ExitCode;

use tfwasm_bench::native::NativeProvider;
use tfwasm_contract::{Checked, Mode};
use tfwasm_wire::handshake::PluginEnv;
use tfwasm_wire::{ServeOptions, serve};

fn main() -> ExitCode {
    let env = PluginEnv::from_process();
    if !env.has_magic_cookie() {
        eprintln!(
            "This binary is a plugin. These are not meant to be executed directly.\n\
             Please execute the program that consumes these plugins, which will\n\
             load any plugins automatically"
        );
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("native-random: cannot start a runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let tcp = std::env::args().any(|a| a == "--tcp");
    runtime.block_on(async move {
        // Terraform stops providers with StopProvider; a Ctrl-C reaches the whole group.
        if let Ok(mut signals) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        {
            tokio::spawn(async move { while signals.recv().await.is_some() {} });
        }
        let provider = Checked::new(
            NativeProvider::new(tfwasm_sample_random::RandomProvider),
            "random",
            Mode::Enforce,
        );
        match serve(provider, ServeOptions { env, tcp }).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("native-random: {e}");
                ExitCode::FAILURE
            }
        }
    })
}
