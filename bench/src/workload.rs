//! The object every latency benchmark plans and applies: a `random_string` create with 7
//! keepers, i.e. 13 attributes and 7 map entries, 20 values in all.

use tfwasm_model::{Type, Value};

/// A `random_string` create, for the value type `ty`: what Terraform sends and what the
/// provider plans.
pub struct Create {
    /// What the configuration sets: `length` and seven `keepers`; the rest null.
    pub config: Value,
    /// The configuration with every computed attribute it leaves null unknown, as Terraform
    /// proposes a create (so not the configuration's bytes).
    pub proposed: Value,
    /// What the provider plans: the defaults filled in, `result` and `id` unknown.
    pub planned: Value,
}

/// The computed attributes of `random_string` (the optional ones included).
const COMPUTED: [&str; 10] = [
    "special",
    "upper",
    "lower",
    "numeric",
    "min_numeric",
    "min_upper",
    "min_lower",
    "min_special",
    "result",
    "id",
];

/// The create every latency benchmark sends.
pub fn random_string_create(ty: &Type) -> Create {
    let keepers = Value::Map(
        (0..7)
            .map(|i| (format!("k{i}"), Value::from(format!("value-{i}"))))
            .collect(),
    );
    let mut config = Value::null_object_of(ty);
    config.set("length", Value::from(16));
    config.set("keepers", keepers);
    let mut proposed = config.clone();
    for name in COMPUTED {
        proposed.set(name, Value::unknown());
    }
    let mut planned = config.clone();
    for name in ["special", "upper", "lower", "numeric"] {
        planned.set(name, Value::Bool(true));
    }
    for name in ["min_numeric", "min_upper", "min_lower", "min_special"] {
        planned.set(name, 0.into());
    }
    planned.set("result", Value::unknown());
    planned.set("id", Value::unknown());
    Create {
        config,
        proposed,
        planned,
    }
}
