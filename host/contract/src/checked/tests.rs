//! Checked against a fake provider with canned responses.

use super::*;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, CallFunctionRequest,
    CallFunctionResponse, ConfigureProviderRequest, DataSourceServer, Function, FunctionServer,
    ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    MoveResourceStateRequest, MoveResourceStateResponse, MoveServer, Parameter,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ProviderServer, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, ResourceServer,
    UpgradeResourceStateRequest, UpgradeResourceStateResponse, ValidateConfigRequest,
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
        out.data_sources.insert("fake_data".into(), schema);
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

impl MoveServer for Fake {
    fn moves_state(&self) -> bool {
        true
    }
    async fn move_resource_state(&self, _: MoveResourceStateRequest) -> MoveResourceStateResponse {
        self.moved.clone()
    }
}

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

#[test]
fn read_with_unknown_keeps_the_recorded_state() {
    let current = obj("a".into(), "i".into());
    let fake = Fake {
        read: ReadResourceResponse {
            new_state: obj("a".into(), Value::unknown()),
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
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(
        resp.diagnostics[0].summary,
        "Provider produced invalid object"
    );
    assert_eq!(resp.new_state, current);
}

#[test]
fn read_may_return_null() {
    let fake = Fake {
        read: ReadResourceResponse {
            new_state: DynamicValue::null(),
            ..Default::default()
        },
        ..Fake::default()
    };
    let req = ReadResourceRequest {
        type_name: "fake_thing".into(),
        current_state: obj("a".into(), "i".into()),
        ..Default::default()
    };
    let resp = run(Checked::new(fake, "fake", Mode::Enforce).read_resource(req));
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
                }],
                diagnostics: Vec::new(),
            },
            ..Fake::default()
        };
        let req = ImportResourceStateRequest {
            type_name: "fake_thing".into(),
            id: "x".into(),
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
        assert!(
            error.text.contains("return type \"bool\""),
            "{}",
            error.text
        );
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
