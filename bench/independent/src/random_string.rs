//! `random_string` on tf-provider: the schema, defaults, validation and replace rules of
//! tfwasm's random sample (and hashicorp/random), so both providers do the same work.

use std::borrow::Cow;
use std::collections::HashMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tf_provider::schema::{
    Attribute, AttributeConstraint, AttributeType, Block, Description, Schema,
};
use tf_provider::value::{Value, ValueBool, ValueEmpty, ValueMap, ValueNumber, ValueString};
use tf_provider::{AttributePath, Diagnostics, Resource};

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NUMERIC: &str = "0123456789";
const SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State<'a> {
    #[serde(borrow)]
    keepers: ValueMap<'a, ValueString<'a>>,
    length: ValueNumber,
    special: ValueBool,
    upper: ValueBool,
    lower: ValueBool,
    numeric: ValueBool,
    min_numeric: ValueNumber,
    min_upper: ValueNumber,
    min_lower: ValueNumber,
    min_special: ValueNumber,
    #[serde(borrow)]
    override_special: ValueString<'a>,
    #[serde(borrow)]
    result: ValueString<'a>,
    #[serde(borrow)]
    id: ValueString<'a>,
}

impl State<'_> {
    /// Fills unset optional inputs with their defaults (character classes on, minimums 0).
    fn with_defaults(mut self) -> Self {
        for flag in [
            &mut self.special,
            &mut self.upper,
            &mut self.lower,
            &mut self.numeric,
        ] {
            if flag.is_null() {
                *flag = Value::Value(true);
            }
        }
        for min in [
            &mut self.min_numeric,
            &mut self.min_upper,
            &mut self.min_lower,
            &mut self.min_special,
        ] {
            if min.is_null() {
                *min = Value::Value(0);
            }
        }
        self
    }

    /// The inputs that differ from `prior` (every input forces a new string).
    fn changed_inputs(&self, prior: &State<'_>) -> Vec<&'static str> {
        [
            ("keepers", self.keepers != prior.keepers),
            ("length", self.length != prior.length),
            ("special", self.special != prior.special),
            ("upper", self.upper != prior.upper),
            ("lower", self.lower != prior.lower),
            ("numeric", self.numeric != prior.numeric),
            ("min_numeric", self.min_numeric != prior.min_numeric),
            ("min_upper", self.min_upper != prior.min_upper),
            ("min_lower", self.min_lower != prior.min_lower),
            ("min_special", self.min_special != prior.min_special),
            (
                "override_special",
                self.override_special != prior.override_special,
            ),
        ]
        .into_iter()
        .filter_map(|(name, changed)| changed.then_some(name))
        .collect()
    }

    fn generate(&self) -> Result<String, &'static str> {
        let special = self
            .override_special
            .as_ref_option()
            .map_or(SPECIAL, |s| s.as_ref());
        let classes = [
            (self.lower, self.min_lower, LOWER),
            (self.upper, self.min_upper, UPPER),
            (self.numeric, self.min_numeric, NUMERIC),
            (self.special, self.min_special, special),
        ];
        let mut all = Vec::new();
        let mut chars = Vec::new();
        let mut rng = SecureRng::default();
        for (enabled, minimum, set) in classes {
            let set: Vec<char> = set.chars().collect();
            if enabled.unwrap_or(true) && !set.is_empty() {
                for _ in 0..minimum.unwrap_or(0) {
                    chars.push(set[rng.below(set.len())]);
                }
                all.extend(set);
            }
        }
        if all.is_empty() {
            return Err("At least one character class must be enabled");
        }
        let length = usize::try_from(self.length.unwrap_or(0)).unwrap_or(0);
        while chars.len() < length {
            chars.push(all[rng.below(all.len())]);
        }
        for i in (1..chars.len()).rev() {
            chars.swap(i, rng.below(i + 1));
        }
        Ok(chars.into_iter().collect())
    }
}

/// Random numbers from the OS, fetched 256 bytes at a time.
struct SecureRng {
    buf: [u8; 256],
    pos: usize,
}

impl Default for SecureRng {
    fn default() -> Self {
        SecureRng {
            buf: [0; 256],
            pos: 256,
        }
    }
}

impl SecureRng {
    fn next_u64(&mut self) -> u64 {
        if self.pos + 8 > self.buf.len() {
            getrandom::getrandom(&mut self.buf).expect("the OS random source failed");
            self.pos = 0;
        }
        let mut word = [0; 8];
        word.copy_from_slice(&self.buf[self.pos..self.pos + 8]);
        self.pos += 8;
        u64::from_le_bytes(word)
    }

    /// Uniform in `0..bound`, without modulo bias.
    fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u64;
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % bound) as usize;
            }
        }
    }
}

fn attribute(attr_type: AttributeType, constraint: AttributeConstraint, doc: &str) -> Attribute {
    Attribute {
        attr_type,
        constraint,
        description: Description::plain(doc),
        ..Default::default()
    }
}

pub struct RandomString;

#[async_trait]
impl Resource for RandomString {
    type State<'a> = State<'a>;
    type PrivateState<'a> = ValueEmpty;
    type ProviderMetaState<'a> = ValueEmpty;

    fn schema(&self, _diags: &mut Diagnostics) -> Option<Schema> {
        use AttributeConstraint::{Computed, Optional, OptionalComputed, Required};
        use AttributeType::{Bool, Map, Number, String};
        let mut attributes: HashMap<std::string::String, Attribute> = HashMap::new();
        let mut add = |name: &str, attr| {
            attributes.insert(name.to_owned(), attr);
        };
        add(
            "keepers",
            attribute(
                Map(Box::new(String)),
                Optional,
                "Values that force a new string when changed.",
            ),
        );
        add(
            "length",
            attribute(Number, Required, "The length of the result."),
        );
        for class in ["special", "upper", "lower", "numeric"] {
            add(
                class,
                attribute(Bool, OptionalComputed, "Include this character class."),
            );
        }
        for min in ["min_numeric", "min_upper", "min_lower", "min_special"] {
            add(
                min,
                attribute(
                    Number,
                    OptionalComputed,
                    "Minimum characters of this class.",
                ),
            );
        }
        add(
            "override_special",
            attribute(
                String,
                Optional,
                "Special characters to use instead of the default set.",
            ),
        );
        add(
            "result",
            attribute(String, Computed, "The generated random string."),
        );
        add(
            "id",
            attribute(String, Computed, "The generated random string."),
        );
        Some(Schema {
            version: 0,
            block: Block {
                attributes,
                description: Description::plain("A random string of the chosen character classes."),
                ..Default::default()
            },
        })
    }

    async fn validate<'a>(&self, diags: &mut Diagnostics, config: State<'a>) -> Option<()> {
        if let Value::Value(length) = config.length
            && length < 1
        {
            diags.error_short("length must be at least 1", AttributePath::new("length"));
        }
        let mins = [
            ("min_numeric", config.min_numeric),
            ("min_upper", config.min_upper),
            ("min_lower", config.min_lower),
            ("min_special", config.min_special),
        ];
        let mut sum = 0;
        for (name, min) in mins {
            match min {
                Value::Value(n) if n < 0 => {
                    diags.error_short(
                        format!("{name} must be at least 0"),
                        AttributePath::new(name),
                    );
                }
                Value::Value(n) => sum += n,
                Value::Unknown => return Some(()),
                Value::Null => {}
            }
        }
        if let Value::Value(length) = config.length
            && length < sum
        {
            diags.error_short(
                "length must be at least the sum of the minimums",
                AttributePath::new("length"),
            );
        }
        Some(())
    }

    async fn read<'a>(
        &self,
        _diags: &mut Diagnostics,
        state: State<'a>,
        private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<(State<'a>, ValueEmpty)> {
        Some((state, private_state))
    }

    async fn plan_create<'a>(
        &self,
        _diags: &mut Diagnostics,
        proposed_state: State<'a>,
        _config_state: State<'a>,
        _meta: ValueEmpty,
    ) -> Option<(State<'a>, ValueEmpty)> {
        let mut planned = proposed_state.with_defaults();
        planned.result = Value::Unknown;
        planned.id = Value::Unknown;
        Some((planned, ValueEmpty::default()))
    }

    async fn plan_update<'a>(
        &self,
        _diags: &mut Diagnostics,
        prior_state: State<'a>,
        proposed_state: State<'a>,
        _config_state: State<'a>,
        prior_private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<(State<'a>, ValueEmpty, Vec<AttributePath>)> {
        let mut planned = proposed_state.with_defaults();
        let replace: Vec<AttributePath> = planned
            .changed_inputs(&prior_state)
            .into_iter()
            .map(AttributePath::new)
            .collect();
        if replace.is_empty() {
            planned.result = prior_state.result;
            planned.id = prior_state.id;
        } else {
            planned.result = Value::Unknown;
            planned.id = Value::Unknown;
        }
        Some((planned, prior_private_state, replace))
    }

    async fn plan_destroy<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: State<'a>,
        prior_private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<ValueEmpty> {
        Some(prior_private_state)
    }

    async fn create<'a>(
        &self,
        diags: &mut Diagnostics,
        planned_state: State<'a>,
        _config_state: State<'a>,
        private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<(State<'a>, ValueEmpty)> {
        let mut state = planned_state;
        match state.generate() {
            Ok(result) => {
                state.result = Value::Value(Cow::Owned(result.clone()));
                state.id = Value::Value(Cow::Owned(result));
                Some((state, private_state))
            }
            Err(message) => {
                diags.root_error_short(message);
                None
            }
        }
    }

    async fn update<'a>(
        &self,
        _diags: &mut Diagnostics,
        _prior_state: State<'a>,
        planned_state: State<'a>,
        _config_state: State<'a>,
        private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<(State<'a>, ValueEmpty)> {
        Some((planned_state, private_state))
    }

    async fn destroy<'a>(
        &self,
        _diags: &mut Diagnostics,
        _state: State<'a>,
        _private_state: ValueEmpty,
        _meta: ValueEmpty,
    ) -> Option<()> {
        Some(())
    }
}
