//! Path expressions: name values anywhere in an object, for resource validators and
//! `modify_plan`, as terraform-plugin-framework's `path.Expression` does, written as text.
//!
//! | text | selects |
//! |---|---|
//! | `port` | the attribute `port` of the object the expression is relative to |
//! | `rule[*].port` | `port` of every element of the list, set or map `rule` |
//! | `tags["*"]` | every value of the map `tags` (the same as `tags[*]`) |
//! | `rule[0]`, `tags["env"]` | one list element, one map value |
//! | `<.name` | `name` beside the object: `<` steps to the parent |
//! | `$.region` | `region` at the top of the resource, from anywhere |
//!
//! An expression is relative to where it is used: a resource's validators see the resource,
//! a block's validators each block (so one block's fields check each other), `modify_plan`
//! helpers the whole planned state. As in the framework, the parent of a list, set or map
//! element is the collection and the collection's parent is the object holding it: from a
//! block element at `rule[3]`, `<` is `rule` and `<.<` the resource. A match inside a set
//! element is reported at the set, since protocol paths cannot point into set elements.
//!
//! An unknown value met on the way is selected itself, since it may hold anything: a
//! validator counts it as set, and a sum waits for apply.
//!
//! A resource's schema check rejects an expression that cannot match its schema (a typo in
//! a name, `[*]` on a string, `<` above the resource), so a validator never silently checks
//! nothing.

use std::fmt;

use tfwasm_model::{AttributePath, Value};

use crate::place::Place;

/// One step of a [`PathExpr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprStep {
    /// An attribute (or block) by name.
    Attr(String),
    /// Every element of a list, set or map (`[*]`, `["*"]`).
    AnyElement,
    /// One list element (`[2]`).
    Index(i64),
    /// One map element (`["key"]`).
    Key(String),
    /// The parent (`<`).
    Parent,
}

/// A parsed path expression (see the module docs for the syntax).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathExpr {
    from_root: bool,
    steps: Vec<ExprStep>,
}

/// Why a path expression was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    text: String,
    at: usize,
    why: &'static str,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid path expression {:?} at byte {}: {}",
            self.text, self.at, self.why
        )
    }
}

impl std::error::Error for ExprError {}

impl From<ExprError> for tfwasm_model::Diagnostic {
    fn from(e: ExprError) -> Self {
        tfwasm_model::Diagnostic::error("Invalid path expression", e.to_string())
    }
}

/// A value an expression selected, with where it sits (for diagnostics and requires-replace).
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'v> {
    /// The protocol path of the value (stopping at a set).
    pub path: AttributePath,
    /// The value.
    pub value: &'v Value,
}

/// One level of the object being walked: a value and where it sits. A chain of frames from
/// the resource down to an object lets `<` and `$` steps climb back up.
#[derive(Debug, Clone)]
pub(crate) struct Frame<'v> {
    pub(crate) value: &'v Value,
    pub(crate) place: Place,
}

impl<'v> Frame<'v> {
    pub(crate) fn root(value: &'v Value) -> Frame<'v> {
        Frame {
            value,
            place: Place::root(),
        }
    }
}

impl std::str::FromStr for PathExpr {
    type Err = ExprError;
    fn from_str(text: &str) -> Result<PathExpr, ExprError> {
        Parser { text, at: 0 }.expr()
    }
}

impl PathExpr {
    /// Parses `text` (see the module docs).
    ///
    /// # Errors
    /// Text that is not an expression, naming the byte where it went wrong.
    pub fn parse(text: &str) -> Result<PathExpr, ExprError> {
        text.parse()
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[ExprStep] {
        &self.steps
    }

    /// True for expressions anchored at the resource (`$`).
    pub fn is_from_root(&self) -> bool {
        self.from_root
    }

    /// Every value of `object` the expression selects, with its path.
    pub fn select<'v>(&self, object: &'v Value) -> Vec<Selected<'v>> {
        self.resolve(&[Frame::root(object)])
            .into_iter()
            .map(|f| Selected {
                path: f.place.path().clone(),
                value: f.value,
            })
            .collect()
    }

    /// Calls `f` on every value of `object` the expression selects, to change it in place;
    /// returns how many it visited. Sets changed this way drop duplicates afterwards, as a
    /// set must.
    ///
    /// # Errors
    /// An expression that climbs above `object` with `<`.
    pub fn update(
        &self,
        object: &mut Value,
        f: &mut dyn FnMut(&AttributePath, &mut Value),
    ) -> Result<usize, ExprError> {
        let mut steps: Vec<&ExprStep> = Vec::new();
        for step in &self.steps {
            if *step == ExprStep::Parent {
                if steps.pop().is_none() {
                    return Err(ExprError {
                        text: self.to_string(),
                        at: 0,
                        why: "`<` climbs above the object it is applied to",
                    });
                }
            } else {
                steps.push(step);
            }
        }
        let mut count = 0;
        update_at(object, &steps, &Place::root(), f, &mut count);
        Ok(count)
    }

    /// The frames this expression selects from the end of `chain` (the object it is
    /// relative to, after its ancestors).
    pub(crate) fn resolve<'v>(&self, chain: &[Frame<'v>]) -> Vec<Frame<'v>> {
        let start = if self.from_root {
            &chain[..chain.len().min(1)]
        } else if self.steps.contains(&ExprStep::Parent) {
            chain
        } else {
            &chain[chain.len().saturating_sub(1)..]
        };
        let mut chains = vec![start.to_vec()];
        for step in &self.steps {
            let mut next = Vec::with_capacity(chains.len());
            for mut chain in chains {
                if *step == ExprStep::Parent {
                    chain.pop();
                    if !chain.is_empty() {
                        next.push(chain);
                    }
                    continue;
                }
                let Some(top) = chain.last() else { continue };
                for frame in children(top, step) {
                    let mut longer = chain.clone();
                    longer.push(frame);
                    next.push(longer);
                }
            }
            chains = next;
        }
        chains.into_iter().filter_map(|mut c| c.pop()).collect()
    }
}

/// The frames one step leads to from `top`.
fn children<'v>(top: &Frame<'v>, step: &ExprStep) -> Vec<Frame<'v>> {
    let value = match top.value {
        Value::Dynamic(_, inner) => inner,
        v => v,
    };
    let frame = |value, place| Frame { value, place };
    match (step, value) {
        // An unknown value may hold anything the step asks for: it stands for it.
        (_, Value::Unknown(_)) => vec![top.clone()],
        (ExprStep::Attr(name), Value::Object(m)) => m
            .get(name.as_str())
            .map(|v| frame(v, top.place.attr(name)))
            .into_iter()
            .collect(),
        (ExprStep::Index(i), Value::List(items) | Value::Tuple(items)) => usize::try_from(*i)
            .ok()
            .and_then(|i| items.get(i))
            .map(|v| frame(v, top.place.index(*i)))
            .into_iter()
            .collect(),
        (ExprStep::Key(k), Value::Map(m)) => m
            .get(k.as_str())
            .map(|v| frame(v, top.place.key(k)))
            .into_iter()
            .collect(),
        (ExprStep::AnyElement, Value::List(items) | Value::Tuple(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| frame(v, top.place.index(i as i64)))
            .collect(),
        (ExprStep::AnyElement, Value::Set(items)) => {
            let inside = top.place.in_set();
            items.iter().map(|v| frame(v, inside.clone())).collect()
        }
        (ExprStep::AnyElement, Value::Map(m)) => {
            m.iter().map(|(k, v)| frame(v, top.place.key(k))).collect()
        }
        _ => Vec::new(),
    }
}

fn update_at(
    value: &mut Value,
    steps: &[&ExprStep],
    place: &Place,
    f: &mut dyn FnMut(&AttributePath, &mut Value),
    count: &mut usize,
) {
    let Some((step, rest)) = steps.split_first() else {
        f(place.path(), value);
        *count += 1;
        return;
    };
    let value = match value {
        Value::Dynamic(_, inner) => inner.as_mut(),
        v => v,
    };
    match (step, value) {
        (ExprStep::Attr(name), Value::Object(m)) => {
            if let Some(v) = m.get_mut(name.as_str()) {
                update_at(v, rest, &place.attr(name), f, count);
            }
        }
        (ExprStep::Index(i), Value::List(items) | Value::Tuple(items)) => {
            if let Some(v) = usize::try_from(*i).ok().and_then(|i| items.get_mut(i)) {
                update_at(v, rest, &place.index(*i), f, count);
            }
        }
        (ExprStep::Key(k), Value::Map(m)) => {
            if let Some(v) = m.get_mut(k.as_str()) {
                update_at(v, rest, &place.key(k), f, count);
            }
        }
        (ExprStep::AnyElement, Value::List(items) | Value::Tuple(items)) => {
            for (i, v) in items.iter_mut().enumerate() {
                update_at(v, rest, &place.index(i as i64), f, count);
            }
        }
        (ExprStep::AnyElement, Value::Map(m)) => {
            for (k, v) in m.iter_mut() {
                update_at(v, rest, &place.key(k), f, count);
            }
        }
        (ExprStep::AnyElement, set @ Value::Set(_)) => {
            let Value::Set(items) = set else { return };
            let inside = place.in_set();
            for v in items.iter_mut() {
                update_at(v, rest, &inside, f, count);
            }
            *set = Value::set_of(std::mem::take(items));
        }
        _ => {}
    }
}

impl fmt::Display for PathExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        if self.from_root {
            f.write_str("$")?;
            first = false;
        }
        for step in &self.steps {
            match step {
                ExprStep::Attr(name) if first => f.write_str(name)?,
                ExprStep::Attr(name) => write!(f, ".{name}")?,
                ExprStep::Parent if first => f.write_str("<")?,
                ExprStep::Parent => f.write_str(".<")?,
                ExprStep::AnyElement => f.write_str("[*]")?,
                ExprStep::Index(i) => write!(f, "[{i}]")?,
                ExprStep::Key(k) => write!(f, "[{k:?}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn fail(&self, why: &'static str) -> ExprError {
        ExprError {
            text: self.text.to_owned(),
            at: self.at,
            why,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn expr(mut self) -> Result<PathExpr, ExprError> {
        let mut expr = PathExpr {
            from_root: false,
            steps: Vec::new(),
        };
        match self.peek() {
            None => return Err(self.fail("empty expression")),
            Some(b'$') => {
                self.at += 1;
                expr.from_root = true;
            }
            Some(b'[') => return Err(self.fail("an expression starts with a name, `<` or `$`")),
            Some(_) => expr.steps.push(self.name_or_parent()?),
        }
        while let Some(c) = self.peek() {
            match c {
                b'.' => {
                    self.at += 1;
                    expr.steps.push(self.name_or_parent()?);
                }
                b'[' => {
                    self.at += 1;
                    expr.steps.push(self.selector()?);
                    if self.peek() != Some(b']') {
                        return Err(self.fail("expected `]`"));
                    }
                    self.at += 1;
                }
                _ => return Err(self.fail("expected `.` or `[`")),
            }
        }
        Ok(expr)
    }

    fn name_or_parent(&mut self) -> Result<ExprStep, ExprError> {
        if self.peek() == Some(b'<') {
            self.at += 1;
            return Ok(ExprStep::Parent);
        }
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.fail("expected an attribute name or `<`"));
        }
        self.at += len;
        Ok(ExprStep::Attr(rest[..len].to_owned()))
    }

    fn selector(&mut self) -> Result<ExprStep, ExprError> {
        match self.peek() {
            Some(b'*') => {
                self.at += 1;
                Ok(ExprStep::AnyElement)
            }
            Some(b'"') => {
                self.at += 1;
                let key = self.string()?;
                Ok(if key == "*" {
                    ExprStep::AnyElement
                } else {
                    ExprStep::Key(key)
                })
            }
            Some(c) if c.is_ascii_digit() => {
                let rest = &self.text[self.at..];
                let len = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let index = rest[..len]
                    .parse()
                    .map_err(|_| self.fail("list index too large"))?;
                self.at += len;
                Ok(ExprStep::Index(index))
            }
            _ => Err(self.fail("expected `*`, a list index or a quoted map key")),
        }
    }

    /// A quoted key after its opening quote; `\"` and `\\` escape.
    fn string(&mut self) -> Result<String, ExprError> {
        let mut out = String::new();
        let mut chars = self.text[self.at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    _ => {
                        self.at += i;
                        return Err(self.fail("only `\\\"` and `\\\\` escape in a key"));
                    }
                },
                c => out.push(c),
            }
        }
        Err(self.fail("unterminated key"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(pairs: Vec<(&str, Value)>) -> Value {
        Value::object(pairs)
    }
    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn sample() -> Value {
        obj(vec![
            ("region", s("eu")),
            (
                "rule",
                Value::List(vec![
                    obj(vec![("port", s("80")), ("name", s("web"))]),
                    obj(vec![("port", s("443")), ("name", Value::Null)]),
                ]),
            ),
            (
                "tags",
                Value::Map(
                    [("env".into(), s("prod")), ("team".into(), s("a"))]
                        .into_iter()
                        .collect(),
                ),
            ),
            (
                "group",
                Value::set_of(vec![obj(vec![("id", s("x"))]), obj(vec![("id", s("y"))])]),
            ),
        ])
    }

    fn paths(expr: &str, value: &Value) -> Vec<String> {
        PathExpr::parse(expr)
            .unwrap()
            .select(value)
            .iter()
            .map(|m| format!("{}={}", m.path, m.value.as_str().unwrap_or("?")))
            .collect()
    }

    #[test]
    fn parses_and_prints_every_form() {
        for text in [
            "port",
            "rule[*].port",
            "tags[\"env\"]",
            "rule[0]",
            "<.name",
            "<.<.region",
            "$.region",
            "$",
            "a-b_c[1][*]",
        ] {
            assert_eq!(PathExpr::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            PathExpr::parse("tags[\"*\"]").unwrap().to_string(),
            "tags[*]"
        );
        let quoted = PathExpr::parse(r#"m["a\"b"]"#).unwrap();
        assert_eq!(quoted.steps()[1], ExprStep::Key("a\"b".into()));
    }

    #[test]
    fn rejects_malformed_text_naming_where() {
        for (text, at) in [
            ("", 0),
            ("[0]", 0),
            ("rule[", 5),
            ("rule[x]", 5),
            ("rule[0", 6),
            ("rule..port", 5),
            ("rule port", 4),
            ("m[\"open", 3),
        ] {
            let err = PathExpr::parse(text).unwrap_err();
            assert_eq!(err.at, at, "{text}: {err}");
        }
    }

    #[test]
    fn selects_through_lists_maps_and_sets() {
        let v = sample();
        assert_eq!(
            paths("rule[*].port", &v),
            [".rule[0].port=80", ".rule[1].port=443"]
        );
        assert_eq!(paths("rule[1].port", &v), [".rule[1].port=443"]);
        assert_eq!(
            paths("tags[\"*\"]", &v),
            [".tags[\"env\"]=prod", ".tags[\"team\"]=a"]
        );
        assert_eq!(paths("tags[\"team\"]", &v), [".tags[\"team\"]=a"]);
        // Matches inside a set element sit at the set.
        assert_eq!(paths("group[*].id", &v), [".group=x", ".group=y"]);
        assert!(paths("nothing", &v).is_empty());
        assert!(paths("rule[7]", &v).is_empty());
        assert!(paths("region[*]", &v).is_empty());
        let unknown = obj(vec![("rule", Value::unknown())]);
        let found = PathExpr::parse("rule[*].port").unwrap().select(&unknown);
        assert_eq!(found.len(), 1);
        assert!(found[0].value.is_unknown());
        assert_eq!(found[0].path.to_string(), ".rule");
    }

    #[test]
    fn parents_and_root_climb_the_chain() {
        let v = sample();
        let rule = v.get("rule").unwrap();
        let element = &rule.as_elements().unwrap()[1];
        let chain = [
            Frame::root(&v),
            Frame {
                value: rule,
                place: Place::root().attr("rule"),
            },
            Frame {
                value: element,
                place: Place::root().attr("rule").index(1),
            },
        ];
        let at = |expr: &str| -> Vec<String> {
            PathExpr::parse(expr)
                .unwrap()
                .resolve(&chain)
                .iter()
                .map(|f| f.place.path().to_string())
                .collect()
        };
        assert_eq!(at("port"), [".rule[1].port"]);
        assert_eq!(at("<"), [".rule"]);
        assert_eq!(at("<.<.region"), [".region"]);
        assert_eq!(at("$.tags[\"env\"]"), [".tags[\"env\"]"]);
        assert_eq!(at("<[0].name"), [".rule[0].name"]);
        assert!(at("<.<.<").is_empty());
    }

    #[test]
    fn update_changes_every_match_and_keeps_sets_distinct() {
        let mut v = sample();
        let n = PathExpr::parse("rule[*].port")
            .unwrap()
            .update(&mut v, &mut |_, value| *value = s("8080"))
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            paths("rule[*].port", &v),
            [".rule[0].port=8080", ".rule[1].port=8080"]
        );
        // Two set elements made equal become one.
        PathExpr::parse("group[*].id")
            .unwrap()
            .update(&mut v, &mut |_, value| *value = s("same"))
            .unwrap();
        assert_eq!(v.get("group").unwrap().as_elements().unwrap().len(), 1);
        assert!(
            PathExpr::parse("<.x")
                .unwrap()
                .update(&mut v, &mut |_, _| {})
                .is_err()
        );
    }
}
