//! The function family: signatures come with the schema (`provider.get-schema`), calls go to
//! `function.call-function`. Functions may be called before ConfigureProvider; the context
//! then has no configuration.

use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    CallFunctionRequest, CallFunctionResponse, DynamicValue, FunctionServer, GetFunctionsResponse,
};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::bytes;
use crate::bindings::Exports as _;

impl FunctionServer for WasmProvider {
    async fn get_functions(&self) -> GetFunctionsResponse {
        match self.guest_schema().await {
            Ok(known) => GetFunctionsResponse {
                functions: known.index.functions.clone(),
                diagnostics: Vec::new(),
            },
            Err(diagnostics) => GetFunctionsResponse {
                functions: Default::default(),
                diagnostics,
            },
        }
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        let ctx = self.context();
        let subject = format!("function {:?}", req.name);
        let name = req.name;
        let arguments: Vec<Vec<u8>> = req.arguments.into_iter().map(bytes).collect();
        match self
            .call(Rpc::CallFunction, &subject, move |store, guest| {
                Box::pin(async move { guest.call_function(store, &ctx, &name, &arguments).await })
            })
            .await
        {
            Ok(Ok(result)) => CallFunctionResponse {
                result: DynamicValue::from_msgpack(result),
                error: None,
            },
            Ok(Err(error)) => {
                CallFunctionResponse::error(error.text, error.argument.map(i64::from))
            }
            // No diagnostics in CallFunction: the failure's diagnostic becomes the error text.
            Err(e) => {
                let d = self.call_diagnostic(&e.error, &subject);
                CallFunctionResponse::error(format!("{}: {}", d.summary, d.detail), None)
            }
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
/// A function has no diagnostics: a host problem (a denied request) joins the error text,
/// where the user sees it; a successful result stands.
impl ReturnedValues for Result<Vec<u8>, crate::bindings::function::FunctionError> {
    fn largest_value(&self) -> usize {
        self.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        None
    }
    fn cap_diagnostics(&mut self, work: &crate::HostWork) {
        if let Err(error) = self {
            crate::answer_caps::truncate(&mut error.text, work.diagnostic_bytes_per_call);
        }
    }
    fn add_diagnostic(&mut self, diagnostic: crate::bindings::wit::Diagnostic) {
        if let Err(error) = self {
            error.text = format!(
                "{} ({}: {})",
                error.text, diagnostic.summary, diagnostic.detail
            );
        }
    }
}
