//! Checked against a fake provider with canned responses.

use super::*;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, CallFunctionRequest,
    CallFunctionResponse, CloseEphemeralResourceRequest, ConfigGenerationServer,
    ConfigureProviderRequest, DataSourceServer, EphemeralServer, Function, FunctionServer,
    GenerateResourceConfigRequest, GenerateResourceConfigResponse, ImportResourceStateRequest,
    ImportResourceStateResponse, ImportedResource, MoveResourceStateRequest,
    MoveResourceStateResponse, MoveServer, OpenEphemeralResourceRequest,
    OpenEphemeralResourceResponse, Parameter, PlanResourceChangeRequest,
    PlanResourceChangeResponse, ProviderServer, ReadDataSourceRequest, ReadDataSourceResponse,
    ReadResourceRequest, ReadResourceResponse, RenewEphemeralResourceRequest,
    RenewEphemeralResourceResponse, ResourceServer, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::rpc::{
    GetResourceIdentitySchemasResponse, IdentityAttribute, IdentitySchema, IdentityServer,
    UpgradeResourceIdentityRequest, UpgradeResourceIdentityResponse,
};
use tfwasm_model::{Attribute, AttributePath, Block, StringKind};

/// A provider that answers every call with canned responses.
#[derive(Default)]
struct Fake {
    plan: PlanResourceChangeResponse,
    apply: ApplyResourceChangeResponse,
    read: ReadResourceResponse,
    import: ImportResourceStateResponse,
    data: ReadDataSourceResponse,
    upgrade: UpgradeResourceStateResponse,
    call: CallFunctionResponse,
    moved: MoveResourceStateResponse,
    generated: GenerateResourceConfigResponse,
    opened: OpenEphemeralResourceResponse,
    /// Declare the identity `{ id: string }` for fake_thing.
    identity: bool,
    upgraded_identity: UpgradeResourceIdentityResponse,
    listed: tfwasm_model::rpc::ListResourcePage,
}

fn block() -> Block {
    let mut name = Attribute::new("name", Type::String);
    name.required = true;
    let mut id = Attribute::new("id", Type::String);
    id.computed = true;
    Block {
        attributes: vec![name, id],
        ..Block::default()
    }
}

fn ty() -> Type {
    block().implied_type()
}

fn obj(name: Value, id: Value) -> DynamicValue {
    DynamicValue::encode(&Value::object([("name", name), ("id", id)]), &ty()).unwrap()
}

impl ProviderServer for Fake {
    async fn get_provider_schema(&self) -> ProviderSchema {
        let schema = Schema {
            version: 0,
            block: block(),
        };
        let mut out = ProviderSchema::default();
        out.resources.insert("fake_thing".into(), schema.clone());
        out.data_sources.insert("fake_data".into(), schema.clone());
        out.ephemeral_resources.insert("fake_secret".into(), schema);
        out
    }
    async fn validate_provider_config(&self, _: DynamicValue) -> Diagnostics {
        Vec::new()
    }
    async fn configure_provider(&self, _: ConfigureProviderRequest) -> Diagnostics {
        Vec::new()
    }
    fn plans_destroy(&self) -> bool {
        true
    }
    async fn stop_provider(&self) -> Result<(), String> {
        Ok(())
    }
}

impl ResourceServer for Fake {
    async fn validate_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn upgrade_resource_state(
        &self,
        _: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.upgrade.clone()
    }
    async fn read_resource(&self, _: ReadResourceRequest) -> ReadResourceResponse {
        self.read.clone()
    }
    async fn plan_resource_change(
        &self,
        _: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        self.plan.clone()
    }
    async fn apply_resource_change(
        &self,
        _: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        self.apply.clone()
    }
    async fn import_resource_state(
        &self,
        _: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.import.clone()
    }
}

impl DataSourceServer for Fake {
    async fn validate_data_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn read_data_source(&self, _: ReadDataSourceRequest) -> ReadDataSourceResponse {
        self.data.clone()
    }
}

impl EphemeralServer for Fake {
    async fn validate_ephemeral_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn open_ephemeral_resource(
        &self,
        _: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.opened.clone()
    }
    async fn renew_ephemeral_resource(
        &self,
        _: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        RenewEphemeralResourceResponse::default()
    }
    async fn close_ephemeral_resource(&self, _: CloseEphemeralResourceRequest) -> Diagnostics {
        Vec::new()
    }
}

impl IdentityServer for Fake {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        let mut out = GetResourceIdentitySchemasResponse::default();
        if self.identity {
            out.identity_schemas.insert(
                "fake_thing".into(),
                IdentitySchema {
                    version: 0,
                    attributes: vec![IdentityAttribute {
                        name: "id".into(),
                        ty: Type::String,
                        required_for_import: true,
                        optional_for_import: false,
                        description: String::new(),
                    }],
                },
            );
        }
        out
    }
    async fn upgrade_resource_identity(
        &self,
        _: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        self.upgraded_identity.clone()
    }
}

impl MoveServer for Fake {
    fn moves_state(&self) -> bool {
        true
    }
    async fn move_resource_state(&self, _: MoveResourceStateRequest) -> MoveResourceStateResponse {
        self.moved.clone()
    }
}

impl ConfigGenerationServer for Fake {
    fn generates_config(&self) -> bool {
        true
    }
    async fn generate_resource_config(
        &self,
        _: GenerateResourceConfigRequest,
    ) -> GenerateResourceConfigResponse {
        self.generated.clone()
    }
}

impl tfwasm_model::rpc::ListServer for Fake {
    async fn validate_list_resource_config(
        &self,
        _: tfwasm_model::rpc::ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        Vec::new()
    }
    async fn list_resource(
        &self,
        _: tfwasm_model::rpc::ListResourceRequest,
    ) -> tfwasm_model::rpc::ListResourcePage {
        self.listed.clone()
    }
}

impl tfwasm_model::rpc::NoActions for Fake {}
impl tfwasm_model::rpc::NoStateStores for Fake {}

/// One function, `is_even(number) bool`.
impl FunctionServer for Fake {
    async fn get_functions(&self) -> GetFunctionsResponse {
        let function = Function {
            parameters: vec![Parameter {
                name: "n".into(),
                ty: Type::Number,
                allow_null_value: false,
                allow_unknown_values: false,
                description: String::new(),
                description_kind: StringKind::Plain,
            }],
            variadic_parameter: None,
            return_type: Type::Bool,
            summary: String::new(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        };
        GetFunctionsResponse {
            functions: [("is_even".to_owned(), function)].into(),
            diagnostics: Vec::new(),
        }
    }
    async fn call_function(&self, _: CallFunctionRequest) -> CallFunctionResponse {
        self.call.clone()
    }
}

fn plan_request() -> PlanResourceChangeRequest {
    PlanResourceChangeRequest {
        type_name: "fake_thing".into(),
        prior_state: DynamicValue::null(),
        proposed_new_state: obj("a".into(), Value::Null),
        config: obj("a".into(), Value::Null),
        ..Default::default()
    }
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn plan_violation_names_provider_type_rpc_path_and_values() {
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: obj("b".into(), Value::unknown()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    let d = &resp.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.summary, "Provider produced invalid plan");
    assert_eq!(d.attribute, Some(AttributePath::attribute("name")));
    for part in [
        "PlanResourceChange",
        "\"fake\"",
        "fake_thing",
        "`.name`",
        "planned value \"b\" does not match config value \"a\"",
    ] {
        assert!(d.detail.contains(part), "{part} in {}", d.detail);
    }
}

#[test]
fn warn_mode_downgrades() {
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: obj("b".into(), Value::unknown()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Warn).plan_resource_change(plan_request()));
    assert_eq!(resp.diagnostics[0].severity, Severity::Warning);
}

#[test]
fn a_valid_plan_passes_untouched() {
    let planned = obj("a".into(), Value::unknown());
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: planned.clone(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(resp.planned_state, planned);
}

/// A plan answering the prior state byte for byte is checked with the prior's decoding
/// (no decoding of its own): still against the configuration, and still passing when right.
#[test]
fn a_plan_that_is_the_prior_state_is_checked_all_the_same() {
    let prior = obj("old".into(), "i".into());
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: prior.clone(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(fake, "fake", Mode::Enforce);
    // A destroy: the configuration is gone, yet the plan keeps the object.
    let destroy = PlanResourceChangeRequest {
        prior_state: prior.clone(),
        proposed_new_state: DynamicValue::null(),
        config: DynamicValue::null(),
        ..plan_request()
    };
    let resp = run(checked.plan_resource_change(destroy));
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("planned a non-null value {id = \"i\", name = \"old\"} for a destroy"),
        "{}",
        resp.diagnostics[0].detail
    );
    let unchanged = PlanResourceChangeRequest {
        prior_state: prior.clone(),
        proposed_new_state: prior.clone(),
        config: obj("old".into(), Value::Null),
        ..plan_request()
    };
    let resp = run(checked.plan_resource_change(unchanged));
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(resp.planned_state, prior);
}

#[test]
fn nonconforming_plan_is_reported_with_its_path() {
    // One attribute where the schema has two.
    let bytes = tfwasm_model::codec::msgpack::encode(
        &Value::object([("name", "a".into())]),
        &Type::object([("name", Type::String)]),
    )
    .unwrap();
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: DynamicValue::from_msgpack(bytes),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("does not conform to the schema"),
        "{}",
        resp.diagnostics[0].detail
    );
}

#[test]
fn guest_errors_are_not_second_guessed() {
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            diagnostics: vec![Diagnostic::error("own", "error")],
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(resp.diagnostics[0].summary, "own");
}

fn apply_request() -> ApplyResourceChangeRequest {
    ApplyResourceChangeRequest {
        type_name: "fake_thing".into(),
        prior_state: DynamicValue::null(),
        planned_state: obj("a".into(), Value::unknown()),
        config: obj("a".into(), Value::Null),
        ..Default::default()
    }
}

/// The new state is the planned one byte for byte, so it is checked with the plan's decoding:
/// the unknown it still holds is found all the same.
#[test]
fn apply_with_unknown_keeps_the_state_and_reports() {
    let new = obj("a".into(), Value::unknown());
    let fake = Fake {
        apply: ApplyResourceChangeResponse {
            new_state: new.clone(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp =
        run(Checked::new(fake, "fake", Mode::Enforce).apply_resource_change(apply_request()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(
        resp.diagnostics[0].summary,
        "Provider produced inconsistent result after apply"
    );
    assert_eq!(
        resp.diagnostics[0].attribute,
        Some(AttributePath::attribute("id"))
    );
    assert_eq!(
        resp.new_state, new,
        "the state is handed back so nothing is lost"
    );
}

#[test]
fn apply_that_cannot_be_decoded_returns_the_prior_state() {
    let fake = Fake {
        apply: ApplyResourceChangeResponse {
            new_state: DynamicValue::from_msgpack(vec![0x93]),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp =
        run(Checked::new(fake, "fake", Mode::Enforce).apply_resource_change(apply_request()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(resp.new_state, DynamicValue::null());
}

#[test]
fn apply_changing_a_planned_value() {
    let fake = Fake {
        apply: ApplyResourceChangeResponse {
            new_state: obj("z".into(), "i".into()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp =
        run(Checked::new(fake, "fake", Mode::Enforce).apply_resource_change(apply_request()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("was \"a\", but now \"z\""),
        "{}",
        resp.diagnostics[0].detail
    );
}

/// A checked ReadResource of `current` that the provider answers with `new_state`.
fn read(current: DynamicValue, new_state: DynamicValue) -> ReadResourceResponse {
    let fake = Fake {
        read: ReadResourceResponse {
            new_state,
            ..Default::default()
        },
        ..Fake::default()
    };
    let req = ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: current,
        ..Default::default()
    };
    run(Checked::new(fake, "fake", Mode::Enforce).read_resource(req))
}

#[test]
fn read_with_unknown_keeps_the_recorded_state() {
    let current = obj("a".into(), "i".into());
    let resp = read(current.clone(), obj("a".into(), Value::unknown()));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(
        resp.diagnostics[0].summary,
        "Provider produced invalid object"
    );
    assert_eq!(resp.new_state, current);
}

/// The fourteenth hostile pass: a violation built whole (a decode error quoting a 300 KB
/// key, a result's wide return type) was larger than all kept violations may be, so it was
/// only counted, and the answer looked to have none: the unknown or undecodable value went
/// to Terraform unchecked. Every violation is cut when kept, and "none" counts them all.
#[test]
fn a_violation_too_large_to_keep_whole_still_fails_the_check() {
    let key = "k".repeat(300_000);
    // {"name": "a", KEY: "b"}: an attribute the schema does not have.
    let mut bytes = vec![0x82, 0xa4];
    bytes.extend(b"name");
    bytes.extend([0xa1, b'a', 0xdb]);
    bytes.extend((key.len() as u32).to_be_bytes());
    bytes.extend(key.as_bytes());
    bytes.extend([0xa1, b'b']);
    let current = obj("a".into(), "i".into());
    let fake = Fake {
        read: ReadResourceResponse {
            new_state: DynamicValue::from_msgpack(bytes),
            ..Default::default()
        },
        ..Fake::default()
    };
    let req = ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: current.clone(),
        ..Default::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).read_resource(req));
    assert!(
        resp.new_state == current,
        "the undecodable answer is not passed on"
    );
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert!(resp.diagnostics[0].detail.len() < 4096);

    // A function result of the wrong type under a return type of 100,000 attributes.
    let wide = Type::Object(
        (0..100_000)
            .map(|i| (format!("attribute{i}"), Type::String))
            .collect(),
    );
    let found = crate::check_function_result(
        &Function {
            parameters: Vec::new(),
            variadic_parameter: None,
            return_type: wide,
            summary: String::new(),
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        },
        0,
        &CallFunctionResponse {
            result: DynamicValue::encode(&Value::from(true), &Type::Bool).unwrap(),
            error: None,
        },
    );
    assert!(!found.is_empty());
    assert_eq!(found.len(), 1, "kept, cut, not only counted");
    assert!(found[0].message.len() < 2048, "{}", found[0].message.len());
}

/// A read answering the current state byte for byte is not decoded again: it is the state
/// Terraform holds, so whatever is wrong with it (here an unknown, which Terraform never
/// stores) was Terraform's before the call and is not the provider's fault, as in plans.
#[test]
fn a_read_answering_terraforms_own_state_is_not_checked_again() {
    let current = obj("a".into(), Value::unknown());
    let resp = read(current.clone(), current.clone());
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(resp.new_state, current);
}

#[test]
fn read_may_return_null() {
    let resp = read(obj("a".into(), "i".into()), DynamicValue::null());
    assert!(resp.diagnostics.is_empty());
}

#[test]
fn imports_need_a_known_type_and_a_known_state() {
    for (type_name, state, expect) in [
        ("", obj("a".into(), "i".into()), "has no type name"),
        (
            "fake_other",
            obj("a".into(), "i".into()),
            "which this provider does not have",
        ),
        (
            "fake_thing",
            DynamicValue::null(),
            "imported object is null",
        ),
        (
            "fake_thing",
            obj("a".into(), Value::unknown()),
            "unknown value",
        ),
    ] {
        let fake = Fake {
            import: ImportResourceStateResponse {
                imported_resources: vec![ImportedResource {
                    type_name: type_name.into(),
                    state,
                    private: Vec::new(),
                    identity: None,
                }],
                diagnostics: Vec::new(),
                deferred: None,
            },
            ..Fake::default()
        };
        let req = ImportResourceStateRequest {
            type_name: "fake_thing".into(),
            id: "x".into(),
            ..Default::default()
        };
        let resp = run(Checked::new(fake, "fake", Mode::Enforce).import_resource_state(req));
        assert!(
            resp.imported_resources.is_empty(),
            "a broken import never reaches Terraform"
        );
        assert_eq!(resp.diagnostics.len(), 1, "{type_name}");
        assert!(
            resp.diagnostics[0].detail.contains(expect),
            "{expect}: {}",
            resp.diagnostics[0].detail
        );
    }
}

#[test]
fn data_sources_must_be_non_null_and_known() {
    for (state, expect) in [
        (DynamicValue::null(), "null object"),
        (obj("a".into(), Value::unknown()), "not wholly known"),
    ] {
        let fake = Fake {
            data: ReadDataSourceResponse {
                state,
                diagnostics: Vec::new(),
                deferred: None,
            },
            ..Fake::default()
        };
        let req = ReadDataSourceRequest {
            type_name: "fake_data".into(),
            ..Default::default()
        };
        let resp = run(Checked::new(fake, "fake", Mode::Enforce).read_data_source(req));
        assert_eq!(resp.diagnostics.len(), 1);
        assert!(
            resp.diagnostics[0].detail.contains(expect),
            "{}",
            resp.diagnostics[0].detail
        );
    }
}

#[test]
fn upgrades_must_be_known() {
    let fake = Fake {
        upgrade: UpgradeResourceStateResponse {
            upgraded_state: obj("a".into(), Value::unknown()),
            diagnostics: Vec::new(),
        },
        ..Fake::default()
    };
    let req = UpgradeResourceStateRequest {
        type_name: "fake_thing".into(),
        ..Default::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).upgrade_resource_state(req));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(
        resp.diagnostics[0].summary,
        "Invalid resource state upgrade"
    );
}

fn call(name: &str) -> CallFunctionRequest {
    CallFunctionRequest {
        name: name.into(),
        arguments: vec![DynamicValue::encode(&Value::from(2), &Type::Number).unwrap()],
    }
}

#[test]
fn function_results_of_the_wrong_type_become_the_call_error() {
    let fake = Fake {
        call: CallFunctionResponse {
            result: DynamicValue::encode(&Value::from("yes"), &Type::String).unwrap(),
            error: None,
        },
        ..Fake::default()
    };
    for mode in [Mode::Enforce, Mode::Warn] {
        let checked = Checked::new(
            Fake {
                call: fake.call.clone(),
                ..Fake::default()
            },
            "fake",
            mode,
        );
        let resp = run(checked.call_function(call("is_even")));
        let error = resp.error.expect("a violation becomes the error");
        assert!(
            error.text.contains("function \"is_even\""),
            "{}",
            error.text
        );
        assert!(error.text.contains("return type bool:"), "{}", error.text);
        assert_eq!(error.function_argument, None);
    }
}

#[test]
fn function_results_that_conform_and_unknown_functions_pass_untouched() {
    let good = CallFunctionResponse {
        result: DynamicValue::encode(&Value::Bool(true), &Type::Bool).unwrap(),
        error: None,
    };
    let checked = Checked::new(
        Fake {
            call: good.clone(),
            ..Fake::default()
        },
        "fake",
        Mode::Enforce,
    );
    assert_eq!(run(checked.call_function(call("is_even"))), good);
    // A name the provider does not list is the provider's to answer.
    assert_eq!(run(checked.call_function(call("other"))), good);
    let listed = run(checked.get_functions());
    assert_eq!(listed.functions.keys().collect::<Vec<_>>(), ["is_even"]);
}

#[test]
fn moved_states_must_fit_the_target_and_be_known() {
    let moved = |state| Fake {
        moved: MoveResourceStateResponse {
            target_state: state,
            ..Default::default()
        },
        ..Fake::default()
    };
    let request = MoveResourceStateRequest {
        source_type_name: "other_thing".into(),
        target_type_name: "fake_thing".into(),
        ..Default::default()
    };
    let checked = Checked::new(moved(obj("a".into(), "x".into())), "fake", Mode::Enforce);
    assert!(checked.moves_state());
    let ok = run(checked.move_resource_state(request.clone()));
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);

    let checked = Checked::new(
        moved(obj("a".into(), Value::unknown())),
        "fake",
        Mode::Enforce,
    );
    let resp = run(checked.move_resource_state(request.clone()));
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert_eq!(
        resp.diagnostics[0].attribute,
        Some(AttributePath::attribute("id"))
    );
    assert!(resp.diagnostics[0].detail.contains("MoveResourceState"));

    let wrong = DynamicValue::encode(&Value::from("x"), &Type::String).unwrap();
    let resp = run(Checked::new(moved(wrong), "fake", Mode::Enforce).move_resource_state(request));
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        resp.diagnostics[0].detail.contains("does not conform"),
        "{:?}",
        resp.diagnostics
    );
}

#[test]
fn generated_configurations_fit_the_schema_known_and_without_computed_only_values() {
    let generated = |config| Fake {
        generated: GenerateResourceConfigResponse {
            config,
            ..Default::default()
        },
        ..Fake::default()
    };
    let request = GenerateResourceConfigRequest {
        type_name: "fake_thing".into(),
        ..Default::default()
    };
    let checked = Checked::new(
        generated(obj("a".into(), Value::Null)),
        "fake",
        Mode::Enforce,
    );
    assert!(checked.generates_config());
    let ok = run(checked.generate_resource_config(request.clone()));
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);

    // `id` is computed-only: the configuration may not set it, known or not.
    for id in [Value::from("x"), Value::unknown()] {
        let checked = Checked::new(generated(obj("a".into(), id)), "fake", Mode::Enforce);
        let resp = run(checked.generate_resource_config(request.clone()));
        assert!(!resp.diagnostics.is_empty());
        for d in &resp.diagnostics {
            assert_eq!(d.attribute, Some(AttributePath::attribute("id")), "{d:?}");
            assert!(d.detail.contains("GenerateResourceConfig"), "{d:?}");
        }
        assert!(
            (resp.diagnostics.iter()).any(|d| d.detail.contains("computed-only attribute is set")),
            "{:?}",
            resp.diagnostics
        );
    }

    let wrong = DynamicValue::encode(&Value::from("x"), &Type::String).unwrap();
    let resp = run(
        Checked::new(generated(wrong), "fake", Mode::Enforce).generate_resource_config(request)
    );
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert!(resp.diagnostics[0].detail.contains("does not conform"));
}

#[test]
fn opened_ephemeral_values_fit_their_schema_and_are_not_null() {
    let opened = |result| Fake {
        opened: OpenEphemeralResourceResponse {
            result,
            ..Default::default()
        },
        ..Fake::default()
    };
    let open = OpenEphemeralResourceRequest {
        type_name: "fake_secret".into(),
        ..Default::default()
    };
    let ok = run(
        Checked::new(opened(obj("a".into(), "s".into())), "fake", Mode::Enforce)
            .open_ephemeral_resource(open.clone()),
    );
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let null = run(
        Checked::new(opened(DynamicValue::null()), "fake", Mode::Enforce)
            .open_ephemeral_resource(open.clone()),
    );
    assert_eq!(null.diagnostics.len(), 1, "{:?}", null.diagnostics);
    assert!(null.diagnostics[0].detail.contains("must not be null"));
    let wrong = DynamicValue::encode(&Value::from("x"), &Type::String).unwrap();
    let bad = run(Checked::new(opened(wrong), "fake", Mode::Enforce).open_ephemeral_resource(open));
    assert_eq!(bad.diagnostics.len(), 1, "{:?}", bad.diagnostics);
    assert!(bad.diagnostics[0].detail.contains("OpenEphemeralResource"));
}

#[test]
fn a_write_only_value_for_a_client_without_write_only_support_is_an_error() {
    // fake_thing's `name` made write-only for this test.
    struct WriteOnly(Fake);
    impl ProviderServer for WriteOnly {
        async fn get_provider_schema(&self) -> ProviderSchema {
            let mut schema = self.0.get_provider_schema().await;
            let thing = schema.resources.get_mut("fake_thing").unwrap();
            thing.block.attributes[0].write_only = true;
            schema
        }
        async fn validate_provider_config(&self, c: DynamicValue) -> Diagnostics {
            self.0.validate_provider_config(c).await
        }
        async fn configure_provider(&self, r: ConfigureProviderRequest) -> Diagnostics {
            self.0.configure_provider(r).await
        }
        fn plans_destroy(&self) -> bool {
            true
        }
        async fn stop_provider(&self) -> Result<(), String> {
            Ok(())
        }
    }
    impl ResourceServer for WriteOnly {
        async fn validate_resource_config(&self, r: ValidateConfigRequest) -> Diagnostics {
            self.0.validate_resource_config(r).await
        }
        async fn upgrade_resource_state(
            &self,
            r: UpgradeResourceStateRequest,
        ) -> UpgradeResourceStateResponse {
            self.0.upgrade_resource_state(r).await
        }
        async fn read_resource(&self, r: ReadResourceRequest) -> ReadResourceResponse {
            self.0.read_resource(r).await
        }
        async fn plan_resource_change(
            &self,
            r: PlanResourceChangeRequest,
        ) -> PlanResourceChangeResponse {
            self.0.plan_resource_change(r).await
        }
        async fn apply_resource_change(
            &self,
            r: ApplyResourceChangeRequest,
        ) -> ApplyResourceChangeResponse {
            self.0.apply_resource_change(r).await
        }
        async fn import_resource_state(
            &self,
            r: ImportResourceStateRequest,
        ) -> ImportResourceStateResponse {
            self.0.import_resource_state(r).await
        }
    }
    impl tfwasm_model::rpc::NoFunctions for WriteOnly {}
    impl tfwasm_model::rpc::NoMoves for WriteOnly {}
    impl tfwasm_model::rpc::NoConfigGeneration for WriteOnly {}
    impl tfwasm_model::rpc::NoListResources for WriteOnly {}
    impl tfwasm_model::rpc::NoActions for WriteOnly {}
    impl tfwasm_model::rpc::NoStateStores for WriteOnly {}
    impl tfwasm_model::rpc::NoIdentity for WriteOnly {}
    impl tfwasm_model::rpc::NoEphemeralResources for WriteOnly {}
    impl DataSourceServer for WriteOnly {
        async fn validate_data_resource_config(&self, r: ValidateConfigRequest) -> Diagnostics {
            self.0.validate_data_resource_config(r).await
        }
        async fn read_data_source(&self, r: ReadDataSourceRequest) -> ReadDataSourceResponse {
            self.0.read_data_source(r).await
        }
    }

    let checked = Checked::new(WriteOnly(Fake::default()), "fake", Mode::Enforce);
    let validate = |allowed: bool, name: Value| ValidateConfigRequest {
        type_name: "fake_thing".into(),
        config: obj(name, Value::Null),
        client_capabilities: tfwasm_model::rpc::ClientCapabilities {
            write_only_attributes_allowed: allowed,
            ..Default::default()
        },
    };
    let refused = run(checked.validate_resource_config(validate(false, "s3cret".into())));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].attribute, Some(AttributePath::attribute("name")));
    assert!(
        refused[0].detail.contains("Terraform >= 1.11"),
        "{}",
        refused[0].detail
    );
    assert!(run(checked.validate_resource_config(validate(true, "s3cret".into()))).is_empty());
    assert!(run(checked.validate_resource_config(validate(false, Value::Null))).is_empty());

    // And a returned state that stores it is a violation.
    let fake = Fake {
        read: ReadResourceResponse {
            new_state: obj("s3cret".into(), "id".into()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(WriteOnly(fake), "fake", Mode::Enforce);
    let read = run(checked.read_resource(ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: obj(Value::Null, "id".into()),
        ..Default::default()
    }));
    assert_eq!(read.diagnostics.len(), 1, "{:?}", read.diagnostics);
    assert!(
        read.diagnostics[0].detail.contains("write-only"),
        "{}",
        read.diagnostics[0].detail
    );
}

#[test]
fn a_deferral_the_client_did_not_allow_is_an_error_and_never_sent() {
    let deferring = || Fake {
        plan: PlanResourceChangeResponse {
            planned_state: obj("a".into(), Value::unknown()),
            deferred: Some(tfwasm_model::rpc::DeferredReason::ProviderConfigUnknown),
            ..Default::default()
        },
        ..Fake::default()
    };
    let refused =
        run(Checked::new(deferring(), "fake", Mode::Enforce).plan_resource_change(plan_request()));
    assert_eq!(refused.deferred, None, "never sent");
    assert_eq!(refused.diagnostics.len(), 1, "{:?}", refused.diagnostics);
    assert!(
        refused.diagnostics[0].detail.contains("deferral_allowed"),
        "{}",
        refused.diagnostics[0].detail
    );

    let mut allowed = plan_request();
    allowed.client_capabilities.deferral_allowed = true;
    let sent = run(Checked::new(deferring(), "fake", Mode::Enforce).plan_resource_change(allowed));
    assert_eq!(
        sent.deferred,
        Some(tfwasm_model::rpc::DeferredReason::ProviderConfigUnknown)
    );
    assert!(sent.diagnostics.is_empty(), "{:?}", sent.diagnostics);
}

fn identity(id: Value) -> Option<DynamicValue> {
    Some(
        DynamicValue::encode(
            &Value::object([("id", id)]),
            &Type::object([("id", Type::String)]),
        )
        .unwrap(),
    )
}

fn identity_errors(diagnostics: &Diagnostics) -> Vec<&str> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.detail.as_str())
        .collect()
}

#[test]
fn a_read_that_changes_the_identity_is_an_error() {
    let fake = Fake {
        identity: true,
        read: ReadResourceResponse {
            new_state: obj("a".into(), "1".into()),
            new_identity: identity("2".into()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(
        Checked::new(fake, "fake", Mode::Enforce).read_resource(ReadResourceRequest {
            type_name: "fake_thing".into(),
            current_state: obj("a".into(), "1".into()),
            current_identity: identity("1".into()),
            ..Default::default()
        }),
    );
    let errors = identity_errors(&resp.diagnostics);
    assert_eq!(errors.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        errors[0].contains("identity attribute `id` changed during refresh from \"1\" to \"2\""),
        "{}",
        errors[0]
    );
}

#[test]
fn a_read_may_set_an_identity_state_from_before_identities_lacked() {
    let fake = Fake {
        identity: true,
        read: ReadResourceResponse {
            new_state: obj("a".into(), "1".into()),
            new_identity: identity("1".into()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(
        Checked::new(fake, "fake", Mode::Enforce).read_resource(ReadResourceRequest {
            type_name: "fake_thing".into(),
            current_state: obj("a".into(), "1".into()),
            current_identity: identity(Value::Null),
            ..Default::default()
        }),
    );
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(resp.new_identity, identity("1".into()));
}

#[test]
fn a_declared_identity_must_come_back_known_after_apply() {
    for (returned, wanted) in [
        (None, "returned no identity"),
        (identity(Value::unknown()), "`id` is unknown"),
    ] {
        let fake = Fake {
            identity: true,
            apply: ApplyResourceChangeResponse {
                new_state: obj("a".into(), "1".into()),
                new_identity: returned,
                ..Default::default()
            },
            ..Fake::default()
        };
        let resp = run(
            Checked::new(fake, "fake", Mode::Enforce).apply_resource_change(
                ApplyResourceChangeRequest {
                    type_name: "fake_thing".into(),
                    prior_state: DynamicValue::null(),
                    planned_state: obj("a".into(), Value::unknown()),
                    config: obj("a".into(), Value::Null),
                    planned_identity: identity(Value::unknown()),
                    ..Default::default()
                },
            ),
        );
        let errors = identity_errors(&resp.diagnostics);
        assert_eq!(errors.len(), 1, "{:?}", resp.diagnostics);
        assert!(errors[0].contains(wanted), "{wanted} in {}", errors[0]);
        // The state is kept whatever the identity: nothing is lost.
        assert_eq!(resp.new_state, obj("a".into(), "1".into()));
    }
}

#[test]
fn an_update_plan_keeps_the_prior_identity_a_replacement_need_not() {
    let prior = obj("a".into(), "1".into());
    let plan = |requires_replace: Vec<AttributePath>| Fake {
        identity: true,
        plan: PlanResourceChangeResponse {
            planned_state: if requires_replace.is_empty() {
                obj("b".into(), "1".into())
            } else {
                obj("b".into(), Value::unknown())
            },
            planned_identity: identity(Value::unknown()),
            requires_replace,
            ..Default::default()
        },
        ..Fake::default()
    };
    let request = || PlanResourceChangeRequest {
        type_name: "fake_thing".into(),
        prior_state: prior.clone(),
        proposed_new_state: obj("b".into(), "1".into()),
        config: obj("b".into(), Value::Null),
        prior_identity: identity("1".into()),
        ..Default::default()
    };
    let resp =
        run(Checked::new(plan(Vec::new()), "fake", Mode::Enforce).plan_resource_change(request()));
    let errors = identity_errors(&resp.diagnostics);
    assert_eq!(errors.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        errors[0].contains("in the plan of an update"),
        "{}",
        errors[0]
    );

    let resp = run(Checked::new(
        plan(vec![AttributePath::attribute("name")]),
        "fake",
        Mode::Enforce,
    )
    .plan_resource_change(request()));
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
}

#[test]
fn an_identity_for_a_type_without_one_or_of_the_wrong_type_is_an_error() {
    let fake = Fake {
        import: ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: "fake_thing".into(),
                state: obj("a".into(), "1".into()),
                private: Vec::new(),
                identity: identity("1".into()),
            }],
            ..Default::default()
        },
        ..Fake::default()
    };
    let resp = run(
        Checked::new(fake, "fake", Mode::Enforce).import_resource_state(
            ImportResourceStateRequest {
                type_name: "fake_thing".into(),
                id: "1".into(),
                ..Default::default()
            },
        ),
    );
    let errors = identity_errors(&resp.diagnostics);
    assert!(errors[0].contains("declares no identity"), "{errors:?}");

    let wrong = DynamicValue::encode(
        &Value::object([("id", Value::Bool(true))]),
        &Type::object([("id", Type::Bool)]),
    )
    .unwrap();
    let fake = Fake {
        identity: true,
        upgraded_identity: UpgradeResourceIdentityResponse {
            upgraded_identity: Some(wrong),
            diagnostics: Vec::new(),
        },
        ..Fake::default()
    };
    let resp = run(
        Checked::new(fake, "fake", Mode::Enforce).upgrade_resource_identity(
            UpgradeResourceIdentityRequest {
                type_name: "fake_thing".into(),
                version: 0,
                raw_identity: Default::default(),
            },
        ),
    );
    let errors = identity_errors(&resp.diagnostics);
    assert_eq!(errors.len(), 1, "{:?}", resp.diagnostics);
    assert!(
        errors[0].contains("the identity does not conform"),
        "{}",
        errors[0]
    );
    assert_eq!(resp.upgraded_identity, None);
}

/// A provider answering each RPC with a scripted answer (by the RPC table's name), else the
/// answer's default.
#[derive(Default)]
struct Scripted(std::collections::HashMap<tfwasm_model::Rpc, serde_json::Value>);

impl tfwasm_model::rpc::Handler for Scripted {
    async fn handle<C: tfwasm_model::rpc::Call>(&self, _req: C::Request) -> C::Response {
        match self.0.get(&C::RPC) {
            Some(answer) => serde_json::from_value(answer.clone()).unwrap(),
            None => C::Response::default(),
        }
    }

    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        Default::default()
    }
}

/// The fifteenth hostile pass: an unknown in a sensitive map was reported with its key, and
/// a value of a sensitive attribute that did not decode was quoted.
#[test]
fn no_diagnostic_shows_a_sensitive_map_key_or_an_undecodable_secret() {
    use tfwasm_model::Rpc;
    let mut tokens = Attribute::new("tokens", Type::map(Type::String));
    (tokens.computed, tokens.sensitive) = (true, true);
    let mut pin = Attribute::new("pin", Type::Number);
    (pin.optional, pin.sensitive) = (true, true);
    let block = Block {
        attributes: vec![tokens, pin],
        ..Block::default()
    };
    let schema = ProviderSchema {
        resources: [("fake_thing".to_owned(), Schema { version: 0, block })].into(),
        ..ProviderSchema::default()
    };
    let ty = schema.resources["fake_thing"].block.implied_type();
    let unknown_in_map = Value::object([
        (
            "tokens",
            Value::Map([("SECRETKEY".into(), Value::unknown())].into()),
        ),
        ("pin", Value::Null),
    ]);
    // {"tokens": null, "pin": "SECRET-hunter2"}: a string where a number goes.
    let mut undecodable = vec![0x82, 0xa6];
    undecodable.extend(b"tokens");
    undecodable.extend([0xc0, 0xa3]);
    undecodable.extend(b"pin");
    undecodable.push(0xae);
    undecodable.extend(b"SECRET-hunter2");
    for new_state in [
        DynamicValue::encode(&unknown_in_map, &ty).unwrap(),
        DynamicValue::from_msgpack(undecodable),
    ] {
        let read = ReadResourceResponse {
            new_state,
            ..Default::default()
        };
        let answers = [
            (
                Rpc::GetProviderSchema,
                serde_json::to_value(&schema).unwrap(),
            ),
            (Rpc::ReadResource, serde_json::to_value(&read).unwrap()),
        ];
        let provider = tfwasm_model::rpc::Handled(Scripted(answers.into()));
        let checked = Checked::new(provider, "fake", Mode::Enforce);
        let resp = run(checked.read_resource(ReadResourceRequest {
            type_name: "fake_thing".into(),
            ..Default::default()
        }));
        assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
        let text = format!("{:?}", resp.diagnostics);
        assert!(!text.contains("SECRET"), "{text}");
    }
}

/// One index per process: the checks use the wrapped provider's own (the runtime's), and
/// hand the same on to what wraps them (the recording), building none of their own.
#[test]
fn the_checks_share_the_providers_schema_index() {
    struct Indexed(std::sync::Arc<tfwasm_model::SchemaIndex>);
    impl tfwasm_model::rpc::Handler for Indexed {
        async fn handle<C: tfwasm_model::rpc::Call>(&self, _req: C::Request) -> C::Response {
            C::Response::default()
        }

        fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
            Default::default()
        }
        async fn schema_index(&self) -> Option<std::sync::Arc<tfwasm_model::SchemaIndex>> {
            Some(self.0.clone())
        }
    }
    let mut schema = ProviderSchema::default();
    schema.resources.insert(
        "fake_thing".into(),
        Schema {
            version: 0,
            block: block(),
        },
    );
    let index = std::sync::Arc::new(tfwasm_model::SchemaIndex::new(
        schema,
        Default::default(),
        Default::default(),
    ));
    let inner = tfwasm_model::rpc::Handled(Indexed(index.clone()));
    let checked = Checked::new(inner, "fake", Mode::Enforce);
    let shared = run(checked.schema_index()).expect("an index");
    assert!(
        std::sync::Arc::ptr_eq(&shared, &index),
        "the same index, not a copy"
    );
    assert_eq!(shared.resource_type("fake_thing"), Some(&ty()));
    // A provider that keeps none gets one built from its schema answers.
    let built = run(tfwasm_model::schema_index::index_of(&Fake::default()));
    assert!(built.provider.resources.contains_key("fake_thing"));
}

/// The seventeenth hostile pass: a schema answer that failed once was kept, and every later
/// check of the process ran against no schema.
#[test]
fn a_failed_schema_answer_is_asked_again() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tfwasm_model::Rpc;
    struct Flaky(AtomicUsize);
    impl tfwasm_model::rpc::Handler for Flaky {
        async fn handle<C: tfwasm_model::rpc::Call>(&self, _req: C::Request) -> C::Response {
            let mut answer = serde_json::to_value(C::Response::default()).unwrap();
            if C::RPC == Rpc::GetProviderSchema {
                let schema = match self.0.fetch_add(1, Ordering::SeqCst) {
                    0 => ProviderSchema {
                        diagnostics: vec![Diagnostic::error(
                            "Provider exceeded its time limit",
                            "",
                        )],
                        ..ProviderSchema::default()
                    },
                    _ => {
                        let mut schema = ProviderSchema::default();
                        schema.resources.insert(
                            "fake_thing".into(),
                            Schema {
                                version: 0,
                                block: block(),
                            },
                        );
                        schema
                    }
                };
                answer = serde_json::to_value(schema).unwrap();
            } else if C::RPC == Rpc::ReadResource {
                let read = ReadResourceResponse {
                    new_state: obj("a".into(), Value::unknown()),
                    ..Default::default()
                };
                answer = serde_json::to_value(read).unwrap();
            }
            serde_json::from_value(answer).unwrap()
        }

        fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
            Default::default()
        }
    }
    let checked = Checked::new(
        tfwasm_model::rpc::Handled(Flaky(AtomicUsize::new(0))),
        "fake",
        Mode::Enforce,
    );
    let read = || ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: obj("a".into(), "i".into()),
        ..Default::default()
    };
    let first = run(checked.read_resource(read()));
    assert!(
        first.diagnostics.is_empty(),
        "no schema yet: {:?}",
        first.diagnostics
    );
    let second = run(checked.read_resource(read()));
    assert_eq!(
        second.diagnostics.len(),
        1,
        "checked once the schema answers"
    );
    assert_eq!(run(checked.get_provider_schema()).resources.len(), 1);
}

/// A listed object's identity is checked against the type's identity schema, and a state the
/// request did not ask for is refused; the violation goes into the object's own event.
#[test]
fn listed_objects_have_known_identities_and_states_only_when_asked() {
    use tfwasm_model::rpc::{ListResourceEvent, ListResourcePage, ListResourceRequest, ListServer};
    let id_ty = Type::Object([("id".to_owned(), Type::String)].into());
    let identity = |id: Value| {
        DynamicValue::encode(&Value::Object([("id".into(), id)].into()), &id_ty).unwrap()
    };
    let listed = ListResourcePage {
        events: vec![
            ListResourceEvent {
                identity: identity("1".into()),
                display_name: "one".into(),
                ..Default::default()
            },
            ListResourceEvent {
                identity: identity(Value::unknown()),
                display_name: "two".into(),
                resource_object: Some(obj("b".into(), "2".into())),
                ..Default::default()
            },
            ListResourceEvent {
                identity: identity(Value::unknown()),
                display_name: "three".into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let checked = Checked::new(
        Fake {
            identity: true,
            listed,
            ..Fake::default()
        },
        "fake",
        Mode::Enforce,
    );
    let page = run(checked.list_resource(ListResourceRequest {
        type_name: "fake_thing".into(),
        ..Default::default()
    }));
    assert!(
        page.events[0].diagnostics.is_empty(),
        "{:?}",
        page.events[0]
    );
    let second = &page.events[1];
    assert!(tfwasm_model::has_error(&second.diagnostics));
    let details: Vec<&str> = second
        .diagnostics
        .iter()
        .map(|d| d.detail.as_str())
        .collect();
    assert!(details.iter().any(|d| d.contains("unknown")), "{details:?}");
    assert!(
        details.iter().any(|d| d.contains("did not ask")),
        "{details:?}"
    );
    assert_eq!(second.resource_object, None);
    // The twenty-eighth pass: violations are one budget for the page; Terraform stops at the
    // first error, so nothing past it is checked in enforce mode.
    assert!(
        page.events[2].diagnostics.is_empty(),
        "{:?}",
        page.events[2]
    );
}

/// A planned action that defers is refused when the client did not announce deferral.
#[test]
fn an_action_defers_only_when_the_client_allows_it() {
    use tfwasm_model::rpc::{ActionServer, PlanActionRequest, PlanActionResponse};
    let checked = Checked::new(Fake::default(), "fake", Mode::Enforce);
    let plan = |allowed| {
        let mut resp = PlanActionResponse {
            deferred: Some(tfwasm_model::rpc::DeferredReason::ResourceConfigUnknown),
            ..Default::default()
        };
        let mut diagnostics = Vec::new();
        checked.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut diagnostics,
            "PlanAction",
            "fake_act",
        );
        (resp.deferred, diagnostics)
    };
    let (deferred, diagnostics) = plan(false);
    assert_eq!(deferred, None);
    assert!(tfwasm_model::has_error(&diagnostics), "{diagnostics:?}");
    let (deferred, diagnostics) = plan(true);
    assert!(deferred.is_some() && diagnostics.is_empty());
    // The Fake has no actions: its answer passes through.
    let resp = run(checked.plan_action(PlanActionRequest::default()));
    assert!(
        resp.diagnostics
            .iter()
            .any(|d| d.summary == "Action Not Supported")
    );
}

/// A recorded call is handed every value its checks decoded (`decodings.rs`), found again by
/// its bytes as a value of its object in the provider's one index: a plan's prior state,
/// configuration and planned state, an apply's planned and new states, a data source's state.
/// The recording then reads those trees instead of decoding the bytes again.
#[test]
fn a_recorded_call_is_handed_every_value_its_checks_decoded() {
    use crate::decodings::{Of, keeping};
    let planned = obj("a".into(), Value::unknown());
    let new = obj("a".into(), "id-1".into());
    let read = obj("a".into(), "id-2".into());
    let fake = Fake {
        plan: PlanResourceChangeResponse {
            planned_state: planned.clone(),
            ..Default::default()
        },
        apply: ApplyResourceChangeResponse {
            new_state: new.clone(),
            ..Default::default()
        },
        data: ReadDataSourceResponse {
            state: read.clone(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(fake, "fake", Mode::Enforce);
    let plan = PlanResourceChangeRequest {
        prior_state: obj("a".into(), "id-0".into()),
        ..plan_request()
    };
    let decoded = |v: &DynamicValue| v.decode(&ty()).unwrap();
    run(async {
        let (resp, kept) = keeping(checked.plan_resource_change(plan.clone())).await;
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        let index = checked.index().await;
        let of = Of::Resource("fake_thing");
        for (what, v) in [
            ("prior state", &plan.prior_state),
            ("configuration", &plan.config),
            ("planned state", &planned),
        ] {
            let tree = kept.get(index, of, &v.msgpack);
            assert_eq!(tree, Some(&decoded(v)), "the plan's {what}");
        }
        assert_eq!(kept.len(), 3, "{kept:?}");

        let (resp, kept) = keeping(checked.apply_resource_change(apply_request())).await;
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        for (what, v) in [("planned", &apply_request().planned_state), ("new", &new)] {
            let tree = kept.get(index, of, &v.msgpack);
            assert_eq!(tree, Some(&decoded(v)), "the apply's {what} state");
        }
        assert_eq!(kept.len(), 2, "{kept:?}");

        let req = ReadDataSourceRequest {
            type_name: "fake_data".into(),
            ..Default::default()
        };
        let (resp, kept) = keeping(checked.read_data_source(req)).await;
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        let tree = kept.get(index, Of::DataSource("fake_data"), &read.msgpack);
        assert_eq!(tree, Some(&decoded(&read)));
        // Found as the data source's value only.
        assert_eq!(kept.get(index, of, &read.msgpack), None);
    });

    // Identities (planned and new) and an opened ephemeral resource's result too.
    let opened = obj("a".into(), "s".into());
    let new_identity = identity("id-1".into());
    let fake = Fake {
        identity: true,
        apply: ApplyResourceChangeResponse {
            new_state: new.clone(),
            new_identity: new_identity.clone(),
            ..Default::default()
        },
        opened: OpenEphemeralResourceResponse {
            result: opened.clone(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(fake, "fake", Mode::Enforce);
    let apply = ApplyResourceChangeRequest {
        planned_identity: identity(Value::unknown()),
        ..apply_request()
    };
    run(async {
        let (resp, kept) = keeping(checked.apply_resource_change(apply.clone())).await;
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        let index = checked.index().await;
        let of = Of::Identity("fake_thing");
        let new_id = new_identity.as_ref().unwrap();
        let tree = kept.get(index, of, &new_id.msgpack);
        assert_eq!(tree, Some(&Value::object([("id", "id-1".into())])));
        let planned_id = apply.planned_identity.as_ref().unwrap();
        let tree = kept.get(index, of, &planned_id.msgpack);
        assert_eq!(tree, Some(&Value::object([("id", Value::unknown())])));
        let open = OpenEphemeralResourceRequest {
            type_name: "fake_secret".into(),
            ..Default::default()
        };
        let (resp, kept) = keeping(checked.open_ephemeral_resource(open)).await;
        assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        let tree = kept.get(index, Of::EphemeralResource("fake_secret"), &opened.msgpack);
        assert_eq!(tree, Some(&decoded(&opened)));
    });
}

/// The other RPCs whose checks decode a value hand it on too, each as the value of its
/// object: an upgraded state, a refreshed state, each imported object that stays in the
/// answer, a moved state (of the target type), a generated configuration and an upgraded
/// identity. A refreshed state the checks reject, replaced by Terraform's own, is not kept.
#[test]
fn every_rpc_whose_checks_decode_a_value_hands_it_on() {
    use crate::decodings::{Decodings, Of, keeping};
    let state = |id: &str| obj("a".into(), id.into());
    let fake = Fake {
        identity: true,
        upgrade: UpgradeResourceStateResponse {
            upgraded_state: state("upgraded"),
            ..Default::default()
        },
        read: ReadResourceResponse {
            new_state: state("read"),
            ..Default::default()
        },
        import: ImportResourceStateResponse {
            imported_resources: vec![
                ImportedResource {
                    type_name: "fake_thing".into(),
                    state: state("imported"),
                    identity: identity("imported".into()),
                    ..Default::default()
                },
                // Unknown: refused, so it leaves the answer and is not kept.
                ImportedResource {
                    type_name: "fake_thing".into(),
                    state: obj("a".into(), Value::unknown()),
                    identity: identity("refused".into()),
                    ..Default::default()
                },
            ],
            ..Default::default()
        },
        moved: MoveResourceStateResponse {
            target_state: state("moved"),
            target_identity: identity("moved".into()),
            ..Default::default()
        },
        generated: GenerateResourceConfigResponse {
            config: obj("a".into(), Value::Null),
            ..Default::default()
        },
        upgraded_identity: UpgradeResourceIdentityResponse {
            upgraded_identity: identity("upgraded".into()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(fake, "fake", Mode::Enforce);
    let thing = Of::Resource("fake_thing");
    fn has(kept: &Decodings, index: &Arc<SchemaIndex>, of: Of<'_>, v: &DynamicValue) -> bool {
        kept.get(index, of, &v.msgpack).is_some()
    }
    run(async {
        let index = &Arc::clone(checked.index().await);
        let req = UpgradeResourceStateRequest {
            type_name: "fake_thing".into(),
            ..Default::default()
        };
        let (_, kept) = keeping(checked.upgrade_resource_state(req)).await;
        assert!(has(&kept, index, thing, &state("upgraded")), "{kept:?}");

        let req = ReadResourceRequest {
            type_name: "fake_thing".into(),
            current_state: state("current"),
            ..Default::default()
        };
        let (_, kept) = keeping(checked.read_resource(req)).await;
        assert!(has(&kept, index, thing, &state("read")), "{kept:?}");

        let req = ImportResourceStateRequest {
            type_name: "fake_thing".into(),
            ..Default::default()
        };
        let (resp, kept) = keeping(checked.import_resource_state(req)).await;
        assert_eq!(resp.imported_resources.len(), 1);
        assert!(has(&kept, index, thing, &state("imported")), "{kept:?}");
        assert!(
            !has(&kept, index, thing, &obj("a".into(), Value::unknown())),
            "{kept:?}"
        );
        let imported_id = identity("imported".into()).unwrap();
        assert!(has(&kept, index, Of::Identity("fake_thing"), &imported_id));

        let req = MoveResourceStateRequest {
            source_type_name: "other_thing".into(),
            target_type_name: "fake_thing".into(),
            ..Default::default()
        };
        let (_, kept) = keeping(checked.move_resource_state(req)).await;
        assert!(has(&kept, index, thing, &state("moved")), "{kept:?}");

        let req = GenerateResourceConfigRequest {
            type_name: "fake_thing".into(),
            ..Default::default()
        };
        let (_, kept) = keeping(checked.generate_resource_config(req)).await;
        assert!(
            has(&kept, index, thing, &obj("a".into(), Value::Null)),
            "{kept:?}"
        );

        let req = UpgradeResourceIdentityRequest {
            type_name: "fake_thing".into(),
            ..Default::default()
        };
        let (_, kept) = keeping(checked.upgrade_resource_identity(req)).await;
        let upgraded = identity("upgraded".into()).unwrap();
        assert!(
            has(&kept, index, Of::Identity("fake_thing"), &upgraded),
            "{kept:?}"
        );
    });

    // A refreshed state with an unknown is replaced by Terraform's: its tree is not kept.
    let fake = Fake {
        read: ReadResourceResponse {
            new_state: obj("a".into(), Value::unknown()),
            ..Default::default()
        },
        ..Fake::default()
    };
    let checked = Checked::new(fake, "fake", Mode::Enforce);
    let req = ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: state("current"),
        ..Default::default()
    };
    let (resp, kept) = run(keeping(checked.read_resource(req)));
    assert_eq!(resp.new_state, state("current"));
    assert!(kept.is_empty(), "{kept:?}");
}
