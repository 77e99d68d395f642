//! Resource identity (tfplugin6.9, Terraform 1.12; Terraform on these machines is 1.11, so
//! this is a protocol-level test): `restapi_object` declares the identity `{ path, id }`; it
//! is listed, planned, applied, read, imported by ID and by identity, and upgraded, against a
//! real json-server. A client that hands a read an identity the object does not have gets the
//! contract check's error, not a silently changed identity.

use serde_json::json;
use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{Type, Value};
use tfwasm_tests::JsonServer;
use tfwasm_wire::proto::tfplugin6 as pb;

use crate::sandbox::settings;
use crate::versions::{dv, implied_type, nulls};
use tfwasm_tests::plugin::Server;

type Client = pb::provider_client::ProviderClient<tonic::transport::Channel>;

fn identity_type() -> Type {
    Type::object([("path", Type::String), ("id", Type::String)])
}

fn identity(path: &str, id: &str) -> Option<pb::ResourceIdentityData> {
    Some(pb::ResourceIdentityData {
        identity_data: dv(
            &Value::object([("path", Value::from(path)), ("id", Value::from(id))]),
            &identity_type(),
        ),
    })
}

fn decode(value: &Option<pb::DynamicValue>, ty: &Type) -> Value {
    let v = value.as_ref().expect("a value");
    DynamicValue {
        msgpack: v.msgpack.clone(),
        json: v.json.clone(),
    }
    .decode(ty)
    .unwrap()
}

fn decode_identity(data: &Option<pb::ResourceIdentityData>) -> Value {
    decode(
        &data.as_ref().expect("an identity").identity_data,
        &identity_type(),
    )
}

fn errors(diagnostics: &[pb::Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == pb::diagnostic::Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

/// A configured restapi provider against `api`, and the value type of `restapi_object`.
async fn configured(server: &Server, api: &JsonServer) -> (Client, Type) {
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let schema = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let provider_ty = implied_type(schema.provider.as_ref().unwrap().block.as_ref().unwrap());
    let mut provider_config = nulls(&provider_ty);
    provider_config.set("uri", Value::from(api.url()));
    let resp = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.12.0".into(),
            config: dv(&provider_config, &provider_ty),
            client_capabilities: Some(pb::ClientCapabilities {
                write_only_attributes_allowed: true,
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let block = schema.resource_schemas["restapi_object"]
        .block
        .as_ref()
        .unwrap();
    (client, implied_type(block))
}

#[tokio::test]
async fn identity_schemas_are_listed_for_types_that_declare_one() {
    let restapi = Server::start_with("restapi", &[], None);
    let mut client = pb::provider_client::ProviderClient::new(restapi.channel(None).await);
    let resp = client
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let schema = &resp.identity_schemas["restapi_object"];
    assert_eq!(schema.version, 0);
    let names: Vec<(&str, &[u8], bool)> = schema
        .identity_attributes
        .iter()
        .map(|a| (a.name.as_str(), a.r#type.as_slice(), a.required_for_import))
        .collect();
    assert_eq!(
        names,
        [
            ("path", b"\"string\"".as_slice(), true),
            ("id", b"\"string\"".as_slice(), true)
        ]
    );

    // A provider without identities answers with none (not Unimplemented).
    let random = Server::start(None);
    let mut client = pb::provider_client::ProviderClient::new(random.channel(None).await);
    let resp = client
        .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(
        resp.identity_schemas.is_empty(),
        "{:?}",
        resp.identity_schemas
    );
}

#[tokio::test]
async fn an_object_keeps_its_identity_through_its_lifecycle_and_imports_by_it() {
    let api = JsonServer::start(&json!({ "items": [] }), 0);
    let grants = settings(&format!("[grants]\nhttp = [\"{}\"]\n", api.url()));
    let path = grants.path().display().to_string();
    let server = Server::start_with("restapi", &[("TFWASM_CONFIG", path.as_str())], None);
    let (mut client, ty) = configured(&server, &api).await;

    // Create: the plan leaves the ID, and so the identity, to apply.
    let mut config = nulls(&ty);
    config.set("path", Value::from("/items"));
    config.set("data", Value::from(r#"{"name":"a"}"#));
    let plan = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "restapi_object".into(),
            prior_state: dv(&Value::Null, &ty),
            proposed_new_state: dv(&config, &ty),
            config: dv(&config, &ty),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&plan.diagnostics).is_empty(),
        "{:?}",
        plan.diagnostics
    );
    // The ID is known only after apply, so no identity is planned (as
    // terraform-plugin-framework plans none for a new object): OpenTofu stores a planned
    // identity as JSON, which cannot hold an unknown.
    assert!(
        plan.planned_identity.is_none(),
        "{:?}",
        plan.planned_identity
    );

    let applied = client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "restapi_object".into(),
            prior_state: dv(&Value::Null, &ty),
            planned_state: plan.planned_state.clone(),
            config: dv(&config, &ty),
            planned_private: plan.planned_private.clone(),
            planned_identity: plan.planned_identity.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&applied.diagnostics).is_empty(),
        "{:?}",
        applied.diagnostics
    );
    let state = decode(&applied.new_state, &ty);
    let id = state.get("id").and_then(Value::as_str).unwrap().to_owned();
    assert_eq!(
        decode_identity(&applied.new_identity),
        decode_identity(&identity("/items", &id))
    );

    // Refresh keeps it.
    let read = client
        .read_resource(pb::read_resource::Request {
            type_name: "restapi_object".into(),
            current_state: applied.new_state.clone(),
            private: applied.private.clone(),
            current_identity: applied.new_identity.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&read.diagnostics).is_empty(),
        "{:?}",
        read.diagnostics
    );
    assert_eq!(read.new_identity, applied.new_identity);

    // An update keeps the object, so the plan keeps its identity.
    let mut changed = state.clone();
    changed.set("data", Value::from(r#"{"name":"b"}"#));
    let mut changed_config = config.clone();
    changed_config.set("data", Value::from(r#"{"name":"b"}"#));
    let update = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "restapi_object".into(),
            prior_state: applied.new_state.clone(),
            proposed_new_state: dv(&changed, &ty),
            config: dv(&changed_config, &ty),
            prior_private: applied.private.clone(),
            prior_identity: applied.new_identity.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&update.diagnostics).is_empty(),
        "{:?}",
        update.diagnostics
    );
    assert!(update.requires_replace.is_empty());
    assert_eq!(update.planned_identity, applied.new_identity);

    // Import by identity (an `import` block with `identity`) and by ID find the same object
    // with the same identity.
    let by_identity = client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "restapi_object".into(),
            identity: identity("/items", &id),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&by_identity.diagnostics).is_empty(),
        "{:?}",
        by_identity.diagnostics
    );
    let by_id = client
        .import_resource_state(pb::import_resource_state::Request {
            type_name: "restapi_object".into(),
            id: format!("/items/{id}"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        errors(&by_id.diagnostics).is_empty(),
        "{:?}",
        by_id.diagnostics
    );
    let (a, b) = (
        &by_identity.imported_resources[0],
        &by_id.imported_resources[0],
    );
    assert_eq!(decode(&a.state, &ty), decode(&b.state, &ty));
    assert_eq!(
        decode_identity(&a.identity),
        decode_identity(&identity("/items", &id))
    );
    assert_eq!(a.identity, b.identity);
    assert_eq!(
        decode(&a.state, &ty).get("data"),
        Some(&Value::from(r#"{"name":"a"}"#))
    );

    // A client that hands read another object's identity is told, not silently corrected.
    let read = client
        .read_resource(pb::read_resource::Request {
            type_name: "restapi_object".into(),
            current_state: applied.new_state.clone(),
            private: applied.private.clone(),
            current_identity: identity("/items", "999"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let found = errors(&read.diagnostics);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains(&format!(
            "identity attribute `id` changed during refresh from \"999\" to \"{id}\""
        )),
        "{}",
        found[0]
    );
}

#[tokio::test]
async fn stored_identities_are_upgraded_at_the_current_version_and_refused_otherwise() {
    let server = Server::start_with("restapi", &[], None);
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let upgrade = |version: i64| pb::upgrade_resource_identity::Request {
        type_name: "restapi_object".into(),
        version,
        raw_identity: Some(pb::RawState {
            json: br#"{"path":"/items","id":"7"}"#.to_vec(),
            flatmap: Default::default(),
        }),
    };
    let resp = client
        .upgrade_resource_identity(upgrade(0))
        .await
        .unwrap()
        .into_inner();
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        decode_identity(&resp.upgraded_identity),
        decode_identity(&identity("/items", "7"))
    );

    let resp = client
        .upgrade_resource_identity(upgrade(3))
        .await
        .unwrap()
        .into_inner();
    let found = errors(&resp.diagnostics);
    assert!(
        found[0].contains("no identity upgrader from version 3 to 0"),
        "{found:?}"
    );
    assert!(resp.upgraded_identity.is_none());
}
