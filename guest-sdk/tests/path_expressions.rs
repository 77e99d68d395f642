//! Path expressions as an author uses them: resource and block validators that reach into
//! lists, maps and sets (`rule[*].port`, `tags["*"]`) and out of a block (`<`, `$`), the
//! schema check catching expressions that cannot match, and `modify_plan` helpers.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::schema::{Block, behaviour_problems};
use tfwasm_sdk::validate::{at_least_sum_of, conflicts_with, required_together};

fn schema() -> ResourceSchema {
    ResourceSchema::new()
        .attr(Attr::string("region").optional())
        .attr(Attr::number("port").optional())
        .attr(Attr::number("budget").optional())
        .attr(Attr::map("tags", Type::String).optional())
        .block(Block::list(
            "rule",
            ResourceSchema::new()
                .attr(Attr::number("port").optional())
                .attr(Attr::string("zone").optional())
                // A rule's zone and the resource's region go together.
                .validate(required_together(&["zone", "<.<.region"])),
        ))
        // A port for the whole resource, or ports per rule, never both.
        .validate(conflicts_with(&["port", "rule[*].port"]))
        // The budget covers every rule's port count (a stand-in for any per-element sum).
        .validate(at_least_sum_of("budget", &["rule[*].port"]))
}

fn rule(port: Option<i64>, zone: Option<&str>) -> Value {
    Value::object([
        ("port", port.map_or(Value::Null, Value::from)),
        ("zone", zone.map_or(Value::Null, Value::from)),
    ])
}

fn config(region: Option<&str>, port: Option<i64>, budget: i64, rules: Vec<Value>) -> Value {
    Value::object([
        ("region", region.map_or(Value::Null, Value::from)),
        ("port", port.map_or(Value::Null, Value::from)),
        ("budget", Value::from(budget)),
        ("tags", Value::Null),
        ("rule", Value::List(rules)),
    ])
}

fn found(config: &Value) -> Vec<(String, String)> {
    schema()
        .check_config(config)
        .iter()
        .map(|d| {
            (
                d.attribute
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                d.detail.clone(),
            )
        })
        .collect()
}

#[test]
fn a_valid_configuration_passes() {
    let ok = config(
        Some("eu"),
        None,
        1000,
        vec![rule(Some(80), Some("a")), rule(Some(443), Some("b"))],
    );
    assert_eq!(found(&ok), []);
}

#[test]
fn any_element_expressions_see_every_element() {
    let both = config(
        Some("eu"),
        Some(22),
        1000,
        vec![rule(None, Some("a")), rule(Some(443), Some("b"))],
    );
    let got = found(&both);
    assert_eq!(got.len(), 1, "{got:?}");
    // Reported where the second one is set: the element's own path.
    assert_eq!(got[0].0, ".rule[1].port");
    assert!(got[0].1.contains("port and rule[*].port"), "{}", got[0].1);

    let over = config(
        Some("eu"),
        None,
        500,
        vec![rule(Some(80), Some("a")), rule(Some(443), Some("b"))],
    );
    let got = found(&over);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, ".budget");
    assert!(got[0].1.contains("(523)"), "{}", got[0].1);
}

#[test]
fn a_block_validator_climbs_to_the_resource() {
    let no_region = config(
        None,
        None,
        1000,
        vec![rule(Some(80), None), rule(None, Some("b"))],
    );
    let got = found(&no_region);
    assert_eq!(got.len(), 1, "{got:?}");
    // The second rule names a zone without a region; the missing one is outside the block,
    // so the diagnostic sits on the block element that asked.
    assert_eq!(got[0].0, ".rule[1]");
    assert!(got[0].1.contains("<.<.region missing"), "{}", got[0].1);
}

#[test]
fn the_schema_check_rejects_expressions_that_cannot_match() {
    let bad = ResourceSchema::new()
        .attr(Attr::string("name").optional())
        .attr(Attr::map("tags", Type::String).optional())
        .block(Block::set(
            "rule",
            ResourceSchema::new()
                .attr(Attr::number("port").optional())
                .validate(conflicts_with(&["port", "<.<.<.name"])),
        ))
        .validate(conflicts_with(&["nmae", "name"]))
        .validate(conflicts_with(&["name[*]", "tags[0]"]))
        .validate(conflicts_with(&[
            "rule[0].port",
            "tags[\"*\"]",
            "rule[*].port",
        ]))
        .validate(conflicts_with(&["rule[*", "name"]));
    let problems = behaviour_problems(&bad);
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(
        has(r#""nmae": there is no attribute or block "nmae""#),
        "{problems:#?}"
    );
    assert!(
        has(r#""name[*]": a string value has nothing to select"#),
        "{problems:#?}"
    );
    assert!(
        has(r#""tags[0]": Map elements cannot be selected by Index(0)"#),
        "{problems:#?}"
    );
    assert!(
        has(r#""rule[0].port": Set elements cannot be selected"#),
        "{problems:#?}"
    );
    assert!(
        has(r#".rule: validator names "<.<.<.name": `<` climbs above"#),
        "{problems:#?}"
    );
    assert!(has(r#""rule[*": invalid path expression"#), "{problems:#?}");
    // The expressions that fit are not reported.
    assert!(
        !has(r#""tags[\"*\"]""#) && !has(r#""rule[*].port":"#),
        "{problems:#?}"
    );
    assert_eq!(problems.len(), 6, "{problems:#?}");
    assert!(behaviour_problems(&schema()).is_empty());
}

fn plan(prior: Vec<Value>, planned: Vec<Value>) -> PlanContext {
    let object = |rules| config(Some("eu"), None, 1000, rules);
    PlanContext {
        prior: object(prior),
        config: object(planned.clone()),
        planned: object(planned),
        requires_replace: Vec::new(),
    }
}

#[test]
fn modify_plan_selects_and_changes_by_expression() {
    let mut p = plan(
        vec![rule(Some(80), Some("a"))],
        vec![rule(Some(80), Some("a")), rule(Some(443), None)],
    );
    let ports: Vec<String> = p
        .planned_at("rule[*].port")
        .unwrap()
        .iter()
        .map(|s| format!("{}={:?}", s.path, s.value.as_i64()))
        .collect();
    assert_eq!(ports, [".rule[0].port=Some(80)", ".rule[1].port=Some(443)"]);
    let changed = p
        .update_planned("rule[*].zone", |_, zone| {
            if zone.is_null() {
                *zone = Value::from("default");
            }
        })
        .unwrap();
    assert_eq!(changed, 2);
    assert_eq!(
        p.planned
            .get_path(&AttributePath::attribute("rule").index(1).attr("zone")),
        Some(&Value::from("default"))
    );
    assert!(p.planned_at("rule[").is_err());
}

#[test]
fn require_replace_if_changed_names_each_changed_element() {
    let mut p = plan(
        vec![
            rule(Some(80), None),
            rule(Some(443), None),
            rule(Some(8080), None),
        ],
        vec![rule(Some(80), None), rule(Some(444), None)],
    );
    p.require_replace_if_changed("rule[*].port").unwrap();
    let at: Vec<String> = p.requires_replace.iter().map(ToString::to_string).collect();
    // The changed element, and the removed one (selected in the prior state).
    assert_eq!(at, [".rule[1].port", ".rule[2].port"]);
    // Again: nothing new.
    p.require_replace_if_changed("rule[*].port").unwrap();
    assert_eq!(p.requires_replace.len(), 2);
}
