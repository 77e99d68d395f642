//! The example of docs/provider-guide.md §2, compiled and exercised natively, so the guide
//! stays true.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::at_least;

pub struct ThingProvider;

impl Provider for ThingProvider {
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(
                Attr::string("endpoint")
                    .optional()
                    .description("API base URL."),
            )
            .attr(Attr::string("token").optional().sensitive())
    }
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing)]
    }
}

tfwasm_sdk::export_provider!(ThingProvider);

#[derive(Serialize, Deserialize)]
struct ThingModel {
    name: String,
    size: Option<i64>,
    tags: Option<BTreeMap<String, String>>,
    id: Tf<String>,
}

struct Thing;

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "thing_widget"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A widget.")
            .attr(Attr::string("name").required().requires_replace())
            .attr(Attr::number("size").optional().validate(at_least(1)))
            .attr(Attr::map("tags", Type::String).optional())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let schema = self.schema();
        let mut model: ThingModel = schema.decode(planned)?;
        model.id = Tf::Known(format!("w-{}", model.name));
        schema.encode(&model)
    }

    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        Ok(tfwasm_sdk::import::passthrough_id(&self.schema(), "id", id))
    }
}

#[test]
fn schemas_are_valid() {
    assert_eq!(
        tfwasm_sdk::check_schemas(&ThingProvider),
        Vec::<String>::new()
    );
}

#[test]
fn create_fills_the_computed_id() {
    let planned = Value::object([
        ("name", Value::from("a")),
        ("size", Value::Null),
        ("tags", Value::Null),
        ("id", Value::unknown()),
    ]);
    let state = Thing
        .create(&Context::default(), &planned, &planned)
        .unwrap();
    assert_eq!(state.get("id"), Some(&Value::from("w-a")));
    let imported = Thing.import(&Context::default(), "w-b").unwrap();
    assert_eq!(imported.get("id"), Some(&Value::from("w-b")));
    assert_eq!(imported.get("name"), Some(&Value::Null));
}

#[test]
fn unknown_name_is_a_conversion_error_naming_it() {
    let planned = Value::object([
        ("name", Value::unknown()),
        ("size", Value::Null),
        ("tags", Value::Null),
        ("id", Value::unknown()),
    ]);
    let err = Thing
        .create(&Context::default(), &planned, &planned)
        .unwrap_err();
    assert_eq!(err.summary, "Value Conversion Error");
    assert_eq!(err.attribute, Some(AttributePath::attribute("name")));
    assert!(err.detail.contains("Tf<T>"), "{}", err.detail);
}

#[test]
fn nested_attributes_and_blocks_build_valid_schemas() {
    use tfwasm_sdk::Block;
    let schema = ResourceSchema::new()
        .attr(Attr::single_nested("network", vec![Attr::string("cidr").required()]).optional())
        .attr(Attr::list_nested("disks", vec![Attr::number("size").required()]).optional())
        .attr(Attr::set_nested("acl", vec![Attr::string("who").optional()]).optional())
        .attr(Attr::map_nested("labels", vec![Attr::string("v").optional()]).computed())
        .attr(Attr::dynamic("extra").optional())
        .attr(Attr::object("pair", &[("a", Type::String), ("b", Type::Number)]).optional())
        .attr(Attr::tuple("t", vec![Type::String, Type::Bool]).optional())
        .attr(Attr::string("password").optional().write_only())
        .block(
            Block::list(
                "rule",
                ResourceSchema::new().attr(Attr::number("port").required()),
            )
            .max_items(3),
        )
        .block(Block::set(
            "tag",
            ResourceSchema::new().attr(Attr::string("k").required()),
        ))
        .block(Block::single(
            "timeouts",
            ResourceSchema::new().attr(Attr::string("create").optional()),
        ))
        .block(Block::map(
            "env",
            ResourceSchema::new().attr(Attr::string("v").optional()),
        ))
        .block(Block::group(
            "settings",
            ResourceSchema::new().attr(Attr::bool("on").optional()),
        ));
    assert_eq!(tfwasm_sdk::schema::check(&schema), Vec::<String>::new());
    let wire = schema.to_wire();
    assert_eq!(wire.block.block_types.len(), 5);
    assert!(wire.block.attributes.iter().any(|a| a.write_only));
    // A bad name is caught by the self-check.
    let bad = ResourceSchema::new().attr(Attr::string("Bad-Name").optional());
    assert!(!tfwasm_sdk::schema::check(&bad).is_empty());
}
