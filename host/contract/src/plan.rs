//! PlanResourceChange: the planned state must keep the configuration.
//!
//! Mirrors Terraform core's `AssertPlanValid`, so a violation found here is exactly what
//! Terraform would reject later, only reported earlier and with the path:
//! - a configured attribute keeps its configured value, or the prior value;
//! - a non-computed attribute left null in configuration stays null;
//! - only computed attributes may be set freely or left unknown;
//! - nested blocks keep the configured count and keys, and a block is never unknown as a whole;
//! - a destroy (null configuration) plans null.

use tfwasm_model::{
    Attribute, AttributePath, AttributeType, Block, BlockNesting, Layout, NestedBlock,
    NestedObject, ObjectNesting, PathStep, Type, Value,
};

use crate::at::At;
use crate::render::{In, render_in};
use crate::{Violation, Violations, attrs_at, same, unwrap_dynamic};

/// Checks a plan. `prior` is null on create; `config` is null on destroy. Blocks marked
/// `computed` (tfplugin6.11) may be planned freely where the configuration leaves them out.
pub fn check_plan(block: &Block, prior: &Value, config: &Value, planned: &Value) -> Violations {
    check_plan_for(block, prior, config, planned, true)
}

/// [`check_plan`] for a client that does or does not handle computed blocks
/// (`computed_blocks_allowed`): one that does not checks them as ordinary blocks, as an older
/// Terraform does.
pub fn check_plan_for(
    block: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    computed_blocks: bool,
) -> Violations {
    check_plan_with(
        block,
        &Layout::of(block),
        prior,
        config,
        planned,
        computed_blocks,
    )
}

/// [`check_plan_for`] with the block's [`Layout`] worked out already (the schema index holds
/// one per resource type), so nothing of the schema is sorted per plan.
pub fn check_plan_with(
    block: &Block,
    layout: &Layout,
    prior: &Value,
    config: &Value,
    planned: &Value,
    computed_blocks: bool,
) -> Violations {
    let rules = Rules { computed_blocks };
    let mut out = Violations::new();
    let root = At::Root;
    if config.is_null() {
        if !planned.is_null() {
            out.push(Violation::new(
                &root,
                format!(
                    "planned a non-null value {} for a destroy",
                    render_in(planned, In::Block(block))
                ),
            ));
        }
        return out;
    }
    if planned.is_unknown() {
        out.push(Violation::new(
            &root,
            "planned the whole object as unknown; plan unknown attributes instead",
        ));
        return out;
    }
    let whole = Laid {
        schema: block,
        layout,
    };
    object(rules, whole, prior, config, planned, &root, &mut out);
    out.extend(crate::write_only::write_only_not_null(
        block,
        planned,
        "planned value for write-only attribute is not null",
    ));
    out
}

/// What the client accepts beyond the oldest protocol's rules.
#[derive(Debug, Clone, Copy)]
struct Rules {
    /// Blocks marked `computed` may be set when the configuration leaves them out.
    computed_blocks: bool,
}

/// Checks that every requires-replace path names an attribute of the schema. Paths are
/// ignored on create, as Terraform ignores them.
pub fn check_requires_replace(block: &Block, prior: &Value, paths: &[AttributePath]) -> Violations {
    if prior.is_null() {
        return Violations::new();
    }
    check_requires_replace_in(&block.implied_type(), prior, paths)
}

/// [`check_requires_replace`] against the block's value type, already worked out (the
/// checks read it from the schema index rather than rebuild it per plan).
pub fn check_requires_replace_in(ty: &Type, prior: &Value, paths: &[AttributePath]) -> Violations {
    if prior.is_null() {
        return Violations::new();
    }
    paths
        .iter()
        .filter(|path| !path_exists(ty, path))
        .map(|path| {
            Violation::new(
                path,
                // The path is the violation's own (cut where a secret begins), not repeated
                // here whole.
                "requires_replace names a non-existent attribute path",
            )
        })
        .collect()
}

fn path_exists(ty: &Type, path: &AttributePath) -> bool {
    if path.is_root() {
        return false;
    }
    let mut current = ty;
    for step in &path.0 {
        current = match (current, step) {
            (Type::Dynamic, _) => return true,
            (Type::Object(attrs), PathStep::Attribute(name)) => match attrs.get(name) {
                Some(t) => t,
                None => return false,
            },
            (Type::List(elem), PathStep::KeyInt(i)) if *i >= 0 => elem,
            (Type::Tuple(elems), PathStep::KeyInt(i)) => {
                match usize::try_from(*i).ok().and_then(|i| elems.get(i)) {
                    Some(t) => t,
                    None => return false,
                }
            }
            (Type::Map(elem), PathStep::KeyString(_)) => elem,
            _ => return false,
        };
    }
    true
}

/// A part of a schema with its [`Layout`]: what a walk of its values needs.
struct Laid<'s, S> {
    schema: &'s S,
    layout: &'s Layout,
}

// Not derived: a derive would require `S: Copy`, and a `Laid` holds only references.
impl<S> Clone for Laid<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Laid<'_, S> {}

fn object(
    rules: Rules,
    Laid {
        schema: block,
        layout,
    }: Laid<'_, Block>,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    if !both_present(planned, config, path, out) {
        return;
    }
    attributes(&block.attributes, layout, prior, config, planned, path, out);
    for (i, nested) in block.block_types.iter().enumerate() {
        let name = &nested.type_name;
        let (at, layout) = layout.block(i);
        let [prior, config, planned] = attrs_at([prior, config, planned], at, name);
        let nested = Laid {
            schema: nested,
            layout,
        };
        nested_block(rules, nested, prior, config, planned, &path.attr(name), out);
    }
}

/// The attributes of one object (a block's, or a nested attribute's element), checked one by
/// one against the schema as it is: nothing of the schema is copied per element, so a long
/// description costs nothing however many elements there are.
fn attributes(
    list: &[Attribute],
    layout: &Layout,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    for (i, a) in list.iter().enumerate() {
        let [prior, config, planned] =
            attrs_at([prior, config, planned], layout.attribute(i), &a.name);
        let nested = layout.nested_attribute(i);
        attribute(a, nested, prior, config, planned, &path.attr(&a.name), out);
    }
}

fn attribute(
    a: &Attribute,
    layout: &Layout,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    // Write-only values never enter a plan, whatever the configuration holds: a null one is
    // right (any other is also reported, at any depth, by the walk in `check_plan_for`).
    if a.write_only && planned.is_null() {
        return;
    }
    if same(planned, config) {
        return;
    }
    if !prior.is_null() && !config.is_null() && same(planned, prior) {
        return;
    }
    if a.computed && !a.optional && !a.required {
        return;
    }
    if config.is_null() && a.computed {
        return;
    }
    if config.is_null() {
        let message = if a.sensitive {
            "sensitive planned value for a non-computed attribute".to_owned()
        } else {
            format!(
                "planned value {} for a non-computed attribute",
                render_in(planned, In::Attribute(a))
            )
        };
        return out.push(Violation::new(path, message));
    }
    if let AttributeType::Nested(object) = &a.ty {
        let before = out.total();
        let object = Laid {
            schema: object,
            layout,
        };
        nested_attribute(a, object, prior, config, planned, path, out);
        // Inside a secret, every attribute is one: its violations say no more than where.
        if (a.sensitive || a.write_only) && out.total() > before {
            out.truncate(before);
            out.push(Violation::new(
                path,
                "sensitive planned value does not match config value",
            ));
        }
        return;
    }
    let shown = |value| render_in(value, In::Attribute(a));
    let message = match (a.sensitive, prior.is_null()) {
        (true, true) => "sensitive planned value does not match config value".to_owned(),
        (true, false) => {
            "sensitive planned value does not match config value nor prior value".to_owned()
        }
        (false, true) => format!(
            "planned value {} does not match config value {}",
            shown(planned),
            shown(config)
        ),
        (false, false) => format!(
            "planned value {} does not match config value {} nor prior value {}",
            shown(planned),
            shown(config),
            shown(prior)
        ),
    };
    out.push(Violation::new(path, message));
}

fn nested_attribute(
    a: &Attribute,
    Laid {
        schema: object,
        layout,
    }: Laid<'_, NestedObject>,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    if !both_present(planned, config, path, out) {
        return;
    }
    if planned.is_unknown() {
        return out.push(Violation::new(path, "planned unknown for configured value"));
    }
    if config.is_unknown() {
        return out.push(Violation::new(
            path,
            format!(
                "planned value {} for an unknown configured value",
                render_in(planned, In::Attribute(a))
            ),
        ));
    }
    // Nested attribute objects hold no blocks, so only their attributes are checked.
    let element = |prior: &Value, config: &Value, planned: &Value, path: &At<'_>, out: &mut _| {
        if both_present(planned, config, path, out) {
            attributes(
                &object.attributes,
                layout,
                prior,
                config,
                planned,
                path,
                out,
            );
        }
    };
    match object.nesting {
        ObjectNesting::Single => element(prior, config, planned, path, out),
        ObjectNesting::List => {
            let (planned_items, config_items) = (elements(planned), elements(config));
            if planned_items.len() != config_items.len() {
                return out.push(Violation::new(
                    path,
                    format!(
                        "count in plan ({}) disagrees with count in config ({})",
                        planned_items.len(),
                        config_items.len()
                    ),
                ));
            }
            let prior_items = elements(prior);
            for (i, (p, c)) in planned_items.iter().zip(config_items).enumerate() {
                let before = prior_items.get(i).unwrap_or(&Value::Null);
                element(before, c, p, &path.index(i as i64), out);
            }
        }
        ObjectNesting::Map => {
            let (planned_map, config_map) = (entries(planned), entries(config));
            map_keys(planned_map, config_map, path, "map key", out);
            for (key, p) in planned_map {
                if let Some(c) = config_map.get(key) {
                    let before = entries(prior).get(key).unwrap_or(&Value::Null);
                    element(before, c, p, &path.key(key), out);
                }
            }
        }
        ObjectNesting::Set => {
            // Elements holding unknowns may yet coalesce, so a set's length is known only
            // when it is wholly known (or has at most one element), else it lies between 1
            // and its element count: core refuses only counts that cannot agree.
            let (planned_items, config_items) = (elements(planned), elements(config));
            let ((plo, phi), (clo, chi)) = (set_length(planned), set_length(config));
            if phi < clo || plo > chi {
                out.push(Violation::new(
                    path,
                    format!(
                        "count in plan ({}) disagrees with count in config ({})",
                        planned_items.len(),
                        config_items.len()
                    ),
                ));
            }
        }
    }
}

fn nested_block(
    rules: Rules,
    Laid {
        schema: nested,
        layout,
    }: Laid<'_, NestedBlock>,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &At<'_>,
    out: &mut Violations,
) {
    if nested.nesting != BlockNesting::Single && planned.is_null() {
        let kind = match nested.nesting {
            BlockNesting::List => "list",
            BlockNesting::Set => "set",
            BlockNesting::Map => "map",
            _ => "group",
        };
        return out.push(Violation::new(
            path,
            format!("attribute representing a {kind} of nested blocks must be empty to indicate no blocks, not null"),
        ));
    }
    if same(planned, config) {
        return;
    }
    // tfplugin6.11: the provider fills a computed block the configuration leaves out.
    if rules.computed_blocks && nested.block.computed && config.is_null() {
        return;
    }
    if config.is_unknown() {
        return out.push(Violation::new(
            path,
            format!(
                "planned value {} for unknown dynamic block",
                render_in(planned, In::Blocks(nested))
            ),
        ));
    }
    if planned.is_unknown() {
        return out.push(Violation::new(
            path,
            "attribute representing nested block must not be unknown itself; set nested attribute values to unknown instead",
        ));
    }
    let block = Laid {
        schema: &nested.block,
        layout,
    };
    match nested.nesting {
        BlockNesting::Single | BlockNesting::Group => {
            object(rules, block, prior, config, planned, path, out)
        }
        BlockNesting::List => {
            let (planned_items, config_items) = (elements(planned), elements(config));
            if planned_items.len() != config_items.len() {
                return out.push(Violation::new(
                    path,
                    format!(
                        "block count in plan ({}) disagrees with count in config ({})",
                        planned_items.len(),
                        config_items.len()
                    ),
                ));
            }
            let prior_items = elements(prior);
            for (i, (p, c)) in planned_items.iter().zip(config_items).enumerate() {
                let here = path.index(i as i64);
                if p.is_unknown() {
                    out.push(element_unknown(&here));
                    continue;
                }
                object(
                    rules,
                    block,
                    prior_items.get(i).unwrap_or(&Value::Null),
                    c,
                    p,
                    &here,
                    out,
                );
            }
        }
        BlockNesting::Map => {
            let (planned_map, config_map) = (entries(planned), entries(config));
            map_keys(planned_map, config_map, path, "block key", out);
            for (key, p) in planned_map {
                let here = path.key(key);
                if p.is_unknown() {
                    out.push(element_unknown(&here));
                    continue;
                }
                if let Some(c) = config_map.get(key) {
                    let before = entries(prior).get(key).unwrap_or(&Value::Null);
                    object(rules, block, before, c, p, &here, out);
                }
            }
        }
        BlockNesting::Set => {
            for (i, p) in elements(planned).iter().enumerate() {
                if p.is_unknown() {
                    out.push(element_unknown(&path.index(i as i64)));
                }
            }
        }
    }
}

/// Checks that an object is planned present exactly when configured; false when at least one
/// side is null (there is nothing inside to check then).
fn both_present(planned: &Value, config: &Value, path: &At<'_>, out: &mut Violations) -> bool {
    match (planned.is_null(), config.is_null()) {
        (false, false) => return true,
        (true, false) => out.push(Violation::new(
            path,
            "planned for absence but config wants existence",
        )),
        (false, true) => out.push(Violation::new(
            path,
            "planned for existence but config wants absence",
        )),
        (true, true) => {}
    }
    false
}

/// go-cty's `Length()` of a set as a range: exact when the set is wholly known or holds at
/// most one element, else from 1 to its element count.
fn set_length(set: &Value) -> (usize, usize) {
    let n = elements(set).len();
    if set.is_wholly_known() || n <= 1 {
        (n, n)
    } else {
        (1, n)
    }
}

fn element_unknown(path: &At<'_>) -> Violation {
    Violation::new(
        path,
        "element representing nested block must not be unknown itself; set nested attribute values to unknown instead",
    )
}

fn map_keys(
    planned: tfwasm_model::Entries<'_>,
    config: tfwasm_model::Entries<'_>,
    path: &At<'_>,
    what: &str,
    out: &mut Violations,
) {
    for key in planned.keys().filter(|k| !config.contains_key(k)) {
        out.push(Violation::new(
            path,
            format!("{what} {key:?} from plan is not present in config"),
        ));
    }
    for key in config.keys().filter(|k| !planned.contains_key(k)) {
        out.push(Violation::new(
            path,
            format!("{what} {key:?} from config is not present in plan"),
        ));
    }
}

fn elements(value: &Value) -> &[Value] {
    unwrap_dynamic(value).as_elements().unwrap_or(&[])
}

fn entries(value: &Value) -> tfwasm_model::Entries<'_> {
    unwrap_dynamic(value)
        .as_entries()
        .unwrap_or(tfwasm_model::Entries::EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{Attribute, NestedBlock};

    #[test]
    fn a_violation_per_element_keeps_a_hundred_and_counts_the_rest() {
        let mut name = Attribute::new("name", Type::String);
        name.required = true;
        let block = Block {
            block_types: vec![NestedBlock {
                type_name: "item".into(),
                block: Block {
                    attributes: vec![name],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let n = 300_000;
        let config = Value::object([(
            "item",
            Value::List(
                (0..n)
                    .map(|i| Value::object([("name", Value::from(format!("n{i}")))]))
                    .collect(),
            ),
        )]);
        let planned = Value::object([("item", Value::List(vec![Value::unknown(); n]))]);
        let found = check_plan(&block, &Value::Null, &config, &planned);
        assert_eq!(found.len(), crate::MAX_VIOLATIONS);
        assert_eq!(found.total(), n);
        assert_eq!(found[99].path.to_string(), ".item[99]");
    }
}
