//! Resource identity through the SDK's glue (the code a component runs), natively: declared
//! once, derived from every new state, kept by update plans, imported by, upgraded.

use tfwasm_model::codec::msgpack;
use tfwasm_sdk::glue::{self, Catalog, wit};
use tfwasm_sdk::prelude::*;

struct Things;

impl Provider for Things {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Thing), Box::new(Plain)]
    }
}

/// `x_thing`: named by `region` and a server-chosen `id`; `name` replaces it.
struct Thing;

impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "x_thing"
    }
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("region").required())
            .attr(Attr::string("name").required().requires_replace())
            .attr(Attr::string("size").optional())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }
    fn identity(&self) -> Option<Identity> {
        Some(
            Identity::new()
                .version(2)
                .attr(IdentityAttr::string("region").required_for_import())
                .attr(IdentityAttr::string("id").required_for_import())
                .upgrade_from(1, |old| {
                    // Version 1 stored `"region/id"` in one attribute.
                    let both = old["ref"].as_str().unwrap_or_default();
                    let (region, id) = both.split_once('/').unwrap_or(("", both));
                    Ok(Value::object([
                        ("region", region.into()),
                        ("id", id.into()),
                    ]))
                }),
        )
    }
    fn create(&self, _: &Context, planned: &Value, _: &Value) -> Result<Value, Diagnostic> {
        Ok(planned.clone().with("id", "42"))
    }
    fn update(
        &self,
        _: &Context,
        _: &Value,
        planned: &Value,
        _: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(planned.clone())
    }
}

/// `x_plain`: no identity.
struct Plain;

impl Resource for Plain {
    fn type_name(&self) -> &'static str {
        "x_plain"
    }
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new().attr(Attr::string("id").computed())
    }
    fn create(&self, _: &Context, planned: &Value, _: &Value) -> Result<Value, Diagnostic> {
        Ok(planned.clone().with("id", "1"))
    }
}

fn ctx() -> wit::ProviderContext {
    wit::ProviderContext {
        terraform_version: "test".into(),
        config: None,
        client_capabilities: wit::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: true,
            store_planned_private: false,
            computed_blocks_allowed: false,
        },
    }
}

fn ty() -> Type {
    Thing.schema().value_type()
}

fn id_ty() -> Type {
    Thing.identity().unwrap().value_type()
}

fn enc(v: &Value, ty: &Type) -> Vec<u8> {
    msgpack::encode(v, ty).unwrap()
}

fn ident(bytes: &Option<Vec<u8>>) -> Value {
    msgpack::decode(bytes.as_ref().expect("an identity"), &id_ty()).unwrap()
}

fn config(name: &str, size: Option<&str>) -> Value {
    Value::object([
        ("region", "eu".into()),
        ("name", name.into()),
        ("size", size.map_or(Value::Null, Value::from)),
        ("id", Value::Null),
    ])
}

fn plan(
    c: &Catalog,
    prior: &Value,
    config: &Value,
    prior_identity: Option<Vec<u8>>,
) -> wit::PlanResponse {
    let mut proposed = config.clone();
    proposed.set("id", prior.get("id").cloned().unwrap_or(Value::Null));
    let resp = glue::plan_resource_change(
        c,
        ctx(),
        wit::PlanRequest {
            type_name: "x_thing".into(),
            prior_state: enc(prior, &ty()),
            proposed_new_state: enc(&proposed, &ty()),
            config: enc(config, &ty()),
            prior_private: Vec::new(),
            provider_meta: Vec::new(),
            prior_identity,
            planned_private: Vec::new(),
        },
    );
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    resp
}

fn apply(
    c: &Catalog,
    prior: &Value,
    plan: &wit::PlanResponse,
    config: &Value,
) -> wit::ApplyResponse {
    let resp = glue::apply_resource_change(
        c,
        ctx(),
        wit::ApplyRequest {
            type_name: "x_thing".into(),
            prior_state: enc(prior, &ty()),
            planned_state: plan.planned_state.clone(),
            config: enc(config, &ty()),
            planned_private: plan.planned_private.clone(),
            provider_meta: Vec::new(),
            planned_identity: plan.planned_identity.clone(),
        },
    );
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    resp
}

#[test]
fn identity_is_derived_planned_and_kept() {
    let c = Catalog::new(Box::new(Things));
    let schema = glue::get_schema(&c);
    let names: Vec<&str> = schema
        .resource_identities
        .iter()
        .map(|n| n.type_name.as_str())
        .collect();
    assert_eq!(names, ["x_thing"], "only declared identities are listed");

    // Create: the ID is decided by apply, so no identity is planned (as
    // terraform-plugin-framework plans none; OpenTofu cannot store one holding unknowns).
    let created_plan = plan(&c, &Value::Null, &config("a", None), None);
    assert_eq!(created_plan.planned_identity, None);
    let created = apply(&c, &Value::Null, &created_plan, &config("a", None));
    let identity = Value::object([("region", "eu".into()), ("id", "42".into())]);
    assert_eq!(ident(&created.new_identity), identity);
    let state = msgpack::decode(&created.new_state, &ty()).unwrap();

    // An update keeps the identity as stored, byte for byte.
    let update = plan(
        &c,
        &state,
        &config("a", Some("big")),
        created.new_identity.clone(),
    );
    assert!(update.requires_replace.is_empty());
    assert_eq!(update.planned_identity, created.new_identity);

    // A replacement names a new object: the identity is planned from the planned state,
    // not copied from the prior identity.
    let mut moved = state.clone();
    moved.set("region", "us".into());
    let moved_identity = Value::object([("region", "us".into()), ("id", "42".into())]);
    let replace = plan(
        &c,
        &moved,
        &config("b", None),
        Some(enc(&moved_identity, &id_ty())),
    );
    assert!(!replace.requires_replace.is_empty());
    assert_eq!(
        ident(&replace.planned_identity).get("region"),
        Some(&"eu".into()),
        "known in full here (the ID is kept), so planned"
    );

    // Read derives it again.
    let read = glue::read_resource(
        &c,
        ctx(),
        wit::ReadRequest {
            type_name: "x_thing".into(),
            current_state: created.new_state.clone(),
            private: Vec::new(),
            provider_meta: Vec::new(),
            current_identity: created.new_identity.clone(),
        },
    );
    assert_eq!(read.new_identity, created.new_identity);
}

#[test]
fn import_by_identity_passes_the_identity_through() {
    let c = Catalog::new(Box::new(Things));
    let identity = Value::object([("region", "eu".into()), ("id", "7".into())]);
    let resp = glue::import_resource_state(
        &c,
        ctx(),
        wit::ImportRequest {
            type_name: "x_thing".into(),
            id: String::new(),
            identity: Some(enc(&identity, &id_ty())),
        },
    );
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let imported = &resp.imported[0];
    let state = msgpack::decode(&imported.state, &ty()).unwrap();
    assert_eq!(state.get("id"), Some(&"7".into()));
    assert_eq!(state.get("region"), Some(&"eu".into()));
    assert_eq!(state.get("name"), Some(&Value::Null), "read fills the rest");
    assert_eq!(ident(&imported.identity), identity);

    // A type without identity says so instead of importing an empty ID.
    let resp = glue::import_resource_state(
        &c,
        ctx(),
        wit::ImportRequest {
            type_name: "x_plain".into(),
            id: String::new(),
            identity: Some(vec![0x80]),
        },
    );
    assert!(
        resp.diagnostics[0].detail.contains("declares no identity"),
        "{:?}",
        resp.diagnostics
    );
}

#[test]
fn stored_identities_upgrade_through_the_upgrader_of_their_version() {
    let c = Catalog::new(Box::new(Things));
    let upgrade = |version: i64, json: &str| {
        glue::upgrade_resource_identity(
            &c,
            ctx(),
            wit::UpgradeIdentityRequest {
                type_name: "x_thing".into(),
                version,
                raw_identity_json: json.as_bytes().to_vec(),
            },
        )
    };
    let resp = upgrade(1, r#"{"ref":"us/9"}"#);
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        ident(&resp.upgraded_identity),
        Value::object([("region", "us".into()), ("id", "9".into())])
    );
    let resp = upgrade(2, r#"{"region":"us","id":"9"}"#);
    assert_eq!(
        ident(&resp.upgraded_identity),
        Value::object([("region", "us".into()), ("id", "9".into())])
    );
    let resp = upgrade(0, "{}");
    assert!(resp.upgraded_identity.is_none());
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("no identity upgrader from version 0 to 2"),
        "{:?}",
        resp.diagnostics
    );
}
