//! The function family.

use tfwasm_model::rpc::{
    CallFunctionRequest, CallFunctionResponse, FunctionServer, GetFunctionsResponse,
};

use super::super::WasmProvider;

impl FunctionServer for WasmProvider {
    async fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse::default()
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        CallFunctionResponse::error(
            format!("this provider has no function named {:?}", req.name),
            None,
        )
    }
}
