//! GenerateResourceConfig (tfplugin6.10) at the protocol level: a component of WIT 0.3.0 that
//! exports `config-generation` announces the capability and answers through the contract
//! check; a 0.1.0 component announces nothing and answers a diagnostic.

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{Type, Value};
use tfwasm_wire::proto::tfplugin6 as pb;

use crate::versions::dv;
use tfwasm_tests::plugin::Server;

async fn schema(
    client: &mut pb::provider_client::ProviderClient<tonic::transport::Channel>,
) -> pb::get_provider_schema::Response {
    client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn a_generated_configuration_is_announced_answered_and_checked() {
    let server = Server::start_with("misbehave", &[], None);
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let schema = schema(&mut client).await;
    assert!(
        schema.server_capabilities.unwrap().generate_resource_config,
        "announced"
    );
    assert!(schema.resource_schemas.contains_key("misbehave_thing"));
    // `misbehave_thing`: five strings and a list of `item` blocks `{ v, c }`.
    let item = Type::object([("v", Type::String), ("c", Type::String)]);
    let ty = Type::object([
        ("rule", Type::String),
        ("name", Type::String),
        ("opt", Type::String),
        ("id", Type::String),
        ("result", Type::String),
        ("item", Type::List(Box::new(item))),
    ]);
    client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "test".into(),
            config: Some(pb::DynamicValue {
                msgpack: vec![0x80],
                json: vec![],
            }),
            client_capabilities: None,
        })
        .await
        .unwrap();
    let imported = |rule: &str| {
        Value::object([
            ("rule", Value::from(rule)),
            ("name", Value::from("n")),
            ("opt", Value::Null),
            ("id", Value::from(rule)),
            ("result", Value::from("imported")),
            ("item", Value::List(Vec::new())),
        ])
    };
    let generate = |rule: &str| pb::generate_resource_config::Request {
        type_name: "misbehave_thing".into(),
        state: dv(&imported(rule), &ty),
    };

    let ok = client
        .generate_resource_config(generate("none"))
        .await
        .unwrap()
        .into_inner();
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let config = DynamicValue {
        msgpack: ok.config.unwrap().msgpack,
        json: Vec::new(),
    }
    .decode(&ty)
    .unwrap();
    assert_eq!(config.get("rule"), Some(&Value::from("none")));
    assert_eq!(config.get("name"), Some(&Value::from("n")));
    assert_eq!(config.get("id"), Some(&Value::Null), "computed-only");
    assert_eq!(config.get("result"), Some(&Value::Null), "computed-only");

    let bad = client
        .generate_resource_config(generate("generate_computed"))
        .await
        .unwrap()
        .into_inner();
    let details: Vec<&str> = bad.diagnostics.iter().map(|d| d.detail.as_str()).collect();
    assert_eq!(bad.diagnostics.len(), 2, "{details:?}");
    for d in &bad.diagnostics {
        assert_eq!(d.summary, "Provider produced invalid configuration");
        assert!(
            d.detail
                .contains("a computed-only attribute is set in the generated configuration"),
            "{}",
            d.detail
        );
    }
}
