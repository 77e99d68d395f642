//! The object every latency benchmark plans and applies: a `random_string` create with 7
//! keepers, i.e. 13 attributes and 7 map entries, 20 values in all.

use tfwasm_model::{Type, Value};

/// `(config, planned)` of a `random_string` create, for the value type `ty`. A create's
/// proposed state is the configuration: core proposes each computed attribute the
/// configuration leaves null from an all-null prior, so null (`objchange.ProposedNew`); the
/// provider makes the ones it fills in unknown.
pub fn random_string_create(ty: &Type) -> (Value, Value) {
    let keepers = Value::Map(
        (0..7)
            .map(|i| (format!("k{i}").into(), Value::from(format!("value-{i}"))))
            .collect(),
    );
    let mut config = Value::null_object_of(ty);
    config.set("length", Value::from(16));
    config.set("keepers", keepers);
    let mut planned = config.clone();
    for name in ["special", "upper", "lower", "numeric"] {
        planned.set(name, Value::Bool(true));
    }
    for name in ["min_numeric", "min_upper", "min_lower", "min_special"] {
        planned.set(name, 0.into());
    }
    planned.set("result", Value::unknown());
    planned.set("id", Value::unknown());
    (config, planned)
}

/// The benchmark object as a create leaves it in state: the planned value with `result` and
/// `id` known. The same stored state for every provider, as the same configuration is.
pub fn random_string_stored(ty: &Type) -> Value {
    let (_, mut state) = random_string_create(ty);
    for name in ["result", "id"] {
        state.set(name, Value::from("Zq3#vR8!mK2$wX5p"));
    }
    state
}
