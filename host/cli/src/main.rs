//! `tfwasm`: serves a WebAssembly provider component to Terraform/OpenTofu over tfplugin6,
//! packages components as providers Terraform can install, and inspects them.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tfwasm::commands;
use tfwasm_wire::handshake::PluginEnv;

/// Run Terraform/OpenTofu providers compiled to WebAssembly components, sandboxed.
///
/// A provider package made by `tfwasm package` holds the runner (`tfwasm-runner`, this
/// binary without the compiler, or this binary) next to the component and its precompiled
/// code. Terraform starts it with its plugin environment and it serves the component (what
/// `tfwasm serve` does).
#[derive(Debug, Parser)]
#[command(
    name = "tfwasm",
    version,
    propagate_version = true,
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve a provider component to Terraform/OpenTofu (the plugin server; Terraform runs it).
    Serve(commands::serve::Args),
    /// Build a Go provider (terraform-plugin-framework, served with tfwasm.Serve) into a component.
    #[command(name = "build-go")]
    BuildGo(commands::build_go::Args),
    /// Write a provider package (a filesystem-mirror entry) for a component.
    #[command(disable_version_flag = true)]
    Package(Box<commands::package::Args>),
    /// Print the CLI configuration (dev_overrides) that runs the providers packaged in a
    /// folder from their newest packages, rebuilt or not, with no lock-file check.
    #[command(name = "dev-overrides")]
    DevOverrides(commands::dev_overrides::Args),
    /// Drive a component's lifecycle over JSON lines on stdin/stdout, for tests (what the
    /// tfwasm-harness crate runs).
    Harness(commands::harness::Args),
    /// Show what a component declares: resource types, data sources and their schemas.
    Inspect(commands::inspect::Args),
    /// Create a provider crate to start from: one resource, tests, examples, a README.
    New(commands::new::Args),
    /// Write the provider's documentation (tfplugindocs layout) from a component's schema.
    Docs(commands::docs::Args),
    /// Run a recording's requests (TFWASM_RECORD) against a component; report differences.
    Replay(commands::replay::Args),
    /// Check a plan or an apply result against the lifecycle contracts, offline.
    #[command(subcommand)]
    Check(commands::check::Check),
}

fn main() -> ExitCode {
    let env = PluginEnv::from_process();
    // Terraform runs a provider binary with no arguments and the magic cookie set.
    if std::env::args_os().len() == 1 && env.magic_cookie.is_some() {
        return commands::serve::run(commands::serve::Args::implied(), env);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => return commands::serve::run(args, env),
        Command::Package(args) => commands::package::run(*args),
        Command::BuildGo(args) => commands::build_go::run(args),
        Command::Inspect(args) => commands::inspect::run(args),
        Command::Harness(args) => commands::harness::run(args),
        Command::DevOverrides(args) => commands::dev_overrides::run(args),
        Command::Docs(args) => commands::docs::run(args),
        Command::New(args) => commands::new::run(args),
        Command::Check(check) => return commands::check::run(check),
        Command::Replay(args) => return commands::replay::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Errors quote what a guest or an input file chose (names, diagnostics).
            eprintln!("error: {}", tfwasm::hclog::escaped(&format!("{error:#}")));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// clap checks its own definition only in debug builds, at parse time; check it here.
    #[test]
    fn the_command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
