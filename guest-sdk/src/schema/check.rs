//! Checking a schema the builder made: Terraform's rules for schemas, and settings that could
//! never take effect where they are (a default on a required attribute, a path expression
//! that leads nowhere), reported as schema errors so nothing is silently ignored.

use super::*;

/// Problems with `schema` by Terraform's rules for schemas (`path: message`); empty when valid.
pub fn check(schema: &ResourceSchema) -> Vec<String> {
    let mut problems: Vec<String> =
        tfwasm_model::schema_check::check_schema("schema", &schema.to_wire())
            .iter()
            .map(ToString::to_string)
            .collect();
    problems.extend(
        behaviour_problems(schema)
            .into_iter()
            .map(|p| format!("schema{p}")),
    );
    problems
}

/// Settings the builder accepted that could never take effect where they are, each as
/// `.path: message`; the SDK reports them as schema errors, so nothing is silently ignored.
pub fn behaviour_problems(schema: &ResourceSchema) -> Vec<String> {
    let mut out = Vec::new();
    let mut shapes = vec![Shape::Object(&schema.attributes, &schema.blocks)];
    validator_problems(&schema.validators, &shapes, "", &mut out);
    level_problems(
        &schema.attributes,
        &schema.blocks,
        "",
        &mut shapes,
        &mut out,
    );
    out
}

/// What a path expression can find at one step of a schema, for checking expressions
/// against it.
#[derive(Debug, Clone, Copy)]
enum Shape<'s> {
    /// An object with these attributes and blocks.
    Object(&'s [Attr], &'s [Block]),
    /// A list, set or map of such objects.
    Objects(Collection, &'s [Attr], &'s [Block]),
    /// A value of a plain type.
    Typed(&'s Type),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Collection {
    List,
    Set,
    Map,
}

impl<'s> Shape<'s> {
    /// Where `step` leads from here, or why it cannot.
    fn step(self, step: &ExprStep) -> Result<Shape<'s>, String> {
        let element = |kind: Collection| match (step, kind) {
            (ExprStep::AnyElement, _) | (ExprStep::Index(_), Collection::List) => Ok(()),
            (ExprStep::Key(_), Collection::Map) => Ok(()),
            _ => Err(format!("{kind:?} elements cannot be selected by {step:?}")),
        };
        match (self, step) {
            (Shape::Object(attrs, blocks), ExprStep::Attr(name)) => {
                if let Some(attr) = attrs.iter().find(|a| a.wire.name == *name) {
                    return Ok(match &attr.wire.ty {
                        AttributeType::Type(ty) => Shape::Typed(ty),
                        AttributeType::Nested(object) => match object.nesting {
                            ObjectNesting::Single => Shape::Object(&attr.nested, &[]),
                            ObjectNesting::List => {
                                Shape::Objects(Collection::List, &attr.nested, &[])
                            }
                            ObjectNesting::Set => {
                                Shape::Objects(Collection::Set, &attr.nested, &[])
                            }
                            ObjectNesting::Map => {
                                Shape::Objects(Collection::Map, &attr.nested, &[])
                            }
                        },
                    });
                }
                let block = blocks
                    .iter()
                    .find(|b| b.wire.type_name == *name)
                    .ok_or_else(|| format!("there is no attribute or block {name:?}"))?;
                let (attrs, blocks) = (&block.content.attributes[..], &block.content.blocks[..]);
                Ok(match block.wire.nesting {
                    BlockNesting::List => Shape::Objects(Collection::List, attrs, blocks),
                    BlockNesting::Set => Shape::Objects(Collection::Set, attrs, blocks),
                    BlockNesting::Map => Shape::Objects(Collection::Map, attrs, blocks),
                    _ => Shape::Object(attrs, blocks),
                })
            }
            (Shape::Objects(kind, attrs, blocks), _) => {
                element(kind)?;
                Ok(Shape::Object(attrs, blocks))
            }
            (Shape::Typed(Type::Dynamic), _) => Ok(self),
            (Shape::Typed(Type::Object(members)), ExprStep::Attr(name)) => members
                .get(name)
                .map(Shape::Typed)
                .ok_or_else(|| format!("the object has no attribute {name:?}")),
            (Shape::Typed(Type::List(inner)), _) => {
                element(Collection::List).map(|()| Shape::Typed(inner))
            }
            (Shape::Typed(Type::Set(inner)), _) => {
                element(Collection::Set).map(|()| Shape::Typed(inner))
            }
            (Shape::Typed(Type::Map(inner)), _) => {
                element(Collection::Map).map(|()| Shape::Typed(inner))
            }
            (Shape::Typed(Type::Tuple(items)), ExprStep::Index(i)) => usize::try_from(*i)
                .ok()
                .and_then(|i| items.get(i))
                .map(Shape::Typed)
                .ok_or_else(|| format!("the tuple has no element {i}")),
            (Shape::Object(..), _) => {
                Err(format!("an object has no elements to select by {step:?}"))
            }
            (Shape::Typed(ty), _) => Err(format!("a {ty} value has nothing to select by {step:?}")),
        }
    }

    /// The shapes an element of a nested value of this shape adds below it (as the chain of
    /// [`Frame`]s does when walking values).
    fn entered(self) -> Vec<Shape<'s>> {
        match self {
            Shape::Objects(_, attrs, blocks) => vec![self, Shape::Object(attrs, blocks)],
            other => vec![other],
        }
    }
}

/// Problems with the path expressions of `validators` used at the end of `shapes`.
fn validator_problems(
    validators: &[ResourceValidator],
    shapes: &[Shape],
    path: &str,
    out: &mut Vec<String>,
) {
    for text in validators.iter().flat_map(ResourceValidator::expressions) {
        if let Err(why) = expression_fits(text, shapes) {
            out.push(format!("{path}: validator names {text:?}: {why}"));
        }
    }
}

fn expression_fits(text: &str, shapes: &[Shape]) -> Result<(), String> {
    let expr = PathExpr::parse(text).map_err(|e| e.to_string())?;
    let mut stack = if expr.is_from_root() {
        shapes[..1].to_vec()
    } else {
        shapes.to_vec()
    };
    for step in expr.steps() {
        if *step == ExprStep::Parent {
            stack.pop();
            if stack.is_empty() {
                return Err("`<` climbs above the resource".to_owned());
            }
            continue;
        }
        let Some(top) = stack.last() else {
            return Err("nothing to select from".to_owned());
        };
        stack.push(top.step(step)?);
    }
    Ok(())
}

fn level_problems<'s>(
    attrs: &'s [Attr],
    blocks: &'s [Block],
    path: &str,
    shapes: &mut Vec<Shape<'s>>,
    out: &mut Vec<String>,
) {
    for attr in attrs {
        let here = format!("{path}.{}", attr.wire.name);
        let w = &attr.wire;
        let configurable = w.required || w.optional;
        let mut problem = |message: &str| out.push(format!("{here}: {message}"));
        if attr.plan.unknown != UnknownRule::Unknown && !w.computed {
            problem(
                "use_state_for_unknown needs a computed attribute (only computed values are planned unknown)",
            );
        }
        if !attr.validators.is_empty() && !configurable {
            problem("validators need an attribute set in configuration (required or optional)");
        }
        if attr.plan.semantic_equals.is_some() && !configurable {
            problem("semantic equality needs an attribute set in configuration");
        }
        if w.write_only && !matches!(attr.plan.replace, ReplaceRule::Never) {
            problem(
                "a write-only attribute always plans null, so it can never require replacement",
            );
        }
        if w.write_only && attr.plan.default.is_some() {
            problem("a write-only attribute cannot have a default (it is never stored)");
        }
        let nesting = match &w.ty {
            AttributeType::Nested(object) => Some(object.nesting),
            AttributeType::Type(_) => None,
        };
        if !attr.match_by.is_empty() {
            if !matches!(nesting, Some(ObjectNesting::List | ObjectNesting::Set)) {
                problem("match_elements_by needs a list or set nested attribute");
            }
            for name in &attr.match_by {
                if !attr.nested.iter().any(|a| a.wire.name == *name) {
                    out.push(format!("{here}: match_elements_by names {name:?}, which is not one of its attributes"));
                }
            }
        }
        level_problems(&attr.nested, &[], &here, shapes, out);
    }
    let top = shapes.last().copied();
    for block in blocks {
        let here = format!("{path}.{}", block.wire.type_name);
        let entered = top
            .and_then(|t| t.step(&ExprStep::Attr(block.wire.type_name.clone())).ok())
            .map(Shape::entered)
            .unwrap_or_default();
        let depth = shapes.len();
        shapes.extend(entered);
        validator_problems(&block.content.validators, shapes, &here, out);
        if !block.match_by.is_empty() {
            if !matches!(block.wire.nesting, BlockNesting::List | BlockNesting::Set) {
                out.push(format!(
                    "{here}: match_elements_by needs a list or set block"
                ));
            }
            for name in &block.match_by {
                if !block
                    .content
                    .attributes
                    .iter()
                    .any(|a| a.wire.name == *name)
                {
                    out.push(format!("{here}: match_elements_by names {name:?}, which is not one of its attributes"));
                }
            }
        }
        level_problems(
            &block.content.attributes,
            &block.content.blocks,
            &here,
            shapes,
            out,
        );
        shapes.truncate(depth);
    }
}
