//! Values where tfwasm's codecs once disagreed with go-cty (found by the differential tests,
//! `make fuzz-diff`), with go-cty's own answers recorded in `vectors/go_cty.json` by
//! `fuzz/oracle/record_vectors.py`: tfwasm must decode each as go-cty does and write the same
//! bytes (sets in go-cty's order, `canonical::canonicalize`), or refuse what it refuses.

use serde_json::Value as Json;
use tfwasm_model::codec::{json, msgpack};
use tfwasm_model::{Type, canonical};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn every_go_cty_vector_holds() {
    let file: Json =
        serde_json::from_str(include_str!("vectors/go_cty.json")).expect("vectors are JSON");
    let mut failures = Vec::new();
    for case in file["cases"].as_array().expect("cases") {
        let why = case["why"].as_str().unwrap();
        let ty = Type::from_json(&case["type"]).unwrap();
        let input = unhex(case["msgpack"].as_str().unwrap());
        let ours = msgpack::decode(&input, &ty);
        let go = &case["go_cty"];
        if go.get("refuses").is_some() || case.get("tfwasm_refuses").is_some() {
            if let Ok(v) = ours {
                failures.push(format!("{why}: go-cty refuses, tfwasm decoded {v:?}"));
            }
            continue;
        }
        let mut value = match ours {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{why}: tfwasm refused: {e}"));
                continue;
            }
        };
        canonical::canonicalize(&mut value);
        let bytes = msgpack::encode(&value, &ty).unwrap();
        if hex(&bytes) != go["msgpack"].as_str().unwrap() {
            failures.push(format!(
                "{why}: msgpack\n  tfwasm {}\n  go-cty {}",
                hex(&bytes),
                go["msgpack"]
            ));
        }
        let text = json::encode_text(&value, &ty).ok();
        if text.as_deref() != go["json"].as_str() {
            failures.push(format!(
                "{why}: JSON\n  tfwasm {text:?}\n  go-cty {}",
                go["json"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
