//! The move family: a moved state fits the target schema and is wholly known.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{MoveResourceStateRequest, MoveResourceStateResponse, MoveServer};

use super::{Checked, decode_result};
use crate::check_wholly_known;

impl<P: Provider> MoveServer for Checked<P> {
    fn moves_state(&self) -> bool {
        self.inner.moves_state()
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let target = req.target_type_name.clone();
        let mut resp = self.inner.move_resource_state(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        if let Some((_, ty)) = self.resource(&target).await {
            let violations = match decode_result(&resp.target_state, ty) {
                Ok(state) => check_wholly_known(&state),
                Err(v) => vec![v],
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid object",
                "MoveResourceState",
                &target,
                violations,
            ));
        }
        resp
    }
}
