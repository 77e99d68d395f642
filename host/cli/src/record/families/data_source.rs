//! The data source family.

use serde_json::Value as Json;
use tfwasm_model::rpc::{
    DataSourceServer, ReadDataSourceRequest, ReadDataSourceResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{run, run_diagnostics};
use crate::record::Recorded;

impl<P: Provider> DataSourceServer for Recorded<P> {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let subject = req.type_name.clone();
        self.diagnostics("ValidateDataResourceConfig", &subject, req, |req| {
            self.inner.validate_data_resource_config(req)
        })
        .await
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
            run_diagnostics(request, |req| provider.validate_data_resource_config(req)).await
        }
        "ReadDataSource" => run(request, |req| provider.read_data_source(req)).await,
        _ => return None,
    })
}
