//! Schemas in the JSON form `terraform providers schema -json` prints, so hand-written check
//! files and test vectors can use the format Terraform users already know.

use serde_json::{Map, Value as Json};

use crate::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting,
    StringKind, Type,
};

/// A schema JSON document is malformed; names where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schema{location}: {message}")]
pub struct SchemaJsonError {
    /// Where in the schema, like `.attributes.name`.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

fn err(location: &str, message: impl Into<String>) -> SchemaJsonError {
    SchemaJsonError {
        location: location.to_owned(),
        message: message.into(),
    }
}

/// Parses a block: `{"attributes": {...}, "block_types": {...}, "description": ...}`.
///
/// # Errors
/// When a field has the wrong shape or a type is not valid type JSON.
pub fn block_from_json(json: &Json) -> Result<Block, SchemaJsonError> {
    block(json, "")
}

fn object<'a>(json: &'a Json, location: &str) -> Result<&'a Map<String, Json>, SchemaJsonError> {
    json.as_object()
        .ok_or_else(|| err(location, "expected a JSON object"))
}

fn flag(obj: &Map<String, Json>, key: &str, location: &str) -> Result<bool, SchemaJsonError> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(_) => Err(err(&format!("{location}.{key}"), "expected true or false")),
    }
}

fn text(obj: &Map<String, Json>, key: &str) -> String {
    obj.get(key)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn kind(obj: &Map<String, Json>) -> StringKind {
    match obj.get("description_kind").and_then(Json::as_str) {
        Some("markdown") => StringKind::Markdown,
        _ => StringKind::Plain,
    }
}

fn block(json: &Json, location: &str) -> Result<Block, SchemaJsonError> {
    let obj = object(json, location)?;
    const KNOWN: &[&str] = &[
        "attributes",
        "block_types",
        "description",
        "description_kind",
        "deprecated",
        "deprecation_message",
        "computed",
    ];
    if let Some(extra) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(err(
            location,
            format!("unknown block field {extra:?} (expected one of {KNOWN:?})"),
        ));
    }
    let mut out = Block {
        description: text(obj, "description"),
        description_kind: kind(obj),
        deprecated: flag(obj, "deprecated", location)?,
        deprecation_message: text(obj, "deprecation_message"),
        computed: flag(obj, "computed", location)?,
        ..Block::default()
    };
    if let Some(attrs) = obj.get("attributes") {
        let here = format!("{location}.attributes");
        for (name, a) in object(attrs, &here)? {
            out.attributes
                .push(attribute(name, a, &format!("{here}.{name}"))?);
        }
    }
    if let Some(blocks) = obj.get("block_types") {
        let here = format!("{location}.block_types");
        for (name, b) in object(blocks, &here)? {
            let location = format!("{here}.{name}");
            let b_obj = object(b, &location)?;
            let nesting = match b_obj.get("nesting_mode").and_then(Json::as_str) {
                Some("single") => BlockNesting::Single,
                Some("list") => BlockNesting::List,
                Some("set") => BlockNesting::Set,
                Some("map") => BlockNesting::Map,
                Some("group") => BlockNesting::Group,
                _ => {
                    return Err(err(
                        &location,
                        "nesting_mode must be single, list, set, map or group",
                    ));
                }
            };
            let items = |key: &str| {
                b_obj.get(key).map_or(Ok(0), |v| {
                    v.as_i64()
                        .ok_or_else(|| err(&location, format!("{key} must be an integer")))
                })
            };
            out.block_types.push(NestedBlock {
                type_name: name.clone(),
                block: block(
                    b_obj.get("block").unwrap_or(&Json::Object(Map::new())),
                    &format!("{location}.block"),
                )?,
                nesting,
                min_items: items("min_items")?,
                max_items: items("max_items")?,
            });
        }
    }
    Ok(out)
}

fn attribute(name: &str, json: &Json, location: &str) -> Result<Attribute, SchemaJsonError> {
    let obj = object(json, location)?;
    let ty = match (obj.get("type"), obj.get("nested_type")) {
        (Some(ty), None) => {
            AttributeType::Type(Type::from_json(ty).map_err(|e| err(location, e.to_string()))?)
        }
        (None, Some(nested)) => {
            let here = format!("{location}.nested_type");
            let n_obj = object(nested, &here)?;
            let nesting = match n_obj.get("nesting_mode").and_then(Json::as_str) {
                Some("single") => ObjectNesting::Single,
                Some("list") => ObjectNesting::List,
                Some("set") => ObjectNesting::Set,
                Some("map") => ObjectNesting::Map,
                _ => return Err(err(&here, "nesting_mode must be single, list, set or map")),
            };
            let mut attributes = Vec::new();
            if let Some(attrs) = n_obj.get("attributes") {
                for (inner, a) in object(attrs, &here)? {
                    attributes.push(attribute(inner, a, &format!("{here}.attributes.{inner}"))?);
                }
            }
            AttributeType::Nested(NestedObject {
                attributes,
                nesting,
            })
        }
        _ => {
            return Err(err(
                location,
                "an attribute needs exactly one of \"type\" and \"nested_type\"",
            ));
        }
    };
    Ok(Attribute {
        name: name.to_owned(),
        ty,
        description: text(obj, "description"),
        description_kind: kind(obj),
        required: flag(obj, "required", location)?,
        optional: flag(obj, "optional", location)?,
        computed: flag(obj, "computed", location)?,
        sensitive: flag(obj, "sensitive", location)?,
        deprecated: flag(obj, "deprecated", location)?,
        deprecation_message: text(obj, "deprecation_message"),
        write_only: flag(obj, "write_only", location)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_terraform_schema_json() {
        let json: Json = serde_json::from_str(
            r#"{
              "attributes": {
                "id": {"type": "string", "computed": true},
                "tags": {"type": ["map", "string"], "optional": true},
                "rules": {"nested_type": {"nesting_mode": "list", "attributes": {"port": {"type": "number", "required": true}}}, "optional": true}
              },
              "block_types": {
                "disk": {"nesting_mode": "set", "block": {"attributes": {"size": {"type": "number", "required": true}}}, "max_items": 3}
              }
            }"#,
        )
        .unwrap();
        let b = block_from_json(&json).unwrap();
        assert_eq!(b.attributes.len(), 3);
        assert!(b.attribute("id").unwrap().computed);
        assert_eq!(b.block_type("disk").unwrap().max_items, 3);
        assert_eq!(
            b.implied_type(),
            Type::object([
                ("id", Type::String),
                ("tags", Type::map(Type::String)),
                ("rules", Type::list(Type::object([("port", Type::Number)]))),
                ("disk", Type::set(Type::object([("size", Type::Number)]))),
            ])
        );
    }

    #[test]
    fn errors_name_the_location() {
        let json: Json =
            serde_json::from_str(r#"{"attributes": {"a": {"type": "strang"}}}"#).unwrap();
        let e = block_from_json(&json).unwrap_err();
        assert!(e.to_string().starts_with("schema.attributes.a:"), "{e}");
        let json: Json = serde_json::from_str(r#"{"attributes": {"a": {}}}"#).unwrap();
        assert!(block_from_json(&json).is_err());
    }
}
