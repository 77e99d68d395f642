//! The move family: values are read with the target type's schema.

use serde_json::Value as Json;
use tfwasm_model::Provider;
use tfwasm_model::rpc::{MoveResourceStateRequest, MoveResourceStateResponse, MoveServer};

use super::run;
use crate::record::Recorded;

impl<P: Provider> MoveServer for Recorded<P> {
    fn moves_state(&self) -> bool {
        self.inner.moves_state()
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let subject = req.target_type_name.clone();
        self.exchange("MoveResourceState", &subject, req, |req| {
            self.inner.move_resource_state(req)
        })
        .await
    }
}

pub(super) async fn replay<P: Provider>(
    provider: &P,
    rpc: &str,
    request: &Json,
) -> Option<Result<Json, serde_json::Error>> {
    match rpc {
        "MoveResourceState" => Some(run(request, |req| provider.move_resource_state(req)).await),
        _ => None,
    }
}
