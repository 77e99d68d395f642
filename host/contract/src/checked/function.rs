//! The function family: results are checked against the declared signature.
//!
//! CallFunction has no diagnostics, so a violation becomes the call's error, in both modes:
//! Terraform would reject the result anyway, with a message that does not name the cause.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    CallFunctionRequest, CallFunctionResponse, FunctionServer, GetFunctionsResponse,
};

use super::Checked;
use crate::check_function_result;

impl<P: Provider> Checked<P> {
    async fn functions(&self) -> &GetFunctionsResponse {
        if let Some(functions) = self.functions.get() {
            return functions;
        }
        let functions = self.inner.get_functions().await;
        self.functions.get_or_init(|| functions)
    }
}

impl<P: Provider> FunctionServer for Checked<P> {
    async fn get_functions(&self) -> GetFunctionsResponse {
        self.functions().await.clone()
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        let name = req.name.clone();
        let arguments = req.arguments.len();
        let resp = self.inner.call_function(req).await;
        let Some(function) = self.functions().await.functions.get(&name) else {
            return resp;
        };
        let violations = check_function_result(function, arguments, &resp);
        if violations.is_empty() {
            return resp;
        }
        let found = violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        CallFunctionResponse::error(
            format!(
                "tfwasm checked the result of function {name:?} of provider {:?} and found {found}. This is a bug in the provider, which should be reported in the provider's own issue tracker.",
                self.provider
            ),
            None,
        )
    }
}
