//! Writes the seed inputs of every fuzz target into `fuzz/corpus/<target>/seed-*`: valid
//! inputs (real value encodings, a real schema, real settings, well-formed requests) for
//! libFuzzer to mutate from. Findings are kept beside them under their own names.
//!
//! `cargo run -p tfwasm-fuzz --example seed`

use std::path::{Path, PathBuf};

use arbitrary::Unstructured;
use prost::Message as _;
use tfwasm_fuzz::{echo, shapes};
use tfwasm_model::codec::{json, msgpack};
use tfwasm_model::{Type, Value};
use tfwasm_wire::proto::tfplugin6 as pb;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("corpus directory");
    std::fs::write(dir.join(format!("seed-{name}")), bytes).expect("write seed");
}

/// Pseudo-random bytes (xorshift), so the seeds are the same every time.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A type drawn from `noise` and a value of it: (the bytes the type used, type, value).
fn typed_value(seed: u64) -> Option<(Vec<u8>, Type, Value)> {
    let bytes = noise(seed, 4096);
    let mut u = Unstructured::new(&bytes);
    let ty = shapes::ty(&mut u, 0).ok()?;
    let used = bytes.len() - u.len();
    let value = shapes::value(&mut u, &ty, 0).ok()?;
    Some((bytes[..used].to_vec(), ty, value))
}

fn thing(name: &str) -> Value {
    Value::object([
        ("id", Value::String(format!("{name}-1"))),
        ("name", Value::String(name.into())),
        (
            "tags",
            Value::Map([("env".into(), Value::String("prod".into()))].into()),
        ),
        ("size", Value::Number(3.into())),
        ("secret", Value::Null),
        ("token", Value::Null),
        (
            "rule",
            Value::List(vec![Value::object([
                ("port", Value::Number(443.into())),
                (
                    "cidrs",
                    Value::set_of(vec![Value::String("10.0.0.0/8".into())]),
                ),
            ])]),
        ),
    ])
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");

    let mut written = 0;
    for seed in 1..200u64 {
        let Some((prefix, ty, value)) = typed_value(seed) else {
            continue;
        };
        if let Ok(bytes) = msgpack::encode(&value, &ty) {
            write(
                &root.join("msgpack_value"),
                &seed.to_string(),
                &[prefix.clone(), bytes].concat(),
            );
        }
        if let Ok(text) = json::encode(&value, &ty) {
            let text = serde_json::to_vec(&text).unwrap();
            write(
                &root.join("json_value"),
                &seed.to_string(),
                &[prefix, text].concat(),
            );
        }
        written += 1;
        if written == 24 {
            break;
        }
    }

    let schema = serde_json::json!({
        "attributes": {
            "id": {"type": "string", "computed": true},
            "name": {"type": "string", "required": true, "description": "the name"},
            "tags": {"type": ["map", "string"], "optional": true},
            "ports": {"type": ["set", "number"], "optional": true, "sensitive": true},
            "obj": {"type": ["object", {"a": "string", "b": ["list", "bool"]}], "optional": true},
            "dyn": {"type": "dynamic", "optional": true},
            "nested": {"nested_type": {"nesting_mode": "list", "attributes": {"x": {"type": "string", "optional": true}}}, "optional": true}
        },
        "block_types": {
            "rule": {"nesting_mode": "set", "min_items": 1, "block": {"attributes": {"port": {"type": "number", "required": true}}}},
            "single": {"nesting_mode": "single", "block": {"attributes": {"on": {"type": "bool", "optional": true}}}}
        },
        "description": "a resource",
        "deprecated": false
    });
    write(
        &root.join("schema_json"),
        "block",
        &serde_json::to_vec_pretty(&schema).unwrap(),
    );
    write(&root.join("schema_json"), "empty", b"{}");

    for seed in 1..=12u64 {
        write(
            &root.join("contract_checks"),
            &seed.to_string(),
            &noise(seed * 7919, 512),
        );
    }

    let settings = [
        (
            "full",
            "[contracts]\nviolations = \"warn\"\n\n[limits]\nfuel = 3000000000\nmemory = \"128MiB\"\ntimeout = \"30s\"\nstack = \"2MiB\"\ninstances = \"fresh\"\n\n[limits.rpc.ApplyResourceChange]\ntimeout = \"5m\"\n\n[grants]\nenv = [\"API_TOKEN\"]\ndirs = [\"/srv/data:/data:ro\", \"/tmp/out:/out:rw\"]\nhttp = [\"https://api.example.com\", \"http://127.0.0.1:8080\", \"https://*.corp.example\"]\n\n[http]\nca_files = [\"ca/root.pem\"]\nhttps_proxy = \"http://proxy:3128\"\nno_proxy = \"localhost,.internal\"\n\n[record]\ndir = \"recording\"\n",
        ),
        ("empty", ""),
        ("bad-size", "[limits]\nmemory = \"lots\"\n"),
    ];
    for (name, text) in settings {
        write(&root.join("settings"), name, text.as_bytes());
    }

    let ty = echo::block().implied_type();
    let dv = |v: &Value| {
        Some(pb::DynamicValue {
            msgpack: msgpack::encode(v, &ty).unwrap(),
            json: Vec::new(),
        })
    };
    let null = Value::Null;
    let a = thing("a");
    let b = thing("b");
    let requests: Vec<(u8, Vec<u8>)> = vec![
        (
            0,
            pb::validate_resource_config::Request {
                type_name: echo::RESOURCE.into(),
                config: dv(&a),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            1,
            pb::upgrade_resource_state::Request {
                type_name: echo::RESOURCE.into(),
                version: 0,
                raw_state: Some(pb::RawState {
                    json: br#"{"id":"a-1","name":"a","size":3}"#.to_vec(),
                    flatmap: Default::default(),
                }),
            }
            .encode_to_vec(),
        ),
        (
            2,
            pb::read_resource::Request {
                type_name: echo::RESOURCE.into(),
                current_state: dv(&a),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            3,
            pb::plan_resource_change::Request {
                type_name: echo::RESOURCE.into(),
                prior_state: dv(&a),
                proposed_new_state: dv(&b),
                config: dv(&b),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            3,
            pb::plan_resource_change::Request {
                type_name: echo::RESOURCE.into(),
                prior_state: dv(&null),
                proposed_new_state: dv(&a),
                config: dv(&a),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            4,
            pb::apply_resource_change::Request {
                type_name: echo::RESOURCE.into(),
                prior_state: dv(&null),
                planned_state: dv(&a),
                config: dv(&a),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            5,
            pb::import_resource_state::Request {
                type_name: echo::RESOURCE.into(),
                id: "a-1".into(),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            6,
            pb::read_data_source::Request {
                type_name: echo::DATA_SOURCE.into(),
                config: dv(&a),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        (
            7,
            pb::validate_provider_config::Request {
                config: Some(pb::DynamicValue {
                    msgpack: vec![0x80],
                    json: Vec::new(),
                }),
            }
            .encode_to_vec(),
        ),
        (
            9,
            pb::move_resource_state::Request {
                source_type_name: "other".into(),
                target_type_name: echo::RESOURCE.into(),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
    ];
    let result = msgpack::encode(&a, &ty).unwrap();
    for (i, (rpc, request)) in requests.into_iter().enumerate() {
        let len = u16::try_from(request.len())
            .expect("small request")
            .to_le_bytes();
        let input = [&[rpc, (i % 2) as u8], &len[..], &request, &result].concat();
        write(&root.join("rpc_requests"), &format!("{i}-rpc{rpc}"), &input);
    }
    println!("seeds written under {}", root.display());
}
