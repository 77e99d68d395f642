//! Property tests of the plan checker: a plan derived correctly from a random schema,
//! configuration and prior state is accepted; one mutation that breaks a rule is rejected
//! with exactly the mutated path.

use proptest::prelude::*;
use tfwasm_contract::check_plan;
use tfwasm_model::{Attribute, AttributePath, Block, BlockNesting, NestedBlock, Type, Value};

/// A tiny deterministic generator, so one seed describes a whole case.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn word(&mut self, prefix: &str) -> Value {
        Value::String(format!("{prefix}{}", self.below(1000)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Required,
    Optional,
    Computed,
    OptionalComputed,
}

fn attribute(name: String, kind: Kind) -> Attribute {
    let mut a = Attribute::new(name, Type::String);
    match kind {
        Kind::Required => a.required = true,
        Kind::Optional => a.optional = true,
        Kind::Computed => a.computed = true,
        Kind::OptionalComputed => {
            a.optional = true;
            a.computed = true;
        }
    }
    a
}

fn kind_of(a: &Attribute) -> Kind {
    match (a.required, a.optional, a.computed) {
        (true, _, _) => Kind::Required,
        (_, true, true) => Kind::OptionalComputed,
        (_, true, false) => Kind::Optional,
        _ => Kind::Computed,
    }
}

fn flat_block(g: &mut Gen, prefix: &str) -> Block {
    let kinds = [
        Kind::Required,
        Kind::Optional,
        Kind::Computed,
        Kind::OptionalComputed,
    ];
    let attributes = (0..1 + g.below(5))
        .map(|i| attribute(format!("{prefix}{i}"), kinds[g.below(4) as usize]))
        .collect();
    Block {
        attributes,
        ..Block::default()
    }
}

fn schema(g: &mut Gen) -> Block {
    let mut block = flat_block(g, "a");
    for (i, nesting) in [
        BlockNesting::List,
        BlockNesting::Single,
        BlockNesting::Group,
    ]
    .into_iter()
    .enumerate()
    {
        if g.chance(60) {
            block.block_types.push(NestedBlock {
                type_name: format!("b{i}"),
                block: flat_block(g, "n"),
                nesting,
                min_items: 0,
                max_items: 0,
            });
        }
    }
    block
}

/// A configuration: required set, optional sometimes, computed-only never.
fn config(g: &mut Gen, block: &Block) -> Value {
    let mut obj = Value::null_object_of(&block.implied_type());
    for a in &block.attributes {
        let v = match kind_of(a) {
            Kind::Required => g.word("c"),
            Kind::Optional | Kind::OptionalComputed if g.chance(50) => g.word("c"),
            _ => Value::Null,
        };
        obj.set(&a.name, v);
    }
    for nb in &block.block_types {
        let v = match nb.nesting {
            BlockNesting::List => {
                Value::List((0..g.below(3)).map(|_| config(g, &nb.block)).collect())
            }
            BlockNesting::Single if g.chance(50) => config(g, &nb.block),
            BlockNesting::Single => Value::Null,
            _ => config(g, &nb.block),
        };
        obj.set(&nb.type_name, v);
    }
    obj
}

/// A prior state shaped like `config`, with every value known and different.
fn prior(g: &mut Gen, block: &Block, config: &Value) -> Value {
    if config.is_null() {
        return Value::Null;
    }
    let mut obj = Value::null_object_of(&block.implied_type());
    for a in &block.attributes {
        obj.set(&a.name, g.word("p"));
    }
    for nb in &block.block_types {
        let c = config.get(&nb.type_name).cloned().unwrap_or(Value::Null);
        let v = match &c {
            Value::List(items) => {
                Value::List(items.iter().map(|i| prior(g, &nb.block, i)).collect())
            }
            other => prior(g, &nb.block, other),
        };
        obj.set(&nb.type_name, v);
    }
    obj
}

/// The plan a correct provider makes: configuration where set; for computed attributes
/// left unset, the prior value or unknown.
fn derive(block: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() {
        return Value::Null;
    }
    let mut planned = config.clone();
    for a in &block.attributes {
        let c = config.get(&a.name).cloned().unwrap_or(Value::Null);
        if c.is_null() && a.computed {
            let p = prior.get(&a.name).cloned().unwrap_or(Value::Null);
            planned.set(&a.name, if p.is_null() { Value::unknown() } else { p });
        }
    }
    for nb in &block.block_types {
        let c = config.get(&nb.type_name).cloned().unwrap_or(Value::Null);
        let p = prior.get(&nb.type_name).cloned().unwrap_or(Value::Null);
        let v = match &c {
            Value::List(items) => Value::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        derive(
                            &nb.block,
                            p.as_elements()
                                .and_then(|e| e.get(i))
                                .unwrap_or(&Value::Null),
                            item,
                        )
                    })
                    .collect(),
            ),
            other => derive(&nb.block, &p, other),
        };
        planned.set(&nb.type_name, v);
    }
    planned
}

struct Case {
    block: Block,
    prior: Value,
    config: Value,
    planned: Value,
}

fn case(seed: u64) -> (Case, Gen) {
    let mut g = Gen(seed);
    let block = schema(&mut g);
    let config = config(&mut g, &block);
    let prior = if g.chance(50) {
        prior(&mut g, &block, &config)
    } else {
        Value::Null
    };
    let planned = derive(&block, &prior, &config);
    (
        Case {
            block,
            prior,
            config,
            planned,
        },
        g,
    )
}

/// Every (path, attribute, config value) reachable for mutation, with the block it is in.
fn attribute_sites(
    block: &Block,
    config: &Value,
    path: &AttributePath,
    out: &mut Vec<(AttributePath, Attribute, Value)>,
) {
    if config.is_null() {
        return;
    }
    for a in &block.attributes {
        out.push((
            path.attr(a.name.clone()),
            a.clone(),
            config.get(&a.name).cloned().unwrap_or(Value::Null),
        ));
    }
    for nb in &block.block_types {
        let here = path.attr(nb.type_name.clone());
        match config.get(&nb.type_name) {
            Some(Value::List(items)) => {
                for (i, item) in items.iter().enumerate() {
                    attribute_sites(&nb.block, item, &here.index(i as i64), out);
                }
            }
            Some(other) => attribute_sites(&nb.block, other, &here, out),
            None => {}
        }
    }
}

fn set_at(value: &mut Value, path: &AttributePath, new: Value) {
    use tfwasm_model::PathStep;
    let mut current = value;
    for (i, step) in path.0.iter().enumerate() {
        let last = i + 1 == path.0.len();
        match step {
            PathStep::Attribute(name) => {
                if last {
                    current.set(name, new);
                    return;
                }
                current = current.get_mut(name).expect("path exists");
            }
            PathStep::KeyInt(index) => {
                let Value::List(items) = current else {
                    panic!("not a list")
                };
                current = &mut items[*index as usize];
            }
            PathStep::KeyString(_) => unreachable!("no maps generated"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn correct_plans_are_accepted(seed in any::<u64>()) {
        let (c, _) = case(seed);
        let violations = check_plan(&c.block, &c.prior, &c.config, &c.planned);
        prop_assert!(violations.is_empty(), "seed {seed}: {violations:?}");
    }

    #[test]
    fn changing_a_configured_value_is_caught_at_its_path(seed in any::<u64>()) {
        let (mut c, mut g) = case(seed);
        let mut sites = Vec::new();
        attribute_sites(&c.block, &c.config, &AttributePath::root(), &mut sites);
        let configured: Vec<_> = sites.into_iter().filter(|(_, _, v)| !v.is_null()).collect();
        prop_assume!(!configured.is_empty());
        let (path, _, _) = &configured[g.below(configured.len() as u64) as usize];
        set_at(&mut c.planned, path, Value::String("mutated".into()));
        let violations = check_plan(&c.block, &c.prior, &c.config, &c.planned);
        prop_assert_eq!(violations.len(), 1, "seed {}: {:?}", seed, violations);
        prop_assert_eq!(&violations[0].path, path);
        prop_assert!(violations[0].message.contains("does not match config value"), "{}", violations[0].message);
    }

    #[test]
    fn setting_an_unconfigured_non_computed_value_is_caught(seed in any::<u64>()) {
        let (mut c, mut g) = case(seed);
        let mut sites = Vec::new();
        attribute_sites(&c.block, &c.config, &AttributePath::root(), &mut sites);
        let open: Vec<_> = sites.into_iter().filter(|(_, a, v)| v.is_null() && !a.computed).collect();
        prop_assume!(!open.is_empty());
        let (path, _, _) = &open[g.below(open.len() as u64) as usize];
        set_at(&mut c.planned, path, Value::String("invented".into()));
        let violations = check_plan(&c.block, &c.prior, &c.config, &c.planned);
        prop_assert_eq!(violations.len(), 1, "seed {}: {:?}", seed, violations);
        prop_assert_eq!(&violations[0].path, path);
        prop_assert!(violations[0].message.contains("for a non-computed attribute"), "{}", violations[0].message);
    }

    #[test]
    fn dropping_a_list_block_is_caught_at_the_block(seed in any::<u64>()) {
        let (mut c, _) = case(seed);
        let Some(list) = c.block.block_types.iter().find(|b| b.nesting == BlockNesting::List) else {
            return Ok(());
        };
        let name = list.type_name.clone();
        let Some(Value::List(items)) = c.planned.get_mut(&name) else { return Ok(()) };
        prop_assume!(!items.is_empty());
        items.pop();
        let violations = check_plan(&c.block, &c.prior, &c.config, &c.planned);
        prop_assert_eq!(violations.len(), 1, "seed {}: {:?}", seed, violations);
        prop_assert_eq!(&violations[0].path, &AttributePath::attribute(name));
        prop_assert!(violations[0].message.contains("block count in plan"), "{}", violations[0].message);
    }
}
