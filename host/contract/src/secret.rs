//! Violations at or inside a sensitive or write-only attribute say where the attribute is and
//! no more: their paths would carry a secret map's keys, and their messages may quote what
//! the provider or the configuration put there (a decode error quotes the text it could not
//! read). Applied to every violation before it becomes a diagnostic, whichever rule found it.

use tfwasm_model::Block;
use tfwasm_model::schema_path::secret_prefix;

use crate::Violation;

/// What replaces a message that may show a secret.
pub const HIDDEN: &str =
    "a value inside this sensitive attribute breaks the contract (not shown: it is sensitive)";

/// `v` as it may be shown for an object of `block`: cut at the first sensitive or write-only
/// attribute on its path, its message kept only when it shows no value.
pub fn mask(block: &Block, mut v: Violation) -> Violation {
    let Some(end) = secret_prefix(block, &v.path.0) else {
        return v;
    };
    v.path.0.truncate(end);
    if v.message.starts_with(DECODE_ERROR) {
        // A decode error quotes what it could not read, in forms no text rule foresees.
        v.message = format!("{DECODE_ERROR} (why is not shown: the attribute is sensitive)");
    } else if !shows_no_value(&v.message) {
        v.message = HIDDEN.to_owned();
    }
    v
}

/// How a decode error's message starts (`decode_result` in `checked`).
pub(crate) const DECODE_ERROR: &str = "does not conform to the schema";

/// Whether a message shows no value: no quoted text, number, boolean or collection (it may
/// still name the rule, a type or `null`).
pub fn shows_no_value(message: &str) -> bool {
    !message.contains(['"', '{', '[', '\''])
        && !message.bytes().any(|b| b.is_ascii_digit())
        && !message
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "true" || w == "false")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::{
        Attribute, AttributePath, AttributeType, NestedObject, ObjectNesting, Type,
    };

    fn schema() -> Block {
        let mut tokens = Attribute::new("tokens", Type::map(Type::String));
        tokens.sensitive = true;
        let mut pin = Attribute::new("pin", Type::Number);
        pin.sensitive = true;
        let mut wo = Attribute::new("wo", Type::String);
        wo.write_only = true;
        let mut conns = Attribute::new("conns", Type::String);
        conns.ty = AttributeType::Nested(NestedObject {
            attributes: vec![Attribute::new("user", Type::String), wo],
            nesting: ObjectNesting::Map,
        });
        let mut secret_conns = conns.clone();
        secret_conns.name = "secret_conns".into();
        secret_conns.sensitive = true;
        Block {
            attributes: vec![
                tokens,
                pin,
                conns,
                secret_conns,
                Attribute::new("name", Type::String),
            ],
            ..Block::default()
        }
    }

    fn v(path: &str, message: &str) -> Violation {
        Violation {
            path: path.parse::<AttributePath>().unwrap(),
            message: message.into(),
        }
    }

    /// The eighteenth hostile pass: a decode error quoting type JSON it could not read (no
    /// quotes, digits or brackets) passed the text rule.
    #[test]
    fn a_decode_error_inside_a_secret_says_only_that_it_is_one() {
        let shown = mask(
            &schema(),
            v(
                ".pin",
                "does not conform to the schema: invalid type JSON hunterSECRETvalue: not valid JSON",
            ),
        );
        assert!(!shown.message.contains("SECRET"), "{}", shown.message);
        assert!(shown.message.starts_with(DECODE_ERROR), "{}", shown.message);
    }

    /// The fifteenth hostile pass: an unknown in a sensitive map showed its key, a write-only
    /// value in a nested map its map key, and a decode error the secret it could not read.
    #[test]
    fn nothing_past_a_secret_attribute_is_shown() {
        let block = schema();
        let masked = mask(
            &block,
            v(
                r#".tokens["SECRETKEY"]"#,
                "unknown value in a returned state; every value must be known",
            ),
        );
        assert_eq!(masked.path.to_string(), ".tokens");
        assert_eq!(
            masked.message,
            "unknown value in a returned state; every value must be known"
        );
        let masked = mask(&block, v(".pin", r#""SECRET" is not a decimal number"#));
        assert_eq!(
            (masked.path.to_string(), masked.message.as_str()),
            (".pin".into(), HIDDEN)
        );
        let masked = mask(
            &block,
            v(
                r#".secret_conns["SECRETKEY"].wo"#,
                "a write-only attribute must be null",
            ),
        );
        assert_eq!(masked.path.to_string(), ".secret_conns");
        assert_eq!(masked.message, "a write-only attribute must be null");
        // A write-only attribute in a map that is not secret: its key is not a secret.
        let masked = mask(
            &block,
            v(r#".conns["k"].wo"#, r#"was null, but now "SECRET""#),
        );
        assert_eq!(masked.path.to_string(), r#".conns["k"].wo"#);
        assert_eq!(masked.message, HIDDEN);
        // Not secret: kept as it is.
        let plain = v(".name", r#"was "a", but now "b""#);
        assert_eq!(mask(&block, plain.clone()), plain);
        let user = v(r#".conns["k"].user"#, r#"was "a", but now "b""#);
        assert_eq!(mask(&block, user.clone()), user);
    }
}
