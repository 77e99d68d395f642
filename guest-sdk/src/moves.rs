//! Moving state across resource types: a `moved` block whose `from` is another type (even of
//! another provider) and whose `to` is one of yours (Terraform >= 1.8). Terraform hands the
//! source's stored state to the target type's [`StateMover`]s, in order; the first that
//! accepts it returns the target state, and the object is kept, not replaced.
//!
//! ```
//! use tfwasm_sdk::prelude::*;
//!
//! fn from_old_widget() -> StateMover {
//!     let old = ResourceSchema::new()
//!         .attr(Attr::string("id").computed())
//!         .attr(Attr::string("label").required());
//!     StateMover::from_type("thing_old_widget", old, |_ctx, source| {
//!         Ok(Value::object([
//!             ("id", source.value.get("id").cloned().unwrap_or(Value::Null)),
//!             ("name", source.value.get("label").cloned().unwrap_or(Value::Null)),
//!         ]))
//!     })
//! }
//! ```

use tfwasm_model::Value;

use crate::{Context, Diagnostic, ResourceSchema};

/// The source of a move, as Terraform stored it.
#[derive(Debug, Clone)]
pub struct MoveSource {
    /// Its provider, e.g. `registry.terraform.io/hashicorp/random`.
    pub provider_address: String,
    /// Its resource type.
    pub type_name: String,
    /// Schema version its state was written with.
    pub schema_version: i64,
    /// Its state as stored (the state file's JSON).
    pub raw: serde_json::Value,
    /// Its state decoded with the mover's source schema; null for raw movers.
    pub value: Value,
    /// Its stored identity (JSON) and that identity's schema version, if the source type
    /// has an identity (Terraform >= 1.12). The target's identity is derived from the moved
    /// state, as after any apply.
    pub identity: Option<(serde_json::Value, i64)>,
}

type MoveFn = dyn Fn(&Context, &MoveSource) -> Result<Option<Value>, Diagnostic> + Send + Sync;

/// Turns the state of some other resource type into a state of this one.
pub struct StateMover {
    /// For [`StateMover::from_type`]: the type and its schema (at its current version).
    pub(crate) source: Option<(&'static str, ResourceSchema)>,
    pub(crate) mover: Box<MoveFn>,
}

impl StateMover {
    /// Moves state of resource type `source_type` (of any provider), written with
    /// `source_schema` at its version: the SDK checks both, decodes the state with the schema
    /// (errors name the attribute) and hands it over as [`MoveSource::value`]. Other sources go
    /// to the next mover.
    pub fn from_type(
        source_type: &'static str,
        source_schema: ResourceSchema,
        mover: impl Fn(&Context, &MoveSource) -> Result<Value, Diagnostic> + Send + Sync + 'static,
    ) -> StateMover {
        StateMover {
            source: Some((source_type, source_schema)),
            mover: Box::new(move |ctx, source| mover(ctx, source).map(Some)),
        }
    }

    /// A mover that looks at every source itself ([`MoveSource::raw`]) and returns
    /// `Ok(None)` for the ones it does not take.
    pub fn raw(
        mover: impl Fn(&Context, &MoveSource) -> Result<Option<Value>, Diagnostic>
        + Send
        + Sync
        + 'static,
    ) -> StateMover {
        StateMover {
            source: None,
            mover: Box::new(mover),
        }
    }
}

impl StateMover {
    /// Runs the mover on `source` as given, e.g. in a unit test; `Ok(None)` means it declined.
    /// (During a move the SDK first checks a typed mover's type and version and fills
    /// [`MoveSource::value`].)
    ///
    /// # Errors
    /// The mover's own.
    pub fn call(&self, ctx: &Context, source: &MoveSource) -> Result<Option<Value>, Diagnostic> {
        (self.mover)(ctx, source)
    }
}

impl std::fmt::Debug for StateMover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateMover")
            .field("source_type", &self.source.as_ref().map(|(t, _)| *t))
            .finish()
    }
}
