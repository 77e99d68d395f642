//! The data source family.

use serde_json::Value as Json;
use tfwasm_model::rpc::{
    DataSourceServer, ReadDataSourceRequest, ReadDataSourceResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{DiagnosticsOnly, run};
use crate::record::Recorded;

impl<P: Provider> DataSourceServer for Recorded<P> {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.exchange("ValidateDataResourceConfig", &subject, req, |req| async {
            DiagnosticsOnly {
                diagnostics: self.inner.validate_data_resource_config(req).await,
            }
        })
        .await
        .diagnostics
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let subject = req.type_name.clone();
        self.exchange("ReadDataSource", &subject, req, |req| {
            self.inner.read_data_source(req)
        })
        .await
    }
}

pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: &Json,
) -> Option<Result<Json, serde_json::Error>> {
    Some(match rpc {
        "ValidateDataResourceConfig" => {
            run(request, |req| async move {
                DiagnosticsOnly {
                    diagnostics: provider.validate_data_resource_config(req).await,
                }
            })
            .await
        }
        "ReadDataSource" => run(request, |req| provider.read_data_source(req)).await,
        _ => return None,
    })
}
