//! Settings inside nested attributes and blocks work where they are put, or the schema check
//! names them: validators run on every element with the element's path, block validators
//! on every block, and settings that could never take effect are schema errors.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::schema::{Block, behaviour_problems};
use tfwasm_sdk::validate::{between, conflicts_with};

fn schema() -> ResourceSchema {
    ResourceSchema::new()
        .attr(
            Attr::list_nested(
                "listener",
                vec![Attr::number("port").required().validate(between(1, 65535))],
            )
            .optional(),
        )
        .block(Block::list(
            "rule",
            ResourceSchema::new()
                .attr(Attr::string("cidr").optional())
                .attr(Attr::string("prefix_list").optional())
                .validate(conflicts_with(&["cidr", "prefix_list"])),
        ))
}

#[test]
fn validators_run_on_every_element_with_its_path() {
    let config = Value::object([
        (
            "listener",
            Value::List(vec![
                Value::object([("port", Value::from(80))]),
                Value::object([("port", Value::from(70000))]),
            ]),
        ),
        (
            "rule",
            Value::List(vec![
                Value::object([("cidr", "10.0.0.0/8".into()), ("prefix_list", Value::Null)]),
                Value::object([
                    ("cidr", "10.0.0.0/8".into()),
                    ("prefix_list", "pl-1".into()),
                ]),
            ]),
        ),
    ]);
    let found = schema().check_config(&config);
    let at: Vec<String> = found
        .iter()
        .map(|d| {
            d.attribute
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        at,
        [".listener[1].port", ".rule[1].prefix_list"],
        "{found:?}"
    );
}

#[test]
fn settings_that_cannot_take_effect_are_schema_errors() {
    let schema = ResourceSchema::new().attr(
        Attr::set_nested(
            "item",
            vec![
                Attr::string("name").required().use_state_for_unknown(),
                Attr::string("id").computed().validate(between(1, 2)),
                Attr::string("secret")
                    .optional()
                    .write_only()
                    .requires_replace(),
            ],
        )
        .optional()
        .match_elements_by(&["nme"]),
    );
    let problems = behaviour_problems(&schema);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    for (problem, wanted) in problems.iter().zip([
        ".item: match_elements_by names \"nme\"",
        ".item.name: use_state_for_unknown needs a computed attribute",
        ".item.id: validators need an attribute set in configuration",
        ".item.secret: a write-only attribute always plans null",
    ]) {
        assert!(problem.starts_with(wanted), "{problem} vs {wanted}");
    }
    assert!(behaviour_problems(&self::schema()).is_empty());
}

#[test]
fn custom_types_validate_and_compare_by_meaning_inside_sets() {
    let schema = ResourceSchema::new().attr(
        Attr::set_nested(
            "allow",
            vec![Attr::custom("cidr", &tfwasm_sdk::custom::CIDR).required()],
        )
        .optional(),
    );
    let config = |cidrs: &[&str]| {
        Value::object([(
            "allow",
            Value::Set(
                cidrs
                    .iter()
                    .map(|c| Value::object([("cidr", Value::from(*c))]))
                    .collect(),
            ),
        )])
    };
    let found = schema.check_config(&config(&["10.0.0.0/8", "10.0.0.0/40"]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].detail.contains("longer than 32"),
        "{}",
        found[0].detail
    );
    assert_eq!(found[0].attribute, Some("allow".parse().unwrap()));
    assert!(behaviour_problems(&schema).is_empty());
}
