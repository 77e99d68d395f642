//! Each RPC family of the model mapped onto the component's exports: model request to WIT,
//! one guest call, WIT response to model. One module per family, as in the model, the wire
//! service and the contract checks.

mod action;
mod config_generation;
mod data_source;
mod ephemeral;
mod function;
mod identity;
mod list;
mod moves;
mod provider;
mod resource;
mod state_store;

use tfwasm_model::Diagnostics;
use tfwasm_model::rpc::DynamicValue;

use crate::bindings::{self, wit};

/// Terraform never sends JSON in these fields; an absent value travels as empty bytes, which
/// the guest SDK reads as null.
fn bytes(value: DynamicValue) -> Vec<u8> {
    value.msgpack
}

fn diagnostics(list: Vec<wit::Diagnostic>) -> Diagnostics {
    list.into_iter().map(bindings::diagnostic).collect()
}
