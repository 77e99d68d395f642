//! The serde forms of the RPC messages, for recordings people read and edit: bytes as text
//! where they are text, encoded values as `{"msgpack": BASE64}` (a recorder that knows the
//! schema replaces them with decoded values), types in Terraform's JSON type syntax and
//! attribute paths as `.a.b[0]["k"]`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

use super::{DynamicValue, RawState};
use crate::{AttributePath, Type};

/// Opaque bytes (private data): a string when they are UTF-8, else `{"base64": "..."}`.
pub mod bytes {
    use super::*;

    /// Serializes `bytes` as text when it is UTF-8.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(text) => s.serialize_str(text),
            Err(_) => Base64Form {
                base64: STANDARD.encode(bytes),
            }
            .serialize(s),
        }
    }

    /// Reads either form back.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Binary(Base64Form),
        }
        match Form::deserialize(d)? {
            Form::Text(text) => Ok(text.into_bytes()),
            Form::Binary(b) => STANDARD.decode(b.base64).map_err(D::Error::custom),
        }
    }

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Base64Form {
        base64: String,
    }
}

/// `{"msgpack": BASE64}`, or `{"json": VALUE}` for the rare JSON-encoded value, or null
/// when neither is set.
impl Serialize for DynamicValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.msgpack.is_empty() {
            EncodedForm {
                msgpack: Some(STANDARD.encode(&self.msgpack)),
                json: None,
            }
            .serialize(s)
        } else if !self.json.is_empty() {
            EncodedForm {
                msgpack: None,
                json: Some(embedded_json(&self.json)),
            }
            .serialize(s)
        } else {
            s.serialize_none()
        }
    }
}

impl<'de> Deserialize<'de> for DynamicValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DynamicValue, D::Error> {
        let Some(form) = Option::<EncodedForm>::deserialize(d)? else {
            return Ok(DynamicValue::default());
        };
        Ok(DynamicValue {
            msgpack: match form.msgpack {
                Some(b) => STANDARD.decode(b).map_err(D::Error::custom)?,
                None => Vec::new(),
            },
            json: form.json.as_ref().map(unembedded_json).unwrap_or_default(),
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedForm {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    msgpack: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    json: Option<Json>,
}

/// `{"json": ATTRIBUTES}` (the stored JSON, embedded when it parses), plus `"flatmap"` when
/// the state has one.
impl Serialize for RawState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawForm {
            json: (!self.json.is_empty()).then(|| embedded_json(&self.json)),
            flatmap: self.flatmap.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawState, D::Error> {
        let form = RawForm::deserialize(d)?;
        Ok(RawState {
            json: form.json.as_ref().map(unembedded_json).unwrap_or_default(),
            flatmap: form.flatmap,
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawForm {
    #[serde(default)]
    json: Option<Json>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    flatmap: std::collections::BTreeMap<String, String>,
}

/// JSON text as a JSON value when it parses; `{"unparsed": TEXT}` otherwise, so that bad
/// input stays visible (and round-trips) instead of failing the whole recording.
fn embedded_json(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| serde_json::json!({ UNPARSED: String::from_utf8_lossy(bytes) }))
}

fn unembedded_json(json: &Json) -> Vec<u8> {
    match json
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get(UNPARSED))
    {
        Some(Json::String(text)) => text.clone().into_bytes(),
        _ => serde_json::to_vec(json).unwrap_or_default(),
    }
}

const UNPARSED: &str = "unparsed";

/// Terraform's JSON type syntax: `"string"`, `["list", "number"]`, ...
impl Serialize for Type {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Type {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Type, D::Error> {
        Type::from_json(&Json::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// `.a.b[0]["k"]`, as diagnostics print it.
impl Serialize for AttributePath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AttributePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AttributePath, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::{ReadResourceRequest, ReadResourceResponse};
    use crate::{Diagnostic, Value};

    #[test]
    fn messages_round_trip_through_json() {
        let ty = Type::object([("id", Type::String)]);
        let state =
            DynamicValue::encode(&Value::object([("id", Value::String("x".into()))]), &ty).unwrap();
        let req = ReadResourceRequest {
            type_name: "t".into(),
            current_state: state.clone(),
            private: b"{\"etag\":1}".to_vec(),
            ..Default::default()
        };
        let json = serde_json::to_value(&req).unwrap();
        assert_eq!(json["private"], "{\"etag\":1}");
        assert!(json["current_state"]["msgpack"].is_string());
        assert!(json["provider_meta"].is_null());
        assert_eq!(
            serde_json::from_value::<ReadResourceRequest>(json).unwrap(),
            req
        );

        let resp = ReadResourceResponse {
            new_state: state,
            private: vec![0xff, 0],
            diagnostics: vec![
                Diagnostic::error("bad", "worse").at(".tags[\"k\"]".parse().unwrap()),
            ],
            ..Default::default()
        };
        let json = serde_json::to_value(&resp).unwrap();
        assert_eq!(json["private"]["base64"], "/wA=");
        assert_eq!(json["diagnostics"][0]["attribute"], ".tags[\"k\"]");
        assert_eq!(
            serde_json::from_value::<ReadResourceResponse>(json).unwrap(),
            resp
        );
    }

    #[test]
    fn raw_state_embeds_parsed_json_and_keeps_bad_text() {
        for text in [&b"{\"a\":1}"[..], b"{not json"] {
            let raw = RawState {
                json: text.to_vec(),
                ..Default::default()
            };
            let json = serde_json::to_value(&raw).unwrap();
            let back: RawState = serde_json::from_value(json.clone()).unwrap();
            assert_eq!(
                serde_json::from_slice::<Json>(&back.json).ok(),
                serde_json::from_slice::<Json>(text).ok(),
                "{json}"
            );
            if text == b"{not json" {
                assert_eq!(back.json, text);
            }
        }
    }

    #[test]
    fn types_use_terraform_syntax() {
        let ty = Type::list(Type::Number);
        let json = serde_json::to_value(&ty).unwrap();
        assert_eq!(json, serde_json::json!(["list", "number"]));
        assert_eq!(serde_json::from_value::<Type>(json).unwrap(), ty);
    }
}
