//! The state store family. A provider moves whole states ([`StateStoreServer`]); here they
//! are cut into chunks of the size agreed in ConfigureStateStore for ReadStateBytes, and
//! WriteStateBytes' chunks are put back together, every range checked against what came
//! before, so the provider is handed exactly the bytes Terraform sent, or nothing.

use futures::{Stream, StreamExt as _, stream};
use tfwasm_model::rpc::{
    ConfigureStateStoreRequest, GetStatesRequest, LockStateRequest, StateRequest,
    UnlockStateRequest, ValidateStateStoreConfigRequest, WriteStateRequest,
};
use tfwasm_model::{Diagnostic, Provider};
use tonic::Status;

use super::BoxStream;
use crate::convert;
use crate::proto::tfplugin6 as pb;

/// The largest state moved, either way (a state written can always be read back).
pub(crate) use tfwasm_model::rpc::MAX_STATE_BYTES;
/// The chunk size when ConfigureStateStore said none (Terraform's default).
pub(crate) const DEFAULT_CHUNK: usize = 8 << 20;
/// The smallest chunk size agreed to: a client proposing 1 byte would have a state go out as
/// millions of messages.
const MIN_CHUNK: usize = 64 << 10;

pub(super) async fn validate_state_store<P: Provider>(
    p: &P,
    req: pb::validate_state_store::Request,
) -> pb::validate_state_store::Response {
    let diagnostics = p
        .validate_state_store_config(ValidateStateStoreConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
        })
        .await;
    pb::validate_state_store::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

/// ConfigureStateStore; answers the chunk size, which the service keeps for the type.
pub(super) async fn configure_state_store<P: Provider>(
    p: &P,
    req: pb::configure_state_store::Request,
) -> (pb::configure_state_store::Response, usize) {
    let resp = p
        .configure_state_store(ConfigureStateStoreRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
            chunk_size: req.capabilities.map_or(0, |c| c.chunk_size),
        })
        .await;
    let chunk = usize::try_from(resp.chunk_size)
        .ok()
        .filter(|c| (1..=MAX_STATE_BYTES).contains(c))
        .unwrap_or(DEFAULT_CHUNK)
        .max(MIN_CHUNK);
    let answer = pb::configure_state_store::Response {
        diagnostics: convert::diagnostics(resp.diagnostics),
        capabilities: Some(pb::StateStoreServerCapabilities {
            chunk_size: chunk as i64,
        }),
    };
    (answer, chunk)
}

/// ReadStateBytes: the state in chunks of `chunk` bytes, each with its range and the total;
/// no chunk at all when there is no state; problems in one chunk of their own.
pub(super) async fn read_state_bytes<P: Provider>(
    p: &P,
    req: pb::read_state_bytes::Request,
    chunk: usize,
) -> BoxStream<pb::read_state_bytes::Response> {
    let resp = p
        .read_state(StateRequest {
            type_name: req.type_name,
            state_id: req.state_id,
        })
        .await;
    if tfwasm_model::has_error(&resp.diagnostics) || resp.bytes.is_empty() {
        if resp.diagnostics.is_empty() {
            return Box::pin(stream::empty());
        }
        // With a range even so: Terraform reads one off every chunk without errors.
        let only = pb::read_state_bytes::Response {
            diagnostics: convert::diagnostics(resp.diagnostics),
            range: Some(pb::StateRange { start: 0, end: -1 }),
            ..Default::default()
        };
        return Box::pin(stream::iter([Ok(only)]));
    }
    let total = resp.bytes.len() as i64;
    let mut warnings = Some(convert::diagnostics(resp.diagnostics));
    let chunks: Vec<_> = (resp.bytes.chunks(chunk.max(1)).enumerate())
        .map(|(i, bytes)| {
            let start = (i * chunk) as i64;
            Ok(pb::read_state_bytes::Response {
                bytes: bytes.to_vec(),
                total_length: total,
                range: Some(pb::StateRange {
                    start,
                    end: start + bytes.len() as i64 - 1,
                }),
                diagnostics: warnings.take().unwrap_or_default(),
            })
        })
        .collect();
    Box::pin(stream::iter(chunks))
}

/// WriteStateBytes' chunks, put back together.
#[derive(Debug, Default)]
pub(crate) struct Reassembly {
    meta: Option<pb::RequestChunkMeta>,
    bytes: Vec<u8>,
    total: Option<i64>,
}

impl Reassembly {
    /// Takes the next chunk, or says why the whole write is refused.
    pub(crate) fn push(
        &mut self,
        chunk: pb::write_state_bytes::RequestChunk,
    ) -> Result<(), String> {
        match (&self.meta, chunk.meta) {
            (None, Some(meta)) => self.meta = Some(meta),
            (None, None) => return Err("the first chunk names no state (no meta)".into()),
            (Some(_), Some(_)) => {
                return Err("a chunk after the first names its state again".into());
            }
            (Some(_), None) => {}
        }
        let total = *self.total.get_or_insert(chunk.total_length);
        if chunk.total_length != total {
            return Err(format!(
                "chunks disagree on the state's length ({total}, then {})",
                chunk.total_length
            ));
        }
        if !(0..=MAX_STATE_BYTES as i64).contains(&total) {
            return Err(format!(
                "a state of {total} bytes is past the {} MiB tfwasm moves",
                MAX_STATE_BYTES >> 20
            ));
        }
        let start = self.bytes.len() as i64;
        let range = chunk.range.unwrap_or_default();
        let end = start + chunk.bytes.len() as i64 - 1;
        if range.start != start || range.end != end {
            return Err(format!(
                "a chunk of {} bytes says it is {}..={}, where bytes {start}..={end} come next",
                chunk.bytes.len(),
                range.start,
                range.end
            ));
        }
        if end >= total {
            return Err(format!(
                "chunks run past the state's length of {total} bytes"
            ));
        }
        self.bytes.extend_from_slice(&chunk.bytes);
        Ok(())
    }

    /// The state, once every byte has come.
    pub(crate) fn finish(self) -> Result<WriteStateRequest, String> {
        let meta = self.meta.ok_or("no chunk came")?;
        let total = self.total.unwrap_or(0);
        if self.bytes.len() as i64 != total {
            return Err(format!(
                "{} of the state's {total} bytes came",
                self.bytes.len()
            ));
        }
        Ok(WriteStateRequest {
            type_name: meta.type_name,
            state_id: meta.state_id,
            bytes: self.bytes,
        })
    }
}

pub(super) async fn write_state_bytes<P: Provider>(
    p: &P,
    mut chunks: impl Stream<Item = Result<pb::write_state_bytes::RequestChunk, Status>> + Unpin,
) -> pb::write_state_bytes::Response {
    let refused = |why: String| pb::write_state_bytes::Response {
        diagnostics: convert::diagnostics(vec![Diagnostic::error(
            "State not written",
            format!("tfwasm refused the state Terraform sent: {why}; nothing was written."),
        )]),
    };
    let mut whole = Reassembly::default();
    while let Some(chunk) = chunks.next().await {
        let pushed = match chunk {
            Ok(chunk) => whole.push(chunk),
            Err(status) => Err(format!("the stream failed ({})", status.message())),
        };
        if let Err(why) = pushed {
            return refused(why);
        }
    }
    match whole.finish() {
        Ok(req) => pb::write_state_bytes::Response {
            diagnostics: convert::diagnostics(p.write_state(req).await),
        },
        Err(why) => refused(why),
    }
}

pub(super) async fn lock_state<P: Provider>(
    p: &P,
    req: pb::lock_state::Request,
) -> pb::lock_state::Response {
    let resp = p
        .lock_state(LockStateRequest {
            type_name: req.type_name,
            state_id: req.state_id,
            operation: req.operation,
        })
        .await;
    pb::lock_state::Response {
        lock_id: resp.lock_id,
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}

pub(super) async fn unlock_state<P: Provider>(
    p: &P,
    req: pb::unlock_state::Request,
) -> pb::unlock_state::Response {
    let diagnostics = p
        .unlock_state(UnlockStateRequest {
            type_name: req.type_name,
            state_id: req.state_id,
            lock_id: req.lock_id,
        })
        .await;
    pb::unlock_state::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn get_states<P: Provider>(
    p: &P,
    req: pb::get_states::Request,
) -> pb::get_states::Response {
    let resp = p
        .get_states(GetStatesRequest {
            type_name: req.type_name,
        })
        .await;
    pb::get_states::Response {
        state_id: resp.state_ids,
        diagnostics: convert::diagnostics(resp.diagnostics),
    }
}

pub(super) async fn delete_state<P: Provider>(
    p: &P,
    req: pb::delete_state::Request,
) -> pb::delete_state::Response {
    let diagnostics = p
        .delete_state(StateRequest {
            type_name: req.type_name,
            state_id: req.state_id,
        })
        .await;
    pb::delete_state::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(
        meta: bool,
        bytes: &[u8],
        total: i64,
        start: i64,
    ) -> pb::write_state_bytes::RequestChunk {
        pb::write_state_bytes::RequestChunk {
            meta: meta.then(|| pb::RequestChunkMeta {
                type_name: "t_store".into(),
                state_id: "default".into(),
            }),
            bytes: bytes.to_vec(),
            total_length: total,
            range: Some(pb::StateRange {
                start,
                end: start + bytes.len() as i64 - 1,
            }),
        }
    }

    /// Chunks come back together exactly; a gap, an overlap, a second meta, a changed total
    /// or a short stream refuses the whole write.
    #[test]
    fn chunks_are_put_back_together_only_when_every_range_fits() {
        let mut whole = Reassembly::default();
        whole.push(chunk(true, b"abc", 5, 0)).unwrap();
        whole.push(chunk(false, b"de", 5, 3)).unwrap();
        let req = whole.finish().unwrap();
        assert_eq!(
            (req.type_name.as_str(), req.state_id.as_str()),
            ("t_store", "default")
        );
        assert_eq!(req.bytes, b"abcde");

        let refused = |chunks: Vec<pb::write_state_bytes::RequestChunk>| {
            let mut whole = Reassembly::default();
            for c in chunks {
                whole.push(c)?;
            }
            whole.finish().map(|_| ())
        };
        assert!(
            refused(vec![chunk(false, b"abc", 3, 0)]).is_err(),
            "no meta"
        );
        assert!(
            refused(vec![chunk(true, b"abc", 5, 0), chunk(false, b"de", 5, 4)]).is_err(),
            "gap"
        );
        assert!(
            refused(vec![chunk(true, b"abc", 5, 0), chunk(false, b"de", 5, 2)]).is_err(),
            "overlap"
        );
        assert!(
            refused(vec![chunk(true, b"abc", 5, 0), chunk(true, b"de", 5, 3)]).is_err(),
            "meta twice"
        );
        assert!(
            refused(vec![chunk(true, b"abc", 5, 0), chunk(false, b"de", 6, 3)]).is_err(),
            "total"
        );
        assert!(refused(vec![chunk(true, b"abc", 5, 0)]).is_err(), "short");
        assert!(
            refused(vec![chunk(true, b"abcdef", 5, 0)]).is_err(),
            "past the total"
        );
        let huge = MAX_STATE_BYTES as i64 + 1;
        assert!(
            refused(vec![chunk(true, b"a", huge, 0)]).is_err(),
            "too large"
        );
    }

    /// Answers every state read with `bytes`, and every call with `warning` if set.
    struct Reads {
        bytes: &'static [u8],
        warning: bool,
    }

    impl tfwasm_model::rpc::Handler for Reads {
        async fn handle<C: tfwasm_model::rpc::Call>(&self, _req: C::Request) -> C::Response {
            let mut answer = serde_json::to_value(C::Response::default()).unwrap();
            if C::RPC == tfwasm_model::Rpc::ReadStateBytes {
                answer = serde_json::to_value(tfwasm_model::rpc::ReadStateResponse {
                    bytes: self.bytes.to_vec(),
                    diagnostics: Vec::new(),
                })
                .unwrap();
            }
            if self.warning {
                let warning = serde_json::json!({
                    "severity": "Warning", "summary": "stale", "detail": "", "attribute": null
                });
                answer["diagnostics"] = serde_json::json!([warning]);
            }
            serde_json::from_value(answer).unwrap()
        }

        fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
            Default::default()
        }
    }

    /// The chunks ReadStateBytes sends for `provider`'s state, in chunks of 4 bytes.
    fn chunks_of(provider: Reads) -> Vec<pb::read_state_bytes::Response> {
        let provider = tfwasm_model::rpc::Handled(provider);
        futures::executor::block_on(async {
            read_state_bytes(&provider, pb::read_state_bytes::Request::default(), 4)
                .await
                .map(Result::unwrap)
                .collect()
                .await
        })
    }

    /// A state goes out in chunks of the agreed size, each with its range and the total.
    #[test]
    fn a_state_is_read_in_chunks_of_the_agreed_size() {
        let chunks = chunks_of(Reads {
            bytes: b"0123456789",
            warning: false,
        });
        let ranges: Vec<(i64, i64, usize)> = (chunks.iter())
            .map(|c| {
                let r = c.range.unwrap();
                (r.start, r.end, c.bytes.len())
            })
            .collect();
        assert_eq!(ranges, [(0, 3, 4), (4, 7, 4), (8, 9, 2)]);
        assert!(chunks.iter().all(|c| c.total_length == 10));
        let whole: Vec<u8> = chunks.iter().flat_map(|c| c.bytes.clone()).collect();
        assert_eq!(whole, b"0123456789");
    }

    /// The thirtieth pass: a warning with no state went out in a chunk without a range, which
    /// Terraform reads from every chunk without errors (a nil dereference there).
    #[test]
    fn a_warning_without_a_state_goes_out_with_an_empty_range() {
        let chunks = chunks_of(Reads {
            bytes: b"",
            warning: true,
        });
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].range, Some(pb::StateRange { start: 0, end: -1 }));
        assert_eq!(chunks[0].total_length, 0);
        assert!(chunks[0].bytes.is_empty());
    }
}
