//! Replaying a recording: each session's requests, in order, against a provider, and the
//! responses compared with the recorded ones after the same decoding and redaction.
//!
//! A request holding values the recording did not keep is not sent: by default a recording
//! keeps no values, so only the calls without any replay ([`Outcome::Unrecorded`]); with
//! `values = "non-sensitive"` secrets and private state are replayed as placeholders, and
//! what has none (function arguments, a redacted raw state) is skipped.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde_json::Value as Json;
use tfwasm_model::Provider;

use super::redact::markers;
use super::sensitive::Sensitive;
use super::shared::SENSITIVE_FILE;
use super::values::Policy;
use super::{Entry, FORMAT, SESSION_FILE, Session, Values, is_call_file, read_json, schemas_of};

/// The session directories of a recording: `dir` itself when it is one, else its
/// subdirectories that are, oldest first.
pub fn sessions(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if dir.join(SESSION_FILE).is_file() {
        return Ok(vec![dir.to_owned()]);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(SESSION_FILE).is_file())
        .collect();
    // Session names start with their UTC start time.
    found.sort();
    if found.is_empty() {
        bail!(
            "{} holds no recording: expected {SESSION_FILE} in it or in its subdirectories (written with TFWASM_RECORD={})",
            dir.display(),
            dir.display()
        );
    }
    Ok(found)
}

/// One recorded session, read.
pub struct Recording {
    /// Its metadata.
    pub session: Session,
    /// Its calls in order.
    pub entries: Vec<Entry>,
    /// The secrets the processes that recorded beside it marked.
    sensitive: Sensitive,
}

/// One session: its metadata, calls in order, and the secrets of its recording.
/// The most calls one session replays: each file is bounded
/// ([`super::MAX_RECORDING_FILE`]), and so is their number.
const MAX_CALLS: usize = 100_000;
pub fn read_session(dir: &Path) -> anyhow::Result<Recording> {
    let mut budget = super::ReadBudget::default();
    let session: Session = read_json(&dir.join(SESSION_FILE), &mut budget)?;
    if !(1..=FORMAT).contains(&session.format) {
        bail!(
            "{}: recording format {} (this tfwasm replays formats 1 to {FORMAT})",
            dir.display(),
            session.format
        );
    }
    let mut entries = Vec::new();
    for file in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = file?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_call_file)
        {
            if entries.len() == MAX_CALLS {
                bail!(
                    "{}: more than {MAX_CALLS} recorded calls; replay a smaller session",
                    dir.display(),
                );
            }
            entries.push(read_json::<Entry>(&path, &mut budget)?);
        }
    }
    entries.sort_by_key(|e| e.seq);
    let shared = dir.parent().map(|root| root.join(SENSITIVE_FILE));
    let sensitive = match shared.filter(|p| p.is_file()) {
        Some(path) => read_json(&path, &mut budget)?,
        None => Sensitive::default(),
    };
    Ok(Recording {
        session,
        entries,
        sensitive,
    })
}

/// What replaying one call found.
#[derive(Debug)]
pub enum Outcome {
    /// The response matched, where the recording has values to compare.
    Same {
        /// Redacted parts of the request replayed as placeholders.
        placeholders: usize,
    },
    /// The response differed at these places.
    Differs {
        /// The first [`MAX_CHANGES_KEPT`] places.
        changes: Vec<Change>,
        /// How many more differed.
        more: usize,
        /// Redacted parts of the request replayed as placeholders.
        placeholders: usize,
    },
    /// Not replayed: the recording kept none of its request's values (the default).
    Unrecorded,
    /// Not replayed, with the reason.
    Skipped(String),
}

/// One place where the replayed response differs.
#[derive(Debug, PartialEq)]
pub struct Change {
    /// Where, e.g. `.new_state.value.result`.
    pub path: String,
    /// What the recording has there (null when absent).
    pub recorded: Json,
    /// What the replay returned there (null when absent).
    pub replayed: Json,
}

/// Why the RPC `rpc` is never replayed, if it is not.
fn never_replayed(rpc: &str) -> Option<&'static str> {
    match rpc {
        "WriteStateBytes" | "DeleteState" | "LockState" | "UnlockState" => Some(
            "it changes a state store (a recording holds no state bytes); state stores are not replayed but read",
        ),
        "InvokeAction" => Some("it runs an action; actions are not replayed"),
        _ => None,
    }
}

/// Replays `recording`'s calls against `provider`, one outcome per call. Replayed responses
/// are redacted as the recording was, with the secrets of both the recording and `provider`.
pub async fn replay_session<P: Provider>(provider: &P, recording: &Recording) -> Vec<Outcome> {
    let cell = tokio::sync::OnceCell::new();
    let schemas = schemas_of(provider, &cell).await;
    let mut sensitive = recording.sensitive.clone();
    sensitive.merge(&Sensitive::of(&schemas.provider));
    let mut outcomes = Vec::with_capacity(recording.entries.len());
    for entry in &recording.entries {
        if entry.rpc == "StopProvider" {
            outcomes.push(Outcome::Skipped("StopProvider is not replayed".into()));
            continue;
        }
        // What changes the world outside the guest is never done again from a recording,
        // whatever it kept: a state written (a recording holds no state bytes, so it would
        // be an empty one), deleted or locked, an action run.
        if let Some(why) = never_replayed(&entry.rpc) {
            outcomes.push(Outcome::Skipped(why.into()));
            continue;
        }
        let mut request = entry.request.clone();
        let redacted = markers(&request);
        if redacted > 0 && recording.session.values == Values::Redacted {
            outcomes.push(Outcome::Unrecorded);
            continue;
        }
        schemas.encode(&entry.rpc, &entry.subject, &mut request);
        let unfilled = unfilled_fields(&request);
        if !unfilled.is_empty() {
            let verb = if unfilled.len() == 1 { "was" } else { "were" };
            outcomes.push(Outcome::Skipped(format!(
                "its {} {verb} not recorded (function arguments, private state and state no schema here can redact never are)",
                unfilled.join(", ")
            )));
            continue;
        }
        let outcome = match super::families::replay(provider, &entry.rpc, request).await {
            None => Outcome::Skipped(format!("unknown RPC {:?}", entry.rpc)),
            Some(Err(error)) => {
                Outcome::Skipped(format!("the recorded request does not read: {error}"))
            }
            Some(Ok(mut response)) => {
                // Decoded as the recording did, with a call's budget of its own.
                let policy = Policy::new(recording.session.values, &sensitive);
                schemas.decode(&entry.rpc, &entry.subject, &mut response, &policy);
                let mut changes = Changes::default();
                diff(&mut String::new(), &entry.response, &response, &mut changes);
                if changes.kept.is_empty() {
                    Outcome::Same {
                        placeholders: redacted,
                    }
                } else {
                    Outcome::Differs {
                        changes: changes.kept,
                        more: changes.more,
                        placeholders: redacted,
                    }
                }
            }
        };
        outcomes.push(outcome);
    }
    outcomes
}

/// The fields of a request that still hold redacted values after placeholders were filled in.
fn unfilled_fields(request: &Json) -> Vec<String> {
    request
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| markers(v) > 0)
        .map(|(k, _)| format!("`{k}`"))
        .collect()
}

/// Most differences kept per call; the others are counted. A response is the guest's: a
/// million differing leaves under a megabyte key, each kept with its path, took 100 GB.
pub const MAX_CHANGES_KEPT: usize = 10;

/// Longest map key a change's path shows.
const MAX_KEY_SHOWN: usize = 64;

/// The differences found: the first few, and how many more.
#[derive(Default)]
struct Changes {
    kept: Vec<Change>,
    more: usize,
}

/// The places where `recorded` and `replayed` differ, deepest first reported.
fn diff(path: &mut String, recorded: &Json, replayed: &Json, out: &mut Changes) {
    if recorded == replayed {
        return;
    }
    match (recorded, replayed) {
        (Json::Object(a), Json::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                let len = path.len();
                let shown = &key[..key.floor_char_boundary(MAX_KEY_SHOWN)];
                let cut = if shown.len() < key.len() { "…" } else { "" };
                if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() {
                    path.push('.');
                    path.push_str(shown);
                    path.push_str(cut);
                } else {
                    path.push_str(&format!("[{shown:?}{cut}]"));
                }
                diff(
                    path,
                    a.get(key).unwrap_or(&Json::Null),
                    b.get(key).unwrap_or(&Json::Null),
                    out,
                );
                path.truncate(len);
            }
        }
        (Json::Array(a), Json::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                diff(path, x, y, out);
                path.truncate(len);
            }
        }
        _ if out.kept.len() >= MAX_CHANGES_KEPT => out.more += 1,
        _ => out.kept.push(Change {
            path: if path.is_empty() {
                ".".into()
            } else {
                path.clone()
            },
            recorded: recorded.clone(),
            replayed: replayed.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {

    /// The thirtieth pass: a recording keeps no state bytes, so a replayed WriteStateBytes
    /// would write an empty state over the real one; nothing that changes a store or runs
    /// an action is replayed.
    #[test]
    fn writes_locks_deletes_and_actions_are_never_replayed() {
        for rpc in [
            "WriteStateBytes",
            "DeleteState",
            "LockState",
            "UnlockState",
            "InvokeAction",
        ] {
            assert!(super::never_replayed(rpc).is_some(), "{rpc}");
        }
        for rpc in [
            "ReadStateBytes",
            "GetStates",
            "PlanResourceChange",
            "ListResource",
        ] {
            assert!(super::never_replayed(rpc).is_none(), "{rpc}");
        }
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_reported_at_the_deepest_path() {
        let mut out = Changes::default();
        diff(
            &mut String::new(),
            &json!({"new_state": {"value": {"id": "a", "n": [1, 2]}}, "diagnostics": []}),
            &json!({"new_state": {"value": {"id": "b", "n": [1, 3]}}, "diagnostics": [], "x": 1}),
            &mut out,
        );
        let paths: Vec<_> = out.kept.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [".new_state.value.id", ".new_state.value.n[1]", ".x"]
        );
        assert_eq!(out.kept[0].recorded, json!("a"));
        assert_eq!(out.kept[2].recorded, Json::Null);
    }

    /// The sixteenth hostile pass: every differing leaf was kept with its whole path, so a
    /// megabyte key over 100,000 flipped leaves needed about 100 GB.
    #[test]
    fn a_few_differences_are_kept_the_rest_counted_with_keys_cut() {
        let key = "k".repeat(1 << 20);
        let leaves = |b: bool| json!({ "m": { key.clone(): vec![b; 100_000] } });
        let mut out = Changes::default();
        diff(&mut String::new(), &leaves(true), &leaves(false), &mut out);
        assert_eq!(out.kept.len(), MAX_CHANGES_KEPT);
        assert_eq!(out.more, 100_000 - MAX_CHANGES_KEPT);
        assert!(out.kept[0].path.len() < 100, "{}", out.kept[0].path.len());
    }

    #[test]
    fn a_directory_without_sessions_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        let error = sessions(dir.path()).unwrap_err().to_string();
        assert!(error.contains("holds no recording"), "{error}");
    }
}
