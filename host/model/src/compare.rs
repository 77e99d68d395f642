//! Comparisons of names and bytes that do not call `memcmp` for short inputs.
//!
//! In a `wasm32-wasip2` guest, `memcmp` is wasi-libc's, which compares one byte at a time
//! behind a call: a callgrind profile of the random component's refresh plan gave it 28 % of
//! the guest's instructions, 160 a call, most of them comparing attribute names of a few
//! bytes while looking them up (issue 37). These compare eight bytes at a time inline; the
//! first differing byte is found from the lowest set bit of the two words' difference, so the
//! order is the bytes' (and so `str`'s) order on any target.

use std::cmp::Ordering;

/// `a.cmp(b)`, as `str` orders: byte by byte, a prefix first.
#[inline]
pub fn compare_names(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    match first_difference(&a[..n], &b[..n]) {
        Some(at) => a[at].cmp(&b[at]),
        None => a.len().cmp(&b.len()),
    }
}

/// `a == b`.
#[inline]
pub fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && first_difference(a.as_bytes(), b.as_bytes()).is_none()
}

/// `a == b` for bytes of any length: inline eight at a time in a guest, the C library's
/// (vectorized) comparison natively.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if cfg!(target_family = "wasm") {
        a.len() == b.len() && first_difference(a, b).is_none()
    } else {
        a == b
    }
}

/// Where two slices of one length first differ.
#[inline]
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    debug_assert_eq!(a.len(), b.len());
    let (mut words_a, mut words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    for (i, (x, y)) in (&mut words_a).zip(&mut words_b).enumerate() {
        let x = u64::from_le_bytes(x.try_into().expect("eight bytes"));
        let y = u64::from_le_bytes(y.try_into().expect("eight bytes"));
        if x != y {
            // Little-endian: the lowest differing bit lies in the first differing byte.
            return Some(i * 8 + ((x ^ y).trailing_zeros() / 8) as usize);
        }
    }
    let done = a.len() - words_a.remainder().len();
    (words_a.remainder().iter().zip(words_b.remainder()))
        .position(|(x, y)| x != y)
        .map(|at| done + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair from a set of strings that differ at every position of a word, across word
    /// boundaries, by prefix and by length, in UTF-8 too: the order and equality are `str`'s.
    #[test]
    fn names_compare_as_str_does() {
        let mut names: Vec<String> = vec![
            String::new(),
            "a".into(),
            "b".into(),
            "ab".into(),
            "ba".into(),
            "é".into(),
            "e\u{301}".into(),
            "\u{ff}".into(),
            "override_special".into(),
            "override_specia".into(),
            "override_specialz".into(),
        ];
        let base = "abcdefghijklmnopqrstu";
        for at in 0..base.len() {
            for replacement in ["\0", "A", "z", "\u{7f}", "ü"] {
                let mut s = base.to_owned();
                s.replace_range(at..at + 1, replacement);
                names.push(s);
            }
            names.push(base[..at].to_owned());
        }
        for a in &names {
            for b in &names {
                assert_eq!(compare_names(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(same_name(a, b), a == b, "{a:?} {b:?}");
                assert_eq!(same_bytes(a.as_bytes(), b.as_bytes()), a == b);
            }
        }
    }

    #[test]
    fn the_first_difference_is_found_in_any_word_and_the_tail() {
        let a = vec![7u8; 37];
        for at in 0..a.len() {
            let mut b = a.clone();
            b[at] = 8;
            assert_eq!(first_difference(&a, &b), Some(at));
        }
        assert_eq!(first_difference(&a, &a), None);
    }
}
