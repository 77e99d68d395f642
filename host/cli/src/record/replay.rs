//! Replaying a recording: each session's requests, in order, against a provider, and the
//! responses compared with the recorded ones after the same decoding and redaction.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde_json::Value as Json;
use tfwasm_model::Provider;

use super::values::Direction;
use super::{Entry, FORMAT, SESSION_FILE, Session, read_json, schemas_of};

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

/// One session: its metadata and calls in order.
pub fn read_session(dir: &Path) -> anyhow::Result<(Session, Vec<Entry>)> {
    let session: Session = read_json(&dir.join(SESSION_FILE))?;
    if session.format != FORMAT {
        bail!(
            "{}: recording format {} (this tfwasm replays format {FORMAT})",
            dir.display(),
            session.format
        );
    }
    let mut entries = Vec::new();
    for file in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = file?.path();
        let is_call = path.extension().is_some_and(|e| e == "json")
            && path.file_name().is_some_and(|n| n != SESSION_FILE);
        if is_call {
            entries.push(read_json::<Entry>(&path)?);
        }
    }
    entries.sort_by_key(|e| e.seq);
    Ok((session, entries))
}

/// What replaying one call found.
#[derive(Debug)]
pub enum Outcome {
    /// The response matched.
    Same,
    /// The response differed at these places.
    Differs(Vec<Change>),
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

/// Replays `entries` against `provider`, one outcome per entry.
pub async fn replay_session<P: Provider>(provider: &P, entries: &[Entry]) -> Vec<Outcome> {
    let cell = tokio::sync::OnceCell::new();
    let schemas = schemas_of(provider, &cell).await;
    let mut outcomes = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry.rpc == "StopProvider" {
            outcomes.push(Outcome::Skipped("StopProvider is not replayed".into()));
            continue;
        }
        let mut request = entry.request.clone();
        schemas.rewrite(&entry.rpc, &entry.subject, &mut request, Direction::Encode);
        let outcome = match super::families::replay(provider, &entry.rpc, request).await {
            None => Outcome::Skipped(format!("unknown RPC {:?}", entry.rpc)),
            Some(Err(error)) => {
                Outcome::Skipped(format!("the recorded request does not read: {error}"))
            }
            Some(Ok(mut response)) => {
                schemas.rewrite(&entry.rpc, &entry.subject, &mut response, Direction::Decode);
                let mut changes = Vec::new();
                diff(&mut String::new(), &entry.response, &response, &mut changes);
                if changes.is_empty() {
                    Outcome::Same
                } else {
                    Outcome::Differs(changes)
                }
            }
        };
        outcomes.push(outcome);
    }
    outcomes
}

/// The places where `recorded` and `replayed` differ, deepest first reported.
fn diff(path: &mut String, recorded: &Json, replayed: &Json, out: &mut Vec<Change>) {
    if recorded == replayed {
        return;
    }
    match (recorded, replayed) {
        (Json::Object(a), Json::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                let len = path.len();
                if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() {
                    path.push('.');
                    path.push_str(key);
                } else {
                    path.push_str(&format!("[{key:?}]"));
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
        _ => out.push(Change {
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
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_reported_at_the_deepest_path() {
        let mut out = Vec::new();
        diff(
            &mut String::new(),
            &json!({"new_state": {"value": {"id": "a", "n": [1, 2]}}, "diagnostics": []}),
            &json!({"new_state": {"value": {"id": "b", "n": [1, 3]}}, "diagnostics": [], "x": 1}),
            &mut out,
        );
        let paths: Vec<_> = out.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [".new_state.value.id", ".new_state.value.n[1]", ".x"]
        );
        assert_eq!(out[0].recorded, json!("a"));
        assert_eq!(out[2].recorded, Json::Null);
    }

    #[test]
    fn a_directory_without_sessions_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        let error = sessions(dir.path()).unwrap_err().to_string();
        assert!(error.contains("holds no recording"), "{error}");
    }
}
