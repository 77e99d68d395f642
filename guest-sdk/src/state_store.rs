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

/// Checks that `id` (a state ID: the workspace name Terraform sends) is a plain name a store
/// can put into a file name or a URL path: letters, digits, `-`, `_` and `.`, not starting
/// with `.`, at most 255 bytes. `store` names the store in the error.
///
/// # Errors
/// Any other ID, with a diagnostic saying what is allowed.
pub fn check_state_id(store: &str, id: &str) -> Result<(), Diagnostic> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 255
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if plain {
        Ok(())
    } else {
        Err(Diagnostic::error(
            "Invalid state ID",
            format!(
                "{store} keeps states by plain names (letters, digits, -, _ and .); got {:?}.",
                id.escape_debug().take(300).collect::<String>()
            ),
        ))
    }
}

/// What a store records when it takes a lock: a new, unguessable ID (128 bits from the
/// randomness WASI gives the guest, so no run releases a lock it did not take by guessing),
/// the operation Terraform named (control characters dropped, at most 64 characters: it is
/// shown to other runs), and when (seconds since 1970).
#[derive(Debug, Clone)]
pub struct NewLock {
    /// The lock's ID, answered to Terraform and needed to unlock.
    pub id: String,
    /// The operation, fit to show.
    pub operation: String,
    /// Seconds since 1970.
    pub created: u64,
}

impl NewLock {
    /// A lock for `operation`, taken now.
    #[must_use]
    pub fn new(operation: &str) -> NewLock {
        use std::hash::{BuildHasher as _, RandomState};
        // Each RandomState is keyed afresh from the system's randomness.
        let id = format!(
            "{:016x}{:016x}",
            RandomState::new().hash_one(0u8),
            RandomState::new().hash_one(1u8)
        );
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let operation = operation
            .chars()
            .filter(|c| !c.is_control())
            .take(64)
            .collect();
        NewLock {
            id,
            operation,
            created,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_ids_are_plain_names_only() {
        for ok in ["default", "dev-1", "team_a.prod"] {
            check_state_id("s", ok).unwrap();
        }
        for bad in ["", ".hidden", "../up", "a/b", "a b", "é", &"x".repeat(256)] {
            let e = check_state_id("my_store", bad).unwrap_err();
            assert!(e.detail.contains("my_store"), "{bad:?}: {e:?}");
        }
    }

    #[test]
    fn new_locks_have_their_own_ids_and_an_operation_fit_to_show() {
        let (a, b) = (NewLock::new("OperationTypeApply"), NewLock::new("x"));
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 32);
        assert!(a.id.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a.operation, "OperationTypeApply");
        assert!(a.created > 1_700_000_000);
        let shown = NewLock::new(&format!("evil\n\u{1b}[2J{}", "y".repeat(100))).operation;
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert_eq!(shown.chars().count(), 64);
    }
}
