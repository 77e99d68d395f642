//! [`Recorded`] as a [`Handler`]: every RPC through one generic
//! [`exchange`](Recorded::exchange) over the RPC's [`Call`] marker, and [`replay`], which runs
//! a recorded request of any RPC by its name. Both come from the RPC table, so a new RPC
//! needs nothing here.

use std::future::Future;
use std::pin::Pin;

use serde::Deserialize as _;
use serde_json::Value as Json;
use tfwasm_model::rpc::{Call, CallVisitor, Handler};
use tfwasm_model::{Provider, Rpc};

use super::Recorded;

/// A response's recorded form: one of diagnostics only is `{"diagnostics": [...]}`, so every
/// recorded message is an object of named fields.
pub(super) fn message(response: Json) -> Json {
    match response {
        Json::Array(diagnostics) => serde_json::json!({ "diagnostics": diagnostics }),
        other => other,
    }
}

/// Runs one recorded request of the RPC named `rpc`: `None` when it names none (StopProvider
/// is recorded, having nothing to compare it is not replayed).
pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: Json,
) -> Option<Result<Json, serde_json::Error>> {
    let rpc = rpc.parse::<Rpc>().ok()?;
    Some(rpc.visit(Replay { provider, request }).await)
}

struct Replay<'a, P> {
    provider: &'a P,
    request: Json,
}

type Replayed<'a> = Pin<Box<dyn Future<Output = Result<Json, serde_json::Error>> + Send + 'a>>;

impl<'a, P: Provider> CallVisitor for Replay<'a, P> {
    type Output = Replayed<'a>;

    fn visit<C: Call>(self) -> Replayed<'a> {
        Box::pin(async move {
            let req = C::Request::deserialize(&self.request)?;
            serde_json::to_value(C::call(self.provider, req).await).map(message)
        })
    }
}

/// StopProvider's recorded response.
#[derive(serde::Serialize)]
struct Stopped<'a> {
    error: Option<&'a str>,
}

/// Every RPC through one generic [`exchange`](Recorded::exchange); the model's `Handled`
/// turns this into every family trait.
impl<P: Provider> Handler for Recorded<P> {
    async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
        self.exchange::<C>(req).await
    }

    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        tfwasm_model::rpc::server_capabilities(&self.inner)
    }

    async fn schema_index(&self) -> Option<std::sync::Arc<tfwasm_model::SchemaIndex>> {
        Some(
            super::schemas_of(&self.inner, &self.schemas)
                .await
                .0
                .clone(),
        )
    }

    async fn stop_provider(&self) -> Result<(), String> {
        let result = self.inner.stop_provider().await;
        if let Some(recorder) = &self.recorder {
            let seq = recorder
                .seq
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                + 1;
            let response = serde_json::to_value(Stopped {
                error: result.as_ref().err().map(String::as_str),
            })
            .unwrap_or(Json::Null);
            let schemas = super::schemas_of(&self.inner, &self.schemas).await;
            recorder.record(
                schemas,
                super::Entry {
                    seq,
                    rpc: "StopProvider".into(),
                    subject: String::new(),
                    elapsed_ms: 0.0,
                    request: serde_json::json!({}),
                    response,
                },
                Default::default(),
            );
        }
        result
    }
}
