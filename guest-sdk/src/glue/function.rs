//! The function family: CallFunction.

use super::*;

/// `call-function`: decodes each argument with its parameter's type, runs the function and
/// encodes the result with the return type. Problems the SDK finds name the argument.
pub fn call_function(
    c: &Catalog,
    _ctx: wit::ProviderContext,
    name: String,
    arguments: Vec<Vec<u8>>,
) -> Result<Vec<u8>, wit::FunctionError> {
    crate::log::reset_masks();
    let error = |text: String, argument: Option<usize>| wit::FunctionError {
        text,
        argument: argument.and_then(|i| u32::try_from(i).ok()),
    };
    let function = c
        .functions
        .iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| error(tfwasm_model::rpc::no_such_function(&name), None))?;
    let signature = function.signature();
    let positional = signature.parameters.len();
    let takes = format!(
        "{}{positional} argument{}",
        if signature.variadic.is_some() {
            "at least "
        } else {
            ""
        },
        if positional == 1 { "" } else { "s" }
    );
    if arguments.len() < positional
        || (signature.variadic.is_none() && arguments.len() > positional)
    {
        return Err(error(
            format!("{name} takes {takes}, got {}", arguments.len()),
            None,
        ));
    }
    // The count is right, so every argument has its parameter: positional ones in order,
    // then the variadic one for the rest.
    let params = signature
        .parameters
        .iter()
        .chain(signature.variadic.iter().cycle());
    let mut values = Vec::with_capacity(arguments.len());
    for (index, (bytes, param)) in arguments.iter().zip(params).enumerate() {
        let value = decode(bytes, &param.ty, &format!("argument {:?}", param.name))
            .map_err(|d| error(d.detail, Some(index)))?;
        values.push(value);
    }
    let args = Arguments { values, positional };
    let result = function.call(&args).map_err(|e| wit::FunctionError {
        text: e.text,
        argument: e.argument,
    })?;
    encode(&result, &signature.return_type, "function result").map_err(|d| error(d.detail, None))
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self};

    impl FunctionServer for NativeProvider {
        async fn get_functions(&self) -> GetFunctionsResponse {
            GetFunctionsResponse {
                functions: self
                    .inner
                    .provider()
                    .functions()
                    .iter()
                    .map(|f| (f.name().to_owned(), f.signature().to_wire()))
                    .collect(),
                diagnostics: Vec::new(),
            }
        }

        async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
            let arguments = req.arguments.into_iter().map(|a| a.msgpack).collect();
            match glue::call_function(self.p(), self.ctx(), req.name, arguments) {
                Ok(result) => CallFunctionResponse {
                    result: dv(result),
                    error: None,
                },
                Err(e) => CallFunctionResponse::error(e.text, e.argument.map(i64::from)),
            }
        }
    }
}
