//! What the processes recording into one root share: `sensitive.json`, the secrets the
//! schema of each of them marks, and `lock`, under which each of them writes.
//!
//! The invariant: every recorded call in the root is redacted by at least the secrets
//! `sensitive.json` holds. A process adds its schema's secrets ([`publish`]) before it writes
//! its first call, and when that adds any, redacts every call already recorded again before it
//! writes the file and lets go of the lock; each call is then written under the lock, redacted
//! by the file's secrets and its own ([`lock`]). So a secret any process of the run marks
//! stays in no file once that process has started recording, whichever process wrote the
//! file and in whatever order they ran.

use std::fs::File;

use anyhow::Context as _;

use super::sensitive::Sensitive;
use super::store::Dir;
use super::values::redact_again;
use super::{Entry, SESSION_FILE, is_call_file};

/// The secrets of every process that recorded into the root.
pub const SENSITIVE_FILE: &str = "sensitive.json";
/// Held by a process while it writes into the root.
pub const LOCK_FILE: &str = "lock";

/// The root's lock, held, and the secrets known while it is.
pub struct Locked {
    _lock: File,
    /// The secrets of `sensitive.json`.
    pub sensitive: Sensitive,
}

/// Takes the root's lock and reads its secrets.
pub fn lock(root: &Dir) -> anyhow::Result<Locked> {
    let lock = root
        .lock(LOCK_FILE)
        .with_context(|| format!("cannot lock {}", root.path().join(LOCK_FILE).display()))?;
    let sensitive = read(root)?;
    Ok(Locked {
        _lock: lock,
        sensitive,
    })
}

fn read(root: &Dir) -> anyhow::Result<Sensitive> {
    let path = root.path().join(SENSITIVE_FILE);
    match root
        .read(SENSITIVE_FILE)
        .with_context(|| format!("cannot read {}", path.display()))?
    {
        None => Ok(Sensitive::default()),
        Some(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a list of secrets", path.display())),
    }
}

/// Adds `own` to the root's secrets; when that adds any, redacts every recorded call again.
pub fn publish(root: &Dir, own: &Sensitive) -> anyhow::Result<()> {
    let locked = lock(root)?;
    let mut union = locked.sensitive.clone();
    union.merge(own);
    if union == locked.sensitive {
        return Ok(());
    }
    // The calls first: if that fails, the file still says what they are redacted by, and the
    // next process that brings these secrets tries again.
    redact_sessions(root, &union)?;
    let mut text = serde_json::to_vec_pretty(&union)?;
    text.push(b'\n');
    root.replace(SENSITIVE_FILE, &text).with_context(|| {
        format!(
            "cannot write {}",
            root.path().join(SENSITIVE_FILE).display()
        )
    })
}

/// Redacts every call recorded under `root` by `sensitive`. Under the lock nothing is being
/// written, so a file that does not read as a call (a write cut short, or something that is
/// not a regular file) or a temporary file (a replacement cut short) is a leftover, possibly
/// holding what is now a secret: removed (a symlink itself, never what it points to).
fn redact_sessions(root: &Dir, sensitive: &Sensitive) -> anyhow::Result<()> {
    for name in root.names()? {
        // Files of the root, and anything that is not a directory, are not sessions.
        let Ok(session) = root.open_dir(&name) else {
            continue;
        };
        if !matches!(session.read(SESSION_FILE), Ok(Some(_))) {
            continue;
        }
        for file in session.names()? {
            let is_temp = file.starts_with('.') && file.ends_with(".tmp");
            if !(is_call_file(&file) || is_temp) {
                continue;
            }
            let context = || format!("cannot redact {}", session.path().join(&file).display());
            // A symlink or special file there is not a call either.
            let bytes = session.read(&file).ok().flatten();
            let entry = bytes.and_then(|b| serde_json::from_slice::<Entry>(&b).ok());
            let Some(mut entry) = entry.filter(|_| !is_temp) else {
                tracing::warn!(
                    file = %session.path().join(&file).display(),
                    "removing a recording file that is not a complete call"
                );
                session.remove(&file).with_context(context)?;
                continue;
            };
            let request = redact_again(&entry.rpc, &entry.subject, &mut entry.request, sensitive);
            let response = redact_again(&entry.rpc, &entry.subject, &mut entry.response, sensitive);
            if request || response {
                session
                    .replace(&file, &super::to_json(&entry)?)
                    .with_context(context)?;
            }
        }
    }
    Ok(())
}
