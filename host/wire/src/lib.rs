//! # tfwasm-wire
//!
//! Everything Terraform/OpenTofu sees on the outside: the go-plugin handshake ([`handshake`]),
//! AutoMTLS ([`tls`]), and the tfplugin6 gRPC service ([`service`]) that serves any
//! [`tfwasm_model::Provider`]. This is the only crate that knows gRPC and protobuf; the
//! generated types stay inside it except for [`proto`], which tests use as a client.
//!
//! Start with [`serve::serve`].

#![deny(missing_docs)]

mod authority;
mod convert;
pub mod handshake;
pub mod serve;
pub mod service;
pub mod tls;

/// Generated protobuf and gRPC code (tfplugin6 and go-plugin's side services).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    /// The tfplugin6 protocol.
    pub mod tfplugin6 {
        tonic::include_proto!("tfplugin6");
    }
    /// go-plugin's controller and stdio services.
    pub mod plugin {
        tonic::include_proto!("plugin");
    }
}

pub use serve::{ServeOptions, serve, serve_debug};
