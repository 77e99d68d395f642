//! State stores (Terraform >= 1.15's `state_store` block, still behind Terraform's
//! experiments): Terraform's state kept by the provider, one state per ID (the workspace),
//! with locks, as backends keep it; here sandboxed, with only the grants the store needs.
//!
//! Every call gets the store's configuration (as `configure` accepted it) and moves a whole
//! state: tfwasm chunks and reassembles what Terraform streams, checking every range, so a
//! store never sees part of a state. The local sample's `local_state` keeps states as files
//! in a granted directory, with lock files.

use tfwasm_model::{Diagnostic, Diagnostics, Value};

use crate::{Context, ResourceSchema};

/// A state store type.
pub trait StateStore: Send + Sync {
    /// Full type name, e.g. `local_state`.
    fn type_name(&self) -> &'static str;
    /// The schema of the `state_store` block's configuration.
    fn schema(&self) -> ResourceSchema;
    /// Checks configuration (may contain unknowns).
    fn validate(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// Checks that the store can be used as configured (the directory exists, the server
    /// answers). The default accepts it.
    fn configure(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// The state `id`'s bytes; `None` when it does not exist yet.
    ///
    /// # Errors
    /// It cannot be read.
    fn read(&self, ctx: &Context, config: &Value, id: &str) -> Result<Option<Vec<u8>>, Diagnostic>;
    /// Replaces the state `id` whole (never leaving part of it written).
    ///
    /// # Errors
    /// It cannot be written.
    fn write(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        state: &[u8],
    ) -> Result<(), Diagnostic>;
    /// Locks the state `id` for `operation`, answering the lock's ID; a lock someone else
    /// holds is an error saying who holds it and since when.
    ///
    /// # Errors
    /// The state is locked already, or the lock cannot be taken.
    fn lock(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        operation: &str,
    ) -> Result<String, Diagnostic>;
    /// Releases the lock `lock_id` of the state `id`; any other ID is refused.
    ///
    /// # Errors
    /// Not locked, or locked under another ID.
    fn unlock(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        lock_id: &str,
    ) -> Result<(), Diagnostic>;
    /// The IDs of the states the store holds.
    ///
    /// # Errors
    /// They cannot be listed.
    fn states(&self, ctx: &Context, config: &Value) -> Result<Vec<String>, Diagnostic>;
    /// Deletes the state `id`.
    ///
    /// # Errors
    /// It cannot be deleted.
    fn delete(&self, ctx: &Context, config: &Value, id: &str) -> Result<(), Diagnostic>;
}
