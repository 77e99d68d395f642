//! The data source family: read results are checked.

use tfwasm_model::rpc::{
    DataSourceServer, ReadDataSourceRequest, ReadDataSourceResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::{Checked, decode_result};
use crate::decodings::Of;
use crate::{Violations, check_data_source};

impl<P: Provider> DataSourceServer for Checked<P> {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.inner.validate_data_resource_config(req).await
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let type_name = req.type_name.clone();
        let allowed = req.client_capabilities.deferral_allowed;
        let mut resp = self.inner.read_data_source(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "ReadDataSource",
            &type_name,
        );
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        if let Some(ty) = self.data_source_type(&type_name).await {
            let violations = match decode_result(&resp.state, ty) {
                Ok(state) => {
                    let found = check_data_source(&state);
                    self.hand_on(Of::DataSource(&type_name), &resp.state, state);
                    found
                }
                Err(v) => Violations::from(vec![v]),
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid object",
                "ReadDataSource",
                &type_name,
                violations,
            ));
        }
        resp
    }
}
