//! State store `restapi_state` (Terraform >= 1.15's `state_store` block, behind Terraform's
//! experiments): Terraform's state kept as objects of the REST API the provider block
//! configures, with locks, the way the `http` backend keeps it, but sandboxed: the store
//! reaches the granted API and nothing else.
//!
//! ```hcl
//! terraform {
//!   state_store "restapi_state" {
//!     provider "restapi" {
//!       uri = "https://api.example.com"
//!     }
//!     path = "/states"
//!   }
//! }
//! ```
//!
//! Three collections (`data_path` and `lock_path` default to `PATH_data` and `PATH_locks`):
//! - `PATH/ID`, `{"id": ID}`: the states there are, small, so listing them (`terraform
//!   workspace list`, and `configure`'s check) never downloads a state;
//! - `DATA_PATH/ID`, `{"id": ID, "state": TEXT}`: the state, replaced whole by one PUT
//!   (created by a POST the first time), so a reader never sees part of one. One request
//!   carries it, so a state is at most 8 MiB as JSON (the SDK's request limit);
//! - `LOCK_PATH/ID`: the lock, created by a POST that the API must refuse while an object of
//!   that ID exists (json-server 0.17 does; 1.x does not, and an API that names objects
//!   itself cannot), and read back: a lock is held only when the API keeps it under the
//!   state's ID with this lock's ID. A second lock is refused with the holder's lock ID,
//!   operation and time (for `terraform force-unlock`), and unlocking takes the lock's ID.

use serde_json::{Value as Json, json};
use tfwasm_sdk::http::Method;
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::state_store::{NewLock, StateStore, check_state_id};

use crate::api::{Api, object_of};

/// The state store type.
pub struct RestApiState;

/// The state (workspace) every store has.
const DEFAULT: &str = "default";

/// The most bytes one request may carry: the SDK's limit on a request body.
const MAX_REQUEST: usize = 8 << 20;

/// The collections a store uses, as configured.
struct Paths {
    states: String,
    data: String,
    locks: String,
}

impl Paths {
    fn of(config: &Value) -> Result<Paths, Diagnostic> {
        let states = config
            .get_string("path")?
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned();
        let or_beside = |key: &str, suffix: &str| -> Result<String, Diagnostic> {
            Ok(match config.get_string(key)? {
                Some(path) => path.trim_end_matches('/').to_owned(),
                None => format!("{states}{suffix}"),
            })
        };
        Ok(Paths {
            data: or_beside("data_path", "_data")?,
            locks: or_beside("lock_path", "_locks")?,
            states,
        })
    }
}

/// A failed request named by its method, path and status only: an API may echo what it was
/// sent, and a state holds secrets.
fn refused(method: Method, path: &str, status: u16) -> Diagnostic {
    Diagnostic::error(
        "The API refused the request",
        format!("{} {path} answered HTTP {status}.", method.as_str()),
    )
}

/// `collection/id`, after checking `id` is a plain name: it becomes part of a URL path.
fn member(collection: &str, id: &str) -> Result<String, Diagnostic> {
    check_state_id("restapi_state", id)?;
    Ok(format!("{collection}/{id}"))
}

/// A field of a lock object, with its controls escaped (someone else may have written it).
fn field(lock: &serde_json::Map<String, Json>, key: &str) -> String {
    let text = match lock.get(key) {
        Some(Json::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => return "(unknown)".to_owned(),
    };
    text.escape_debug().take(128).collect()
}

impl StateStore for RestApiState {
    fn type_name(&self) -> &'static str {
        "restapi_state"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("Terraform's state as objects of the provider's REST API, with locks.")
            .attr(
                Attr::string("path")
                    .required()
                    .description("The collection listing the states, e.g. /states."),
            )
            .attr(Attr::string("data_path").optional().description(
                "The collection holding the states' text (default: path + `_data`).",
            ))
            .attr(Attr::string("lock_path").optional().description(
                "The collection holding the locks; the API must refuse a POST of an ID it has, as json-server 0.17 does (default: path + `_locks`).",
            ))
    }

    fn configure(&self, ctx: &Context, config: &Value) -> Diagnostics {
        let paths = match Paths::of(config) {
            Ok(paths) => paths,
            Err(d) => return vec![d],
        };
        // The API answers for the collection: a wrong path or address is named now, not at
        // the first write.
        let checked = ctx
            .provider_data::<Api>()
            .and_then(|api| api.expect(Method::Get, &paths.states, None).map(|_| ()));
        checked.err().into_iter().collect()
    }

    fn read(&self, ctx: &Context, config: &Value, id: &str) -> Result<Option<Vec<u8>>, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let path = member(&Paths::of(config)?.data, id)?;
        let response = api.send(Method::Get, &path, None)?;
        if response.status() == 404 {
            return Ok(None);
        }
        let object = object_of(&response.error_for_status()?)?;
        match object.get("state") {
            Some(Json::String(text)) => Ok(Some(text.clone().into_bytes())),
            _ => Err(Diagnostic::error(
                "Not a state",
                format!("{path} holds no \"state\" text, so it is no state restapi_state wrote."),
            )),
        }
    }

    fn write(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        state: &[u8],
    ) -> Result<(), Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let paths = Paths::of(config)?;
        let path = member(&paths.states, id)?;
        let text = std::str::from_utf8(state).map_err(|_| {
            Diagnostic::error(
                "State is not text",
                "restapi_state keeps a state as JSON text; Terraform handed it bytes that are not UTF-8.",
            )
        })?;
        // Serialized once: measured here, sent as it is.
        let object = json!({ "id": id, "state": text }).to_string();
        let size = object.len();
        if size > MAX_REQUEST {
            return Err(Diagnostic::error(
                "State too large for restapi_state",
                format!(
                    "The state {id:?} is {size} bytes as JSON; restapi_state sends a state in one request, of at most {MAX_REQUEST} bytes."
                ),
            ));
        }
        // One request replaces the state whole; the first write creates it.
        let data = member(&paths.data, id)?;
        let mut answer = api.send_json_text(Method::Put, &data, &object)?;
        if answer.status() == 404 {
            answer = api.send_json_text(Method::Post, &paths.data, &object)?;
            if !answer.is_success() {
                return Err(refused(Method::Post, &paths.data, answer.status()));
            }
        } else if !answer.is_success() {
            return Err(refused(Method::Put, &data, answer.status()));
        }
        // Listed once it exists.
        if api.send(Method::Get, &path, None)?.status() == 404 {
            api.expect(Method::Post, &paths.states, Some(&json!({ "id": id })))?;
        }
        Ok(())
    }

    fn lock(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        operation: &str,
    ) -> Result<String, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let paths = Paths::of(config)?;
        let path = member(&paths.locks, id)?;
        let NewLock {
            id: lock_id,
            operation,
            created,
        } = NewLock::new(operation);
        let lock =
            json!({ "id": id, "lock_id": lock_id, "operation": operation, "created": created });
        let taken = api.send(Method::Post, &paths.locks, Some(&lock))?;
        if taken.is_success() {
            // Held only if the API keeps it under the state's ID with this lock's ID: an API
            // that names objects itself, or accepts a second object of one ID, would take
            // every POST and lock nothing.
            let kept = api.send(Method::Get, &path, None)?;
            let ours = kept.is_success()
                && object_of(&kept)
                    .ok()
                    .and_then(|o| {
                        o.get("lock_id")
                            .and_then(Json::as_str)
                            .map(|l| l == lock_id)
                    })
                    .unwrap_or(false);
            if ours {
                return Ok(lock_id);
            }
            return Err(Diagnostic::error(
                "The API cannot hold a lock",
                format!(
                    "{} took the lock but does not keep it as {path} with its lock ID, so it cannot refuse a second one: restapi_state needs an API that creates an object under the ID it is sent and refuses a second (json-server 0.17 does). The lock object it made may need removing by hand.",
                    paths.locks
                ),
            ));
        }
        // Refused: held by someone (say who), or the API failed (say how).
        let holder = api.send(Method::Get, &path, None)?;
        if holder.is_success() {
            let holder = object_of(&holder)?;
            return Err(Diagnostic::error(
                "State locked",
                format!(
                    "The state {id:?} is locked: lock ID {}, taken for {} at {} (seconds since 1970). If no run holds it any more, `terraform force-unlock` with that ID releases it.",
                    field(&holder, "lock_id"),
                    field(&holder, "operation"),
                    field(&holder, "created")
                ),
            ));
        }
        Err(taken.error_for_status().err().map_or_else(
            || {
                Diagnostic::error(
                    "Cannot take the lock",
                    format!("{path} could not be created."),
                )
            },
            |e| e.to_diagnostic(),
        ))
    }

    fn unlock(
        &self,
        ctx: &Context,
        config: &Value,
        id: &str,
        lock_id: &str,
    ) -> Result<(), Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let path = member(&Paths::of(config)?.locks, id)?;
        let holder = api.send(Method::Get, &path, None)?;
        if holder.status() == 404 {
            return Err(Diagnostic::error(
                "State not locked",
                format!("The state {id:?} is not locked."),
            ));
        }
        let holder = object_of(&holder.error_for_status()?)?;
        if holder.get("lock_id").and_then(Json::as_str) != Some(lock_id) {
            return Err(Diagnostic::error(
                "Lock ID does not match",
                format!(
                    "The state {id:?} is locked under lock ID {}, not {lock_id:?}; only its own ID releases a lock.",
                    field(&holder, "lock_id")
                ),
            ));
        }
        api.expect(Method::Delete, &path, None)?;
        Ok(())
    }

    fn states(&self, ctx: &Context, config: &Value) -> Result<Vec<String>, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let paths = Paths::of(config)?;
        let listed = api.expect(Method::Get, &paths.states, None)?;
        let objects: Vec<Json> = listed.json().map_err(|e| e.to_diagnostic())?;
        let mut ids = vec![DEFAULT.to_owned()];
        for object in &objects {
            if let Some(id) = object.get("id").and_then(Json::as_str)
                && id != DEFAULT
                && member(&paths.states, id).is_ok()
            {
                ids.push(id.to_owned());
            }
        }
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    fn delete(&self, ctx: &Context, config: &Value, id: &str) -> Result<(), Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let paths = Paths::of(config)?;
        // Unlisted first: a state half deleted is not shown as a workspace.
        for path in [member(&paths.states, id)?, member(&paths.data, id)?] {
            let answer = api.send(Method::Delete, &path, None)?;
            if !answer.is_success() && answer.status() != 404 {
                return Err(refused(Method::Delete, &path, answer.status()));
            }
        }
        Ok(())
    }
}
