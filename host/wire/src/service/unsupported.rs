//! The family no tfwasm provider has yet: state stores
//! (Terraform 1.13–1.15). Nothing announces them (no schemas, no metadata), so Terraform never
//! asks; a client that asks anyway gets an error diagnostic naming what it asked for, in the
//! answer's own shape (a stream's one event), never a failed RPC.

use futures::stream;

use super::BoxStream;
use crate::proto::tfplugin6 as pb;

/// Most bytes of a client-chosen name a message quotes.
const QUOTED: usize = 128;

/// An error naming the `kind` of thing (`list resource type`) the client asked for by `name`.
fn error(kind: &str, family: &str, name: &str) -> pb::Diagnostic {
    let shown = &name[..name.floor_char_boundary(QUOTED)];
    pb::Diagnostic {
        severity: pb::diagnostic::Severity::Error as i32,
        summary: format!("Unsupported {kind}"),
        detail: format!(
            "This provider has no {kind} {shown:?}: tfwasm serves {family} only for providers that implement them, and this one announces none."
        ),
        attribute: None,
    }
}

fn store(name: &str) -> Vec<pb::Diagnostic> {
    vec![error("state store type", "state stores", name)]
}

pub(super) fn validate_state_store(
    req: pb::validate_state_store::Request,
) -> pb::validate_state_store::Response {
    pb::validate_state_store::Response {
        diagnostics: store(&req.type_name),
    }
}

pub(super) fn configure_state_store(
    req: pb::configure_state_store::Request,
) -> pb::configure_state_store::Response {
    pb::configure_state_store::Response {
        diagnostics: store(&req.type_name),
        capabilities: None,
    }
}

pub(super) fn read_state_bytes(
    req: pb::read_state_bytes::Request,
) -> BoxStream<pb::read_state_bytes::Response> {
    let answer = pb::read_state_bytes::Response {
        diagnostics: store(&req.type_name),
        ..Default::default()
    };
    Box::pin(stream::iter([Ok(answer)]))
}

/// The state store is named by the stream's first chunk; the rest is not read.
pub(super) fn write_state_bytes(
    first: Option<pb::write_state_bytes::RequestChunk>,
) -> pb::write_state_bytes::Response {
    let name = first
        .and_then(|chunk| chunk.meta)
        .map(|meta| meta.type_name)
        .unwrap_or_default();
    pb::write_state_bytes::Response {
        diagnostics: store(&name),
    }
}

pub(super) fn lock_state(req: pb::lock_state::Request) -> pb::lock_state::Response {
    pb::lock_state::Response {
        lock_id: String::new(),
        diagnostics: store(&req.type_name),
    }
}

pub(super) fn unlock_state(req: pb::unlock_state::Request) -> pb::unlock_state::Response {
    pb::unlock_state::Response {
        diagnostics: store(&req.type_name),
    }
}

pub(super) fn get_states(req: pb::get_states::Request) -> pb::get_states::Response {
    pb::get_states::Response {
        state_id: Vec::new(),
        diagnostics: store(&req.type_name),
    }
}

pub(super) fn delete_state(req: pb::delete_state::Request) -> pb::delete_state::Response {
    pb::delete_state::Response {
        diagnostics: store(&req.type_name),
    }
}
