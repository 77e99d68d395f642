//! The function family: GetFunctions (also the `functions` of GetProviderSchema) and
//! CallFunction.

use std::collections::HashMap;

use tfwasm_model::rpc::{CallFunctionRequest, Function, Parameter};
use tfwasm_model::{Diagnostics, Provider};

use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn get_functions<P: Provider>(
    p: &P,
    _req: pb::get_functions::Request,
) -> pb::get_functions::Response {
    let (functions, diagnostics) = functions(p).await;
    pb::get_functions::Response {
        functions,
        diagnostics: convert::diagnostics(diagnostics),
    }
}

/// The provider's functions in protocol form, with the problems found listing them.
pub(super) async fn functions<P: Provider>(p: &P) -> (HashMap<String, pb::Function>, Diagnostics) {
    let resp = p.get_functions().await;
    let functions = resp
        .functions
        .iter()
        .map(|(name, f)| (name.clone(), function(f)))
        .collect();
    (functions, resp.diagnostics)
}

pub(super) async fn call_function<P: Provider>(
    p: &P,
    req: pb::call_function::Request,
) -> pb::call_function::Response {
    let resp = p
        .call_function(CallFunctionRequest {
            name: req.name,
            arguments: req
                .arguments
                .into_iter()
                .map(|v| convert::dynamic_value(Some(v)))
                .collect(),
        })
        .await;
    match resp.error {
        Some(error) => pb::call_function::Response {
            result: None,
            error: Some(pb::FunctionError {
                text: convert::shown(error.text),
                function_argument: error.function_argument,
            }),
        },
        None => pb::call_function::Response {
            // A result is always sent: an absent one reads as a missing value, not null.
            result: Some(pb::DynamicValue {
                msgpack: resp.result.msgpack,
                json: resp.result.json,
            }),
            error: None,
        },
    }
}

fn function(f: &Function) -> pb::Function {
    pb::Function {
        parameters: f.parameters.iter().map(parameter).collect(),
        variadic_parameter: f.variadic_parameter.as_ref().map(parameter),
        r#return: Some(pb::function::Return {
            r#type: f.return_type.to_json_string().into_bytes(),
        }),
        summary: f.summary.clone(),
        description: f.description.clone(),
        description_kind: convert::string_kind(f.description_kind),
        deprecation_message: f.deprecation_message.clone(),
    }
}

fn parameter(p: &Parameter) -> pb::function::Parameter {
    pb::function::Parameter {
        name: p.name.clone(),
        r#type: p.ty.to_json_string().into_bytes(),
        allow_null_value: p.allow_null_value,
        allow_unknown_values: p.allow_unknown_values,
        description: p.description.clone(),
        description_kind: convert::string_kind(p.description_kind),
    }
}
