//! Provider-defined functions (Terraform >= 1.8, OpenTofu >= 1.7): `provider::NAME::FN(...)`
//! in a configuration. A function is pure: same arguments, same result. Terraform may call it
//! before the provider is configured, so a function must not depend on provider configuration.
//!
//! ```
//! use tfwasm_sdk::prelude::*;
//!
//! struct Upper;
//!
//! impl Function for Upper {
//!     fn name(&self) -> &'static str {
//!         "upper"
//!     }
//!     fn signature(&self) -> Signature {
//!         Signature::returns(Type::String)
//!             .summary("Upper-cases a string")
//!             .parameter(Param::new("text", Type::String))
//!     }
//!     fn call(&self, args: &Arguments) -> Result<Value, FunctionError> {
//!         let text: String = args.get(0)?;
//!         Ok(Value::from(text.to_uppercase()))
//!     }
//! }
//! ```

use serde::de::DeserializeOwned;
use tfwasm_model::{StringKind, Type, Value};

/// A provider-defined function.
pub trait Function: Send + Sync {
    /// Name as called: `provider::TYPE::NAME(...)`. Lower case, digits and underscores.
    fn name(&self) -> &'static str;
    /// Parameters, return type and documentation.
    fn signature(&self) -> Signature;
    /// Runs the function. Arguments were converted to their parameter types by Terraform;
    /// null or unknown ones arrive only where the parameter allows them.
    ///
    /// # Errors
    /// A [`FunctionError`], optionally naming the argument at fault.
    fn call(&self, args: &Arguments) -> Result<Value, FunctionError>;
}

/// A function's parameters, return type and documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub(crate) parameters: Vec<Param>,
    pub(crate) variadic: Option<Param>,
    pub(crate) return_type: Type,
    pub(crate) summary: String,
    pub(crate) description: String,
    pub(crate) description_kind: StringKind,
    pub(crate) deprecation_message: String,
}

impl Signature {
    /// A function returning `return_type`, with no parameters yet.
    pub fn returns(return_type: Type) -> Signature {
        Signature {
            parameters: Vec::new(),
            variadic: None,
            return_type,
            summary: String::new(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        }
    }
    /// Adds the next positional parameter.
    pub fn parameter(mut self, param: Param) -> Signature {
        self.parameters.push(param);
        self
    }
    /// Binds every argument after the positional ones to `param` (zero or more of them).
    pub fn variadic(mut self, param: Param) -> Signature {
        self.variadic = Some(param);
        self
    }
    /// One-line summary.
    pub fn summary(mut self, text: impl Into<String>) -> Signature {
        self.summary = text.into();
        self
    }
    /// Longer description (plain text).
    pub fn description(mut self, text: impl Into<String>) -> Signature {
        self.description = text.into();
        self
    }
    /// Longer description in Markdown.
    pub fn markdown_description(mut self, text: impl Into<String>) -> Signature {
        self.description = text.into();
        self.description_kind = StringKind::Markdown;
        self
    }
    /// Marks the function deprecated, saying what to use instead.
    pub fn deprecated(mut self, message: impl Into<String>) -> Signature {
        self.deprecation_message = message.into();
        self
    }

    /// The signature in protocol form (as GetFunctions sends it).
    pub fn to_wire(&self) -> tfwasm_model::rpc::Function {
        let param = |p: &Param| tfwasm_model::rpc::Parameter {
            name: p.name.clone(),
            ty: p.ty.clone(),
            allow_null_value: p.allow_null,
            allow_unknown_values: p.allow_unknown,
            description: p.description.clone(),
            description_kind: p.description_kind,
        };
        tfwasm_model::rpc::Function {
            parameters: self.parameters.iter().map(param).collect(),
            variadic_parameter: self.variadic.as_ref().map(param),
            return_type: self.return_type.clone(),
            summary: self.summary.clone(),
            description: self.description.clone(),
            description_kind: self.description_kind,
            deprecation_message: self.deprecation_message.clone(),
        }
    }
}

/// A function parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) allow_null: bool,
    pub(crate) allow_unknown: bool,
    pub(crate) description: String,
    pub(crate) description_kind: StringKind,
}

impl Param {
    /// A parameter `name` of type `ty`; Terraform rejects null and skips the call (the result
    /// is unknown) for unknown arguments unless allowed below.
    pub fn new(name: impl Into<String>, ty: Type) -> Param {
        Param {
            name: name.into(),
            ty,
            allow_null: false,
            allow_unknown: false,
            description: String::new(),
            description_kind: StringKind::Plain,
        }
    }
    /// Null arguments reach the function.
    pub fn allow_null(mut self) -> Param {
        self.allow_null = true;
        self
    }
    /// Unknown arguments reach the function, which may then return an unknown result.
    pub fn allow_unknown(mut self) -> Param {
        self.allow_unknown = true;
        self
    }
    /// Description (plain text).
    pub fn description(mut self, text: impl Into<String>) -> Param {
        self.description = text.into();
        self
    }
}

/// The arguments of one call, decoded with their parameter types.
#[derive(Debug, Clone)]
pub struct Arguments {
    pub(crate) values: Vec<Value>,
    pub(crate) positional: usize,
}

impl Arguments {
    /// Arguments as given (for tests of a function outside Terraform).
    pub fn new(values: Vec<Value>, signature: &Signature) -> Arguments {
        Arguments {
            values,
            positional: signature.parameters.len(),
        }
    }

    /// Argument `index` as a model type (see [`crate::typed`]): `String`, `i64`, `bool`,
    /// `Option<T>` for a parameter that allows null, a serde struct for an object...
    ///
    /// # Errors
    /// The argument is missing or does not fit `T`; the error names the argument.
    pub fn get<T: DeserializeOwned>(&self, index: usize) -> Result<T, FunctionError> {
        let value = self.values.get(index).ok_or_else(|| {
            FunctionError::new(format!(
                "missing argument {index}; this is a bug in the provider"
            ))
        })?;
        crate::typed::from_value(value)
            .map_err(|e| FunctionError::argument(index, e.into_diagnostic().detail))
    }

    /// Argument `index` as a value (null or unknown where the parameter allows it).
    pub fn value(&self, index: usize) -> Option<&Value> {
        self.values.get(index)
    }

    /// The arguments bound to the variadic parameter (empty without one).
    pub fn variadic(&self) -> &[Value] {
        self.values.get(self.positional..).unwrap_or_default()
    }

    /// How many arguments the call has.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the call has no arguments.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Why a function call failed: shown by Terraform at the call, or at one argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    /// What went wrong, for the user.
    pub text: String,
    /// The argument at fault, counted from 0 across positional and variadic arguments.
    pub argument: Option<u32>,
}

impl FunctionError {
    /// An error about the call as a whole.
    pub fn new(text: impl Into<String>) -> FunctionError {
        FunctionError {
            text: text.into(),
            argument: None,
        }
    }

    /// An error about argument `index`.
    pub fn argument(index: usize, text: impl Into<String>) -> FunctionError {
        FunctionError {
            text: text.into(),
            argument: Some(u32::try_from(index).unwrap_or(u32::MAX)),
        }
    }
}

impl std::fmt::Display for FunctionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.argument {
            Some(index) => write!(f, "argument {index}: {}", self.text),
            None => f.write_str(&self.text),
        }
    }
}

impl std::error::Error for FunctionError {}
