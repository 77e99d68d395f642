//! The violations found in one answer, kept up to [`MAX_VIOLATIONS`] (and
//! [`MAX_VIOLATION_BYTES`] of text) and counted past it.
//!
//! A hostile answer can break a rule once per element (millions of unknowns in a list); the
//! checks keep walking to count them, but only the first few are held, so what the host
//! keeps for one answer is bounded whatever the guest sent.

use std::ops::Deref;

use crate::{MAX_VIOLATION_BYTES, MAX_VIOLATIONS, Violation};

/// Violations of one answer: the first [`MAX_VIOLATIONS`], and how many more were found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Violations {
    kept: Vec<Violation>,
    /// What the kept ones cost ([`Violation::bytes`]).
    bytes: usize,
    more: usize,
}

impl Violations {
    /// None found yet.
    pub fn new() -> Violations {
        Violations::default()
    }

    /// Adds one, or only counts it once [`MAX_VIOLATIONS`] are kept or it would take the
    /// kept ones past [`MAX_VIOLATION_BYTES`].
    pub fn push(&mut self, violation: Violation) {
        let violation = violation.cut();
        let bytes = violation.bytes();
        if self.more == 0
            && self.kept.len() < MAX_VIOLATIONS
            && self.bytes + bytes <= MAX_VIOLATION_BYTES
        {
            self.bytes += bytes;
            self.kept.push(violation);
        } else {
            self.more += 1;
        }
    }

    /// Adds everything `other` found, its uncounted rest included.
    pub fn extend(&mut self, other: impl Into<Violations>) {
        let other = other.into();
        for violation in other.kept {
            self.push(violation);
        }
        self.more += other.more;
    }

    /// Each kept violation through `f`, the count of the others kept.
    pub fn map(self, f: impl FnMut(Violation) -> Violation) -> Violations {
        let more = self.more;
        let mut out: Violations = self.kept.into_iter().map(f).collect();
        out.more += more;
        out
    }

    /// How many were found beyond the ones kept.
    pub fn more(&self) -> usize {
        self.more
    }

    /// Whether none were found, kept or only counted (the kept list alone could be empty
    /// while some were counted).
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// How many were found, kept or only counted.
    pub fn total(&self) -> usize {
        self.kept.len() + self.more
    }

    /// Forgets everything found after the first `total`, as [`Violations::total`] was then.
    pub(crate) fn truncate(&mut self, total: usize) {
        self.kept.truncate(total);
        self.bytes = self.kept.iter().map(Violation::bytes).sum();
        self.more = total - self.kept.len();
    }
}

/// The kept violations.
impl Deref for Violations {
    type Target = [Violation];

    fn deref(&self) -> &[Violation] {
        &self.kept
    }
}

impl IntoIterator for Violations {
    type Item = Violation;
    type IntoIter = std::vec::IntoIter<Violation>;

    /// The kept violations; [`Violations::more`] says how many were only counted.
    fn into_iter(self) -> Self::IntoIter {
        self.kept.into_iter()
    }
}

impl FromIterator<Violation> for Violations {
    fn from_iter<I: IntoIterator<Item = Violation>>(iter: I) -> Violations {
        let mut out = Violations::new();
        for violation in iter {
            out.push(violation);
        }
        out
    }
}

impl From<Vec<Violation>> for Violations {
    fn from(list: Vec<Violation>) -> Violations {
        list.into_iter().collect()
    }
}

impl PartialEq<Vec<Violation>> for Violations {
    fn eq(&self, other: &Vec<Violation>) -> bool {
        self.more == 0 && self.kept == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::AttributePath;

    fn one(i: usize) -> Violation {
        Violation {
            path: AttributePath::root(),
            message: format!("v{i}"),
        }
    }

    #[test]
    fn keeps_the_first_hundred_and_counts_the_rest() {
        let mut found: Violations = (0..150).map(one).collect();
        assert_eq!(found.len(), MAX_VIOLATIONS);
        assert_eq!(found.more(), 50);
        assert_eq!(found[99].message, "v99");
        let rest: Violations = (0..120).map(one).collect();
        found.extend(rest);
        assert_eq!(found.len(), MAX_VIOLATIONS);
        assert_eq!(found.more(), 50 + 120);
        found.truncate(130);
        assert_eq!((found.len(), found.more()), (MAX_VIOLATIONS, 30));
        found.truncate(7);
        assert_eq!((found.len(), found.more(), found.total()), (7, 0, 7));
    }

    /// A hostile answer's violations quote megabytes of its keys and carry long paths: each
    /// message is cut to 1 KiB and the kept ones hold at most 256 KiB, however many there are.
    #[test]
    fn long_messages_are_cut_and_the_kept_text_is_bounded() {
        use tfwasm_model::PathStep;
        let long = "\u{1}".repeat(1 << 20);
        let found: Violations = (0..100)
            .map(|i| {
                let mut v = Violation::new(&crate::at::At::Root, format!("{i}: {long}"));
                // As deep and long as a path gets: 128 steps of 256 bytes.
                v.path = AttributePath(vec![PathStep::KeyString("k".repeat(256)); 128]);
                v
            })
            .collect();
        assert!(
            found[0].message.len() <= 1024 + 3,
            "{}",
            found[0].message.len()
        );
        let kept: usize = found.iter().map(Violation::bytes).sum();
        assert!(kept <= MAX_VIOLATION_BYTES, "{kept}");
        assert_eq!(found.total(), 100);
        assert!(found.more() > 0);
    }

    #[test]
    fn extending_below_the_cap_keeps_everything_in_order() {
        let mut found: Violations = vec![one(0)].into();
        found.extend(vec![one(1), one(2)]);
        assert_eq!(found, vec![one(0), one(1), one(2)]);
        assert_eq!(found.more(), 0);
    }
}
