//! Validation as a practitioner meets it: one mistake in a configuration gives one error,
//! at plan, naming the attribute and the value given.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::{at_least, at_least_sum_of, whole_number};

fn string_like() -> ResourceSchema {
    ResourceSchema::new()
        .attr(Attr::number("length").required().validate(at_least(1)))
        .attr(Attr::number("min_upper").optional().validate(at_least(0)))
        .validate(at_least_sum_of("length", &["min_upper"]))
}

fn errors(schema: &ResourceSchema, config: &Value) -> Vec<(String, String)> {
    schema
        .check_config(config)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.attribute.map(|p| p.to_string()).unwrap_or_default(),
                d.detail,
            )
        })
        .collect()
}

#[test]
fn a_negative_length_is_one_error_not_two() {
    let config = Value::object([("length", Value::from(-1)), ("min_upper", Value::from(0))]);
    assert_eq!(
        errors(&string_like(), &config),
        [(
            ".length".to_owned(),
            "length must be at least 1, got -1.".to_owned()
        )]
    );
}

#[test]
fn resource_validators_still_run_when_every_attribute_passes() {
    let config = Value::object([("length", Value::from(2)), ("min_upper", Value::from(3))]);
    let found = errors(&string_like(), &config);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("at least the sum of"), "{found:?}");
}

#[test]
fn a_fraction_or_a_number_past_i64_is_refused_at_plan() {
    let schema = ResourceSchema::new()
        .attr(Attr::number("min").required().validate(whole_number()))
        .attr(Attr::number("max").required().validate(whole_number()));
    let number = |text: &str| Value::Number(text.parse().unwrap());
    let config = Value::object([("min", number("1.5")), ("max", number("1e30"))]);
    let found = errors(&schema, &config);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, ".min");
    assert!(
        found[0].1.contains("whole number") && found[0].1.contains("got 1.5"),
        "{found:?}"
    );
    assert_eq!(found[1].0, ".max");
    assert!(found[1].1.contains(&i64::MAX.to_string()), "{found:?}");
    let fine = Value::object([("min", number("-5")), ("max", Value::from(i64::MAX))]);
    assert_eq!(errors(&schema, &fine), []);
}
