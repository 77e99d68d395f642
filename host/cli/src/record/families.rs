//! Every family trait implemented for [`Recorded`] (each RPC one line through
//! [`exchange`](Recorded::exchange), generic over the RPC's [`Call`] marker), and [`replay`],
//! which runs a recorded request of any RPC by its name. Both come from the RPC table:
//! a new RPC is a compile error here until its family trait's method forwards it.

use std::future::Future;
use std::pin::Pin;

use serde::Deserialize as _;
use serde_json::Value as Json;
use tfwasm_model::rpc::calls;
use tfwasm_model::rpc::*;
use tfwasm_model::{Diagnostics, Provider, ProviderSchema, Rpc};

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

impl<P: Provider> ProviderServer for Recorded<P> {
    async fn get_provider_schema(&self) -> ProviderSchema {
        self.exchange::<calls::GetProviderSchema>(NoRequest {})
            .await
    }

    fn plans_destroy(&self) -> bool {
        self.inner.plans_destroy()
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        let req = ValidateProviderConfigRequest { config };
        self.exchange::<calls::ValidateProviderConfig>(req).await
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        self.exchange::<calls::ConfigureProvider>(req).await
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
            );
        }
        result
    }
}

impl<P: Provider> ResourceServer for Recorded<P> {
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.exchange::<calls::ValidateResourceConfig>(req).await
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.exchange::<calls::UpgradeResourceState>(req).await
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        self.exchange::<calls::ReadResource>(req).await
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        self.exchange::<calls::PlanResourceChange>(req).await
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        self.exchange::<calls::ApplyResourceChange>(req).await
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.exchange::<calls::ImportResourceState>(req).await
    }
}

impl<P: Provider> DataSourceServer for Recorded<P> {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.exchange::<calls::ValidateDataResourceConfig>(req)
            .await
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        self.exchange::<calls::ReadDataSource>(req).await
    }
}

impl<P: Provider> FunctionServer for Recorded<P> {
    async fn get_functions(&self) -> GetFunctionsResponse {
        self.exchange::<calls::GetFunctions>(NoRequest {}).await
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        self.exchange::<calls::CallFunction>(req).await
    }
}

impl<P: Provider> MoveServer for Recorded<P> {
    fn moves_state(&self) -> bool {
        self.inner.moves_state()
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        self.exchange::<calls::MoveResourceState>(req).await
    }
}

impl<P: Provider> IdentityServer for Recorded<P> {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        self.exchange::<calls::GetResourceIdentitySchemas>(NoRequest {})
            .await
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        self.exchange::<calls::UpgradeResourceIdentity>(req).await
    }
}

impl<P: Provider> EphemeralServer for Recorded<P> {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.exchange::<calls::ValidateEphemeralResourceConfig>(req)
            .await
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.exchange::<calls::OpenEphemeralResource>(req).await
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.exchange::<calls::RenewEphemeralResource>(req).await
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        self.exchange::<calls::CloseEphemeralResource>(req).await
    }
}
