//! Each RPC family's recording and replay, one module per family as in every layer: the
//! family trait implemented for [`Recorded`](super::Recorded) (each RPC through
//! `exchange`), and `replay`, which runs a recorded request of the family's RPCs.

mod data_source;
mod ephemeral;
mod function;
mod identity;
mod moves;
mod provider;
mod resource;

use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;
use tfwasm_model::Provider;

/// Runs one recorded request: `None` when `rpc` is not one of this family's.
pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: Json,
) -> Option<Result<Json, serde_json::Error>> {
    if let Some(r) = provider::replay(provider, rpc, &request).await {
        return Some(r);
    }
    if let Some(r) = resource::replay(provider, rpc, &request).await {
        return Some(r);
    }
    if let Some(r) = data_source::replay(provider, rpc, &request).await {
        return Some(r);
    }
    if let Some(r) = function::replay(provider, rpc, &request).await {
        return Some(r);
    }
    if let Some(r) = moves::replay(provider, rpc, &request).await {
        return Some(r);
    }
    if let Some(r) = identity::replay(provider, rpc, &request).await {
        return Some(r);
    }
    ephemeral::replay(provider, rpc, &request).await
}

/// Decodes `request` as `Req`, runs `call` and encodes its response.
async fn run<Req, Resp, F>(
    request: &Json,
    call: impl FnOnce(Req) -> F,
) -> Result<Json, serde_json::Error>
where
    Req: DeserializeOwned,
    Resp: Serialize,
    F: Future<Output = Resp>,
{
    let req = Req::deserialize(request)?;
    serde_json::to_value(call(req).await)
}

/// [`run`] for the RPCs that answer with diagnostics only.
async fn run_diagnostics<Req, F>(
    request: &Json,
    call: impl FnOnce(Req) -> F,
) -> Result<Json, serde_json::Error>
where
    Req: DeserializeOwned,
    F: Future<Output = tfwasm_model::Diagnostics>,
{
    run(request, |req| async move {
        DiagnosticsOnly {
            diagnostics: call(req).await,
        }
    })
    .await
}

impl<P: Provider> super::Recorded<P> {
    /// [`exchange`](super::Recorded::exchange) for the RPCs that answer with diagnostics only.
    async fn diagnostics<Req, F>(
        &self,
        rpc: &'static str,
        subject: &str,
        req: Req,
        call: impl FnOnce(Req) -> F,
    ) -> tfwasm_model::Diagnostics
    where
        Req: Serialize,
        F: Future<Output = tfwasm_model::Diagnostics>,
    {
        self.exchange(rpc, subject, req, |req| async {
            DiagnosticsOnly {
                diagnostics: call(req).await,
            }
        })
        .await
        .diagnostics
    }
}

/// The recorded form of the RPCs whose response is only diagnostics.
#[derive(Serialize, serde::Deserialize)]
struct DiagnosticsOnly {
    diagnostics: tfwasm_model::Diagnostics,
}

/// The request of the RPCs that take nothing.
#[derive(Serialize, serde::Deserialize)]
struct Nothing {}
