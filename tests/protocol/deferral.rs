//! Deferral (tfplugin6.6): the client's `deferral_allowed` reaches the guest with each call,
//! a guest may defer, and nothing is deferred for a client that did not allow it. The
//! restapi sample defers plans while its provider block still holds unknowns. Terraform
//! 1.11 does not allow deferral outside experiments, so this is a protocol-level test.

use tfwasm_model::Value;
use tfwasm_wire::proto::tfplugin6 as pb;

use crate::versions::{dv, implied_type, nulls};
use tfwasm_tests::plugin::Server;

#[tokio::test]
async fn a_plan_defers_while_the_provider_block_is_unknown_if_the_client_allows_it() {
    let server = Server::start_with("restapi", &[], None);
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let schema = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    let provider_ty = implied_type(schema.provider.as_ref().unwrap().block.as_ref().unwrap());
    // `uri` comes from something not created yet.
    let mut provider_config = nulls(&provider_ty);
    provider_config.set("uri", Value::unknown());
    let configured = client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "1.9.0".into(),
            config: dv(&provider_config, &provider_ty),
            client_capabilities: Some(pb::ClientCapabilities {
                deferral_allowed: true,
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        configured.diagnostics.is_empty(),
        "{:?}",
        configured.diagnostics
    );

    let block = schema.resource_schemas["restapi_object"]
        .block
        .clone()
        .unwrap();
    let ty = implied_type(&block);
    let mut config = nulls(&ty);
    config.set("path", Value::from("/items"));
    config.set("data", Value::from("{\"name\":\"a\"}"));
    let plan = |allowed: bool| pb::plan_resource_change::Request {
        type_name: "restapi_object".into(),
        prior_state: dv(&Value::Null, &ty),
        proposed_new_state: dv(&config, &ty),
        config: dv(&config, &ty),
        client_capabilities: Some(pb::ClientCapabilities {
            deferral_allowed: allowed,
            ..Default::default()
        }),
        ..Default::default()
    };

    let deferred = client
        .plan_resource_change(plan(true))
        .await
        .unwrap()
        .into_inner();
    assert!(
        deferred.diagnostics.is_empty(),
        "{:?}",
        deferred.diagnostics
    );
    assert_eq!(
        deferred.deferred,
        Some(pb::Deferred {
            reason: pb::deferred::Reason::ProviderConfigUnknown as i32
        })
    );

    // The same plan for a client that cannot defer: planned as usual, nothing deferred.
    let planned = client
        .plan_resource_change(plan(false))
        .await
        .unwrap()
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    assert_eq!(planned.deferred, None);
    assert!(planned.planned_state.is_some());
}
