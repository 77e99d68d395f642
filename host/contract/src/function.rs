//! CallFunction results: the result conforms to the declared return type and is wholly known
//! unless a parameter lets unknown arguments through; an error names an argument that exists.

use tfwasm_model::AttributePath;
use tfwasm_model::rpc::{CallFunctionResponse, Function};

use crate::results::unknown_paths;
use crate::{Violation, Violations};

/// Checks the answer to a call of `function` with `arguments` arguments.
pub fn check_function_result(
    function: &Function,
    arguments: usize,
    resp: &CallFunctionResponse,
) -> Violations {
    if let Some(error) = &resp.error {
        return match error.function_argument {
            Some(index) if index < 0 || index as u64 >= arguments as u64 => {
                Violations::from(vec![Violation {
                    path: AttributePath::root(),
                    message: format!(
                        "the error names argument {index}, but the call has {arguments} argument{} (counted from 0)",
                        if arguments == 1 { "" } else { "s" }
                    ),
                }])
            }
            _ => Violations::new(),
        };
    }
    // Null is a valid result (the framework lets functions return null).
    let result = match resp.result.decode(&function.return_type) {
        Ok(value) => value,
        Err(e) => {
            return Violations::from(vec![Violation {
                path: e.path.clone(),
                message: format!(
                    "the result does not conform to the return type {}: {}",
                    function.return_type.quoted(),
                    e.message
                ),
            }]);
        }
    };
    if function.allows_unknown() {
        return Violations::new();
    }
    unknown_paths(&result)
        .into_iter()
        .map(|path| Violation {
            path,
            message: "the result is unknown, but no parameter allows unknown arguments, so every argument was known".into(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::rpc::{DynamicValue, Parameter};
    use tfwasm_model::{StringKind, Type, Value};

    fn function(allow_unknown: bool) -> Function {
        Function {
            parameters: vec![Parameter {
                name: "path".into(),
                ty: Type::String,
                allow_null_value: false,
                allow_unknown_values: allow_unknown,
                description: String::new(),
                description_kind: StringKind::Plain,
            }],
            variadic_parameter: None,
            return_type: Type::Bool,
            summary: String::new(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        }
    }

    fn result(value: Value, ty: &Type) -> CallFunctionResponse {
        CallFunctionResponse {
            result: DynamicValue::encode(&value, ty).unwrap(),
            error: None,
        }
    }

    #[test]
    fn a_result_of_the_return_type_passes() {
        assert!(
            check_function_result(&function(false), 1, &result(Value::Bool(true), &Type::Bool))
                .is_empty()
        );
        assert!(
            check_function_result(&function(false), 1, &result(Value::Null, &Type::Bool))
                .is_empty()
        );
    }

    #[test]
    fn a_result_of_another_type_is_a_violation() {
        let v = check_function_result(
            &function(false),
            1,
            &result(Value::from("yes"), &Type::String),
        );
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].message.contains("return type bool:"),
            "{}",
            v[0].message
        );
    }

    #[test]
    fn unknown_results_need_a_parameter_that_allows_unknowns() {
        let unknown = result(Value::unknown(), &Type::Bool);
        let v = check_function_result(&function(false), 1, &unknown);
        assert_eq!(v.len(), 1);
        assert!(v[0].message.contains("no parameter allows unknown"));
        assert!(check_function_result(&function(true), 1, &unknown).is_empty());
    }

    #[test]
    fn an_error_must_name_an_argument_of_the_call() {
        let error = |index| CallFunctionResponse::error("bad", index);
        assert!(check_function_result(&function(false), 1, &error(None)).is_empty());
        assert!(check_function_result(&function(false), 1, &error(Some(0))).is_empty());
        for bad in [1, -1, 7] {
            let v = check_function_result(&function(false), 1, &error(Some(bad)));
            assert_eq!(v.len(), 1, "{bad}");
            assert!(
                v[0].message.contains(&format!("argument {bad}")),
                "{}",
                v[0].message
            );
        }
    }
}
