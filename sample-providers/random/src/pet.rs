//! `random_pet`: a random, readable name such as `quietly-brave-otter`.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::at_least;

use crate::keepers;
use crate::rng::Rng;

pub(crate) struct RandomPet;

const ADVERBS: &[&str] = &[
    "boldly",
    "briskly",
    "calmly",
    "cheerfully",
    "closely",
    "deeply",
    "eagerly",
    "evenly",
    "fairly",
    "freely",
    "gently",
    "gladly",
    "greatly",
    "happily",
    "highly",
    "honestly",
    "kindly",
    "lightly",
    "loudly",
    "mildly",
    "neatly",
    "nicely",
    "openly",
    "partly",
    "politely",
    "quickly",
    "quietly",
    "rapidly",
    "rarely",
    "really",
    "safely",
    "sharply",
    "simply",
    "slowly",
    "smoothly",
    "softly",
    "steadily",
    "surely",
    "swiftly",
    "truly",
    "vastly",
    "warmly",
    "wildly",
    "wisely",
];

const ADJECTIVES: &[&str] = &[
    "able", "amazing", "ample", "apt", "awake", "bold", "brave", "bright", "busy", "calm",
    "careful", "clever", "cosmic", "crisp", "curious", "daring", "eager", "easy", "epic", "fair",
    "fancy", "fast", "fine", "fond", "free", "fresh", "friendly", "gentle", "glad", "golden",
    "good", "grand", "happy", "hardy", "humble", "jolly", "keen", "kind", "lively", "loyal",
    "lucky", "merry", "mighty", "modest", "neat", "nice", "noble", "patient", "polite", "proud",
    "quick", "quiet", "rapid", "ready", "sharp", "shiny", "smart", "smooth", "solid", "steady",
    "sunny", "super", "sure", "swift", "tidy", "tough", "valid", "vivid", "warm", "wise",
];

const NAMES: &[&str] = &[
    "albatross",
    "alpaca",
    "badger",
    "beagle",
    "beaver",
    "bison",
    "bobcat",
    "buffalo",
    "camel",
    "caribou",
    "cheetah",
    "chipmunk",
    "cobra",
    "cougar",
    "coyote",
    "crane",
    "dingo",
    "dolphin",
    "donkey",
    "eagle",
    "eel",
    "elk",
    "falcon",
    "ferret",
    "finch",
    "fox",
    "gazelle",
    "gecko",
    "gibbon",
    "giraffe",
    "gopher",
    "heron",
    "hippo",
    "husky",
    "ibex",
    "iguana",
    "impala",
    "jackal",
    "jaguar",
    "koala",
    "lemur",
    "leopard",
    "lion",
    "llama",
    "lynx",
    "marmot",
    "mole",
    "moose",
    "narwhal",
    "ocelot",
    "octopus",
    "orca",
    "osprey",
    "otter",
    "panda",
    "panther",
    "parrot",
    "pelican",
    "penguin",
    "puffin",
    "puma",
    "quail",
    "rabbit",
    "raven",
    "salmon",
    "seal",
    "shark",
    "sloth",
    "squid",
    "swan",
    "tapir",
    "tiger",
    "toucan",
    "turtle",
    "walrus",
    "weasel",
    "whale",
    "wombat",
    "yak",
    "zebra",
];

/// `length` words: adverbs, then one adjective, then a name (as hashicorp's petname does).
fn pet_name(length: i64, separator: &str, prefix: Option<&str>, rng: &mut Rng) -> String {
    let mut words: Vec<&str> = Vec::new();
    if let Some(prefix) = prefix {
        words.push(prefix);
    }
    let length = length.max(1);
    for _ in 0..(length - 2).max(0) {
        words.push(*rng.pick(ADVERBS));
    }
    if length >= 2 {
        words.push(*rng.pick(ADJECTIVES));
    }
    words.push(*rng.pick(NAMES));
    words.join(separator)
}

impl Resource for RandomPet {
    fn type_name(&self) -> &'static str {
        "random_pet"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A random pet name, handy for unique names of things.")
            .attr(keepers())
            .attr(
                Attr::number("length")
                    .default(2)
                    .requires_replace()
                    .validate(at_least(1))
                    .description("The number of words in the pet name."),
            )
            .attr(
                Attr::string("prefix")
                    .optional()
                    .requires_replace()
                    .description("A string to prefix the name with."),
            )
            .attr(
                Attr::string("separator")
                    .default("-")
                    .requires_replace()
                    .description("The character to separate words in the pet name."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .description("The random pet name."),
            )
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let length = planned.get_i64("length")?.unwrap_or(2);
        let separator = planned
            .get_string("separator")?
            .unwrap_or_else(|| "-".to_owned());
        let prefix = planned.get_string("prefix")?;
        let name = pet_name(length, &separator, prefix.as_deref(), &mut Rng::secure());
        Ok(planned.clone().with("id", name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_count_and_separator() {
        let mut rng = Rng::from_seed("pet");
        assert_eq!(pet_name(3, "_", None, &mut rng).split('_').count(), 3);
        assert_eq!(pet_name(1, "-", None, &mut rng).split('-').count(), 1);
        assert!(pet_name(2, "-", Some("app"), &mut rng).starts_with("app-"));
    }
}
