//! State store `local_state` (Terraform >= 1.15's `state_store` block, behind Terraform's
//! experiments): Terraform's state as files in a directory the operator granted, the way the
//! `local` backend keeps them, but sandboxed: the store reaches that directory and nothing
//! else.
//!
//! ```hcl
//! terraform {
//!   state_store "local_state" {
//!     provider "local" {}
//!     path = "/states"
//!   }
//! }
//! ```
//!
//! Each state (workspace) is `ID.tfstate`, written whole with mode 0600 (a state holds
//! secrets) and renamed into place, never left half written. A lock is the file `ID.tflock`,
//! written whole under a name of its own and linked into place, which only one locker can
//! do: a second lock is refused with the holder's lock ID, operation and time, and unlocking
//! takes the lock's own ID. (Two unlocks racing with the right ID may both succeed.)

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::state_store::{NewLock, StateStore, check_state_id};

use crate::files::check_granted;

/// The state store type.
pub struct LocalState;

/// The state (workspace) every store has.
const DEFAULT: &str = "default";

/// Where the store keeps the state `id`, after checking `id` is a plain name.
fn file(config: &Value, id: &str, extension: &str) -> Result<String, Diagnostic> {
    check_state_id("local_state", id)?;
    let dir = config.get_string("path")?.unwrap_or_default();
    Ok(format!("{}/{id}.{extension}", dir.trim_end_matches('/')))
}

/// A lock file's text: `key=value` lines (`id`, `operation`, `created`).
struct Holder(String);

impl Holder {
    fn read(path: &str) -> Holder {
        Holder(std::fs::read_to_string(path).unwrap_or_default())
    }

    /// The value of `key`, with its controls escaped (someone else may have written it).
    fn field(&self, key: &str) -> String {
        (self.0.lines())
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .map_or_else(
                || "(unreadable)".to_owned(),
                |v| v.escape_debug().take(128).collect(),
            )
    }
}

fn io_error(what: &str, path: &str, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error(
        format!("Cannot {what}"),
        format!("local_state could not {what} {path}: {e}."),
    )
}

impl StateStore for LocalState {
    fn type_name(&self) -> &'static str {
        "local_state"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("Terraform's state as files in a granted directory, with lock files.")
            .attr(Attr::string("path").required().description(
                "The directory (a guest path the operator granted read-write) holding the states.",
            ))
    }

    fn validate(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        match config.attr("path").as_str() {
            Some(path) => check_granted("path", path).err().into_iter().collect(),
            None => Vec::new(),
        }
    }

    fn configure(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        let path = config.attr("path").as_str().unwrap_or_default().to_owned();
        if let Err(d) = check_granted("path", &path) {
            return vec![d];
        }
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => Vec::new(),
            Ok(_) => vec![Diagnostic::error(
                "Not a directory",
                format!("local_state's path {path:?} is not a directory."),
            )],
            Err(e) => vec![io_error("open the state directory", &path, &e)],
        }
    }

    fn read(
        &self,
        _ctx: &Context,
        config: &Value,
        id: &str,
    ) -> Result<Option<Vec<u8>>, Diagnostic> {
        let path = file(config, id, "tfstate")?;
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error("read the state", &path, &e)),
        }
    }

    fn write(
        &self,
        _ctx: &Context,
        config: &Value,
        id: &str,
        state: &[u8],
    ) -> Result<(), Diagnostic> {
        let path = file(config, id, "tfstate")?;
        tfwasm_sdk::files::write_file(&path, state, 0o600)
            .map_err(|e| Diagnostic::error("Cannot write the state", format!("{path}: {e}")))
    }

    fn lock(
        &self,
        _ctx: &Context,
        config: &Value,
        id: &str,
        operation: &str,
    ) -> Result<String, Diagnostic> {
        let path = file(config, id, "tflock")?;
        let NewLock {
            id: lock_id,
            operation,
            created,
        } = NewLock::new(operation);
        let info = format!("id={lock_id}\noperation={operation}\ncreated={created}\n");
        // Written whole under a name of its own, then linked to the lock's name, which fails
        // if it exists: a lock file is never seen half written, and only one link wins.
        let staged = format!("{path}.{lock_id}");
        std::fs::write(&staged, info.as_bytes())
            .map_err(|e| io_error("write the lock", &staged, &e))?;
        let linked = std::fs::hard_link(&staged, &path);
        let _ = std::fs::remove_file(&staged);
        match linked {
            Ok(()) => Ok(lock_id),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = Holder::read(&path);
                Err(Diagnostic::error(
                    "State locked",
                    format!(
                        "The state {id:?} is locked: lock ID {}, taken for {} at {} (seconds since 1970). If no run holds it any more, `terraform force-unlock` with that ID releases it.",
                        holder.field("id"),
                        holder.field("operation"),
                        holder.field("created")
                    ),
                ))
            }
            Err(e) => Err(io_error("take the lock", &path, &e)),
        }
    }

    fn unlock(
        &self,
        _ctx: &Context,
        config: &Value,
        id: &str,
        lock_id: &str,
    ) -> Result<(), Diagnostic> {
        let path = file(config, id, "tflock")?;
        let holder = match std::fs::read_to_string(&path) {
            Ok(text) => Holder(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Diagnostic::error(
                    "State not locked",
                    format!("The state {id:?} is not locked."),
                ));
            }
            Err(e) => return Err(io_error("read the lock", &path, &e)),
        };
        if holder.field("id") != lock_id {
            return Err(Diagnostic::error(
                "Lock ID does not match",
                format!(
                    "The state {id:?} is locked under lock ID {}, not {lock_id:?}; only its own ID releases a lock.",
                    holder.field("id")
                ),
            ));
        }
        std::fs::remove_file(&path).map_err(|e| io_error("release the lock", &path, &e))
    }

    fn states(&self, _ctx: &Context, config: &Value) -> Result<Vec<String>, Diagnostic> {
        let dir = config.get_string("path")?.unwrap_or_default();
        let listing =
            std::fs::read_dir(&dir).map_err(|e| io_error("list the states in", &dir, &e))?;
        let mut ids = vec![DEFAULT.to_owned()];
        for entry in listing.flatten() {
            if let Some(id) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".tfstate"))
                && id != DEFAULT
                && file(config, id, "tfstate").is_ok()
            {
                ids.push(id.to_owned());
            }
        }
        ids.sort();
        Ok(ids)
    }

    fn delete(&self, _ctx: &Context, config: &Value, id: &str) -> Result<(), Diagnostic> {
        let path = file(config, id, "tfstate")?;
        std::fs::remove_file(&path).map_err(|e| io_error("delete the state", &path, &e))
    }
}
