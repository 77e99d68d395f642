//! Guest-chosen text quoted in error messages: a start, never megabytes.

/// The first `chars` characters of `text`, when it has more; `None` when it fits whole.
pub(crate) fn start(text: &str, chars: usize) -> Option<&str> {
    text.char_indices().nth(chars).map(|(end, _)| &text[..end])
}

#[cfg(test)]
mod tests {
    #[test]
    fn cuts_at_a_character_not_a_byte() {
        assert_eq!(super::start("ééé", 2), Some("éé"));
        assert_eq!(super::start("éé", 2), None);
    }
}
