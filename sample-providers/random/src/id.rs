//! `random_id`: random bytes shown as base64, hex and decimal.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::random_bytes;
use tfwasm_sdk::validate::at_least;

use crate::keepers;

pub(crate) struct RandomId;

pub(crate) const B64_STD: &[u8] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub(crate) fn base64(bytes: &[u8], alphabet: &[u8], pad: bool) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let emit = chunk.len() + 1;
        for i in 0..4 {
            if i < emit {
                out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

fn decode_base64_url(text: &str) -> Option<Vec<u8>> {
    decode_base64(text, B64_URL)
}

/// `text` in `alphabet`'s base64 without padding; `None` if it is not.
pub(crate) fn decode_base64(text: &str, alphabet: &[u8]) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let v = alphabet.iter().position(|&a| a == c)? as u32;
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    (bits == 0).then_some(out)
}

/// The bytes read as one big-endian unsigned integer, in decimal.
fn decimal(bytes: &[u8]) -> String {
    let mut digits = vec![0u8]; // little-endian base-10
    for &byte in bytes {
        let mut carry = u32::from(byte);
        for d in digits.iter_mut() {
            let v = u32::from(*d) * 256 + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    digits.iter().rev().map(|d| char::from(b'0' + d)).collect()
}

fn state_for(mut state: Value, bytes: &[u8], prefix: &str) -> Value {
    let id = base64(bytes, B64_URL, false);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    for (name, value) in [
        ("id", id.clone()),
        ("b64_url", format!("{prefix}{id}")),
        (
            "b64_std",
            format!("{prefix}{}", base64(bytes, B64_STD, true)),
        ),
        ("hex", format!("{prefix}{hex}")),
        ("dec", format!("{prefix}{}", decimal(bytes))),
    ] {
        state.set(name, value.into());
    }
    state
}

impl Resource for RandomId {
    fn type_name(&self) -> &'static str {
        "random_id"
    }

    fn schema(&self) -> ResourceSchema {
        let out = |name: &str, what: &str| Attr::string(name).computed().description(what);
        ResourceSchema::new()
            .description("Random bytes, shown in several encodings; handy for unique names.")
            .attr(keepers())
            .attr(
                Attr::number("byte_length")
                    .required()
                    .requires_replace()
                    .validate(at_least(1))
                    .description("The number of random bytes to produce."),
            )
            .attr(
                Attr::string("prefix")
                    .optional()
                    .requires_replace()
                    .description("Text to put before the encoded value."),
            )
            .attr(out(
                "b64_url",
                "The generated id as base64 with the URL-safe alphabet, no padding.",
            ))
            .attr(out(
                "b64_std",
                "The generated id as standard base64 with padding.",
            ))
            .attr(out("hex", "The generated id as lowercase hexadecimal."))
            .attr(out("dec", "The generated id as a decimal number."))
            .attr(out(
                "id",
                "The generated id as URL-safe base64 without prefix.",
            ))
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let length = planned
            .get_i64("byte_length")?
            .unwrap_or(0)
            .clamp(1, 1 << 20) as usize;
        let mut bytes = vec![0u8; length];
        random_bytes(&mut bytes);
        let prefix = planned.get_string("prefix")?.unwrap_or_default();
        Ok(state_for(planned.clone(), &bytes, &prefix))
    }

    /// Import ID: the URL-safe base64 id, or `prefix,id`.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        let (prefix, encoded) = match id.split_once(',') {
            Some((prefix, encoded)) => (Some(prefix), encoded),
            None => (None, id),
        };
        let bytes = decode_base64_url(encoded).filter(|b| !b.is_empty()).ok_or_else(|| {
            Diagnostic::error(
                "Invalid import ID",
                format!("Expected URL-safe base64 without padding (optionally \"prefix,\" before it), got {id:?}."),
            )
        })?;
        let mut state = self.schema().null_object();
        state.set("byte_length", (bytes.len() as i64).into());
        if let Some(prefix) = prefix {
            state.set("prefix", prefix.into());
        }
        Ok(state_for(state, &bytes, prefix.unwrap_or("")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_known_vectors() {
        assert_eq!(base64(b"foobar", B64_STD, true), "Zm9vYmFy");
        assert_eq!(base64(b"fo", B64_STD, true), "Zm8=");
        assert_eq!(base64(&[0xfb, 0xff], B64_URL, false), "-_8");
        assert_eq!(decode_base64_url("-_8").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decimal(&[0x01, 0x00]), "256");
        assert_eq!(decimal(&[0xff; 8]), u64::MAX.to_string());
        assert_eq!(decimal(&[0]), "0");
    }
}
