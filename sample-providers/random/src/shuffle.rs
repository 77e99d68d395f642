//! `random_shuffle`: a random permutation of a list of strings, optionally of a chosen length.

use std::collections::BTreeMap;

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::at_least;

use crate::keepers;
use crate::rng::Rng;

pub(crate) struct RandomShuffle;

/// A `random_shuffle` as a model: `Tf` where planning leaves values unknown.
#[derive(Debug, Serialize, Deserialize)]
struct Shuffle {
    keepers: Option<BTreeMap<String, String>>,
    input: Vec<String>,
    seed: Option<String>,
    result_count: Option<i64>,
    result: Tf<Vec<String>>,
    id: Tf<String>,
}

/// `count` elements drawn from permutations of `input`, one permutation after another
/// (so a count above the input's length repeats elements), as hashicorp/random does.
fn shuffle(input: &[String], count: usize, rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::with_capacity(count);
    if input.is_empty() {
        return out;
    }
    while out.len() < count {
        let mut perm: Vec<&String> = input.iter().collect();
        rng.shuffle(&mut perm);
        out.extend(perm.into_iter().take(count - out.len()).cloned());
    }
    out
}

impl Resource for RandomShuffle {
    fn type_name(&self) -> &'static str {
        "random_shuffle"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A random permutation of a list of strings.")
            .attr(keepers())
            .attr(
                Attr::list("input", Type::String)
                    .required()
                    .requires_replace()
                    .description("The list of strings to shuffle."),
            )
            .attr(
                Attr::string("seed")
                    .optional()
                    .requires_replace()
                    .description("Arbitrary string with which to seed the shuffle, for the same result each time."),
            )
            .attr(
                Attr::number("result_count")
                    .optional()
                    .requires_replace()
                    .validate(at_least(0))
                    .description("The number of results to return. Defaults to the number of items in input; more repeats items."),
            )
            .attr(
                Attr::list("result", Type::String)
                    .computed()
                    .description("Random permutation of the list of strings given in input."),
            )
            .attr(Attr::string("id").computed().description("A static value used internally by Terraform; always \"-\"."))
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let schema = self.schema();
        let mut model: Shuffle = schema.decode(planned)?;
        let count = match model.result_count {
            Some(n) => usize::try_from(n).map_err(|_| {
                Diagnostic::error("Invalid result_count", "result_count must not be negative.")
                    .at(AttributePath::attribute("result_count"))
            })?,
            None => model.input.len(),
        };
        let mut rng = model.seed.as_deref().map_or(Rng::secure(), Rng::from_seed);
        model.result = Tf::Known(shuffle(&model.input, count, &mut rng));
        model.id = Tf::Known("-".to_owned());
        schema.encode(&model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("w{i}")).collect()
    }

    #[test]
    fn a_permutation_by_default() {
        let input = words(6);
        let mut out = shuffle(&input, 6, &mut Rng::from_seed("s"));
        out.sort();
        assert_eq!(out, input);
    }

    #[test]
    fn seeded_is_repeatable_and_counts_hold() {
        let input = words(3);
        let a = shuffle(&input, 7, &mut Rng::from_seed("x"));
        assert_eq!(a, shuffle(&input, 7, &mut Rng::from_seed("x")));
        assert_eq!(a.len(), 7);
        for chunk in a.chunks(3).take(2) {
            let mut c = chunk.to_vec();
            c.sort();
            assert_eq!(c, input, "each round is a permutation");
        }
        assert!(shuffle(&[], 3, &mut Rng::from_seed("x")).is_empty());
    }
}
