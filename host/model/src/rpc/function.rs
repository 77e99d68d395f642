//! The function family (tfplugin6.5, Terraform 1.8, OpenTofu 1.7): provider-defined functions,
//! listed by GetFunctions (and in GetProviderSchema) and run by CallFunction. Clients may call
//! them on a provider that was never configured.

use std::collections::BTreeMap;
use std::future::Future;

use super::DynamicValue;
use crate::{Diagnostics, StringKind, Type};

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_function {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Function {
        GetFunctions {
            guest: false,
            wire: derived,
            method: [get_functions() -> GetFunctionsResponse; NoRequest {}],
            subject: |_req| "",
            request: {},
            response: { functions: Plain, diagnostics: Diagnostics },
        }
        CallFunction {
            guest: true,
            wire: derived,
            method: [call_function(req: CallFunctionRequest) -> CallFunctionResponse],
            subject: |req| &req.name,
            request: { name: Plain, arguments: Arguments },
            response: { result: FunctionResult, error: FunctionError },
        }
    } } };
}

/// One provider-defined function's signature and documentation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Function {
    /// Positional parameters, in order.
    pub parameters: Vec<Parameter>,
    /// The parameter every argument after the positional ones binds to, if any.
    pub variadic_parameter: Option<Parameter>,
    /// Type of the result.
    pub return_type: Type,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
    /// Format of `description`.
    pub description_kind: StringKind,
    /// Non-empty when the function is deprecated: what to use instead.
    pub deprecation_message: String,
}

/// A function parameter.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Parameter {
    /// Name, shown in errors and documentation.
    pub name: String,
    /// Type the argument is converted to before the call.
    pub ty: Type,
    /// Null arguments reach the function instead of being rejected by Terraform.
    pub allow_null_value: bool,
    /// Unknown arguments reach the function; otherwise Terraform skips the call and the
    /// result is unknown.
    pub allow_unknown_values: bool,
    /// Description.
    pub description: String,
    /// Format of `description`.
    pub description_kind: StringKind,
}

impl Function {
    /// The parameter argument `index` binds to, if any.
    pub fn parameter(&self, index: usize) -> Option<&Parameter> {
        self.parameters
            .get(index)
            .or(self.variadic_parameter.as_ref())
    }

    /// Whether any parameter lets an unknown argument through, in which case the result may
    /// be unknown too.
    pub fn allows_unknown(&self) -> bool {
        self.parameters
            .iter()
            .chain(&self.variadic_parameter)
            .any(|p| p.allow_unknown_values)
    }
}

/// GetFunctions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GetFunctionsResponse {
    /// Functions by name.
    pub functions: BTreeMap<String, Function>,
    /// Problems.
    pub diagnostics: Diagnostics,
}

/// CallFunction.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallFunctionRequest {
    /// The function's name.
    pub name: String,
    /// One value per argument, each encoded with its parameter's type (variadic arguments
    /// with the variadic parameter's type, not wrapped in a list).
    pub arguments: Vec<DynamicValue>,
}

/// A function's result or error.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallFunctionResponse {
    /// The result, encoded with the return type; empty when `error` is set.
    pub result: DynamicValue,
    /// Why the call failed.
    pub error: Option<FunctionError>,
}

impl CallFunctionResponse {
    /// A failed call.
    pub fn error(text: impl Into<String>, function_argument: Option<i64>) -> CallFunctionResponse {
        CallFunctionResponse {
            result: DynamicValue::default(),
            error: Some(FunctionError {
                text: text.into(),
                function_argument,
            }),
        }
    }
}

/// A function call's failure, shown by Terraform at the call (or at one argument).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FunctionError {
    /// What went wrong.
    pub text: String,
    /// Index of the argument at fault, counted across positional and variadic arguments.
    pub function_argument: Option<i64>,
}

/// The error text of a call to a function the provider does not have.
pub fn no_such_function(name: &str) -> String {
    format!("this provider has no function named {name:?}")
}

/// GetFunctions and CallFunction.
///
/// A provider without functions implements [`NoFunctions`] instead, which answers for it;
/// a wrapper (like the contract checks) implements this trait itself, so it cannot forget
/// to forward a call.
pub trait FunctionServer: Send + Sync + 'static {
    /// GetFunctions; also the `functions` of GetProviderSchema.
    fn get_functions(&self) -> impl Future<Output = GetFunctionsResponse> + Send;

    /// CallFunction.
    fn call_function(
        &self,
        req: CallFunctionRequest,
    ) -> impl Future<Output = CallFunctionResponse> + Send;
}

/// Marks a provider that defines no functions: GetFunctions lists none and CallFunction
/// answers with an error naming the function.
pub trait NoFunctions: Send + Sync + 'static {}

impl<T: NoFunctions> FunctionServer for T {
    async fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse::default()
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        CallFunctionResponse::error(no_such_function(&req.name), None)
    }
}
