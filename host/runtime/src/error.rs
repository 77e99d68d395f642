//! Errors of loading a component and of a single call into it.

use std::path::PathBuf;
use std::time::Duration;

/// The component could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The component file could not be read.
    #[error("cannot read component {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not a valid component (a core module, or not wasm at all).
    #[error("{path} is not a valid WebAssembly component: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// wasmtime's explanation.
        message: String,
    },
    /// The component does not fit the tfwasm world (wrong exports, or imports we do not offer).
    #[error("{path} does not implement a tfwasm:provider world this tfwasm serves: {message}")]
    Incompatible {
        /// The file.
        path: PathBuf,
        /// wasmtime's explanation.
        message: String,
    },
    /// The provider package's precompiled code cannot run on this CPU, and this build has
    /// no compiler to fall back on.
    #[error(
        "cannot use the precompiled provider code {path}: it is compiled for {baseline} CPUs, and this CPU lacks {missing}. A package made with `tfwasm package --fallback-compiler` compiles the provider for this CPU instead (once per machine, into the compile cache)",
        missing = missing.join(", ")
    )]
    CpuLacks {
        /// The artifact (`component.cwasm`).
        path: PathBuf,
        /// The baseline it was compiled for (`x86-64-v2`).
        baseline: &'static str,
        /// The features this CPU lacks (`sse4.2`).
        missing: Vec<&'static str>,
    },
    /// The provider package's precompiled code cannot run here, and this build has no
    /// compiler to fall back on.
    #[error(
        "cannot use the precompiled provider code {path}: {reason}. Package the provider again with this tfwasm release (a package made with `tfwasm package --fallback-compiler` compiles it when its code cannot be used)"
    )]
    Precompiled {
        /// The artifact (`component.cwasm`).
        path: PathBuf,
        /// wasmtime's explanation (another CPU, another tfwasm build, a damaged file).
        reason: String,
    },
    /// This build only runs precompiled packages and was given a plain component.
    #[error(
        "{path} needs compiling, and this tfwasm runner has no compiler: it serves packages made by `tfwasm package` (with their component.cwasm); use `tfwasm serve --component` to run a plain component"
    )]
    NoCompiler {
        /// The component.
        path: PathBuf,
    },
    /// The engine could not be set up.
    #[error("cannot configure the wasm engine: {0}")]
    Engine(String),
    /// The HTTP settings (CA files, proxies) cannot be used.
    #[error("{0}")]
    Http(#[from] crate::HttpSettingsError),
    /// A read-write grant holds what the host or Terraform runs.
    #[error("{0}")]
    HostPathGranted(#[from] crate::host_paths::HostPathGranted),
    /// A granted directory cannot be opened.
    #[error("granted directory {grant}: {message}")]
    Grant {
        /// The grant as written.
        grant: String,
        /// Why it cannot be used.
        message: String,
    },
}

/// A call into the guest failed as a whole (rather than returning error diagnostics).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The guest used up its fuel budget.
    #[error("provider exceeded its fuel budget of {fuel} during {rpc}")]
    OutOfFuel {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// The budget.
        fuel: u64,
    },
    /// The call ran past its deadline.
    #[error("provider exceeded its time limit of {limit:?} during {rpc}")]
    Timeout {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// The limit.
        limit: Duration,
    },
    /// StopProvider interrupted the call.
    #[error("{rpc} was cancelled by StopProvider")]
    Cancelled {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
    },
    /// The guest tried to grow memory past its limit and failed with a trap.
    #[error("provider exceeded its memory limit of {limit} bytes during {rpc}")]
    OutOfMemory {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// The limit.
        limit: usize,
    },
    /// The guest trapped (a Rust panic shows up as `unreachable`).
    #[error("provider crashed during {rpc}: {message}")]
    Trap {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// What happened, including the guest's panic message when it printed one.
        message: String,
    },
    /// The guest returned a value larger than the host accepts.
    #[error(
        "provider returned a value of {bytes} bytes during {rpc}; at most {limit} bytes are accepted"
    )]
    Oversize {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// Size of the value.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A fresh instance could not be created.
    #[error("cannot start a provider instance for {rpc}: {message}")]
    Instantiate {
        /// The RPC.
        rpc: tfwasm_model::Rpc,
        /// Why.
        message: String,
    },
}
