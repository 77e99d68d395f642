//! `random_uuid`: a random version 4 UUID.

use tfwasm_sdk::prelude::*;

use crate::keepers;
use crate::rng::Rng;

pub(crate) struct RandomUuid;

/// A random (version 4, RFC 9562 variant) UUID in its lowercase hyphenated form.
fn new_uuid(rng: &mut Rng) -> String {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    bytes[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// True for `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with hex digits (any version).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

impl Resource for RandomUuid {
    fn type_name(&self) -> &'static str {
        "random_uuid"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A random UUID (version 4).")
            .attr(keepers())
            .attr(
                Attr::string("result")
                    .computed()
                    .description("The generated UUID."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .description("The generated UUID."),
            )
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let uuid = new_uuid(&mut Rng::secure());
        Ok(planned
            .clone()
            .with("result", uuid.clone())
            .with("id", uuid))
    }

    /// The import ID is the UUID.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        if !is_uuid(id) {
            return Err(Diagnostic::error(
                "Invalid import ID",
                format!(
                    "The import ID of random_uuid is the UUID itself (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx); got {id:?}."
                ),
            ));
        }
        let id = id.to_ascii_lowercase();
        Ok(tfwasm_sdk::import::passthrough_id(&self.schema(), "id", &id).with("result", id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_4_layout() {
        let u = new_uuid(&mut Rng::from_seed("u"));
        assert!(is_uuid(&u), "{u}");
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
        assert_ne!(u, new_uuid(&mut Rng::from_seed("v")));
        assert!(!is_uuid("not-a-uuid"));
    }
}
