//! Data-driven contract cases: every file in `tests/vectors/` holds a schema (in
//! `terraform providers schema -json` block form), optional `defaults` merged into every
//! object value, and cases. A case runs `plan` (prior, config, planned, requires_replace) or
//! `apply` (planned, new) and lists the violations expected, each as a prefix of the
//! violation's text (`.path: message`), in any order. Unknowns are `{"$unknown": true}`.
//! A plan case may say `"computed_blocks_allowed": false` to check as for a client without
//! computed blocks (tfplugin6.11).

use std::path::Path;

use serde_json::Value as Json;
use tfwasm_contract::{
    Violations, check_apply, check_apply_with, check_plan_for, check_plan_with,
    check_requires_replace,
};
use tfwasm_model::codec::json::decode_with_unknowns;
use tfwasm_model::schema_json::block_from_json;
use tfwasm_model::{Attribute, AttributePath, AttributeType, Block, Layout, Type, Value};

fn merged(json: Option<&Json>, defaults: &Json) -> Json {
    match (json, defaults) {
        (None, _) => Json::Null,
        (Some(Json::Object(obj)), Json::Object(base)) if !obj.contains_key("$unknown") => {
            let mut out = base.clone();
            for (k, v) in obj {
                out.insert(k.clone(), v.clone());
            }
            Json::Object(out)
        }
        (Some(other), _) => other.clone(),
    }
}

fn value(case: &Json, key: &str, defaults: &Json, ty: &Type, name: &str) -> Value {
    decode_with_unknowns(&merged(case.get(key), defaults), ty)
        .unwrap_or_else(|e| panic!("case {name}: {key}: {e}"))
}

/// `block` with one more attribute declared last, whose name sorts before every other, in it
/// and in every nested block and nested attribute object: its layout puts each of `block`'s
/// names one place after where `block`'s values hold it, so every place is wrong.
fn shifted(block: &Block) -> Block {
    fn first_name(attributes: &mut Vec<Attribute>) {
        for a in attributes.iter_mut() {
            if let AttributeType::Nested(object) = &mut a.ty {
                first_name(&mut object.attributes);
            }
        }
        attributes.push(Attribute::new("", Type::String));
    }
    let mut block = block.clone();
    first_name(&mut block.attributes);
    for nested in &mut block.block_types {
        nested.block = shifted(&nested.block);
    }
    block
}

/// Runs a case's check, with the block's own layout or with `layout`.
fn run_check(
    block: &Block,
    layout: Option<&Layout>,
    defaults: &Json,
    case: &Json,
    ty: &Type,
    name: &str,
) -> Violations {
    match case["check"].as_str() {
        Some("plan") => {
            let prior = value(case, "prior", defaults, ty, name);
            let config = value(case, "config", defaults, ty, name);
            let planned = value(case, "planned", defaults, ty, name);
            let paths: Vec<AttributePath> = case
                .get("requires_replace")
                .and_then(Json::as_array)
                .map(|list| {
                    list.iter()
                        .map(|p| p.as_str().unwrap().parse().unwrap())
                        .collect()
                })
                .unwrap_or_default();
            let computed_blocks = case
                .get("computed_blocks_allowed")
                .and_then(Json::as_bool)
                .unwrap_or(true);
            let mut v = match layout {
                Some(layout) => {
                    check_plan_with(block, layout, &prior, &config, &planned, computed_blocks)
                }
                None => check_plan_for(block, &prior, &config, &planned, computed_blocks),
            };
            v.extend(check_requires_replace(block, &prior, &paths));
            v
        }
        Some("apply") => {
            let planned = value(case, "planned", defaults, ty, name);
            let new = value(case, "new", defaults, ty, name);
            match layout {
                Some(layout) => check_apply_with(block, layout, &planned, &new),
                None => check_apply(block, &planned, &new),
            }
        }
        other => panic!("case {name}: unknown check {other:?}"),
    }
}

fn run_case(block: &Block, defaults: &Json, case: &Json) -> Result<(), String> {
    let name = case["name"].as_str().expect("every case has a name");
    let ty = block.implied_type();
    let violations = run_check(block, None, defaults, case, &ty, name);
    // A layout is a hint: with none (every lookup searches), or one whose every place is
    // wrong, the checks find the same.
    let rendered = |v: &Violations| v.iter().map(ToString::to_string).collect::<Vec<_>>();
    for layout in [Layout::default(), Layout::of(&shifted(block))] {
        let again = run_check(block, Some(&layout), defaults, case, &ty, name);
        if rendered(&again) != rendered(&violations) {
            return Err(format!(
                "case {name}: with the layout {layout:?}, {:?} where the block's gave {:?}",
                rendered(&again),
                rendered(&violations)
            ));
        }
    }
    let expected: Vec<&str> = case["expect"]
        .as_array()
        .expect("expect list")
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    let rendered: Vec<String> = violations.iter().map(ToString::to_string).collect();
    let mut unmatched: Vec<&String> = rendered.iter().collect();
    let mut missing = Vec::new();
    for want in &expected {
        match unmatched.iter().position(|got| got.starts_with(want)) {
            Some(i) => {
                unmatched.remove(i);
            }
            None => missing.push(*want),
        }
    }
    if missing.is_empty() && unmatched.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "case {name}:\n  missing:    {missing:?}\n  unexpected: {unmatched:?}"
        ))
    }
}

#[test]
fn every_vector_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut total, mut valid, mut invalid) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in files {
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let block =
            block_from_json(&doc["schema"]).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let defaults = doc.get("defaults").cloned().unwrap_or(Json::Null);
        for case in doc["cases"].as_array().unwrap() {
            total += 1;
            if case["expect"].as_array().is_some_and(Vec::is_empty) {
                valid += 1;
            } else {
                invalid += 1;
            }
            if let Err(e) = run_case(&block, &defaults, case) {
                failures.push(format!(
                    "{}: {e}",
                    file.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(total >= 100, "the table covers every rule: {total} cases");
    assert!(
        valid >= 30 && invalid >= 60,
        "both accepted and rejected cases: {valid} valid, {invalid} invalid"
    );
}
