//! # tfwasm-model
//!
//! The core model shared by every part of tfwasm: cty [`Type`]s and [`Value`]s, provider
//! [`Schema`]s, [`AttributePath`]s, [`Diagnostic`]s, the msgpack and JSON [`codec`]s that
//! put values on the wire, and the [`Provider`] trait with its request/response types
//! ([`rpc`]).
//!
//! This crate knows nothing of gRPC, wasmtime or tokio, so it compiles for the host and for
//! `wasm32-wasip2` guests alike (the guest SDK uses it), and the contract checks can use it
//! offline. Start with [`Value`] and [`codec::msgpack`].

#![deny(missing_docs)]

mod attributes;
pub mod canonical;
pub mod codec;
pub mod compare;
mod diagnostic;
pub mod layout;
mod number;
mod path;
pub mod quote;
pub mod rpc;
mod rpc_name;
mod schema;
pub mod schema_check;
pub mod schema_index;
pub mod schema_json;
pub mod schema_path;
mod types;
mod value;

pub use attributes::{Attributes, Entries};
pub use diagnostic::{Diagnostic, Diagnostics, HTTP_DENIED_SUMMARY, Severity, has_error};
pub use layout::Layout;
pub use number::{Number, ParseNumberError};
pub use path::{AttributePath, ParsePathError, PathRef, PathStep, ToPath};
pub use rpc::{
    DataSourceServer, EphemeralServer, FunctionServer, MoveServer, Provider, ProviderServer,
    ResourceServer,
};
pub use rpc_name::{Rpc, UnknownRpc};
pub use schema::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting,
    ProviderSchema, Schema, StringKind,
};
pub use schema_index::SchemaIndex;
pub use types::{Type, TypeJsonError};
pub use value::{Name, Refinement, Value};

/// Fast, randomly seeded hashing of values, for set handling, element matching and checks.
pub mod hash {
    pub use crate::value::{
        HashMap, HashSet, hash_map, hash_set, hash_state, same_multiset, unrefined_hash,
        value_hasher,
    };
}
