//! Guest-chosen text quoted in error messages: a start, never megabytes, and never more work
//! than the start takes to write.

use std::fmt;

/// Whether `c` must be escaped in text a person reads: control characters (C0 and C1), line
/// and paragraph separators and bidirectional controls, with which text someone else chose
/// could drive a terminal, start a line of its own or reorder what is shown.
pub fn is_hidden_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Writes `text` to `out` with every [`is_hidden_char`] as an escape (`\u{1b}`).
pub fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        if is_hidden_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

/// `text` with every [`is_hidden_char`] escaped (borrowed when it has none): a guest's or a
/// file's text on one line of the operator's terminal.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hidden_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text);
    std::borrow::Cow::Owned(out)
}

/// `text` with every [`is_hidden_char`] but line feeds and tabs escaped: a guest's message
/// keeps its lines, and cannot drive the terminal Terraform prints it on.
pub fn escaped_lines(text: String) -> String {
    if !text
        .chars()
        .any(|c| c != '\n' && c != '\t' && is_hidden_char(c))
    {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c != '\n' && c != '\t' && is_hidden_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The first `chars` characters of `text`, when it has more; `None` when it fits whole.
pub(crate) fn start(text: &str, chars: usize) -> Option<&str> {
    text.char_indices().nth(chars).map(|(end, _)| &text[..end])
}

/// How many bytes a quoted type or JSON text keeps.
pub(crate) const QUOTED_BYTES: usize = 128;

/// `value` as `Display` writes it, stopping after [`QUOTED_BYTES`] (with `…`): a type of a
/// million attributes is not written out to be cut.
pub(crate) fn display(value: &impl fmt::Display) -> String {
    let mut out = Bounded(String::new());
    let cut = fmt::write(&mut out, format_args!("{value}")).is_err();
    finish(out.0, cut)
}

/// `json` in its compact form, cut as [`display`] cuts.
pub(crate) fn json(json: &serde_json::Value) -> String {
    display(json)
}

/// The start of `bytes` read as UTF-8 (invalid bytes replaced), cut as [`display`] cuts.
pub(crate) fn bytes(bytes: &[u8]) -> String {
    let cut = bytes.len() > QUOTED_BYTES;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTED_BYTES)]);
    finish(text.into_owned(), cut)
}

fn finish(mut text: String, cut: bool) -> String {
    if cut || text.len() > QUOTED_BYTES {
        text.truncate(text.floor_char_boundary(QUOTED_BYTES));
        text.push('…');
    }
    text
}

/// A string that refuses to grow past [`QUOTED_BYTES`], which ends the formatting early.
struct Bounded(String);

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = QUOTED_BYTES + 4 - self.0.len().min(QUOTED_BYTES + 4);
        if s.len() > room {
            self.0.push_str(&s[..s.floor_char_boundary(room)]);
            return Err(fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_character_not_a_byte() {
        assert_eq!(start("ééé", 2), Some("éé"));
        assert_eq!(start("éé", 2), None);
    }

    /// The fourteenth hostile pass: a 16 MiB type of invalid bytes became a 50 MB message,
    /// and a function's 100,000-attribute return type was written whole to be quoted.
    #[test]
    fn quotes_stop_writing_at_their_bound() {
        let wide = crate::Type::Object(
            (0..100_000)
                .map(|i| (format!("attribute{i}"), crate::Type::String))
                .collect(),
        );
        let quoted = display(&wide);
        assert!(quoted.starts_with("object({attribute0=string,"), "{quoted}");
        assert!(quoted.ends_with('…') && quoted.len() <= QUOTED_BYTES + 3);
        assert_eq!(display(&crate::Type::String), "string");
        let invalid = bytes(&vec![0xff; 16 << 20]);
        assert!(invalid.len() <= QUOTED_BYTES + 3, "{}", invalid.len());
        assert_eq!(bytes(b"\"x\""), "\"x\"");
        let list = serde_json::Value::Array(vec![serde_json::json!("bool"); 1 << 20]);
        assert!(json(&list).len() <= QUOTED_BYTES + 3);
    }
}
