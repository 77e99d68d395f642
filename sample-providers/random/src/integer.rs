//! `random_integer`: a random integer in `[min, max]`.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::whole_number;

use crate::keepers;
use crate::rng::Rng;

pub(crate) struct RandomInteger;

fn generate(min: i64, max: i64, seed: Option<&str>) -> Result<i64, Diagnostic> {
    if max < min {
        return Err(Diagnostic::error(
            "Invalid range",
            format!("min ({min}) must not be greater than max ({max})."),
        ));
    }
    let mut rng = seed.map_or(Rng::secure(), Rng::from_seed);
    let span = (max as i128 - min as i128 + 1) as u128;
    let offset = if span > u128::from(u64::MAX) {
        rng.next_u64()
    } else {
        rng.below(span as u64)
    };
    Ok((min as i128 + offset as i128) as i64)
}

impl Resource for RandomInteger {
    fn type_name(&self) -> &'static str {
        "random_integer"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A random integer in a range, inclusive.")
            .attr(keepers())
            .attr(
                Attr::number("min")
                    .required()
                    .requires_replace()
                    .validate(whole_number())
                    .description("The minimum inclusive value of the range."),
            )
            .attr(
                Attr::number("max")
                    .required()
                    .requires_replace()
                    .validate(whole_number())
                    .description("The maximum inclusive value of the range."),
            )
            .attr(
                Attr::string("seed")
                    .optional()
                    .requires_replace()
                    .description("A custom seed to always produce the same value."),
            )
            .attr(
                Attr::number("result")
                    .computed()
                    .description("The random integer result."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .description("The string representation of the integer result."),
            )
    }

    fn validate(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        match (config.attr("min").as_i64(), config.attr("max").as_i64()) {
            (Some(min), Some(max)) if max < min => vec![
                Diagnostic::error(
                    "Invalid range",
                    format!("min ({min}) must not be greater than max ({max})."),
                )
                .at(AttributePath::attribute("max")),
            ],
            _ => Vec::new(),
        }
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let min = planned.get_i64("min")?.unwrap_or(0);
        let max = planned.get_i64("max")?.unwrap_or(0);
        let result = generate(min, max, planned.get_string("seed")?.as_deref())?;
        Ok(planned
            .clone()
            .with("result", result)
            .with("id", result.to_string()))
    }

    /// Import ID: `result,min,max` or `result,min,max,seed`.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        let parts: Vec<&str> = id.split(',').collect();
        let bad = || {
            Diagnostic::error(
                "Invalid import ID",
                format!(
                    "Expected \"result,min,max\" or \"result,min,max,seed\" with integers, got {id:?}."
                ),
            )
        };
        if parts.len() != 3 && parts.len() != 4 {
            return Err(bad());
        }
        let numbers: Vec<i64> = parts[..3]
            .iter()
            .map(|p| p.trim().parse::<i64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let (result, min, max) = (numbers[0], numbers[1], numbers[2]);
        if result < min || result > max {
            return Err(Diagnostic::error(
                "Invalid import ID",
                format!("result {result} is outside [{min}, {max}]."),
            ));
        }
        let mut state = self.schema().null_object();
        state.set("result", result.into());
        state.set("min", min.into());
        state.set("max", max.into());
        state.set("id", result.to_string().into());
        if let Some(seed) = parts.get(3) {
            state.set("seed", (*seed).into());
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_in_range_and_seed_is_reproducible() {
        for _ in 0..100 {
            let n = generate(-3, 3, Some("s")).unwrap();
            assert!((-3..=3).contains(&n));
        }
        assert_eq!(
            generate(1, 1_000_000, Some("abc")).unwrap(),
            generate(1, 1_000_000, Some("abc")).unwrap()
        );
        assert!(generate(i64::MIN, i64::MAX, Some("x")).is_ok());
        assert!(generate(5, 1, None).is_err());
    }
}
