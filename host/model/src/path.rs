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

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step {
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::KeyString(key) => write!(f, "[{key:?}]")?,
                PathStep::KeyInt(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_terraform() {
        let p = AttributePath::attribute("a").attr("b").index(0).key("k");
        assert_eq!(p.to_string(), r#".a.b[0]["k"]"#);
        assert_eq!(AttributePath::root().to_string(), "");
    }
}
