//! Ephemeral `random_password` (hashicorp/random 3.7): the same arguments as the resource, a
//! `result` and its `bcrypt_hash`, generated on every Terraform run and never stored. Feed
//! it to write-only attributes (`password_wo`) or provider blocks.

use tfwasm_sdk::prelude::*;

use crate::password::{bcrypt_hash, bcrypt_hash_attr, result};
use crate::rng::Rng;
use crate::string::{Params, class, generation_attrs};

pub(crate) struct EphemeralPassword;

impl EphemeralResource for EphemeralPassword {
    fn type_name(&self) -> &'static str {
        "random_password"
    }

    fn schema(&self) -> ResourceSchema {
        generation_attrs(ResourceSchema::new().markdown_description(
            "Generates a password on every run without storing it in state or plan: use it for write-only attributes and provider configuration.",
        ))
        .attr(class("numeric", "digits"))
        .attr(result())
        .attr(bcrypt_hash_attr())
    }

    fn open(&self, _ctx: &Context, config: &Value) -> Result<Opened, Diagnostic> {
        let params = Params::from(config)?;
        let result = params.generate(&mut Rng::secure())?;
        tfwasm_sdk::log::mask(&result);
        let hash = bcrypt_hash(&result)?;
        Ok(Opened::new(
            config
                .clone()
                .with("result", result)
                .with("bcrypt_hash", hash),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_a_password_of_the_configured_shape_with_its_hash() {
        let config = EphemeralPassword
            .schema()
            .null_object()
            .with("length", 24)
            .with("special", false)
            .with("upper", true)
            .with("lower", true)
            .with("numeric", true)
            .with("min_numeric", 2)
            .with("min_upper", 0)
            .with("min_lower", 0)
            .with("min_special", 0);
        let opened = EphemeralPassword
            .open(&Context::default(), &config)
            .unwrap();
        let result = opened.result.attr("result").as_str().unwrap().to_owned();
        assert_eq!(result.chars().count(), 24);
        assert!(result.chars().all(char::is_alphanumeric), "{result}");
        assert!(result.chars().filter(char::is_ascii_digit).count() >= 2);
        let hash = opened.result.attr("bcrypt_hash").as_str().unwrap();
        assert!(bcrypt::verify(&result, hash).unwrap());
        assert_eq!(opened.renew_at, None);
    }
}
