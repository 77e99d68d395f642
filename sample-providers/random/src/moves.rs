//! `moved` blocks between `random_string` and `random_password`, keeping the value: a string
//! that turned out to be a secret becomes a password without a new value (and back).
//! hashicorp/random users ask for this (terraform-provider-random#770).

use tfwasm_sdk::prelude::*;

use crate::password::{BCRYPT_COST, RandomPassword, bcrypt_hash};
use crate::string::RandomString;

/// `random_string` → `random_password`: the same settings and result, plus its bcrypt hash.
pub(crate) fn from_string() -> StateMover {
    StateMover::from_type("random_string", RandomString.schema(), |ctx, source| {
        let mut state = same_attributes(&source.value, &RandomPassword.schema());
        let result = source.value.attr("result").as_str().unwrap_or_default();
        // From here on the value is a secret.
        tfwasm_sdk::log::mask(result);
        state.set("bcrypt_hash", Value::from(bcrypt_hash(result)?));
        state.set("number", source.value.attr("numeric").clone());
        state.set("id", Value::from("none"));
        ctx.set_private("bcrypt_cost", Some(BCRYPT_COST.into()))?;
        Ok(state)
    })
}

/// `random_password` → `random_string`: the same settings and result; the id is the result.
pub(crate) fn from_password() -> StateMover {
    StateMover::from_type(
        "random_password",
        RandomPassword.schema(),
        |_ctx, source| {
            let mut state = same_attributes(&source.value, &RandomString.schema());
            state.set("id", source.value.attr("result").clone());
            Ok(state)
        },
    )
}

/// `target`'s null object with every attribute `source` has too copied over.
fn same_attributes(source: &Value, target: &ResourceSchema) -> Value {
    let mut out = target.null_object();
    if let Type::Object(attrs) = target.value_type() {
        for name in attrs.keys() {
            if let Some(value) = source.get(name) {
                out.set(name, value.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_sdk::MoveSource;

    fn source(type_name: &str, value: Value) -> MoveSource {
        MoveSource {
            provider_address: "registry.terraform.io/tfwasm/random".into(),
            type_name: type_name.into(),
            schema_version: 0,
            raw: serde_json::Value::Null,
            value,
            identity: None,
        }
    }

    fn string_state() -> Value {
        RandomString
            .schema()
            .null_object()
            .with("length", 8)
            .with("special", false)
            .with("upper", true)
            .with("lower", true)
            .with("numeric", true)
            .with("min_numeric", 0)
            .with("min_upper", 0)
            .with("min_lower", 0)
            .with("min_special", 0)
            .with("result", "abcd1234")
            .with("id", "abcd1234")
    }

    #[test]
    fn a_string_becomes_a_password_with_the_same_value_and_back() {
        let ctx = Context::default();
        let password = from_string()
            .call(&ctx, &source("random_string", string_state()))
            .unwrap()
            .unwrap();
        assert_eq!(password.attr("result"), &Value::from("abcd1234"));
        assert_eq!(password.attr("number"), &Value::Bool(true));
        assert_eq!(password.attr("id"), &Value::from("none"));
        let hash = password.attr("bcrypt_hash").as_str().unwrap();
        assert!(bcrypt::verify("abcd1234", hash).unwrap());

        let string = from_password()
            .call(&ctx, &source("random_password", password))
            .unwrap()
            .unwrap();
        assert_eq!(string, string_state());
    }
}
