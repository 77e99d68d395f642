//! The function family.

use serde_json::Value as Json;
use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    CallFunctionRequest, CallFunctionResponse, FunctionServer, GetFunctionsResponse,
};

use super::{Nothing, run};
use crate::record::Recorded;

impl<P: Provider> FunctionServer for Recorded<P> {
    async fn get_functions(&self) -> GetFunctionsResponse {
        self.exchange("GetFunctions", "", Nothing {}, |_| {
            self.inner.get_functions()
        })
        .await
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        let subject = req.name.clone();
        self.exchange("CallFunction", &subject, req, |req| {
            self.inner.call_function(req)
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
        "GetFunctions" => run(request, |Nothing {}| provider.get_functions()).await,
        "CallFunction" => {
            run(request, |req: CallFunctionRequest| {
                provider.call_function(req)
            })
            .await
        }
        _ => return None,
    })
}
