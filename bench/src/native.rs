//! The native baselines' `main`: a `tfwasm-sdk` provider served natively
//! ([`NativeProvider`], the SDK's own glue without wasm, instances or limits) with tfwasm's
//! own server, as Terraform launches plugins.

pub use tfwasm_sdk::glue::NativeProvider;

/// For [`NativeProvider::with_blocking_io`]: a call that blocks on I/O runs in place on its
/// tokio worker, whose other tasks move to another thread.
pub fn block_in_place(call: &mut dyn FnMut()) {
    tokio::task::block_in_place(call)
}

/// The `main` of a native baseline binary: serves `provider` (wrapped in the contract
/// checks) as Terraform launches plugins, with tfwasm's own server.
pub fn serve_main(name: &str, provider: NativeProvider) -> std::process::ExitCode {
    use std::process::ExitCode;

    use tfwasm_contract::{Checked, Mode};
    use tfwasm_wire::handshake::PluginEnv;
    use tfwasm_wire::{ServeOptions, serve};

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
            eprintln!("native-{name}: cannot start a runtime: {e}");
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
        let provider = Checked::new(provider, name, Mode::Enforce);
        match serve(provider, ServeOptions { env, tcp }).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("native-{name}: {e}");
                ExitCode::FAILURE
            }
        }
    })
}
