//! # tfwasm-runtime
//!
//! Runs provider components under wasmtime. It owns everything wasm: the engine setup,
//! where compiled code comes from ([`code`]: a provider package's precompiled artifact, or
//! with the `compiler` feature the on-disk compile cache, [`cache`]), per-call [`Limits`], the host side of the WIT world
//! ([`bindings`]), and [`WasmProvider`], which implements [`tfwasm_model::Provider`] by
//! calling into the component.
//!
//! Each call runs in an idle instance whose previous call succeeded, or in a fresh one created
//! from a pre-linked `InstancePre`; an instance whose call fails is dropped, so a trap or a
//! guest bug never poisons a later call, and calls may run in parallel. The provider
//! configuration accepted by ConfigureProvider is kept here and handed to every call.
//!
//! Nothing outside this crate names a wasmtime type. Start with [`WasmProvider::load`].

#![deny(missing_docs)]

pub mod action_progress;
mod answer_caps;
pub mod bindings;
pub mod cache;
pub mod code;
mod engine;
mod error;
mod files;
pub mod grants;
mod guest_output;
pub mod host_paths;
pub mod http;
pub mod journal;
pub mod limits;
pub mod platform;
mod provider;
mod reported;
mod state;

pub use self::http::{HttpSettings, HttpSettingsError, ProxySettings};
pub use code::Origin;
#[cfg(feature = "compiler")]
pub use code::precompile_portable;
pub use error::{CallError, LoadError};
pub use grants::{DirGrant, Grants, HttpAllowList};
pub use guest_output::{DiscardLog, GuestLogSink};
pub use journal::{Journal, JournalError};
pub use limits::{CallLimits, HostWork, Limits, LimitsOverride};
pub use platform::Platform;
pub use provider::{LoadOptions, LoadReport, WasmProvider};
