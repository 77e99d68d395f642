//! The provider family: the schema call is recorded (a report shows the schema it ran
//! with); StopProvider is recorded but not replayed, having nothing to compare.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tfwasm_model::rpc::{ConfigureProviderRequest, DynamicValue, ProviderServer};
use tfwasm_model::{Diagnostics, Provider, ProviderSchema};

use super::{Nothing, run, run_diagnostics};
use crate::record::Recorded;

/// ValidateProviderConfig's request.
#[derive(Serialize, Deserialize)]
struct ProviderConfig {
    config: DynamicValue,
}

#[derive(Serialize)]
struct Stopped<'a> {
    error: Option<&'a str>,
}

impl<P: Provider> ProviderServer for Recorded<P> {
    async fn get_provider_schema(&self) -> ProviderSchema {
        self.exchange("GetProviderSchema", "", Nothing {}, |_| {
            self.inner.get_provider_schema()
        })
        .await
    }

    fn plans_destroy(&self) -> bool {
        self.inner.plans_destroy()
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        let req = ProviderConfig { config };
        self.diagnostics("ValidateProviderConfig", "", req, |req| {
            self.inner.validate_provider_config(req.config)
        })
        .await
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        self.diagnostics("ConfigureProvider", "", req, |req| {
            self.inner.configure_provider(req)
        })
        .await
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
            let schemas = crate::record::schemas_of(&self.inner, &self.schemas).await;
            recorder.record(
                schemas,
                crate::record::Entry {
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

pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: &Json,
) -> Option<Result<Json, serde_json::Error>> {
    Some(match rpc {
        "GetProviderSchema" => run(request, |Nothing {}| provider.get_provider_schema()).await,
        "ValidateProviderConfig" => {
            run_diagnostics(request, |req: ProviderConfig| {
                provider.validate_provider_config(req.config)
            })
            .await
        }
        "ConfigureProvider" => {
            run_diagnostics(request, |req: ConfigureProviderRequest| {
                provider.configure_provider(req)
            })
            .await
        }
        _ => return None,
    })
}
