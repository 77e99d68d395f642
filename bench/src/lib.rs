//! # tfwasm-bench
//!
//! What `make bench` measures tfwasm against:
//! - [`native::NativeProvider`]: a `tfwasm-sdk` provider run natively, in-process, behind
//!   the same contract checks and tfplugin6 server as `tfwasm serve`, so the difference
//!   between the two is exactly the Wasm layer. `native-random` serves the random sample
//!   this way.
//! - [`floor`]: a tfplugin6 server whose handlers do nothing, the cost of gRPC alone.
//! - [`api`]: json-server behind a connection-counting forwarder, for the API benchmark
//!   (`native-restapi` serves the restapi sample natively against it).
//! - [`sets`]: planning a set of 1,000 and 10,000 nested blocks (the policy sample), tfwasm vs
//!   `native-policy`.
//! - [`python`]: the Python sample (CPython in the component) beside the Rust random sample.
//! - [`cpus`]: pinning the driver and its providers to CPUs, and a process's CPU time.
//! - `tfwasm-bench`: the driver (per-RPC latency, cold start, I/O-bound concurrency).

#![deny(missing_docs)]

pub mod api;
pub mod cpus;
pub mod floor;
pub mod load;
pub mod native;
pub mod plugin;
pub mod python;
pub mod sets;
pub mod stats;
pub mod terraform;
pub mod workload;
