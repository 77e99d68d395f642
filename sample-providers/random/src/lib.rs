//! # tfwasm-sample-random
//!
//! hashicorp/random's `random_string`, `random_password`, `random_integer`, `random_id`,
//! `random_pet`, `random_shuffle` and `random_uuid`, written with `tfwasm-sdk` and compiled to a `wasm32-wasip2` component. Attribute names,
//! defaults, replacement behaviour and import ID formats follow hashicorp/random.
//!
//! Differences from hashicorp/random: `random_integer` with a `seed` is deterministic for the
//! same seed (as hashicorp's is) but does not reproduce Go's `math/rand` sequence, and
//! `random_pet` uses its own word lists; seeded `random_shuffle` is likewise repeatable but
//! not Go's sequence.

mod bytes;
mod ephemeral_password;
mod id;
mod integer;
mod moves;
mod password;
mod pet;
mod rng;
mod shuffle;
mod string;
mod uuid;

use tfwasm_sdk::prelude::*;

/// The provider: no configuration, eight resources, one ephemeral resource.
pub struct RandomProvider;

impl Provider for RandomProvider {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![
            Box::new(string::RandomString),
            Box::new(password::RandomPassword),
            Box::new(integer::RandomInteger),
            Box::new(id::RandomId),
            Box::new(pet::RandomPet),
            Box::new(shuffle::RandomShuffle),
            Box::new(uuid::RandomUuid),
            Box::new(bytes::RandomBytes),
        ]
    }

    fn ephemeral_resources(&self) -> Vec<Box<dyn EphemeralResource>> {
        vec![Box::new(ephemeral_password::EphemeralPassword)]
    }
}

tfwasm_sdk::export_provider!(RandomProvider);

/// The `keepers` attribute every resource has: arbitrary map whose change forces a new value.
pub(crate) fn keepers() -> Attr {
    Attr::map("keepers", Type::String)
        .optional()
        .requires_replace()
        .description(
            "Arbitrary map of values that, when changed, will trigger recreation of the resource.",
        )
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&super::RandomProvider),
            Vec::<String>::new()
        );
    }
}
