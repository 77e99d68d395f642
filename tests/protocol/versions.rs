//! WIT versions and the function family at the protocol level: components built against the
//! frozen WIT 0.1.0 and 0.2.0 (`tests/fixtures/wit-v0.1.0/random.wasm` and
//! `tests/fixtures/wit-v0.2.0/random.wasm`, the random sample as built at commits ad77ea2 and
//! e2ed6d5) serve the same lifecycle as today's build of the same sample (without announcing
//! the moves or the configuration generation they cannot do); functions
//! are listed, callable before ConfigureProvider, and their errors name the argument.

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{Type, Value};
use tfwasm_wire::proto::tfplugin6 as pb;

use tfwasm_tests::plugin::Server;

type Client = pb::provider_client::ProviderClient<tonic::transport::Channel>;

/// The value type of a block without nested blocks (enough for `random_string`).
pub(crate) fn implied_type(block: &pb::schema::Block) -> Type {
    assert!(block.block_types.is_empty(), "only flat blocks");
    Type::object(block.attributes.iter().map(|a| {
        (
            a.name.clone(),
            Type::from_json_bytes(&a.r#type).expect("type JSON"),
        )
    }))
}

/// The object of `ty` (an object type) with every attribute null.
pub(crate) fn nulls(ty: &Type) -> Value {
    let Type::Object(attrs) = ty else {
        panic!("not an object type: {ty:?}")
    };
    Value::object(attrs.keys().map(|name| (name.as_str(), Value::Null)))
}

pub(crate) fn dv(value: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: DynamicValue::encode(value, ty).unwrap().msgpack,
        json: vec![],
    })
}

/// Creates a `random_string` of length 12 through plan and apply; returns its `result`.
pub(crate) async fn create_random_string(client: &mut Client) -> String {
    let schema = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let block = schema.resource_schemas["random_string"]
        .block
        .clone()
        .unwrap();
    let ty = implied_type(&block);
    let mut config = nulls(&ty);
    config.set("length", Value::from(12));
    let plan = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "random_string".into(),
            prior_state: dv(&Value::Null, &ty),
            proposed_new_state: dv(&config, &ty),
            config: dv(&config, &ty),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    let apply = client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "random_string".into(),
            prior_state: dv(&Value::Null, &ty),
            planned_state: plan.planned_state,
            config: dv(&config, &ty),
            planned_private: plan.planned_private,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(apply.diagnostics.is_empty(), "{:?}", apply.diagnostics);
    let state = DynamicValue::from_msgpack(apply.new_state.unwrap().msgpack)
        .decode(&ty)
        .unwrap();
    state.get("result").unwrap().as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_component_built_against_wit_0_1_0_still_serves() {
    let fixture = tfwasm_tests::workspace_root().join("tests/fixtures/wit-v0.1.0/random.wasm");
    let old = Server::start_component(&fixture, &[], None);
    let v0_2_0 = tfwasm_tests::workspace_root().join("tests/fixtures/wit-v0.2.0/random.wasm");
    let previous = Server::start_component(&v0_2_0, &[], None);
    let new = Server::start(None);
    let mut names = Vec::new();
    // (server, moves state, generates configuration): 0.2.0 added moves, 0.3.0 configuration.
    for (server, moves, generates) in [
        (&old, false, false),
        (&previous, true, false),
        (&new, true, true),
    ] {
        let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
        let schema = client
            .get_provider_schema(pb::get_provider_schema::Request {})
            .await
            .unwrap()
            .into_inner();
        assert!(schema.diagnostics.is_empty(), "{:?}", schema.diagnostics);
        // MoveResourceState is announced only where the component can answer it.
        let caps = schema.server_capabilities.unwrap();
        assert_eq!(caps.move_resource_state, moves);
        assert_eq!(caps.generate_resource_config, generates);
        let mut types: Vec<String> = schema.resource_schemas.keys().cloned().collect();
        types.sort();
        names.push(types);
        assert!(schema.functions.is_empty());
        let result = create_random_string(&mut client).await;
        assert_eq!(result.chars().count(), 12, "{result:?}");
        // No functions: a call is an error naming the function, not a failed RPC.
        let call = client
            .call_function(pb::call_function::Request {
                name: "nope".into(),
                arguments: vec![],
            })
            .await
            .unwrap()
            .into_inner();
        let error = call.error.expect("an error");
        assert!(
            error.text.contains("no function named \"nope\""),
            "{}",
            error.text
        );
    }
    // Today's build adds random_bytes; every type of the old build is still there.
    let mut old_plus_bytes = names[0].clone();
    old_plus_bytes.push("random_bytes".to_owned());
    old_plus_bytes.sort();
    assert_eq!(old_plus_bytes, names[2]);
    assert_eq!(
        names[1], names[2],
        "0.2.0's build has every type of today's"
    );
}

fn string_arg(s: &str) -> pb::DynamicValue {
    dv(&Value::from(s), &Type::String).unwrap()
}

#[tokio::test]
async fn functions_are_listed_and_callable_before_configure_and_errors_name_the_argument() {
    let host = tempfile::tempdir().unwrap();
    std::fs::create_dir(host.path().join("present")).unwrap();
    std::fs::write(host.path().join("file"), "x").unwrap();
    let settings = crate::sandbox::settings(&format!(
        "[grants]\ndirs = [\"{}:/out:ro\"]\n",
        host.path().display()
    ));
    let path = settings.path().display().to_string();
    let server = Server::start_with("local", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);

    let listed = client
        .get_functions(pb::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    let direxists = &listed.functions["direxists"];
    assert_eq!(direxists.parameters.len(), 1);
    assert_eq!(direxists.parameters[0].r#type, b"\"string\"");
    assert_eq!(direxists.r#return.as_ref().unwrap().r#type, b"\"bool\"");
    let schema = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.functions.get("direxists"), Some(direxists));

    // No ConfigureProvider first, as Terraform and OpenTofu may call functions.
    let mut call = async |args: Vec<pb::DynamicValue>| {
        client
            .call_function(pb::call_function::Request {
                name: "direxists".into(),
                arguments: args,
            })
            .await
            .unwrap()
            .into_inner()
    };
    let yes = call(vec![string_arg("/out/present")]).await;
    assert_eq!(yes.error, None);
    let bool_of = |r: &pb::call_function::Response| {
        DynamicValue::from_msgpack(r.result.clone().unwrap().msgpack)
            .decode(&Type::Bool)
            .unwrap()
    };
    assert_eq!(bool_of(&yes), Value::Bool(true));
    let no = call(vec![string_arg("/out/absent")]).await;
    assert_eq!(bool_of(&no), Value::Bool(false));

    let file = call(vec![string_arg("/out/file")]).await.error.unwrap();
    assert_eq!(file.function_argument, Some(0));
    assert!(file.text.contains("not a directory"), "{}", file.text);
    let outside = call(vec![string_arg("/etc")]).await.error.unwrap();
    assert_eq!(outside.function_argument, Some(0));
    assert!(outside.text.contains("--allow-dir"), "{}", outside.text);
    let arity = call(vec![]).await.error.unwrap();
    assert_eq!(arity.function_argument, None);
    assert!(
        arity.text.contains("takes 1 argument, got 0"),
        "{}",
        arity.text
    );
    let garbage = call(vec![pb::DynamicValue {
        msgpack: vec![0x93],
        json: vec![],
    }])
    .await
    .error
    .unwrap();
    assert_eq!(garbage.function_argument, Some(0), "{}", garbage.text);
}

/// UpgradeResourceState of state at the current schema version: an SDK component declares
/// that its answer is the plain decode, so the host answers without a guest call (shown with
/// a fuel budget of 1 for the RPC, which any guest call exhausts); a 0.1.0 component is
/// asked as before.
#[tokio::test]
async fn current_version_state_is_decoded_by_the_host_when_the_guest_allows_it() {
    let settings = crate::sandbox::settings("[limits.rpc.UpgradeResourceState]\nfuel = 1\n");
    let env = [("TFWASM_CONFIG", settings.path().to_str().unwrap())];
    let fixture = tfwasm_tests::workspace_root().join("tests/fixtures/wit-v0.1.0/random.wasm");
    for (component, host_decodes) in [(tfwasm_tests::component("random"), true), (fixture, false)] {
        let server = Server::start_component(&component, &env, None);
        let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
        let schema = client
            .get_provider_schema(pb::get_provider_schema::Request {})
            .await
            .unwrap()
            .into_inner();
        let resource = &schema.resource_schemas["random_string"];
        let ty = implied_type(resource.block.as_ref().unwrap());
        let mut state = nulls(&ty);
        state.set("length", Value::from(12));
        state.set("result", Value::from("abcdefghijkl"));
        let json = tfwasm_model::codec::json::encode(&state, &ty).unwrap();
        let upgrade = |json: Vec<u8>| pb::upgrade_resource_state::Request {
            type_name: "random_string".into(),
            version: resource.version,
            raw_state: Some(pb::RawState {
                json,
                flatmap: Default::default(),
            }),
        };
        let resp = client
            .upgrade_resource_state(upgrade(json.to_string().into_bytes()))
            .await
            .unwrap()
            .into_inner();
        if host_decodes {
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
            let upgraded = DynamicValue::from_msgpack(resp.upgraded_state.unwrap().msgpack);
            assert_eq!(upgraded.decode(&ty).unwrap(), state);

            // Stored state that does not fit the schema is an error naming the attribute.
            let mut bad = json.clone();
            bad["length"] = serde_json::json!("twelve");
            let resp = client
                .upgrade_resource_state(upgrade(bad.to_string().into_bytes()))
                .await
                .unwrap()
                .into_inner();
            let d = &resp.diagnostics[0];
            assert_eq!(d.summary, "Unable to read stored state");
            assert!(d.detail.contains("random_string"), "{}", d.detail);
            assert!(d.attribute.is_some(), "{d:?}");
        } else {
            let detail = &resp.diagnostics[0].detail;
            assert!(detail.contains("fuel"), "{detail}");
        }
    }
}
