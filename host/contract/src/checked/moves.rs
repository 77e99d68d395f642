//! The move family: a moved state fits the target schema, is wholly known and holds no
//! write-only value.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{MoveResourceStateRequest, MoveResourceStateResponse, MoveServer};

use super::stored;
use super::{Checked, decode_result};
use crate::decodings::Of;
use crate::{IdentityRole, Violations};

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
        if let Some((schema, ty)) = self.resource(&target).await {
            let mut violations = match decode_result(&resp.target_state, ty) {
                Ok(state) => {
                    let found = stored(&schema.block, &state);
                    self.hand_on(Of::Resource(&target), &resp.target_state, state);
                    found
                }
                Err(v) => Violations::from(vec![v]),
            };
            if violations.is_empty() {
                violations.extend(
                    self.check_identity(
                        &target,
                        true,
                        &mut resp.target_identity,
                        IdentityRole::Final,
                        None,
                    )
                    .await,
                );
            }
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
