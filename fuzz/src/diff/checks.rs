//! Contract-check cases: a schema, and a prior state, configuration, plan and new state
//! built as a provider might answer (valid by construction, then often mutated into an
//! invalid one). tfwasm's checks (`check_plan`, `check_apply`) and OpenTofu's
//! (`AssertPlanValid`; `AssertObjectCompatible` plus core's wholly-known rule) must agree
//! on valid or invalid. Where tfwasm is deliberately stricter, the rule is listed in
//! [`deliberate`] and in docs/contracts.md.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};
use tfwasm_contract::{Violation, check_apply, check_plan, check_write_only_null};
use tfwasm_model::codec::msgpack;
use tfwasm_model::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting,
    Refinement, Type, Value,
};

use super::oracle::{Answer, Request};
use super::rng::Rng;
use super::{Outcome, hex};

/// One check case.
#[derive(Debug, Clone)]
pub struct Case {
    pub schema: Block,
    pub prior: Value,
    pub config: Value,
    pub planned: Value,
    pub new: Value,
}

const NAMES: &[&str] = &["id", "name", "tags", "size", "rule", "port", "sid", "note"];

struct Gen<'r> {
    rng: &'r mut Rng,
}

/// The case of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut g = Gen { rng: &mut rng };
    let schema = g.block(0);
    let create = g.rng.chance(1, 3);
    let config = g.config(&schema);
    let prior = if create {
        Value::Null
    } else {
        g.state(&schema, &config)
    };
    let mut planned = g.plan(&schema, &prior, &config);
    if g.rng.chance(1, 2) {
        let ty = schema.implied_type();
        g.mutate(&mut planned, &ty);
    }
    let mut new = g.complete(&planned, &schema.implied_type());
    if g.rng.chance(1, 2) {
        let ty = schema.implied_type();
        g.mutate(&mut new, &ty);
    }
    Case {
        schema,
        prior,
        config,
        planned,
        new,
    }
}

impl Gen<'_> {
    fn name(&mut self, used: &mut Vec<String>) -> Option<String> {
        let name = (*self.rng.pick(NAMES)).to_owned();
        if used.contains(&name) {
            return None;
        }
        used.push(name.clone());
        Some(name)
    }

    fn ty(&mut self, depth: u32) -> Type {
        match self.rng.below(if depth >= 2 { 3 } else { 7 }) {
            0 => Type::String,
            1 => Type::Number,
            2 => Type::Bool,
            3 => Type::list(self.ty(depth + 1)),
            4 => Type::set(self.ty(depth + 1)),
            5 => Type::map(self.ty(depth + 1)),
            _ => {
                let mut attrs = BTreeMap::new();
                for _ in 0..self.rng.range(1, 3) {
                    attrs.insert((*self.rng.pick(NAMES)).to_owned(), self.ty(depth + 1));
                }
                Type::Object(attrs)
            }
        }
    }

    fn attribute(&mut self, name: String, depth: u32) -> Attribute {
        let mut attr = if depth < 2 && self.rng.chance(1, 5) {
            let mut used = Vec::new();
            let mut attributes = Vec::new();
            for _ in 0..self.rng.range(1, 3) {
                if let Some(n) = self.name(&mut used) {
                    attributes.push(self.attribute(n, depth + 1));
                }
            }
            let nesting = *self.rng.pick(&[
                ObjectNesting::Single,
                ObjectNesting::List,
                ObjectNesting::Set,
                ObjectNesting::Map,
            ]);
            let mut a = Attribute::new(name, Type::String);
            a.ty = AttributeType::Nested(NestedObject {
                attributes,
                nesting,
            });
            a
        } else {
            Attribute::new(name, self.ty(depth))
        };
        match self.rng.below(4) {
            0 => attr.required = true,
            1 => attr.optional = true,
            2 => attr.computed = true,
            _ => {
                attr.optional = true;
                attr.computed = true;
            }
        }
        attr.sensitive = self.rng.chance(1, 6);
        // Write-only: configured, never computed (the schema rules), rarely.
        attr.write_only = !attr.computed && self.rng.chance(1, 10);
        attr
    }

    fn block(&mut self, depth: u32) -> Block {
        let mut used = Vec::new();
        let mut block = Block::default();
        for _ in 0..self.rng.range(1, 4) {
            if let Some(name) = self.name(&mut used) {
                block.attributes.push(self.attribute(name, depth));
            }
        }
        if depth < 2 {
            for _ in 0..self.rng.range(0, 2) {
                if let Some(type_name) = self.name(&mut used) {
                    let nesting = *self.rng.pick(&[
                        BlockNesting::Single,
                        BlockNesting::Group,
                        BlockNesting::List,
                        BlockNesting::Set,
                        BlockNesting::Map,
                    ]);
                    block.block_types.push(NestedBlock {
                        type_name,
                        block: self.block(depth + 1),
                        nesting,
                        min_items: 0,
                        max_items: 0,
                    });
                }
            }
        }
        block
    }

    /// A known value of `ty`, sometimes null.
    fn known(&mut self, ty: &Type, depth: u32) -> Value {
        if depth > 0 && self.rng.chance(1, 10) {
            return Value::Null;
        }
        match ty {
            Type::String => Value::from(*self.rng.pick(&["a", "b", "c", "x", ""])),
            Type::Number => Value::from(self.rng.range(0, 4) as i64),
            Type::Bool => Value::Bool(self.rng.coin()),
            Type::List(e) => Value::List(
                (0..self.rng.range(0, 3))
                    .map(|_| self.known(e, depth + 1))
                    .collect(),
            ),
            Type::Set(e) => Value::set_of(
                (0..self.rng.range(0, 3))
                    .map(|_| self.known(e, depth + 1))
                    .collect(),
            ),
            Type::Map(e) => Value::Map(
                (0..self.rng.range(0, 3))
                    .map(|_| {
                        (
                            (*self.rng.pick(&["k", "l", "m"])).into(),
                            self.known(e, depth + 1),
                        )
                    })
                    .collect(),
            ),
            Type::Object(attrs) => Value::Object(
                attrs
                    .iter()
                    .map(|(k, t)| (k.into(), self.known(t, depth + 1)))
                    .collect(),
            ),
            Type::Tuple(elems) => {
                Value::Tuple(elems.iter().map(|t| self.known(t, depth + 1)).collect())
            }
            Type::Dynamic => Value::Null,
        }
    }

    /// A configured value of `ty`: known, or (not yet known) unknown, sometimes refined,
    /// sometimes only partly.
    fn configured(&mut self, ty: &Type) -> Value {
        match self.rng.below(8) {
            0 => self.unknown(ty),
            1 => match ty {
                Type::List(e) | Type::Set(e) => {
                    let items: Vec<Value> = (0..self.rng.range(1, 3))
                        .map(|_| {
                            if self.rng.coin() {
                                self.unknown(e)
                            } else {
                                self.known(e, 1)
                            }
                        })
                        .collect();
                    if matches!(ty, Type::Set(_)) {
                        Value::set_of(items)
                    } else {
                        Value::List(items)
                    }
                }
                _ => self.known(ty, 0),
            },
            _ => self.known(ty, 0),
        }
    }

    fn unknown(&mut self, ty: &Type) -> Value {
        let mut r = Refinement::default();
        if self.rng.chance(1, 4) {
            r.not_null = true;
            if matches!(ty, Type::String) && self.rng.coin() {
                r.string_prefix = Some("a".into());
            }
        }
        Value::refined(r)
    }

    fn config(&mut self, block: &Block) -> Value {
        let mut out = tfwasm_model::Attributes::new();
        for a in &block.attributes {
            let v = if a.required || (a.optional && self.rng.coin()) {
                self.config_attr(a)
            } else {
                Value::Null
            };
            out.insert(a.name.as_str().into(), v);
        }
        for nb in &block.block_types {
            out.insert(nb.type_name.as_str().into(), self.config_blocks(nb));
        }
        Value::Object(out)
    }

    fn config_attr(&mut self, a: &Attribute) -> Value {
        match &a.ty {
            AttributeType::Type(ty) => self.configured(ty),
            AttributeType::Nested(obj) => {
                let inner = Block {
                    attributes: obj.attributes.clone(),
                    ..Block::default()
                };
                let one = |g: &mut Gen<'_>| g.config(&inner);
                match obj.nesting {
                    ObjectNesting::Single => one(self),
                    ObjectNesting::List => {
                        Value::List((0..self.rng.range(0, 3)).map(|_| one(self)).collect())
                    }
                    ObjectNesting::Set => {
                        Value::set_of((0..self.rng.range(0, 3)).map(|_| one(self)).collect())
                    }
                    ObjectNesting::Map => Value::Map(
                        (0..self.rng.range(0, 3))
                            .map(|i| (["k", "l", "m"][i].into(), one(self)))
                            .collect(),
                    ),
                }
            }
        }
    }

    fn config_blocks(&mut self, nb: &NestedBlock) -> Value {
        let n = self.rng.range(0, 3);
        match nb.nesting {
            BlockNesting::Single => {
                if self.rng.coin() {
                    self.config(&nb.block)
                } else {
                    Value::Null
                }
            }
            BlockNesting::Group => self.config(&nb.block),
            BlockNesting::List => {
                if self.rng.chance(1, 12) {
                    return Value::unknown();
                }
                Value::List((0..n).map(|_| self.config(&nb.block)).collect())
            }
            BlockNesting::Set => {
                if self.rng.chance(1, 12) {
                    return Value::unknown();
                }
                Value::set_of((0..n).map(|_| self.config(&nb.block)).collect())
            }
            BlockNesting::Map => Value::Map(
                (0..n)
                    .map(|i| (["k", "l", "m"][i].into(), self.config(&nb.block)))
                    .collect(),
            ),
        }
    }

    /// A prior state for `config`: what an earlier apply left, wholly known.
    fn state(&mut self, block: &Block, config: &Value) -> Value {
        let planned = self.plan(block, &Value::Null, config);
        let ty = block.implied_type();
        self.complete(&planned, &ty)
    }

    /// A valid plan: configured values kept (or the prior value), computed ones decided.
    fn plan(&mut self, block: &Block, prior: &Value, config: &Value) -> Value {
        if config.is_null() {
            return Value::Null;
        }
        let mut out = tfwasm_model::Attributes::new();
        for a in &block.attributes {
            let c = config.get(&a.name).cloned().unwrap_or_default();
            let p = prior.get(&a.name).cloned().unwrap_or_default();
            let v = if a.write_only {
                // Write-only values never enter a plan.
                Value::Null
            } else if !c.is_null() {
                if !p.is_null() && self.rng.chance(1, 6) {
                    p
                } else {
                    self.plan_nested(a, &p, &c)
                }
            } else if a.computed {
                match self.rng.below(3) {
                    0 if !p.is_null() => p,
                    1 => Value::unknown(),
                    _ => self.known(&a.implied_type(), 0),
                }
            } else {
                Value::Null
            };
            out.insert(a.name.as_str().into(), v);
        }
        for nb in &block.block_types {
            let c = config.get(&nb.type_name).cloned().unwrap_or_default();
            let p = prior.get(&nb.type_name).cloned().unwrap_or_default();
            let v = match (&c, nb.nesting) {
                (Value::Unknown(_), _) => c.clone(),
                (Value::List(items), BlockNesting::List) => Value::List(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, e)| {
                            let pe = p
                                .as_elements()
                                .and_then(|l| l.get(i))
                                .cloned()
                                .unwrap_or_default();
                            self.plan(&nb.block, &pe, e)
                        })
                        .collect(),
                ),
                (Value::Set(items), _) => Value::set_of(
                    items
                        .iter()
                        .map(|e| self.plan(&nb.block, &Value::Null, e))
                        .collect(),
                ),
                (Value::Map(m), _) => Value::Map(
                    m.iter()
                        .map(|(k, e)| {
                            let pe = p.get(k).cloned().unwrap_or_default();
                            (k.clone(), self.plan(&nb.block, &pe, e))
                        })
                        .collect(),
                ),
                (Value::Object(_), _) => self.plan(&nb.block, &p, &c),
                _ => c.clone(),
            };
            out.insert(nb.type_name.as_str().into(), v);
        }
        Value::Object(out)
    }

    fn plan_nested(&mut self, a: &Attribute, prior: &Value, config: &Value) -> Value {
        let AttributeType::Nested(obj) = &a.ty else {
            return config.clone();
        };
        let inner = Block {
            attributes: obj.attributes.clone(),
            ..Block::default()
        };
        match (obj.nesting, config) {
            (ObjectNesting::Single, Value::Object(_)) => self.plan(&inner, prior, config),
            (ObjectNesting::List, Value::List(items)) => Value::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let pe = prior
                            .as_elements()
                            .and_then(|l| l.get(i))
                            .cloned()
                            .unwrap_or_default();
                        self.plan(&inner, &pe, e)
                    })
                    .collect(),
            ),
            (ObjectNesting::Set, Value::Set(items)) => Value::set_of(
                items
                    .iter()
                    .map(|e| self.plan(&inner, &Value::Null, e))
                    .collect(),
            ),
            (ObjectNesting::Map, Value::Map(m)) => Value::Map(
                m.iter()
                    .map(|(k, e)| {
                        (
                            k.clone(),
                            self.plan(&inner, &prior.get(k).cloned().unwrap_or_default(), e),
                        )
                    })
                    .collect(),
            ),
            _ => config.clone(),
        }
    }

    /// The plan completed by an apply: every unknown known (within its refinements), and
    /// elements of a set that hold unknowns sometimes completed alike, so they coalesce.
    fn complete(&mut self, planned: &Value, ty: &Type) -> Value {
        match (planned, ty) {
            (Value::Unknown(r), _) => {
                let mut v = self.known(ty, 1);
                if let (Some(prefix), Value::String(s)) = (&r.string_prefix, &v) {
                    v = Value::String(format!("{prefix}{s}"));
                }
                if r.not_null && v.is_null() {
                    v = self.known(ty, 0);
                }
                v
            }
            (Value::List(items), Type::List(e)) => {
                Value::List(items.iter().map(|v| self.complete(v, e)).collect())
            }
            (Value::Set(items), Type::Set(e)) => {
                let coalesce = self.rng.chance(1, 4);
                let mut first: Option<Value> = None;
                let done: Vec<Value> = items
                    .iter()
                    .map(|v| {
                        if coalesce && !v.is_wholly_known() {
                            if let Some(f) = &first {
                                return f.clone();
                            }
                            let f = self.complete(v, e);
                            first = Some(f.clone());
                            return f;
                        }
                        self.complete(v, e)
                    })
                    .collect();
                Value::set_of(done)
            }
            (Value::Map(m), Type::Map(e)) => Value::Map(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.complete(v, e)))
                    .collect(),
            ),
            (Value::Object(m), Type::Object(attrs)) => Value::Object(
                attrs
                    .iter()
                    .map(|(k, t)| {
                        (
                            k.into(),
                            self.complete(m.get(k.as_str()).unwrap_or(&Value::Null), t),
                        )
                    })
                    .collect(),
            ),
            (Value::Tuple(items), Type::Tuple(elems)) => Value::Tuple(
                items
                    .iter()
                    .zip(elems)
                    .map(|(v, t)| self.complete(v, t))
                    .collect(),
            ),
            (v, _) => v.clone(),
        }
    }

    /// Changes one place in `value` of type `ty`: a new value, an unknown, a null, an
    /// element more or less.
    fn mutate(&mut self, value: &mut Value, ty: &Type) {
        let mut places = Vec::new();
        collect(value, ty, &mut Vec::new(), &mut places);
        if places.is_empty() {
            return;
        }
        let (path, place_ty) = places.swap_remove(self.rng.below(places.len()));
        let Some(target) = at(value, &path) else {
            return;
        };
        *target = match self.rng.below(6) {
            0 => Value::unknown(),
            1 => Value::Null,
            2 => match (&*target, &place_ty) {
                (Value::List(items), Type::List(e)) => {
                    let mut items = items.clone();
                    if items.is_empty() || self.rng.coin() {
                        items.push(self.known(e, 1));
                    } else {
                        items.pop();
                    }
                    Value::List(items)
                }
                (Value::Set(items), Type::Set(e)) => {
                    let mut items = items.clone();
                    if items.is_empty() || self.rng.coin() {
                        items.push(self.known(e, 1));
                    } else {
                        items.remove(self.rng.below(items.len()));
                    }
                    Value::set_of(items)
                }
                _ => self.known(&place_ty, 0),
            },
            _ => self.known(&place_ty, 0),
        };
    }
}

/// Every place in a value with its type, by path of steps into objects, lists, maps and
/// sets (set elements by position).
fn collect(value: &Value, ty: &Type, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Type)>) {
    out.push((path.clone(), ty.clone()));
    match (value, ty) {
        (Value::Object(m), Type::Object(attrs)) => {
            for (k, t) in attrs {
                if let Some(v) = m.get(k.as_str()) {
                    path.push(Step::Key(k.clone()));
                    collect(v, t, path, out);
                    path.pop();
                }
            }
        }
        (Value::Map(m), Type::Map(e)) => {
            for (k, v) in m {
                path.push(Step::Key(k.to_string()));
                collect(v, e, path, out);
                path.pop();
            }
        }
        (Value::List(items) | Value::Set(items), Type::List(e) | Type::Set(e)) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Step::Index(i));
                collect(v, e, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    let mut here = value;
    for step in path {
        here = match (step, here) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k.as_str())?,
            (Step::Key(k), Value::Map(m)) => m.get_mut(k.as_str())?,
            (Step::Index(i), Value::List(items) | Value::Set(items)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(here)
}

/// The schema as `terraform providers schema -json` writes a block.
pub fn block_json(block: &Block) -> Json {
    let attributes: serde_json::Map<String, Json> = block
        .attributes
        .iter()
        .map(|a| (a.name.clone(), attribute_json(a)))
        .collect();
    let block_types: serde_json::Map<String, Json> = block
        .block_types
        .iter()
        .map(|nb| {
            let nesting = match nb.nesting {
                BlockNesting::Single => "single",
                BlockNesting::Group => "group",
                BlockNesting::List => "list",
                BlockNesting::Set => "set",
                BlockNesting::Map => "map",
            };
            (
                nb.type_name.clone(),
                json!({"nesting_mode": nesting, "block": block_json(&nb.block)}),
            )
        })
        .collect();
    json!({"attributes": attributes, "block_types": block_types})
}

fn attribute_json(a: &Attribute) -> Json {
    let mut out = json!({
        "required": a.required,
        "optional": a.optional,
        "computed": a.computed,
        "sensitive": a.sensitive,
        "write_only": a.write_only,
    });
    match &a.ty {
        AttributeType::Type(t) => out["type"] = t.to_json(),
        AttributeType::Nested(obj) => {
            let nesting = match obj.nesting {
                ObjectNesting::Single => "single",
                ObjectNesting::List => "list",
                ObjectNesting::Set => "set",
                ObjectNesting::Map => "map",
            };
            let attributes: serde_json::Map<String, Json> = obj
                .attributes
                .iter()
                .map(|a| (a.name.clone(), attribute_json(a)))
                .collect();
            out["nested_type"] = json!({"attributes": attributes, "nesting_mode": nesting});
        }
    }
    out
}

fn bytes(value: &Value, ty: &Type) -> Vec<u8> {
    msgpack::encode(value, ty).expect("generated values conform to their schema")
}

/// The oracle's questions: the plan check, then the apply check.
pub fn requests(case: &Case) -> Vec<Request> {
    let ty = case.schema.implied_type();
    let schema = Some(block_json(&case.schema));
    vec![
        Request {
            op: "plan",
            schema: schema.clone(),
            prior: Some(bytes(&case.prior, &ty)),
            config: Some(bytes(&case.config, &ty)),
            planned: Some(bytes(&case.planned, &ty)),
            ..Request::default()
        },
        Request {
            op: "apply",
            schema,
            planned: Some(bytes(&case.planned, &ty)),
            actual: Some(bytes(&case.new, &ty)),
            ..Request::default()
        },
    ]
}

/// tfwasm's checks against objchange's, valid against invalid.
pub fn judge(case: &Case, answers: &[Answer]) -> Vec<Outcome> {
    // As the host does: the checks see what the bytes decode to (sets de-duplicated).
    let ty = case.schema.implied_type();
    let wire =
        |v: &Value| msgpack::decode(&bytes(v, &ty), &ty).expect("tfwasm decodes what it encodes");
    let (prior, config, planned, new) = (
        wire(&case.prior),
        wire(&case.config),
        wire(&case.planned),
        wire(&case.new),
    );
    let plan = check_plan(&case.schema, &prior, &config, &planned);
    let mut apply = check_apply(&case.schema, &planned, &new);
    apply.extend(check_write_only_null(&case.schema, &new));
    vec![
        compare("plan", case, &plan, &answers[0], false),
        compare("apply", case, &apply, &answers[1], true),
    ]
}

fn compare(
    what: &'static str,
    case: &Case,
    ours: &[Violation],
    theirs: &Answer,
    apply: bool,
) -> Outcome {
    if let Some(panic) = &theirs.panic {
        // The client itself would crash on this answer: tfwasm must refuse it.
        if ours.is_empty() {
            return Outcome::Disagree(format!(
                "{what}: tfwasm accepts what makes OpenTofu panic ({panic})\n  schema {}\n  prior   {:?}\n  config  {:?}\n  planned {:?}\n  new     {:?}",
                block_json(&case.schema),
                case.prior,
                case.config,
                case.planned,
                case.new
            ));
        }
        return Outcome::OraclePanicked(format!("{what}: {panic}"));
    }
    if let Some(error) = &theirs.error {
        return Outcome::Disagree(format!(
            "{what}: the oracle could not read the case: {error}"
        ));
    }
    let mut errors = theirs.errors.clone().unwrap_or_default();
    if apply && theirs.wholly_known == Some(false) {
        errors.push("core: the new state is not wholly known".into());
    }
    if ours.is_empty() == errors.is_empty() {
        return Outcome::AgreeOn(match (apply, ours.is_empty()) {
            (false, true) => "plan valid",
            (false, false) => "plan invalid",
            (true, true) => "apply valid",
            (true, false) => "apply invalid",
        });
    }
    if errors.is_empty()
        && let Some(why) = ours.iter().find_map(|v| deliberate(&v.to_string()))
        && ours.iter().all(|v| deliberate(&v.to_string()).is_some())
    {
        return Outcome::Deliberate(why);
    }
    if ours.is_empty() && errors.iter().all(|e| opentofu_write_only_false_positive(e)) {
        return Outcome::Deliberate(
            "OpenTofu reports a null write-only attribute inside a set element holding unknowns as set (cty's Path.Apply is unknown there)",
        );
    }
    let ty = case.schema.implied_type();
    Outcome::Disagree(format!(
        "{what}: tfwasm {}, OpenTofu {}\n  tfwasm: {:?}\n  OpenTofu: {errors:?}\n  schema {}\n  prior   {:?}\n  config  {:?}\n  planned {:?}\n  new     {:?}\n  (msgpack planned {})",
        if ours.is_empty() {
            "accepts"
        } else {
            "refuses"
        },
        if errors.is_empty() {
            "accepts"
        } else {
            "refuses"
        },
        ours.iter().map(ToString::to_string).collect::<Vec<_>>(),
        block_json(&case.schema),
        case.prior,
        case.config,
        case.planned,
        case.new,
        hex(&bytes(&case.planned, &ty)),
    ))
}

/// OpenTofu 1.12's write-only check (`plugin6/validation.WriteOnlyAttributes`) follows each
/// write-only path with `cty.Path.Apply`, which for a set element holding unknowns gives an
/// unknown, not the element; the null write-only attribute inside is then "an actual value"
/// and the plan is refused. tfwasm checks the value itself. Only errors of that rule at a
/// path through a set element (`[...]`) are such.
fn opentofu_write_only_false_positive(error: &str) -> bool {
    error.contains("returned an actual value for the write-only attribute")
        && error.contains("[...]")
}

/// Where tfwasm refuses what OpenTofu accepts, on purpose (docs/contracts.md): the rules
/// by their message.
pub fn deliberate(violation: &str) -> Option<&'static str> {
    if violation.contains("planned the whole object as unknown") {
        return Some("a plan whose whole object is unknown");
    }
    if violation.contains("block key")
        && (violation.contains("has vanished") || violation.contains("has appeared"))
    {
        return Some(
            "a map of blocks whose keys changed in apply (core compares only their count)",
        );
    }
    None
}
