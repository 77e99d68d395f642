//! `random_string`: a random string from chosen character classes.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::{at_least, at_least_sum_of};

use crate::keepers;
use crate::rng::Rng;

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NUMERIC: &str = "0123456789";
const SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";

pub(crate) struct RandomString;

/// The generation parameters of a `random_string` or `random_password`.
pub(crate) struct Params {
    pub(crate) length: i64,
    lower: bool,
    upper: bool,
    numeric: bool,
    special: bool,
    min_lower: i64,
    min_upper: i64,
    min_numeric: i64,
    min_special: i64,
    override_special: Option<String>,
}

impl Params {
    pub(crate) fn from(value: &Value) -> Result<Params, Diagnostic> {
        let flag = |name: &str| value.get_bool(name).map(|b| b.unwrap_or(true));
        let min = |name: &str| value.get_i64(name).map(|n| n.unwrap_or(0));
        Ok(Params {
            length: value.get_i64("length")?.unwrap_or(0),
            lower: flag("lower")?,
            upper: flag("upper")?,
            numeric: flag("numeric")?,
            special: flag("special")?,
            min_lower: min("min_lower")?,
            min_upper: min("min_upper")?,
            min_numeric: min("min_numeric")?,
            min_special: min("min_special")?,
            override_special: value.get_string("override_special")?,
        })
    }

    pub(crate) fn generate(&self, rng: &mut Rng) -> Result<String, Diagnostic> {
        let special = self
            .override_special
            .clone()
            .unwrap_or_else(|| SPECIAL.to_owned());
        let classes: [(bool, i64, Vec<char>); 4] = [
            (self.lower, self.min_lower, LOWER.chars().collect()),
            (self.upper, self.min_upper, UPPER.chars().collect()),
            (self.numeric, self.min_numeric, NUMERIC.chars().collect()),
            (self.special, self.min_special, special.chars().collect()),
        ];
        let mut all = Vec::new();
        let mut chars = Vec::new();
        for (enabled, minimum, set) in &classes {
            if *enabled && !set.is_empty() {
                all.extend(set.iter().copied());
                for _ in 0..*minimum {
                    chars.push(*rng.pick(set));
                }
            }
        }
        if all.is_empty() {
            return Err(Diagnostic::error(
                "No characters to choose from",
                "At least one of lower, upper, numeric and special must be true (with a non-empty override_special for special).",
            ));
        }
        while (chars.len() as i64) < self.length {
            chars.push(*rng.pick(&all));
        }
        rng.shuffle(&mut chars);
        Ok(chars.into_iter().collect())
    }
}

/// A character-class flag: default true, replaces on change.
pub(crate) fn class(name: &str, what: &str) -> Attr {
    Attr::bool(name)
        .default(true)
        .requires_replace()
        .description(&format!("Include {what} in the result."))
}

/// The generation attributes `random_string` and `random_password` share (all but
/// `numeric`, which `random_password` pairs with its deprecated `number`).
pub(crate) fn generation_attrs(schema: ResourceSchema) -> ResourceSchema {
    let min = |name: &str, what: &str| {
        Attr::number(name)
            .default(0)
            .requires_replace()
            .validate(at_least(0))
            .description(&format!("Minimum number of {what} in the result."))
    };
    schema
        .attr(
            Attr::number("length")
                .required()
                .requires_replace()
                .validate(at_least(1))
                .description("The length of the result."),
        )
        .attr(class("special", "special characters"))
        .attr(class("upper", "uppercase letters"))
        .attr(class("lower", "lowercase letters"))
        .attr(min("min_numeric", "digits"))
        .attr(min("min_upper", "uppercase letters"))
        .attr(min("min_lower", "lowercase letters"))
        .attr(min("min_special", "special characters"))
        .attr(
            Attr::string("override_special")
                .optional()
                .requires_replace()
                .description("Special characters to use instead of the default set."),
        )
        .validate(at_least_sum_of(
            "length",
            &["min_numeric", "min_upper", "min_lower", "min_special"],
        ))
}

impl Resource for RandomString {
    fn type_name(&self) -> &'static str {
        "random_string"
    }

    fn schema(&self) -> ResourceSchema {
        generation_attrs(
            ResourceSchema::new()
                .description("A random string of the chosen character classes. Not suitable for secrets: it is stored in plain text.")
                .attr(keepers()),
        )
        .attr(class("numeric", "digits"))
        .attr(Attr::string("result").computed().description("The generated random string."))
        .attr(Attr::string("id").computed().description("The generated random string."))
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let params = Params::from(planned)?;
        let result = params.generate(&mut Rng::secure())?;
        // Never log the value itself: it may be used as a secret.
        tfwasm_sdk::log::debug(
            "generated random_string",
            &[("length", &params.length.to_string())],
        );
        Ok(planned
            .clone()
            .with("result", result.clone())
            .with("id", result))
    }

    /// A `moved` block from a `random_password` keeps its value (see [`crate::moves`]).
    fn movers(&self) -> Vec<StateMover> {
        vec![crate::moves::from_password()]
    }

    /// The import ID is the string itself; the other attributes take their defaults.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        if id.is_empty() {
            return Err(Diagnostic::error(
                "Invalid import ID",
                "The import ID of random_string is the string itself; it must not be empty.",
            ));
        }
        let mut state = self.schema().null_object();
        for (name, value) in [
            ("length", Value::from(id.chars().count() as i64)),
            ("special", true.into()),
            ("upper", true.into()),
            ("lower", true.into()),
            ("numeric", true.into()),
            ("min_numeric", 0.into()),
            ("min_upper", 0.into()),
            ("min_lower", 0.into()),
            ("min_special", 0.into()),
            ("result", id.into()),
            ("id", id.into()),
        ] {
            state.set(name, value);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(length: i64) -> Params {
        Params {
            length,
            lower: true,
            upper: false,
            numeric: true,
            special: false,
            min_lower: 0,
            min_upper: 0,
            min_numeric: 3,
            min_special: 0,
            override_special: None,
        }
    }

    #[test]
    fn respects_length_classes_and_minimums() {
        let s = params(12).generate(&mut Rng::from_seed("t")).unwrap();
        assert_eq!(s.chars().count(), 12);
        assert!(
            s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
            "{s}"
        );
        assert!(s.chars().filter(char::is_ascii_digit).count() >= 3, "{s}");
    }

    #[test]
    fn no_classes_is_an_error() {
        let mut p = params(4);
        p.lower = false;
        p.numeric = false;
        assert!(p.generate(&mut Rng::from_seed("t")).is_err());
    }
}
