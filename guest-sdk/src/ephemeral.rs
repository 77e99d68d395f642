//! Ephemeral resources (Terraform >= 1.10): `ephemeral "TYPE" "NAME" { ... }` values that
//! exist only while Terraform runs, such as a generated secret or a short-lived token. They
//! are opened when a configuration needs them, may be renewed, are closed at the end of the
//! command, and never reach a state or plan file; Terraform lets them flow only into other
//! ephemeral places, such as write-only attributes and provider blocks.
//!
//! Data for renew and close goes in private state ([`Context::set_private`]), which the SDK
//! hands back on each call, like a resource's.

use std::time::SystemTime;

use tfwasm_model::Value;

use crate::{Context, Diagnostic, Diagnostics, ResourceSchema};

/// What [`EphemeralResource::open`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// The value: the configuration with computed attributes filled in.
    pub result: Value,
    /// When Terraform should call [`EphemeralResource::renew`], if the value expires
    /// while Terraform may still need it.
    pub renew_at: Option<SystemTime>,
}

impl Opened {
    /// A value that needs no renewal.
    pub fn new(result: Value) -> Opened {
        Opened {
            result,
            renew_at: None,
        }
    }
}

/// An ephemeral resource type.
pub trait EphemeralResource: Send + Sync {
    /// Full type name, e.g. `random_password`.
    fn type_name(&self) -> &'static str;
    /// The schema (defaults apply to the configuration before `open`; plan rules do not, as
    /// there is no plan).
    fn schema(&self) -> ResourceSchema;
    /// Checks configuration (may contain unknowns).
    fn validate(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// Produces the value from the (wholly known) configuration.
    ///
    /// # Errors
    /// A diagnostic; Terraform stops.
    fn open(&self, ctx: &Context, config: &Value) -> Result<Opened, Diagnostic>;
    /// Extends the value's life; returns when to renew next, if ever. The default does
    /// nothing.
    ///
    /// # Errors
    /// A diagnostic.
    fn renew(&self, _ctx: &Context) -> Result<Option<SystemTime>, Diagnostic> {
        Ok(None)
    }
    /// Releases what `open` acquired (revokes a token, ...). The default does nothing.
    ///
    /// # Errors
    /// A diagnostic.
    fn close(&self, _ctx: &Context) -> Result<(), Diagnostic> {
        Ok(())
    }
}
