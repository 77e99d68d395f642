//! One function per fuzz target. Each returns quietly for input it cannot use and panics
//! only when tfwasm misbehaves (a panic, a value that does not survive a round trip).

use std::path::Path;
use std::sync::OnceLock;

use arbitrary::Unstructured;
use prost::Message as _;
use tfwasm_contract::{Checked, Mode};
use tfwasm_model::codec::{json, msgpack};
use tfwasm_model::{AttributePath, Schema};
use tfwasm_wire::proto::tfplugin6 as pb;
use tfwasm_wire::proto::tfplugin6::provider_server::Provider as _;
use tfwasm_wire::service::ProviderService;

use crate::echo::Echo;
use crate::shapes;

/// msgpack bytes decoded against an arbitrary type; whatever decodes re-encodes to the same
/// value.
pub fn msgpack_value(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(ty) = shapes::ty(&mut u, 0) else {
        return;
    };
    let bytes = u.take_rest();
    if let Ok(value) = msgpack::decode(bytes, &ty) {
        let again = msgpack::encode(&value, &ty).expect("a decoded value encodes");
        assert_eq!(
            msgpack::decode(&again, &ty).expect("an encoded value decodes"),
            value
        );
    }
}

/// JSON text decoded against an arbitrary type, with and without unknown markers; whatever
/// decodes re-encodes to the same value.
pub fn json_value(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(ty) = shapes::ty(&mut u, 0) else {
        return;
    };
    let bytes = u.take_rest();
    if let Ok(value) = json::decode_bytes(bytes, &ty) {
        let again = json::encode(&value, &ty).expect("a decoded value encodes");
        assert_eq!(
            json::decode(&again, &ty).expect("encoded JSON decodes"),
            value
        );
    }
    if let Ok(text) = serde_json::from_slice(bytes)
        && let Ok(value) = json::decode_with_unknowns(&text, &ty)
    {
        let again = json::encode_with_unknowns(&value, &ty).expect("a decoded value encodes");
        assert_eq!(json::decode_with_unknowns(&again, &ty).unwrap(), value);
    }
}

/// A schema in `terraform providers schema -json` form: parsed, checked by Terraform's
/// schema rules, and its implied type taken.
pub fn schema_json(data: &[u8]) {
    let Ok(json) = serde_json::from_slice(data) else {
        return;
    };
    if let Ok(block) = tfwasm_model::schema_json::block_from_json(&json) {
        let schema = Schema { version: 0, block };
        let _ = tfwasm_model::schema_check::check_schema("fuzz", &schema);
        let _ = schema.block.implied_type().to_json();
    }
}

/// Arbitrary schemas with values of their type (null and unknown anywhere) through every
/// contract check, and the values through both codecs.
pub fn contract_checks(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(block) = shapes::block(&mut u, 0) else {
        return;
    };
    let schema = Schema { version: 0, block };
    let _ = tfwasm_model::schema_check::check_schema("fuzz", &schema);
    let block = &schema.block;
    let ty = block.implied_type();
    let mut values = Vec::new();
    for _ in 0..4 {
        match shapes::value(&mut u, &ty, 0) {
            Ok(v) => values.push(v),
            Err(_) => return,
        }
    }
    let [prior, config, planned, new] = &values[..] else {
        return;
    };
    let _ = tfwasm_contract::check_plan(block, prior, config, planned);
    let _ = tfwasm_contract::check_plan_for(block, prior, config, planned, false);
    let _ = tfwasm_contract::check_apply(block, planned, new);
    let _ = tfwasm_contract::check_data_source(new);
    let _ = tfwasm_contract::check_wholly_known(new);
    let _ = tfwasm_contract::check_import("fuzz_thing", true, new);
    let _ = tfwasm_contract::check_write_only_null(block, new);
    let paths: Vec<AttributePath> = ["id", "name", "rule[0].a", "tags[\"a\"]"]
        .iter()
        .filter_map(|p| p.parse().ok())
        .collect();
    let _ = tfwasm_contract::check_requires_replace(block, prior, &paths);
    for value in &values {
        // Decoding puts a value in go-cty's form (NFC strings, typed dynamic values, ...);
        // from then on a round trip changes nothing. A collection of dynamic values of
        // several types is refused, as go-cty panics on it.
        if let Ok(bytes) = msgpack::encode(value, &ty)
            && let Ok(first) = msgpack::decode(&bytes, &ty)
        {
            let again = msgpack::encode(&first, &ty).expect("a decoded value encodes");
            assert_eq!(msgpack::decode(&again, &ty).expect("round trip"), first);
        }
        if let Ok(text) = json::encode_with_unknowns(value, &ty)
            && let Ok(first) = json::decode_with_unknowns(&text, &ty)
        {
            let again = json::encode_with_unknowns(&first, &ty).expect("a decoded value encodes");
            assert_eq!(
                json::decode_with_unknowns(&again, &ty).expect("round trip"),
                first
            );
        }
    }
}

/// `tfwasm.toml` text: parsed, validated (limits, grants, proxies) and written back.
pub fn settings(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = tfwasm::config::parse(text) {
        let _ = config.resolve("fuzz".into(), Path::new("/nonexistent-fuzz-base"));
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a tokio runtime")
    })
}

/// A protobuf request for one of the RPCs that carry values, decoded as tonic would and
/// served by the real service over the contract checks, with the fuzzer's bytes as the
/// provider's result.
///
/// Input: RPC (1 byte), flags (1 byte: bit 0 = the plan requires replacing `name`), request
/// length (u16 LE), the request, then the result value's msgpack bytes.
pub fn rpc_requests(data: &[u8]) {
    let [rpc, flags, a, b, rest @ ..] = data else {
        return;
    };
    let (request, result) =
        rest.split_at(usize::from(u16::from_le_bytes([*a, *b])).min(rest.len()));
    let rpc = rpc % 10;
    let echo = Echo {
        result: result.to_vec(),
        requires_replace: if flags & 1 == 1 {
            vec!["name".parse().expect("a path")]
        } else {
            Vec::new()
        },
    };
    let service = ProviderService::new(Checked::new(echo, "fuzz", Mode::Enforce));
    let s = &service;
    runtime().block_on(async move {
        macro_rules! serve {
            ($message:ty, $method:ident) => {
                if let Ok(req) = <$message>::decode(request) {
                    let _ = s.$method(tonic::Request::new(req)).await;
                }
            };
        }
        match rpc {
            0 => serve!(
                pb::validate_resource_config::Request,
                validate_resource_config
            ),
            1 => serve!(pb::upgrade_resource_state::Request, upgrade_resource_state),
            2 => serve!(pb::read_resource::Request, read_resource),
            3 => serve!(pb::plan_resource_change::Request, plan_resource_change),
            4 => serve!(pb::apply_resource_change::Request, apply_resource_change),
            5 => serve!(pb::import_resource_state::Request, import_resource_state),
            6 => serve!(pb::read_data_source::Request, read_data_source),
            7 => serve!(
                pb::validate_provider_config::Request,
                validate_provider_config
            ),
            8 => serve!(pb::configure_provider::Request, configure_provider),
            _ => serve!(pb::move_resource_state::Request, move_resource_state),
        }
    });
}
