//! The schema-aware pass over a recorded message: encoded values become readable JSON with
//! secrets redacted, and back again for replay.
//!
//! A message is first turned into JSON by serde (values as `{"msgpack": BASE64}`, see
//! `tfwasm_model::rpc::forms`); this pass then finds each value by its field name, decodes it
//! against the schema that field belongs to, and writes `{"value": JSON}` in go-cty's JSON
//! encoding (unknowns as `{"$unknown": true}`). Sensitive and write-only attributes become
//! `{"$redacted": true}` at any depth. A value that does not decode stays encoded, so a
//! recording of a misbehaving provider keeps the bytes it sent.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value as Json, json};
use tfwasm_model::codec::json::{decode_with_unknowns, encode_with_unknowns};
use tfwasm_model::codec::redact::{is_redacted, redact_block};
use tfwasm_model::rpc::{GetFunctionsResponse, GetResourceIdentitySchemasResponse};
use tfwasm_model::{Block, ProviderSchema, Type};

/// The schemas a recording is read with.
#[derive(Debug, Default)]
pub struct Schemas {
    pub provider: ProviderSchema,
    pub identities: GetResourceIdentitySchemasResponse,
    pub functions: GetFunctionsResponse,
}

/// Which schema a value field belongs to.
enum Slot<'a> {
    /// An object of a block: provider config, a resource's state, ...
    Block(&'a Block),
    /// A plain type (identities, function arguments and results).
    Type(Type),
}

/// The family a message belongs to, which decides whose schema `config`, `state` etc. use.
#[derive(Clone, Copy)]
enum Family {
    Provider,
    Resource,
    DataSource,
    Ephemeral,
    Function,
}

fn family(rpc: &str) -> Option<Family> {
    Some(match rpc {
        "ValidateProviderConfig" | "ConfigureProvider" => Family::Provider,
        "ValidateResourceConfig"
        | "UpgradeResourceState"
        | "ReadResource"
        | "PlanResourceChange"
        | "ApplyResourceChange"
        | "ImportResourceState"
        | "MoveResourceState"
        | "UpgradeResourceIdentity" => Family::Resource,
        "ValidateDataResourceConfig" | "ReadDataSource" => Family::DataSource,
        "ValidateEphemeralResourceConfig" | "OpenEphemeralResource" => Family::Ephemeral,
        "CallFunction" => Family::Function,
        _ => return None,
    })
}

/// Which way the pass goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Encoded → readable, redacting (recording).
    Decode,
    /// Readable → encoded, redacted values replaced by placeholders (replay).
    Encode,
}

impl Schemas {
    /// Rewrites the value fields of one message of `rpc`. `subject` is the request's type or
    /// function name (for MoveResourceState, the target type).
    pub fn rewrite(&self, rpc: &str, subject: &str, message: &mut Json, direction: Direction) {
        let Some(family) = family(rpc) else { return };
        let Some(fields) = message.as_object_mut() else {
            return;
        };
        for (field, value) in fields.iter_mut() {
            match field.as_str() {
                "imported_resources" => {
                    // Each imported object names its own type.
                    for item in value.as_array_mut().into_iter().flatten() {
                        let type_name = item["type_name"].as_str().unwrap_or(subject).to_owned();
                        self.rewrite(rpc, &type_name, item, direction);
                    }
                }
                "arguments" => {
                    let function = self.functions.functions.get(subject);
                    for (i, arg) in value.as_array_mut().into_iter().flatten().enumerate() {
                        if let Some(p) = function.and_then(|f| f.parameter(i)) {
                            convert(arg, &Slot::Type(p.ty.clone()), direction);
                        }
                    }
                }
                "raw_state" | "source_state" => {
                    // Stored JSON of some schema version: redacted by the current schema's
                    // attribute names, as far as they match.
                    if let Some(block) = self.object_block(Family::Resource, subject)
                        && let Some(json) = value.get_mut("json")
                    {
                        match direction {
                            Direction::Decode => redact_block(json, block),
                            Direction::Encode => fill_redacted(json, &block.implied_type()),
                        }
                    }
                }
                name => {
                    if let Some(slot) = self.slot(family, subject, name) {
                        convert(value, &slot, direction);
                    }
                }
            }
        }
    }

    fn slot(&self, family: Family, subject: &str, field: &str) -> Option<Slot<'_>> {
        if field == "provider_meta" {
            return self
                .provider
                .provider_meta
                .as_ref()
                .map(|s| Slot::Block(&s.block));
        }
        if field.ends_with("identity") && !field.starts_with("source") {
            let schema = self.identities.identity_schemas.get(subject)?;
            return Some(Slot::Type(schema.implied_type()));
        }
        if matches!(family, Family::Function) {
            let function = self.functions.functions.get(subject)?;
            return (field == "result").then(|| Slot::Type(function.return_type.clone()));
        }
        matches!(
            field,
            "config"
                | "prior_state"
                | "proposed_new_state"
                | "planned_state"
                | "new_state"
                | "current_state"
                | "upgraded_state"
                | "state"
                | "target_state"
                | "result"
        )
        .then(|| self.object_block(family, subject).map(Slot::Block))
        .flatten()
    }

    fn object_block(&self, family: Family, type_name: &str) -> Option<&Block> {
        let p = &self.provider;
        let schema = match family {
            Family::Provider => Some(&p.provider),
            Family::Resource => p.resources.get(type_name),
            Family::DataSource => p.data_sources.get(type_name),
            Family::Ephemeral => p.ephemeral_resources.get(type_name),
            Family::Function => None,
        };
        schema.map(|s| &s.block)
    }
}

/// Converts one value field in place.
fn convert(field: &mut Json, slot: &Slot<'_>, direction: Direction) {
    let ty = match slot {
        Slot::Block(block) => block.implied_type(),
        Slot::Type(ty) => ty.clone(),
    };
    match direction {
        Direction::Decode => {
            let Some(bytes) = field
                .get("msgpack")
                .and_then(Json::as_str)
                .and_then(|b| STANDARD.decode(b).ok())
            else {
                return;
            };
            let Ok(value) = tfwasm_model::codec::msgpack::decode(&bytes, &ty) else {
                return;
            };
            let Ok(mut readable) = encode_with_unknowns(&value, &ty) else {
                return;
            };
            if let Slot::Block(block) = slot {
                redact_block(&mut readable, block);
            }
            *field = json!({ "value": readable });
        }
        Direction::Encode => {
            let Some(mut readable) = field.get_mut("value").map(Json::take) else {
                return;
            };
            fill_redacted(&mut readable, &ty);
            // A value that does not fit its schema is handed over as it is, in go-cty's JSON
            // encoding, for the provider to reject.
            *field = match decode_with_unknowns(&readable, &ty)
                .ok()
                .and_then(|v| tfwasm_model::codec::msgpack::encode(&v, &ty).ok())
            {
                Some(bytes) => json!({ "msgpack": STANDARD.encode(bytes) }),
                None => json!({ "json": readable }),
            };
        }
    }
}

/// Replaces each redaction marker by a stand-in of the type found there, so a recording with
/// its secrets removed still replays: `"(redacted)"`, 0, false, empty collections.
pub fn fill_redacted(json: &mut Json, ty: &Type) {
    if is_redacted(json) {
        *json = placeholder(ty);
        return;
    }
    match (ty, json) {
        (Type::Object(attrs), Json::Object(fields)) => {
            for (name, attr_ty) in attrs {
                if let Some(v) = fields.get_mut(name) {
                    fill_redacted(v, attr_ty);
                }
            }
        }
        (Type::List(elem) | Type::Set(elem), Json::Array(items)) => {
            items.iter_mut().for_each(|v| fill_redacted(v, elem));
        }
        (Type::Map(elem), Json::Object(entries)) => {
            entries.values_mut().for_each(|v| fill_redacted(v, elem));
        }
        (Type::Tuple(elems), Json::Array(items)) => {
            items
                .iter_mut()
                .zip(elems)
                .for_each(|(v, t)| fill_redacted(v, t));
        }
        (Type::Dynamic, Json::Object(fields)) => {
            let inner = fields.get("type").and_then(|t| Type::from_json(t).ok());
            if let (Some(inner), Some(v)) = (inner, fields.get_mut("value")) {
                fill_redacted(v, &inner);
            }
        }
        _ => {}
    }
}

fn placeholder(ty: &Type) -> Json {
    match ty {
        Type::String => Json::String("(redacted)".into()),
        Type::Number => json!(0),
        Type::Bool => Json::Bool(false),
        Type::List(_) | Type::Set(_) => json!([]),
        Type::Map(_) => json!({}),
        Type::Tuple(elems) => Json::Array(elems.iter().map(placeholder).collect()),
        Type::Object(attrs) => Json::Object(
            attrs
                .iter()
                .map(|(name, t)| (name.clone(), placeholder(t)))
                .collect::<Map<_, _>>(),
        ),
        Type::Dynamic => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::codec::redact::redacted;
    use tfwasm_model::rpc::{DynamicValue, PlanResourceChangeRequest};
    use tfwasm_model::{Attribute, BlockNesting, NestedBlock, Schema, Value};

    fn schemas() -> Schemas {
        let mut password = Attribute::new("password", Type::String);
        password.sensitive = true;
        let mut token = Attribute::new("token", Type::Number);
        token.write_only = true;
        let block = Block {
            attributes: vec![Attribute::new("id", Type::String), password, token],
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![{
                        let mut secret = Attribute::new("secret", Type::String);
                        secret.sensitive = true;
                        secret
                    }],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let mut provider = ProviderSchema::default();
        provider
            .resources
            .insert("t_x".into(), Schema { version: 0, block });
        Schemas {
            provider,
            ..Schemas::default()
        }
    }

    #[test]
    fn secrets_are_redacted_at_any_depth_and_replay_with_placeholders() {
        let schemas = schemas();
        let ty = schemas.provider.resources["t_x"].block.implied_type();
        let config = Value::object([
            ("id", Value::unknown()),
            ("password", Value::String("hunter2".into())),
            ("token", Value::Number(7.into())),
            (
                "rule",
                Value::List(vec![Value::object([(
                    "secret",
                    Value::String("s3".into()),
                )])]),
            ),
        ]);
        let req = PlanResourceChangeRequest {
            type_name: "t_x".into(),
            config: DynamicValue::encode(&config, &ty).unwrap(),
            ..Default::default()
        };
        let mut json = serde_json::to_value(&req).unwrap();
        schemas.rewrite("PlanResourceChange", "t_x", &mut json, Direction::Decode);
        let text = json.to_string();
        assert!(!text.contains("hunter2") && !text.contains("s3"), "{text}");
        let config_json = &json["config"]["value"];
        assert_eq!(config_json["id"], json!({"$unknown": true}));
        assert_eq!(config_json["password"], redacted());
        assert_eq!(config_json["token"], redacted());
        assert_eq!(config_json["rule"][0]["secret"], redacted());

        schemas.rewrite("PlanResourceChange", "t_x", &mut json, Direction::Encode);
        let back: PlanResourceChangeRequest = serde_json::from_value(json).unwrap();
        let replayed = back.config.decode(&ty).unwrap();
        assert_eq!(
            replayed.get("password"),
            Some(&Value::String("(redacted)".into()))
        );
        assert_eq!(replayed.get("token"), Some(&Value::Number(0.into())));
        assert!(replayed.get("id").unwrap().is_unknown());
    }

    #[test]
    fn undecodable_values_stay_encoded() {
        let schemas = schemas();
        let mut json = json!({ "config": { "msgpack": STANDARD.encode([0xc1]) } });
        let before = json.clone();
        schemas.rewrite("PlanResourceChange", "t_x", &mut json, Direction::Decode);
        assert_eq!(json, before);
    }
}
