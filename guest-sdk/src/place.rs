//! Where a value sits, for diagnostics and requires-replace.

use std::rc::Rc;

use tfwasm_model::AttributePath;

/// Where a value sits, for diagnostics and requires-replace: a protocol path, which stops at
/// a set, since protocol paths cannot point into set elements. Shared, so the thousands of
/// steps taken inside a large set's elements copy nothing.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    path: Rc<AttributePath>,
    in_set: bool,
}

impl Place {
    pub(crate) fn root() -> Place {
        Place {
            path: Rc::new(AttributePath::root()),
            in_set: false,
        }
    }
    fn step(&self, next: impl FnOnce(&AttributePath) -> AttributePath) -> Place {
        if self.in_set {
            return self.clone();
        }
        Place {
            path: Rc::new(next(&self.path)),
            in_set: false,
        }
    }
    pub(crate) fn attr(&self, name: &str) -> Place {
        self.step(|p| p.attr(name))
    }
    pub(crate) fn index(&self, index: i64) -> Place {
        self.step(|p| p.index(index))
    }
    pub(crate) fn key(&self, key: &str) -> Place {
        self.step(|p| p.key(key))
    }
    /// An element of the set here: everything inside it is reported at the set.
    pub(crate) fn in_set(&self) -> Place {
        Place {
            path: self.path.clone(),
            in_set: true,
        }
    }
    pub(crate) fn path(&self) -> &AttributePath {
        &self.path
    }
}
