//! `tfwasm-runner`: what `tfwasm package` ships as `terraform-provider-TYPE_vVERSION`.
//!
//! It is `tfwasm serve` and nothing else, built without Cranelift: it runs the code that
//! `tfwasm package` precompiled into the package (`component.cwasm`). Terraform hashes every
//! file of a package at every command and starts the provider 3–4 times per command, so the
//! 10 MB the compiler would add cost time at every run (docs/performance.md).

use std::process::ExitCode;

use tfwasm::commands::serve;
use tfwasm_wire::handshake::PluginEnv;

/// The version `tfwasm package` reads from this file when it cannot run it (a runner for
/// another platform); kept by `#[used]` whatever the optimizer makes of `main`.
#[used]
static VERSION_MARK: &str = tfwasm::RUNNER_VERSION_MARK;

fn main() -> ExitCode {
    let env = PluginEnv::from_process();
    match std::env::args().nth(1).as_deref() {
        // How Terraform starts a provider; without the plugin environment, `serve::run`
        // explains that this is a plugin.
        None => serve::run(serve::Args::implied(), env),
        Some("--version" | "-V") => {
            println!("tfwasm-runner {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help" | "-h") => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprint!("tfwasm-runner: unexpected argument {other:?}\n\n{HELP}");
            ExitCode::from(2)
        }
    }
}

const HELP: &str = "\
The provider executable of a tfwasm package: Terraform or OpenTofu starts it (with no
arguments) and it serves the WebAssembly provider beside it, using the code `tfwasm package`
precompiled into component.cwasm and the settings in tfwasm.toml.

It has no compiler. To run a plain component, use `tfwasm serve --component PATH`.

Usage: tfwasm-runner [--version | --help]
";
