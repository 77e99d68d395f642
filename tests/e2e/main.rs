//! End to end with real Terraform: every test runs against each client in
//! `tfwasm_tests::clients()` (Terraform v1.0.3 and OpenTofu 1.12 always, plus a tofu or
//! terraform of another version from PATH).

mod action;
mod computed_block;
mod contracts;
mod debug_mode;
mod generate_config;
mod go;
mod hostile;
mod http;
mod identity;
mod list;
mod local;
mod network_mirror;
mod plugin_binary;
mod policy;
mod python;
mod random;
mod record_replay;
mod registry;
mod restapi;
mod saved_plan;
mod state_store;
mod unknowns;
mod upgrade;
