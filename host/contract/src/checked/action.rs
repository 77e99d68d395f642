//! The action family: a planned action defers only when the client allows it; progress is
//! passed on as it comes (the wire escapes and the runtime bounds it).

use tfwasm_model::rpc::{
    ActionServer, InvokeActionRequest, PlanActionRequest, PlanActionResponse,
    ValidateActionConfigRequest,
};
use tfwasm_model::{Diagnostics, Provider};

use super::Checked;

impl<P: Provider> ActionServer for Checked<P> {
    async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
        self.inner.validate_action_config(req).await
    }

    async fn plan_action(&self, req: PlanActionRequest) -> PlanActionResponse {
        let type_name = req.action_type.clone();
        let allowed = req.client_capabilities.deferral_allowed;
        let mut resp = self.inner.plan_action(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "PlanAction",
            &type_name,
        );
        resp
    }

    async fn invoke_action(&self, req: InvokeActionRequest) -> Diagnostics {
        self.inner.invoke_action(req).await
    }
}
