//! Validators: small, composable checks of configuration, attached to an attribute
//! ([`Attr::validate`](crate::Attr::validate)) or to a whole resource
//! ([`ResourceSchema::validate`](crate::ResourceSchema::validate)). Attribute validators only
//! see known, non-null values; resource validators treat unknown as configured.

use tfwasm_model::{AttributePath, Diagnostic, Value};

use crate::expr::{ExprStep, Frame, PathExpr};

/// A check of one attribute's value.
#[derive(Debug, Clone)]
pub enum AttrValidator {
    /// A whole number of at least this.
    AtLeast(i64),
    /// A whole number within these bounds, inclusive.
    Between(i64, i64),
    /// A whole number that fits in 64 bits (what `i64` getters read).
    WholeNumber,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A whole number of at most this.
    AtMost(i64),
    /// None of these strings.
    NoneOf(&'static [&'static str]),
    /// A string whose length (in characters) is within these bounds, inclusive.
    LengthBetween(usize, usize),
    /// A string matching a regular expression (made by [`regex`]).
    Regex(Pattern),
    /// All elements of a list or set pass the inner validator.
    Each(Box<AttrValidator>),
    /// Any of these passes (the first error is reported when none does).
    Any(Vec<AttrValidator>),
    /// Your own check: gets the attribute name and its value.
    Custom(fn(&str, &Value) -> Option<Diagnostic>),
}

/// A whole number of at least `min`.
pub fn at_least(min: i64) -> AttrValidator {
    AttrValidator::AtLeast(min)
}
/// A whole number between `min` and `max`, inclusive.
pub fn between(min: i64, max: i64) -> AttrValidator {
    AttrValidator::Between(min, max)
}
/// A whole number from `i64::MIN` to `i64::MAX`: what a number attribute read with
/// [`get_i64`](crate::ValueExt::get_i64) needs, checked at plan rather than failing at apply.
pub fn whole_number() -> AttrValidator {
    AttrValidator::WholeNumber
}
/// One of `options`.
pub fn one_of(options: &'static [&'static str]) -> AttrValidator {
    AttrValidator::OneOf(options)
}
/// A string of `min` to `max` characters.
pub fn length_between(min: usize, max: usize) -> AttrValidator {
    AttrValidator::LengthBetween(min, max)
}
/// A whole number of at most `max`.
pub fn at_most(max: i64) -> AttrValidator {
    AttrValidator::AtMost(max)
}
/// None of `options`.
pub fn none_of(options: &'static [&'static str]) -> AttrValidator {
    AttrValidator::NoneOf(options)
}
/// A string matching `pattern` (anchor it with `^...$` to match the whole string);
/// `description` says what is expected, e.g. "a lowercase name".
pub fn regex(pattern: &'static str, description: &'static str) -> AttrValidator {
    AttrValidator::Regex(Pattern {
        pattern,
        description,
        matches: matches_pattern,
    })
}

/// A regular expression (`regex-lite` syntax) and what a matching value looks like, for the
/// error message.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The expression.
    pub pattern: &'static str,
    /// What is expected, e.g. "a lowercase name".
    pub description: &'static str,
    /// Reached only through [`regex`], so a provider that never uses a pattern does not
    /// carry the regex engine (about 40 KB of its component).
    matches: fn(&'static str, &str) -> Result<bool, String>,
}

/// Whether `text` matches `pattern`, each pattern compiled once per instance.
fn matches_pattern(pattern: &'static str, text: &str) -> Result<bool, String> {
    thread_local! {
        static COMPILED: std::cell::RefCell<std::collections::HashMap<&'static str, Result<regex_lite::Regex, String>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    COMPILED.with(|cache| {
        let mut cache = cache.borrow_mut();
        let compiled = cache
            .entry(pattern)
            .or_insert_with(|| regex_lite::Regex::new(pattern).map_err(|e| e.to_string()));
        match compiled {
            Ok(re) => Ok(re.is_match(text)),
            Err(e) => Err(e.clone()),
        }
    })
}
/// Every element of a list or set passes `inner`.
pub fn each(inner: AttrValidator) -> AttrValidator {
    AttrValidator::Each(Box::new(inner))
}
/// At least one of `validators` passes.
pub fn any(validators: Vec<AttrValidator>) -> AttrValidator {
    AttrValidator::Any(validators)
}

fn invalid(name: &str, detail: String) -> Diagnostic {
    Diagnostic::error(format!("Invalid {name}"), detail).at(AttributePath::attribute(name))
}

/// `value` is no whole number in `i64`'s range: says which, with the number given.
fn not_whole(name: &str, value: &Value) -> Diagnostic {
    let got = value
        .as_number()
        .map_or_else(|| "a value of another type".to_owned(), ToString::to_string);
    invalid(
        name,
        format!(
            "{name} must be a whole number from {} to {}, got {got}.",
            i64::MIN,
            i64::MAX
        ),
    )
}

impl AttrValidator {
    /// Checks `value` of attribute `name`; `None` when it passes (or is null or unknown).
    pub fn check(&self, name: &str, value: &Value) -> Option<Diagnostic> {
        if value.is_null() || !value.is_wholly_known() {
            return None;
        }
        let number = || value.as_i64();
        match self {
            AttrValidator::AtLeast(min) => match number() {
                Some(n) if n >= *min => None,
                Some(n) => Some(invalid(
                    name,
                    format!("{name} must be at least {min}, got {n}."),
                )),
                None => Some(not_whole(name, value)),
            },
            AttrValidator::WholeNumber => number().is_none().then(|| not_whole(name, value)),
            AttrValidator::Between(min, max) => match number() {
                Some(n) if (*min..=*max).contains(&n) => None,
                Some(n) => Some(invalid(
                    name,
                    format!("{name} must be between {min} and {max}, got {n}."),
                )),
                None => Some(not_whole(name, value)),
            },
            AttrValidator::OneOf(options) => match value.as_str() {
                Some(s) if options.contains(&s) => None,
                Some(s) => Some(invalid(
                    name,
                    format!("{name} must be one of {options:?}, got {s:?}."),
                )),
                None => Some(invalid(name, format!("{name} must be a string."))),
            },
            AttrValidator::LengthBetween(min, max) => {
                match value.as_str().map(|s| s.chars().count()) {
                    Some(n) if (*min..=*max).contains(&n) => None,
                    Some(n) => Some(invalid(
                        name,
                        format!("{name} must be {min} to {max} characters long, got {n}."),
                    )),
                    None => Some(invalid(name, format!("{name} must be a string."))),
                }
            }
            AttrValidator::AtMost(max) => match number() {
                Some(n) if n <= *max => None,
                Some(n) => Some(invalid(
                    name,
                    format!("{name} must be at most {max}, got {n}."),
                )),
                None => Some(not_whole(name, value)),
            },
            AttrValidator::NoneOf(options) => match value.as_str() {
                Some(s) if options.contains(&s) => Some(invalid(
                    name,
                    format!("{name} must not be one of {options:?}, got {s:?}."),
                )),
                Some(_) => None,
                None => Some(invalid(name, format!("{name} must be a string."))),
            },
            AttrValidator::Regex(Pattern {
                pattern,
                description,
                matches,
            }) => {
                let Some(s) = value.as_str() else {
                    return Some(invalid(name, format!("{name} must be a string.")));
                };
                match matches(pattern, s) {
                    Ok(true) => None,
                    Ok(false) => Some(invalid(
                        name,
                        format!("{name} must be {description} (matching {pattern}), got {s:?}."),
                    )),
                    Err(e) => Some(invalid(
                        name,
                        format!("Provider bug: the pattern {pattern} of {name} is invalid: {e}."),
                    )),
                }
            }
            AttrValidator::Each(inner) => value.as_elements().and_then(|items| {
                items.iter().enumerate().find_map(|(i, item)| {
                    inner.check(name, item).map(|mut d| {
                        d.attribute = Some(AttributePath::attribute(name).index(i as i64));
                        d
                    })
                })
            }),
            AttrValidator::Any(validators) => {
                let failures: Vec<Diagnostic> = validators
                    .iter()
                    .filter_map(|v| v.check(name, value))
                    .collect();
                if failures.len() < validators.len() {
                    None
                } else {
                    failures.into_iter().next()
                }
            }
            AttrValidator::Custom(check) => check(name, value),
        }
    }
}

/// A check across attributes of one resource's configuration (or of one nested block, when
/// given to [`crate::Block`]'s content). Attributes are named by path expressions
/// ([`crate::expr`]): plain names, or `rule[*].port`, `tags["*"]`, `<.name`, `$.region`. An
/// expression counts as set when any value it selects is set; unknown values count as set.
#[derive(Debug, Clone)]
pub enum ResourceValidator {
    /// At most one of these may be set.
    ConflictsWith(&'static [&'static str]),
    /// Exactly one of these must be set.
    ExactlyOneOf(&'static [&'static str]),
    /// At least one of these must be set.
    AtLeastOneOf(&'static [&'static str]),
    /// All of these or none.
    RequiredTogether(&'static [&'static str]),
    /// The first attribute (a whole number) must be at least the sum of the others
    /// (e.g. a length and its per-class minimums); an expression selecting several values
    /// adds them all.
    AtLeastSumOf(&'static str, &'static [&'static str]),
    /// Your own check of the whole configuration (or block); its diagnostics' paths are
    /// relative to it.
    Custom(fn(&Value) -> Vec<Diagnostic>),
}

/// `text` parsed, once per instance: validators run on every element of every block, and
/// their expressions are `'static` text.
fn parsed(text: &'static str) -> Option<std::rc::Rc<PathExpr>> {
    thread_local! {
        static PARSED: std::cell::RefCell<std::collections::HashMap<&'static str, Option<std::rc::Rc<PathExpr>>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    PARSED.with(|cache| {
        cache
            .borrow_mut()
            .entry(text)
            .or_insert_with(|| PathExpr::parse(text).ok().map(std::rc::Rc::new))
            .clone()
    })
}

/// At most one of `names` may be set.
pub fn conflicts_with(names: &'static [&'static str]) -> ResourceValidator {
    ResourceValidator::ConflictsWith(names)
}
/// Exactly one of `names` must be set.
pub fn exactly_one_of(names: &'static [&'static str]) -> ResourceValidator {
    ResourceValidator::ExactlyOneOf(names)
}
/// At least one of `names` must be set.
pub fn at_least_one_of(names: &'static [&'static str]) -> ResourceValidator {
    ResourceValidator::AtLeastOneOf(names)
}
/// Attribute `total` must be at least the sum of `parts` (checked when all are known).
pub fn at_least_sum_of(total: &'static str, parts: &'static [&'static str]) -> ResourceValidator {
    ResourceValidator::AtLeastSumOf(total, parts)
}
/// All of `names` or none.
pub fn required_together(names: &'static [&'static str]) -> ResourceValidator {
    ResourceValidator::RequiredTogether(names)
}

impl ResourceValidator {
    /// Checks a configuration object. Unknown values count as set.
    pub fn check(&self, config: &Value) -> Vec<Diagnostic> {
        self.check_in(&[Frame::root(config)])
    }

    /// The path expressions it names, as written (for the schema check).
    pub(crate) fn expressions(&self) -> Vec<&'static str> {
        match self {
            ResourceValidator::ConflictsWith(names)
            | ResourceValidator::ExactlyOneOf(names)
            | ResourceValidator::AtLeastOneOf(names)
            | ResourceValidator::RequiredTogether(names) => names.to_vec(),
            ResourceValidator::AtLeastSumOf(total, parts) => std::iter::once(*total)
                .chain(parts.iter().copied())
                .collect(),
            ResourceValidator::Custom(_) => Vec::new(),
        }
    }

    /// Checks the object at the end of `chain` (its ancestors before it, for `<` and `$`);
    /// diagnostics carry full paths.
    pub(crate) fn check_in(&self, chain: &[Frame]) -> Vec<Diagnostic> {
        let Some(here) = chain.last() else {
            return Vec::new();
        };
        // Malformed expressions select nothing here; the schema check reports them.
        let select = |name: &'static str| -> Vec<Frame> {
            parsed(name).map(|e| e.resolve(chain)).unwrap_or_default()
        };
        let first_set = |name: &'static str| select(name).into_iter().find(|f| !f.value.is_null());
        let given = |names: &[&'static str]| -> Vec<(&'static str, AttributePath)> {
            names
                .iter()
                .filter_map(|n| first_set(n).map(|f| (*n, f.place.path().clone())))
                .collect()
        };
        let named = |given: &[(&str, AttributePath)]| -> String {
            given
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(" and ")
        };
        let list = |names: &[&str]| names.join(", ");
        let located = |d: Diagnostic, at: &AttributePath| {
            if at.is_root() { d } else { d.at(at.clone()) }
        };
        let object = here.place.path();
        match self {
            ResourceValidator::ConflictsWith(names) => {
                let given = given(names);
                if given.len() > 1 {
                    vec![located(
                        Diagnostic::error(
                            "Conflicting attributes",
                            format!(
                                "Only one of {} may be set; got {}.",
                                list(names),
                                named(&given)
                            ),
                        ),
                        &given[1].1,
                    )]
                } else {
                    Vec::new()
                }
            }
            ResourceValidator::ExactlyOneOf(names) => {
                let given = given(names);
                match given.len() {
                    1 => Vec::new(),
                    0 => vec![located(
                        Diagnostic::error(
                            "Missing attribute",
                            format!("Exactly one of {} must be set.", list(names)),
                        ),
                        object,
                    )],
                    _ => vec![located(
                        Diagnostic::error(
                            "Conflicting attributes",
                            format!(
                                "Exactly one of {} must be set; got {}.",
                                list(names),
                                named(&given)
                            ),
                        ),
                        &given[1].1,
                    )],
                }
            }
            ResourceValidator::AtLeastOneOf(names) => {
                if given(names).is_empty() {
                    vec![located(
                        Diagnostic::error(
                            "Missing attribute",
                            format!("At least one of {} must be set.", list(names)),
                        ),
                        object,
                    )]
                } else {
                    Vec::new()
                }
            }
            ResourceValidator::RequiredTogether(names) => {
                let given = given(names);
                if given.is_empty() || given.len() == names.len() {
                    return Vec::new();
                }
                let missing: Vec<&str> = names
                    .iter()
                    .copied()
                    .filter(|n| !given.iter().any(|(g, _)| g == n))
                    .collect();
                // Point at where the first missing one would go, when that is one place.
                let at = match parsed(missing[0]) {
                    Some(e) if e.steps().iter().all(|s| matches!(s, ExprStep::Attr(_))) => {
                        e.steps().iter().fold(object.clone(), |p, s| match s {
                            ExprStep::Attr(n) => p.attr(n.as_str()),
                            _ => p,
                        })
                    }
                    _ => object.clone(),
                };
                vec![located(
                    Diagnostic::error(
                        "Missing attribute",
                        format!(
                            "{} must be set together; {} missing.",
                            list(names),
                            missing.join(", ")
                        ),
                    ),
                    &at,
                )]
            }
            ResourceValidator::AtLeastSumOf(total, parts) => {
                let totals = select(total);
                let Some(t) = totals.first().and_then(|f| f.value.as_i64()) else {
                    return Vec::new();
                };
                let mut sum = 0i64;
                for part in parts.iter() {
                    for found in select(part) {
                        match found.value {
                            Value::Null => {}
                            v => match v.as_i64() {
                                Some(n) => sum = sum.saturating_add(n),
                                None => return Vec::new(), // unknown: decide at apply
                            },
                        }
                    }
                }
                if t < sum {
                    vec![located(
                        Diagnostic::error(
                            format!("Invalid {total}"),
                            format!(
                                "{total} ({t}) must be at least the sum of {} ({sum}).",
                                list(parts)
                            ),
                        ),
                        totals[0].place.path(),
                    )]
                } else {
                    Vec::new()
                }
            }
            ResourceValidator::Custom(check) => check(here.value)
                .into_iter()
                .map(|mut d| {
                    let relative = d.attribute.take().unwrap_or_else(AttributePath::root);
                    let mut at = here.place.clone();
                    for step in relative.0 {
                        at = match step {
                            tfwasm_model::PathStep::Attribute(name) => at.attr(&name),
                            tfwasm_model::PathStep::KeyString(key) => at.key(&key),
                            tfwasm_model::PathStep::KeyInt(index) => at.index(index),
                        };
                    }
                    located(d, at.path())
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::object(pairs.iter().map(|(k, v)| (*k, v.clone())))
    }

    #[test]
    fn attribute_validators() {
        assert!(at_least(1).check("length", &Value::from(1)).is_none());
        let d = at_least(1).check("length", &Value::from(0)).unwrap();
        assert_eq!(
            (d.summary.as_str(), d.detail.as_str()),
            ("Invalid length", "length must be at least 1, got 0.")
        );
        assert_eq!(d.attribute, Some(AttributePath::attribute("length")));
        assert!(
            at_least(1).check("length", &Value::unknown()).is_none(),
            "unknown passes"
        );
        assert!(
            at_least(1).check("length", &Value::Null).is_none(),
            "null passes"
        );
        assert!(between(1, 3).check("n", &Value::from(4)).is_some());
        assert!(
            one_of(&["a", "b"])
                .check("x", &Value::from("c"))
                .unwrap()
                .detail
                .contains("[\"a\", \"b\"]")
        );
        assert!(
            length_between(1, 2)
                .check("s", &Value::from("abc"))
                .is_some()
        );
        assert!(
            length_between(1, 3)
                .check("s", &Value::from("äbc"))
                .is_none(),
            "characters, not bytes"
        );
    }

    #[test]
    fn more_attribute_validators() {
        let name = regex("^[a-z]+$", "a lowercase word");
        assert!(name.check("n", &Value::from("abc")).is_none());
        let d = name.check("n", &Value::from("aBc")).unwrap();
        assert!(d.detail.contains("a lowercase word"), "{}", d.detail);
        assert!(at_most(3).check("n", &Value::from(4)).is_some());
        assert!(
            none_of(&["root"])
                .check("u", &Value::from("root"))
                .is_some()
        );
        let list = Value::List(vec!["ok".into(), "BAD".into()]);
        let d = each(name.clone()).check("names", &list).unwrap();
        assert_eq!(d.attribute, Some("names[1]".parse().unwrap()));
        let either = any(vec![one_of(&["auto"]), regex("^[0-9]+$", "digits")]);
        assert!(either.check("n", &Value::from("42")).is_none());
        assert!(either.check("n", &Value::from("auto")).is_none());
        assert!(either.check("n", &Value::from("x")).is_some());
    }

    #[test]
    fn at_least_sum() {
        let v = at_least_sum_of("length", &["min_a", "min_b"]);
        let cfg =
            |l: i64, a: Value| obj(&[("length", l.into()), ("min_a", a), ("min_b", 2.into())]);
        assert!(v.check(&cfg(5, 3.into())).is_empty());
        assert_eq!(
            v.check(&cfg(4, 3.into()))[0].attribute,
            Some(AttributePath::attribute("length"))
        );
        assert!(
            v.check(&cfg(1, Value::unknown())).is_empty(),
            "unknown parts wait"
        );
        assert!(v.check(&cfg(2, Value::Null)).is_empty(), "null counts as 0");
    }

    #[test]
    fn resource_validators() {
        let both = obj(&[("a", "1".into()), ("b", Value::unknown())]);
        assert_eq!(
            conflicts_with(&["a", "b"]).check(&both).len(),
            1,
            "unknown counts as set"
        );
        assert_eq!(
            exactly_one_of(&["a", "b"])
                .check(&obj(&[("a", Value::Null), ("b", Value::Null)]))
                .len(),
            1
        );
        assert!(
            exactly_one_of(&["a", "b"])
                .check(&obj(&[("a", "1".into()), ("b", Value::Null)]))
                .is_empty()
        );
        assert_eq!(
            at_least_one_of(&["a", "b"])
                .check(&obj(&[("a", Value::Null), ("b", Value::Null)]))
                .len(),
            1
        );
        let half =
            required_together(&["a", "b"]).check(&obj(&[("a", "1".into()), ("b", Value::Null)]));
        assert_eq!(half[0].attribute, Some(AttributePath::attribute("b")));
        assert!(
            required_together(&["a", "b"])
                .check(&obj(&[("a", Value::Null), ("b", Value::Null)]))
                .is_empty()
        );
    }
}
