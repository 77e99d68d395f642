//! Attribute paths: where in an object a diagnostic or a requires-replace points.

use std::fmt;

/// One step of an [`AttributePath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    /// An object attribute (or nested block) by name.
    Attribute(String),
    /// A map element (or map block) by key.
    KeyString(String),
    /// A list or tuple element by index.
    KeyInt(i64),
}

/// A path into a value, rendered as `.a.b[0]["k"]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttributePath(pub Vec<PathStep>);

impl AttributePath {
    /// The empty path (the object itself).
    pub fn root() -> AttributePath {
        AttributePath(Vec::new())
    }

    /// A path of one attribute step.
    pub fn attribute(name: impl Into<String>) -> AttributePath {
        AttributePath(vec![PathStep::Attribute(name.into())])
    }

    /// This path extended by an attribute step.
    #[must_use]
    pub fn attr(&self, name: impl Into<String>) -> AttributePath {
        self.with(PathStep::Attribute(name.into()))
    }

    /// This path extended by a map-key step.
    #[must_use]
    pub fn key(&self, key: impl Into<String>) -> AttributePath {
        self.with(PathStep::KeyString(key.into()))
    }

    /// This path extended by an index step.
    #[must_use]
    pub fn index(&self, index: i64) -> AttributePath {
        self.with(PathStep::KeyInt(index))
    }

    fn with(&self, step: PathStep) -> AttributePath {
        let mut steps = self.0.clone();
        steps.push(step);
        AttributePath(steps)
    }

    /// True for the empty path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

/// A path's text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid attribute path {text:?}: {reason}")]
pub struct ParsePathError {
    /// The text.
    pub text: String,
    /// Why.
    pub reason: &'static str,
}

impl std::str::FromStr for AttributePath {
    type Err = ParsePathError;

    /// Parses the rendered form `.a.b[0]["k"]`; the leading dot may be left out (`a.b[0]`).
    fn from_str(text: &str) -> Result<AttributePath, ParsePathError> {
        let bad = |reason| ParsePathError {
            text: text.to_owned(),
            reason,
        };
        let mut steps = Vec::new();
        let dotted;
        let mut rest = text;
        if !rest.is_empty() && !rest.starts_with(['.', '[']) {
            dotted = format!(".{text}");
            rest = &dotted;
        }
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                let name = &after[..end];
                if name.is_empty() {
                    return Err(bad("empty attribute name"));
                }
                steps.push(PathStep::Attribute(name.to_owned()));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let close = after.find(']').ok_or_else(|| bad("unclosed ["))?;
                if after.starts_with('"') {
                    // A JSON string literal: find its end, then expect `]`.
                    let mut de = serde_json::Deserializer::from_str(after).into_iter::<String>();
                    let key = de
                        .next()
                        .and_then(Result::ok)
                        .ok_or_else(|| bad("invalid quoted key"))?;
                    let used = de.byte_offset();
                    if !after[used..].starts_with(']') {
                        return Err(bad("expected ] after the key"));
                    }
                    steps.push(PathStep::KeyString(key));
                    rest = &after[used + 1..];
                } else {
                    let index = after[..close]
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| bad("index must be an integer or a quoted key"))?;
                    steps.push(PathStep::KeyInt(index));
                    rest = &after[close + 1..];
                }
            } else {
                return Err(bad("expected . or ["));
            }
        }
        Ok(AttributePath(steps))
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step {
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::KeyString(key) => {
                    // JSON escapes C0 controls; C1, separators and bidi controls too.
                    let quoted = serde_json::Value::String(key.clone()).to_string();
                    let mut shown = String::with_capacity(quoted.len());
                    crate::quote::push_escaped(&mut shown, &quoted);
                    write!(f, "[{shown}]")?
                }
                PathStep::KeyInt(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A position in a value, borrowed from the caller's stack: decoders and checks visit every
/// attribute, and building an owned path at each step was a measurable share of their time.
#[derive(Debug, Clone, Copy)]
pub enum PathRef<'a> {
    /// The whole value.
    Root,
    /// An attribute of the parent.
    Attr(&'a PathRef<'a>, &'a str),
    /// A list, set or tuple element of the parent.
    Index(&'a PathRef<'a>, i64),
    /// A map element of the parent.
    Key(&'a PathRef<'a>, &'a str),
}

impl<'a> PathRef<'a> {
    /// The attribute `name` under here.
    pub fn attr(&'a self, name: &'a str) -> PathRef<'a> {
        PathRef::Attr(self, name)
    }
    /// Element `index` under here.
    pub fn index(&'a self, index: i64) -> PathRef<'a> {
        PathRef::Index(self, index)
    }
    /// Map element `key` under here.
    pub fn key(&'a self, key: &'a str) -> PathRef<'a> {
        PathRef::Key(self, key)
    }
}

/// Anything that names a place in a value: an owned [`AttributePath`] or a borrowed
/// [`PathRef`], made into an owned path only when an error or violation needs one.
pub trait ToPath {
    /// The owned path.
    fn to_path(&self) -> AttributePath {
        self.to_path_cut(usize::MAX)
    }

    /// The owned path with each attribute name and map key cut to its first `max` bytes
    /// (then `…`), copying no more than that: what a message keeps of a guest's keys, which
    /// may be megabytes long and repeat in every violation.
    fn to_path_cut(&self, max: usize) -> AttributePath;
}

/// The first `max` bytes of `text` (at a character boundary), then `…` if it was longer.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut out = text[..text.floor_char_boundary(max)].to_owned();
    out.push('…');
    out
}

impl ToPath for AttributePath {
    fn to_path(&self) -> AttributePath {
        self.clone()
    }

    fn to_path_cut(&self, max: usize) -> AttributePath {
        AttributePath(
            (self.0.iter())
                .map(|step| match step {
                    PathStep::Attribute(name) => PathStep::Attribute(cut(name, max)),
                    PathStep::KeyString(key) => PathStep::KeyString(cut(key, max)),
                    PathStep::KeyInt(i) => PathStep::KeyInt(*i),
                })
                .collect(),
        )
    }
}

impl ToPath for PathRef<'_> {
    fn to_path_cut(&self, max: usize) -> AttributePath {
        let mut steps = Vec::new();
        let mut here = *self;
        loop {
            here = match here {
                PathRef::Root => break,
                PathRef::Attr(parent, name) => {
                    steps.push(PathStep::Attribute(cut(name, max)));
                    *parent
                }
                PathRef::Index(parent, i) => {
                    steps.push(PathStep::KeyInt(i));
                    *parent
                }
                PathRef::Key(parent, key) => {
                    steps.push(PathStep::KeyString(cut(key, max)));
                    *parent
                }
            };
        }
        steps.reverse();
        AttributePath(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twenty-first hostile pass: a map key's C1 controls, separators and bidi controls
    /// reached diagnostics (`found at …`) raw; JSON escapes only C0.
    #[test]
    fn keys_are_shown_with_no_control_or_bidi_character() {
        let p = AttributePath::attribute("tags").key("\u{9b}2J\u{2028}\u{202e}k\u{1b}");
        let shown = p.to_string();
        assert!(
            !shown.chars().any(crate::quote::is_hidden_char),
            "{shown:?}"
        );
    }

    #[test]
    fn parses_what_it_renders() {
        let p = AttributePath::attribute("a")
            .attr("b")
            .index(0)
            .key("k.[\"]");
        assert_eq!(p.to_string().parse::<AttributePath>().unwrap(), p);
        assert_eq!("".parse::<AttributePath>().unwrap(), AttributePath::root());
        assert_eq!(
            "a.b".parse::<AttributePath>().unwrap(),
            AttributePath::attribute("a").attr("b")
        );
        for bad in ["a..b", ".", "[x]", "[\"k\"", ".a[1"] {
            assert!(bad.parse::<AttributePath>().is_err(), "{bad}");
        }
    }

    #[test]
    fn borrowed_paths_become_the_same_owned_paths() {
        let root = PathRef::Root;
        let a = root.attr("a");
        let i = a.index(2);
        let k = i.key("k");
        assert_eq!(k.to_path(), AttributePath::attribute("a").index(2).key("k"));
        assert!(PathRef::Root.to_path().is_root());
    }

    #[test]
    fn renders_like_terraform() {
        let p = AttributePath::attribute("a").attr("b").index(0).key("k");
        assert_eq!(p.to_string(), r#".a.b[0]["k"]"#);
        assert_eq!(AttributePath::root().to_string(), "");
    }
}
