//! Planning: how the SDK turns Terraform's proposed new state into a plan that keeps the
//! lifecycle contracts.
//!
//! Rules, applied to every object of the plan (the resource, each nested attribute object and
//! each nested block, element by element), in this order:
//! 1. A destroy (null proposal) plans null; [`Resource::modify_plan`](crate::Resource::modify_plan)
//!    still runs and may only add diagnostics.
//! 2. A write-only attribute plans null (its value lives only in configuration).
//! 3. A computed attribute left null by configuration gets its default, if it has one.
//! 4. Semantic equality: when an attribute has one and its configured value means the same
//!    as the prior value, the prior value is planned, so no change shows.
//! 5. In a new object (the resource on create, or an element with no prior element), any
//!    other computed attribute left null by configuration becomes unknown, and so does a
//!    computed block (tfplugin6.11) the configuration leaves out, for a client that takes
//!    that (`computed_blocks_allowed`). In an object that existed, such a block keeps its
//!    prior value for that client. An older client plans it as any unconfigured block.
//! 6. In an object that existed, if anything in it differs from its prior value, computed
//!    attributes left null by configuration and without a default become unknown, except
//!    that `use_state_for_unknown` keeps the prior value (even null) and
//!    `use_non_null_state_for_unknown` keeps a non-null prior value. An object that changes
//!    nothing plans its prior value unchanged.
//! 7. Attributes whose planned value differs from the prior value are reported as requiring
//!    replacement by their rule (`requires_replace`, `requires_replace_if_configured`,
//!    `requires_replace_if`), at their path: list elements by index, map elements by key,
//!    set elements at the set (protocol paths cannot point into a set). Nothing is reported
//!    when the resource itself is created.
//! 8. The resource's own `modify_plan` hook runs last and may change anything computed and
//!    add requires-replace paths.
//!
//! **Element matching.** The prior value of an element of a list, set or map (nested
//! attributes or blocks) is found as follows, so rules 4–7 see the element's own history:
//! map elements by key; elements of a list or set whose schema names
//! [`match_elements_by`](crate::Attr::match_elements_by) attributes by the values of those;
//! other list elements by position; other set elements by the values of their non-computed
//! attributes, then, for elements still unmatched, by those values compared with each
//! attribute's semantic equality. Matching hashes the keys, so planning is linear in the
//! number of elements.

use std::hash::Hasher;

use tfwasm_model::hash::{HashMap, hash_map, value_hasher};

use tfwasm_model::{AttributePath, AttributeType, BlockNesting, Diagnostic, ObjectNesting, Value};

use crate::expr::{PathExpr, Selected};

use crate::ResourceSchema;
use crate::place::Place;
use crate::schema::{Attr, Block, ReplaceRequest, ReplaceRule, UnknownRule};

/// The plan being built, handed to [`Resource::modify_plan`](crate::Resource::modify_plan).
#[derive(Debug, Clone)]
pub struct PlanContext {
    /// Prior state; null on create.
    pub prior: Value,
    /// Configuration; null on destroy.
    pub config: Value,
    /// The planned state so far; modify it to change the plan. Null on destroy.
    pub planned: Value,
    /// Attributes whose change replaces the resource.
    pub requires_replace: Vec<AttributePath>,
}

impl PlanContext {
    /// True when the plan creates the object.
    pub fn is_create(&self) -> bool {
        self.prior.is_null()
    }
    /// True when the plan destroys the object.
    pub fn is_destroy(&self) -> bool {
        self.planned.is_null()
    }
    /// Marks `attribute` as forcing a replacement (once).
    pub fn require_replace(&mut self, path: AttributePath) {
        if !self.requires_replace.contains(&path) {
            self.requires_replace.push(path);
        }
    }

    /// The planned values `expr` selects ([`crate::expr`]: `rule[*].port`, `tags["*"]`),
    /// with their paths.
    ///
    /// # Errors
    /// A malformed expression.
    pub fn planned_at(&self, expr: &str) -> Result<Vec<Selected<'_>>, Diagnostic> {
        Ok(PathExpr::parse(expr)?.select(&self.planned))
    }

    /// The configured values `expr` selects, with their paths.
    ///
    /// # Errors
    /// A malformed expression.
    pub fn config_at(&self, expr: &str) -> Result<Vec<Selected<'_>>, Diagnostic> {
        Ok(PathExpr::parse(expr)?.select(&self.config))
    }

    /// The prior values `expr` selects, with their paths.
    ///
    /// # Errors
    /// A malformed expression.
    pub fn prior_at(&self, expr: &str) -> Result<Vec<Selected<'_>>, Diagnostic> {
        Ok(PathExpr::parse(expr)?.select(&self.prior))
    }

    /// Changes every planned value `expr` selects (only computed values may change, as
    /// always); returns how many it visited.
    ///
    /// # Errors
    /// A malformed expression, or one that climbs above the resource.
    pub fn update_planned(
        &mut self,
        expr: &str,
        mut change: impl FnMut(&AttributePath, &mut Value),
    ) -> Result<usize, Diagnostic> {
        Ok(PathExpr::parse(expr)?.update(&mut self.planned, &mut change)?)
    }

    /// Requires replacement at every path `expr` selects (in the plan or the prior state,
    /// so removed elements count) whose planned value differs from its prior value. A value
    /// inside a set is compared, and reported, as the whole set. Nothing on create or destroy.
    ///
    /// # Errors
    /// A malformed expression.
    pub fn require_replace_if_changed(&mut self, expr: &str) -> Result<(), Diagnostic> {
        if self.is_create() || self.is_destroy() {
            return Ok(());
        }
        let expr = PathExpr::parse(expr)?;
        // Hashed, so a selection over thousands of elements stays linear.
        let mut seen = tfwasm_model::hash::hash_set(self.requires_replace.len());
        seen.extend(self.requires_replace.iter().cloned());
        for found in expr
            .select(&self.planned)
            .into_iter()
            .chain(expr.select(&self.prior))
        {
            if !seen.contains(&found.path)
                && self.planned.get_path(&found.path) != self.prior.get_path(&found.path)
            {
                seen.insert(found.path.clone());
                self.requires_replace.push(found.path);
            }
        }
        Ok(())
    }
}

/// Applies rules 1–7 to a proposal, for a client without computed blocks. Every test plans
/// twice: with `schema` as given, and placed as a served schema is ([`ResourceSchema::place`]),
/// so the slots the planner reads by are held to plan exactly what names plan.
#[cfg(test)]
pub(crate) fn plan_defaults(
    schema: &ResourceSchema,
    prior: Value,
    proposed: Value,
    config: Value,
) -> PlanContext {
    let mut placed = schema.clone();
    placed.place();
    let by_slot = plan_defaults_for(
        &placed,
        prior.clone(),
        proposed.clone(),
        config.clone(),
        false,
    );
    let by_name = plan_defaults_for(schema, prior, proposed, config, false);
    assert_eq!(by_slot.planned, by_name.planned);
    assert_eq!(by_slot.requires_replace, by_name.requires_replace);
    by_slot
}

/// Applies rules 1–7 to a proposal; `computed_blocks` when the client takes computed blocks
/// planned unknown (`computed_blocks_allowed`, tfplugin6.11).
pub(crate) fn plan_defaults_for(
    schema: &ResourceSchema,
    prior: Value,
    proposed: Value,
    config: Value,
    computed_blocks: bool,
) -> PlanContext {
    let mut ctx = PlanContext {
        prior,
        config,
        planned: proposed,
        requires_replace: Vec::new(),
    };
    if ctx.planned.is_null() {
        return ctx;
    }
    let mut planner = Planner {
        resource_create: ctx.prior.is_null(),
        requires_replace: Vec::new(),
        computed_blocks,
    };
    let level = Level {
        attrs: &schema.attributes,
        blocks: &schema.blocks,
    };
    planner.object(
        &level,
        &ctx.prior,
        &ctx.config,
        &mut ctx.planned,
        &Place::root(),
    );
    for path in planner.requires_replace {
        ctx.require_replace(path);
    }
    ctx
}

/// One object's schema: its attributes and nested blocks.
struct Level<'s> {
    attrs: &'s [Attr],
    blocks: &'s [Block],
}

impl Level<'_> {
    fn of_block(block: &Block) -> Level<'_> {
        Level {
            attrs: &block.content.attributes,
            blocks: &block.content.blocks,
        }
    }
    fn of_nested(attr: &Attr) -> Level<'_> {
        Level {
            attrs: &attr.nested,
            blocks: &[],
        }
    }
}

/// How a collection of objects is nested.
#[derive(Clone, Copy)]
enum Many {
    List,
    Set,
    Map,
}

struct Planner {
    resource_create: bool,
    requires_replace: Vec<AttributePath>,
    /// The client takes a computed block planned unknown.
    computed_blocks: bool,
}

const NULL: Value = Value::Null;

fn get<'v>(value: &'v Value, name: &str) -> &'v Value {
    value.get(name).unwrap_or(&NULL)
}

/// A block the configuration does not have: null, or no elements.
fn left_out(config: &Value) -> bool {
    match config {
        Value::Null => true,
        Value::List(items) | Value::Set(items) => items.is_empty(),
        Value::Map(items) => items.is_empty(),
        _ => false,
    }
}

/// An attribute or block of an object at the place a value of the object's type holds it
/// ([`crate::schema::Attr::slot`]), and its name, which confirms it (else it is looked up).
#[derive(Clone, Copy)]
struct Slot<'s>(usize, &'s str);

impl Slot<'_> {
    fn get(self, value: &Value) -> &Value {
        match value {
            Value::Object(attrs) => attrs.get_at(self.0, self.1).unwrap_or(&NULL),
            other => get(other, self.1),
        }
    }

    fn get_mut(self, value: &mut Value) -> Option<&mut Value> {
        match value {
            Value::Object(attrs) => attrs.get_at_mut(self.0, self.1),
            other => other.get_mut(self.1),
        }
    }

    fn set(self, value: &mut Value, to: Value) {
        match value {
            Value::Object(attrs) => attrs.set_at(self.0, self.1, to),
            other => {
                other.set(self.1, to);
            }
        }
    }
}

impl Planner {
    /// Rules 2–7 for one object: `prior` null means it is new.
    fn object(
        &mut self,
        level: &Level<'_>,
        prior: &Value,
        config: &Value,
        planned: &mut Value,
        path: &Place,
    ) {
        if planned.is_null() || planned.is_unknown() {
            return;
        }
        let new = prior.is_null();
        for attr in level.attrs {
            let name = attr.wire.name.as_str();
            // Every value here is of this level's type: each holds the attribute at its slot.
            let at = Slot(attr.slot, name);
            if attr.wire.write_only {
                at.set(planned, Value::Null);
                continue;
            }
            let is_configured = !at.get(config).is_null();
            // A computed value the configuration leaves out comes from the matched prior
            // element, not from Terraform's proposal (which pairs list elements by position
            // and drops the computed values of set elements it could not pair).
            if !new && attr.wire.computed && !is_configured {
                at.set(planned, at.get(prior).clone());
            }
            if !attr.nested.is_empty()
                && let Some(value) = at.get_mut(planned)
            {
                self.nested_attr(attr, at.get(prior), at.get(config), value, &path.attr(name));
            }
            if attr.wire.computed && !is_configured {
                if let Some(default) = &attr.plan.default {
                    at.set(planned, default.clone());
                } else if new {
                    at.set(planned, Value::unknown());
                }
            }
            if let Some(equal) = attr.semantic() {
                let (before, now) = (at.get(prior), at.get(planned));
                if !before.is_null()
                    && before.is_wholly_known()
                    && !now.is_null()
                    && now.is_wholly_known()
                    && before != now
                    && equal(before, now)
                {
                    let keep = before.clone();
                    at.set(planned, keep);
                }
            }
        }
        for block in level.blocks {
            let name = block.wire.type_name.as_str();
            let at = Slot(block.slot, name);
            // A computed block the configuration leaves out is the provider's, as a computed
            // attribute is, for a client that takes that: unknown in a new object, its prior
            // value after. An older client plans it as any unconfigured block (Terraform's
            // proposal: null or empty), which is all it accepts.
            if self.computed_blocks && block.wire.block.computed && left_out(at.get(config)) {
                let kept = if new {
                    Value::unknown()
                } else {
                    at.get(prior).clone()
                };
                at.set(planned, kept);
                continue;
            }
            if let Some(value) = at.get_mut(planned) {
                self.block(
                    block,
                    at.get(prior),
                    at.get(config),
                    value,
                    &path.attr(name),
                );
            }
        }
        if !new && planned != prior {
            for attr in level.attrs {
                let at = Slot(attr.slot, attr.wire.name.as_str());
                if !attr.wire.computed || !at.get(config).is_null() || attr.plan.default.is_some() {
                    continue;
                }
                let before = at.get(prior).clone();
                let value = match attr.plan.unknown {
                    UnknownRule::Unknown => Value::unknown(),
                    UnknownRule::UseState => before,
                    UnknownRule::UseNonNullState if !before.is_null() => before,
                    UnknownRule::UseNonNullState => Value::unknown(),
                };
                at.set(planned, value);
            }
        }
        if self.resource_create {
            return;
        }
        for attr in level.attrs {
            let name = attr.wire.name.as_str();
            let at = Slot(attr.slot, name);
            let request = ReplaceRequest {
                prior: at.get(prior),
                config: at.get(config),
                planned: at.get(planned),
            };
            if request.planned == request.prior {
                continue;
            }
            let replace = match &attr.plan.replace {
                ReplaceRule::Never => false,
                ReplaceRule::Always => true,
                ReplaceRule::IfConfigured => !request.config.is_null(),
                ReplaceRule::If(rule, _) => rule(&request),
            };
            if replace {
                let at = path.attr(name);
                if !self.requires_replace.contains(at.path()) {
                    self.requires_replace.push(at.path().clone());
                }
            }
        }
    }

    fn nested_attr(
        &mut self,
        attr: &Attr,
        prior: &Value,
        config: &Value,
        planned: &mut Value,
        path: &Place,
    ) {
        let level = Level::of_nested(attr);
        let many = match &attr.wire.ty {
            AttributeType::Nested(object) => match object.nesting {
                ObjectNesting::Single => None,
                ObjectNesting::List => Some(Many::List),
                ObjectNesting::Set => Some(Many::Set),
                ObjectNesting::Map => Some(Many::Map),
            },
            AttributeType::Type(_) => None,
        };
        match many {
            None => self.object(&level, prior, config, planned, path),
            Some(many) => self.elements(&level, many, &attr.match_by, prior, config, planned, path),
        }
    }

    fn block(
        &mut self,
        block: &Block,
        prior: &Value,
        config: &Value,
        planned: &mut Value,
        path: &Place,
    ) {
        let level = Level::of_block(block);
        let many = match block.wire.nesting {
            BlockNesting::Single | BlockNesting::Group => None,
            BlockNesting::List => Some(Many::List),
            BlockNesting::Set => Some(Many::Set),
            BlockNesting::Map => Some(Many::Map),
        };
        match many {
            None => self.object(&level, prior, config, planned, path),
            Some(many) => {
                self.elements(&level, many, &block.match_by, prior, config, planned, path);
            }
        }
    }

    /// Plans each element of a list, set or map of objects against its matched prior
    /// element and configuration element.
    #[allow(clippy::too_many_arguments)]
    fn elements(
        &mut self,
        level: &Level<'_>,
        many: Many,
        match_by: &[String],
        prior: &Value,
        config: &Value,
        planned: &mut Value,
        path: &Place,
    ) {
        match (many, planned) {
            (Many::Map, Value::Map(items)) => {
                for (key, element) in items.iter_mut() {
                    let before = prior.get(key).unwrap_or(&NULL);
                    let wanted = config.get(key).unwrap_or(&NULL);
                    self.object(level, before, wanted, element, &path.key(key));
                }
            }
            (Many::List, Value::List(items)) => {
                let configs = elements(config);
                let priors = Matcher::new(level, match_by, elements(prior), false);
                for (i, element) in items.iter_mut().enumerate() {
                    let wanted = configs.get(i).unwrap_or(&NULL);
                    let before = if match_by.is_empty() {
                        elements(prior).get(i).unwrap_or(&NULL)
                    } else {
                        priors.find(element).unwrap_or(&NULL)
                    };
                    self.object(level, before, wanted, element, &path.index(i as i64));
                }
            }
            (Many::Set, Value::Set(items)) => {
                let path = &path.in_set();
                let configs = Matcher::new(level, match_by, elements(config), false);
                let mut priors = Matcher::new(level, match_by, elements(prior), true);
                for element in items.iter_mut() {
                    // Terraform's proposal echoes each configured element, so its key finds
                    // the configuration element it came from (else the element stands in).
                    let before = priors.take(level, element).unwrap_or(&NULL);
                    match configs.find(element) {
                        Some(wanted) => self.object(level, before, wanted, element, path),
                        None => {
                            let wanted = element.clone();
                            self.object(level, before, &wanted, element, path);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn elements(value: &Value) -> &[Value] {
    match value {
        Value::List(items) | Value::Set(items) => items,
        _ => &[],
    }
}

/// Prior (or configuration) elements indexed by their key: the `match_by` attributes, or
/// else the non-computed plain attributes. With `semantic`, elements left unmatched by key
/// are also tried with each attribute's semantic equality.
struct Matcher<'v> {
    names: Vec<String>,
    items: &'v [Value],
    /// The first element with each key hash; `next` chains the later ones in order (one
    /// index each, not a `Vec` per key: a set of 10,000 blocks is 10,000 keys).
    first: HashMap<u64, usize>,
    next: Vec<usize>,
    taken: Vec<bool>,
    semantic: bool,
}

/// The attributes that identify an element: the author's, else the non-computed plain ones.
fn key_names(level: &Level<'_>, match_by: &[String]) -> Vec<String> {
    if !match_by.is_empty() {
        return match_by.to_vec();
    }
    level
        .attrs
        .iter()
        .filter(|a| !a.wire.computed && a.nested.is_empty() && !a.wire.write_only)
        .map(|a| a.wire.name.clone())
        .collect()
}

/// The hash of an element's key; none when it has no key or part of it is unknown.
fn key_of(names: &[String], element: &Value) -> Option<u64> {
    if names.is_empty() {
        return None;
    }
    let mut hasher = value_hasher();
    for name in names {
        if !get(element, name).hash_known(&mut hasher) {
            return None;
        }
    }
    Some(hasher.finish())
}

/// The end of a [`Matcher`]'s chain.
const END: usize = usize::MAX;

impl<'v> Matcher<'v> {
    fn new(
        level: &Level<'_>,
        match_by: &[String],
        items: &'v [Value],
        semantic: bool,
    ) -> Matcher<'v> {
        let names = key_names(level, match_by);
        let mut first: HashMap<u64, usize> = hash_map(items.len());
        let mut next = vec![END; items.len()];
        // Backwards, so each chain runs in element order.
        for (i, item) in items.iter().enumerate().rev() {
            if let Some(key) = key_of(&names, item)
                && let Some(later) = first.insert(key, i)
            {
                next[i] = later;
            }
        }
        let semantic =
            semantic && match_by.is_empty() && level.attrs.iter().any(|a| a.semantic().is_some());
        Matcher {
            names,
            items,
            first,
            next,
            taken: vec![false; items.len()],
            semantic,
        }
    }

    /// The index of an untaken element whose key attributes equal `element`'s.
    fn position(&self, element: &Value) -> Option<usize> {
        let key = key_of(&self.names, element)?;
        let mut i = *self.first.get(&key)?;
        while i != END {
            if !self.taken[i]
                && (self.names.iter()).all(|n| get(&self.items[i], n) == get(element, n))
            {
                return Some(i);
            }
            i = self.next[i];
        }
        None
    }

    /// The element with the same key as `element`.
    fn find(&self, element: &Value) -> Option<&'v Value> {
        self.position(element).map(|i| &self.items[i])
    }

    /// Like [`Matcher::find`], then (for sets with semantic equality) by semantic equality
    /// of the key attributes; an element taken is not matched again.
    fn take(&mut self, level: &Level<'_>, element: &Value) -> Option<&'v Value> {
        let found = self.position(element).or_else(|| {
            if !self.semantic {
                return None;
            }
            (0..self.items.len()).find(|&i| {
                !self.taken[i] && semantically_same(level, &self.names, &self.items[i], element)
            })
        });
        let i = found?;
        self.taken[i] = true;
        Some(&self.items[i])
    }
}

/// Whether two elements agree on `names`, each compared with its attribute's semantic
/// equality where it has one.
fn semantically_same(level: &Level<'_>, names: &[String], a: &Value, b: &Value) -> bool {
    names.iter().all(|name| {
        let (x, y) = (get(a, name), get(b, name));
        x == y
            || level
                .attrs
                .iter()
                .find(|attr| attr.wire.name == *name)
                .and_then(Attr::semantic)
                .is_some_and(|equal| x.is_wholly_known() && y.is_wholly_known() && equal(x, y))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Attr, ValueExt};

    fn schema() -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::number("length").required().requires_replace())
            .attr(Attr::bool("special").default(true).requires_replace())
            .attr(Attr::string("result").computed())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn obj(length: i64, special: Value, result: Value, id: Value) -> Value {
        Value::object([
            ("length", Value::from(length)),
            ("special", special),
            ("result", result),
            ("id", id),
        ])
    }

    #[test]
    fn create_fills_defaults_and_unknowns() {
        let config = obj(4, Value::Null, Value::Null, Value::Null);
        let plan = plan_defaults(&schema(), Value::Null, config.clone(), config);
        assert_eq!(
            plan.planned,
            obj(4, true.into(), Value::unknown(), Value::unknown())
        );
        assert!(plan.requires_replace.is_empty());
    }

    #[test]
    fn unchanged_update_keeps_prior() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let config = obj(4, Value::Null, Value::Null, Value::Null);
        let proposed = prior.clone();
        let plan = plan_defaults(&schema(), prior.clone(), proposed, config);
        assert_eq!(plan.planned, prior);
        assert!(plan.requires_replace.is_empty());
    }

    #[test]
    fn changed_replaced_attribute_is_reported() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let config = obj(5, Value::Null, Value::Null, Value::Null);
        let proposed = prior.clone().with("length", 5);
        let plan = plan_defaults(&schema(), prior, proposed, config);
        assert_eq!(
            plan.requires_replace,
            vec![AttributePath::attribute("length")]
        );
        assert_eq!(plan.planned.attr("result"), &Value::unknown());
        assert_eq!(
            plan.planned.attr("id"),
            &Value::from("abcd"),
            "use_state_for_unknown keeps the id"
        );
    }

    #[test]
    fn replace_rules_and_unknown_rules() {
        let schema = ResourceSchema::new()
            .attr(
                Attr::string("name")
                    .optional()
                    .requires_replace_if_configured(),
            )
            .attr(
                Attr::number("size")
                    .optional()
                    .requires_replace_if("when it shrinks", |r| {
                        r.planned.as_i64() < r.prior.as_i64()
                    }),
            )
            .attr(
                Attr::string("arn")
                    .computed()
                    .use_non_null_state_for_unknown(),
            )
            .attr(
                Attr::string("etag")
                    .computed()
                    .use_non_null_state_for_unknown(),
            )
            .attr(Attr::string("kept").computed().use_state_for_unknown())
            .attr(Attr::string("secret").optional().write_only());
        let prior = Value::object([
            ("name", Value::from("a")),
            ("size", 10.into()),
            ("arn", "arn:1".into()),
            ("etag", Value::Null),
            ("kept", Value::Null),
            ("secret", Value::Null),
        ]);
        // name unset in config: a change of the (optional) value does not replace.
        let config = prior
            .clone()
            .with("name", Value::Null)
            .with("size", 20)
            .with("arn", Value::Null)
            .with("secret", "pw");
        let plan = plan_defaults(&schema, prior.clone(), config.clone(), config.clone());
        assert!(
            plan.requires_replace.is_empty(),
            "{:?}",
            plan.requires_replace
        );
        assert_eq!(plan.planned.attr("arn"), &Value::from("arn:1"));
        assert_eq!(plan.planned.attr("etag"), &Value::unknown());
        assert_eq!(plan.planned.attr("kept"), &Value::Null);
        assert_eq!(
            plan.planned.attr("secret"),
            &Value::Null,
            "write-only plans null"
        );
        // Configured name change and a shrinking size replace.
        let config = config.with("name", "b").with("size", 5);
        let plan = plan_defaults(&schema, prior, config.clone(), config);
        assert_eq!(
            plan.requires_replace,
            vec![
                AttributePath::attribute("name"),
                AttributePath::attribute("size")
            ]
        );
    }

    #[test]
    fn semantic_equality_keeps_the_prior_value() {
        let schema = ResourceSchema::new().attr(
            Attr::string("doc")
                .required()
                .semantic_equals(crate::semantic::json),
        );
        let prior = Value::object([("doc", Value::from("{\"a\": 1}"))]);
        let config = Value::object([("doc", Value::from("{\"a\":1}"))]);
        let plan = plan_defaults(&schema, prior.clone(), config.clone(), config);
        assert_eq!(plan.planned, prior);
        let config = Value::object([("doc", Value::from("{\"a\":2}"))]);
        let plan = plan_defaults(&schema, prior, config.clone(), config.clone());
        assert_eq!(plan.planned, config);
    }

    /// `rule` set blocks (name, port; computed id kept by matching; JSON `doc` compared by
    /// meaning) and a `tag` list nested attribute (key, value with a default, computed etag).
    fn deep() -> ResourceSchema {
        use crate::Block;
        ResourceSchema::new()
            .attr(Attr::string("id").computed().use_state_for_unknown())
            .attr(
                Attr::list_nested(
                    "tag",
                    vec![
                        Attr::string("key").required().requires_replace(),
                        Attr::string("value").default("none"),
                        Attr::string("etag").computed(),
                    ],
                )
                .optional()
                .match_elements_by(&["key"]),
            )
            .block(Block::set(
                "rule",
                ResourceSchema::new()
                    .attr(Attr::string("name").required())
                    .attr(Attr::number("port").required())
                    .attr(
                        Attr::string("doc")
                            .optional()
                            .semantic_equals(crate::semantic::json),
                    )
                    .attr(Attr::string("rid").computed().use_state_for_unknown())
                    .attr(Attr::string("seen").computed()),
            ))
    }

    fn rule(i: i64, doc: &str, rid: Value, seen: Value) -> Value {
        Value::object([
            ("name", Value::from(format!("r{i}"))),
            ("port", Value::from(i)),
            ("doc", Value::from(doc)),
            ("rid", rid),
            ("seen", seen),
        ])
    }

    fn tag(key: &str, value: Value, etag: Value) -> Value {
        Value::object([("key", Value::from(key)), ("value", value), ("etag", etag)])
    }

    fn state(rules: Vec<Value>, tags: Vec<Value>) -> Value {
        Value::object([
            ("id", Value::from("x")),
            ("tag", Value::List(tags)),
            ("rule", Value::Set(rules)),
        ])
    }

    fn config_of(value: &Value) -> Value {
        // What Terraform's configuration holds: computed attributes null.
        let strip = |v: &Value, computed: &[&str]| {
            let mut v = v.clone();
            for name in computed {
                v.set(name, Value::Null);
            }
            v
        };
        let rules = value
            .attr("rule")
            .as_elements()
            .unwrap_or_default()
            .iter()
            .map(|r| strip(r, &["rid", "seen"]))
            .collect();
        let tags = value
            .attr("tag")
            .as_elements()
            .unwrap_or_default()
            .iter()
            .map(|t| strip(t, &["etag"]))
            .collect();
        Value::object([
            ("id", Value::Null),
            ("tag", Value::List(tags)),
            ("rule", Value::Set(rules)),
        ])
    }

    #[test]
    fn set_elements_keep_their_computed_values_and_only_a_changed_one_goes_unknown() {
        let n = 1000;
        let known = |i: i64| rule(i, "{}", format!("id{i}").into(), "yes".into());
        let prior = state((0..n).map(known).collect(), Vec::new());
        // Element 500 changes its port; Terraform's proposal keeps prior computed values of
        // matched elements and has nulls for the new one.
        let mut proposed = prior.clone();
        if let Some(Value::Set(items)) = proposed.get_mut("rule") {
            items[500] = rule(500, "{}", Value::Null, Value::Null).with("port", 8080);
        }
        let config = config_of(&proposed);
        let plan = plan_defaults(&deep(), prior.clone(), proposed, config);
        let rules = plan.planned.attr("rule").as_elements().unwrap_or_default();
        let changed: Vec<&Value> = rules.iter().filter(|r| !r.is_wholly_known()).collect();
        assert_eq!(changed.len(), 1, "only the new element plans unknowns");
        assert_eq!(changed[0].attr("rid"), &Value::unknown());
        assert_eq!(plan.planned.attr("id"), &Value::from("x"));
        assert_eq!(rules.len(), 1000);
    }

    #[test]
    fn set_elements_sharing_a_key_take_prior_elements_in_order() {
        // Matched by `name` alone: two elements share one, so each must take the first prior
        // element with that name not taken yet, in order. Taking them out of order swaps
        // their computed `rid`s; matching one twice or not at all leaves a `rid` unknown.
        use crate::Block;
        let schema = ResourceSchema::new().block(
            Block::set(
                "rule",
                ResourceSchema::new()
                    .attr(Attr::string("name").required())
                    .attr(Attr::number("port").required())
                    .attr(Attr::string("rid").computed().use_state_for_unknown()),
            )
            .match_elements_by(&["name"]),
        );
        let rule = |name: &str, port: i64, rid: &str| {
            Value::object([
                ("name", Value::from(name)),
                ("port", Value::from(port)),
                ("rid", Value::from(rid)),
            ])
        };
        let rules = vec![
            rule("r", 1, "id-a"),
            rule("r", 2, "id-b"),
            rule("s", 3, "id-c"),
        ];
        let prior = Value::object([("rule", Value::Set(rules.clone()))]);
        let configured = (rules.iter())
            .map(|r| r.clone().with("rid", Value::Null))
            .collect();
        let config = Value::object([("rule", Value::Set(configured))]);
        let plan = plan_defaults(&schema, prior.clone(), prior.clone(), config);
        assert_eq!(plan.planned, prior);
    }

    #[test]
    fn set_elements_equal_by_meaning_plan_no_change() {
        let prior = state(
            vec![rule(1, "{\"a\": 1}", "id1".into(), "yes".into())],
            Vec::new(),
        );
        let mut proposed = prior.clone();
        if let Some(Value::Set(items)) = proposed.get_mut("rule") {
            items[0] = rule(1, "{\"a\":1}", Value::Null, Value::Null);
        }
        let config = config_of(&proposed);
        let plan = plan_defaults(&deep(), prior.clone(), proposed, config);
        assert_eq!(
            plan.planned, prior,
            "matched by meaning, the prior element is kept"
        );
    }

    #[test]
    fn list_elements_match_by_key_get_defaults_and_replace_at_their_index() {
        let prior = state(
            Vec::new(),
            vec![
                tag("a", "1".into(), "e-a".into()),
                tag("b", "2".into(), "e-b".into()),
            ],
        );
        // Reordered, b changed, c added with no value: a keeps its etag though it moved,
        // b's etag goes unknown, c gets the default and an unknown etag.
        let proposed = state(
            Vec::new(),
            vec![
                tag("b", "3".into(), "e-b".into()),
                tag("a", "1".into(), "e-b".into()),
                tag("c", Value::Null, Value::Null),
            ],
        );
        let config = config_of(&proposed);
        let plan = plan_defaults(&deep(), prior, proposed, config);
        let tags = plan.planned.attr("tag").as_elements().unwrap_or_default();
        assert_eq!(tags[0], tag("b", "3".into(), Value::unknown()));
        assert_eq!(tags[1], tag("a", "1".into(), "e-a".into()));
        assert_eq!(tags[2], tag("c", "none".into(), Value::unknown()));
        // `key` requires replacement: the new element's key differs from nothing before it.
        assert_eq!(
            plan.requires_replace,
            vec!["tag[2].key".parse::<AttributePath>().unwrap()]
        );
    }

    #[test]
    fn destroy_plans_null() {
        let prior = obj(4, true.into(), "abcd".into(), "abcd".into());
        let plan = plan_defaults(&schema(), prior, Value::Null, Value::Null);
        assert!(plan.planned.is_null());
    }

    /// tfplugin6.11: a computed block left out of the configuration is unknown on create
    /// for a client that takes that (null for one that does not), keeps its prior value
    /// after for that client, and its keeping is no change (so `result` stays); an older
    /// client gets what its configuration says (none), even over a filled prior block.
    #[test]
    fn a_computed_block_left_out_is_unknown_on_create_and_kept_after() {
        let schema = ResourceSchema::new()
            .attr(Attr::string("name").required())
            .attr(Attr::string("result").computed())
            .block(
                Block::single(
                    "status",
                    ResourceSchema::new().attr(Attr::string("phase").computed()),
                )
                .computed(),
            );
        let config = Value::object([
            ("name", Value::from("a")),
            ("result", Value::Null),
            ("status", Value::Null),
        ]);
        let create = |computed_blocks| {
            plan_defaults_for(
                &schema,
                Value::Null,
                config.clone(),
                config.clone(),
                computed_blocks,
            )
        };
        assert!(create(true).planned.attr("status").is_unknown());
        assert!(create(false).planned.attr("status").is_null());

        let status = Value::object([("phase", Value::from("ready"))]);
        let prior = Value::object([
            ("name", Value::from("a")),
            ("result", Value::from("done")),
            ("status", status.clone()),
        ]);
        let update = |computed_blocks| {
            plan_defaults_for(
                &schema,
                prior.clone(),
                config.clone(),
                config.clone(),
                computed_blocks,
            )
        };
        assert_eq!(
            update(true).planned,
            prior,
            "an unchanged object plans its prior value"
        );
        // An older client accepts only what configuration says of a block: none.
        assert!(update(false).planned.attr("status").is_null());
        // A configured block is the configuration's, computed or not.
        let configured = config
            .clone()
            .with("status", Value::object([("phase", Value::Null)]));
        let plan = plan_defaults_for(&schema, prior, configured.clone(), configured, true);
        assert!(!plan.planned.attr("status").is_unknown());
    }
}
