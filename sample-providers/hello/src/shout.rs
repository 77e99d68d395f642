//! `hello_shout` (data source) and `provider::hello::shout` (function): text in capitals.

use tfwasm_sdk::prelude::*;

pub(crate) struct ShoutData;

impl DataSource for ShoutData {
    fn type_name(&self) -> &'static str {
        "hello_shout"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("The text in capitals.")
            .attr(Attr::string("text").required())
            .attr(Attr::string("result").computed())
    }

    fn read(&self, _ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        let text = config.get_string("text")?.unwrap_or_default();
        Ok(config.clone().with("result", text.to_uppercase()))
    }
}

pub(crate) struct ShoutFunction;

impl Function for ShoutFunction {
    fn name(&self) -> &'static str {
        "shout"
    }

    fn signature(&self) -> Signature {
        Signature::returns(Type::String)
            .summary("Capitals.")
            .parameter(Param::new("text", Type::String))
    }

    fn call(&self, args: &Arguments) -> Result<Value, FunctionError> {
        let text: String = args.get(0)?;
        Ok(Value::from(text.to_uppercase()))
    }
}
