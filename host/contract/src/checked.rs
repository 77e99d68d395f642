//! [`Checked`]: a provider whose every result is checked before it leaves the host.

use std::sync::OnceLock;

use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ConfigureProviderRequest,
    DynamicValue, ImportResourceStateRequest, ImportResourceStateResponse,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, ServerCapabilities,
    UpgradeResourceStateRequest, UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::{
    Diagnostic, Diagnostics, Provider, ProviderSchema, Schema, Severity, Type, Value,
};

use crate::{
    Violation, check_apply, check_data_source, check_import, check_plan, check_requires_replace,
    check_wholly_known,
};

/// What a violation does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// An error: Terraform stops (the default).
    #[default]
    Enforce,
    /// A warning: for provider authors migrating a provider; Terraform may still reject the
    /// result later with its own, vaguer error.
    Warn,
}

/// Wraps a provider and checks its results against the lifecycle contracts.
pub struct Checked<P> {
    inner: P,
    provider: String,
    mode: Mode,
    schema: OnceLock<Known>,
}

/// The provider's schema with each resource type's value type worked out once.
struct Known {
    schema: ProviderSchema,
    resource_types: std::collections::HashMap<String, Type>,
}

impl<P: Provider> Checked<P> {
    /// Checks `inner`, naming it `provider` in diagnostics.
    pub fn new(inner: P, provider: impl Into<String>, mode: Mode) -> Checked<P> {
        Checked {
            inner,
            provider: provider.into(),
            mode,
            schema: OnceLock::new(),
        }
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    async fn known(&self) -> &Known {
        if let Some(known) = self.schema.get() {
            return known;
        }
        let schema = self.inner.get_provider_schema().await;
        let resource_types = schema
            .resources
            .iter()
            .map(|(name, s)| (name.clone(), s.block.implied_type()))
            .collect();
        self.schema.get_or_init(|| Known {
            schema,
            resource_types,
        })
    }

    async fn schema(&self) -> &ProviderSchema {
        &self.known().await.schema
    }

    async fn resource(&self, type_name: &str) -> Option<(&Schema, &Type)> {
        let known = self.known().await;
        Some((
            known.schema.resources.get(type_name)?,
            known.resource_types.get(type_name)?,
        ))
    }

    fn diagnostics(
        &self,
        summary: &str,
        rpc: &str,
        type_name: &str,
        violations: Vec<Violation>,
    ) -> Diagnostics {
        violations
            .into_iter()
            .map(|v| Diagnostic {
                severity: match self.mode {
                    Mode::Enforce => Severity::Error,
                    Mode::Warn => Severity::Warning,
                },
                summary: summary.to_owned(),
                detail: format!(
                    "tfwasm checked the {rpc} result of provider {:?} for {type_name} and found at {}: {}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
                    self.provider,
                    if v.path.is_root() { "the object itself".to_owned() } else { format!("`{}`", v.path) },
                    v.message
                ),
                attribute: (!v.path.is_root()).then_some(v.path),
            })
            .collect()
    }
}

/// Decodes a provider result; a value that does not fit the schema is itself a violation.
fn decode_result(value: &DynamicValue, ty: &Type) -> Result<Value, Violation> {
    value.decode(ty).map_err(|e| Violation {
        path: e.path.clone(),
        message: format!("does not conform to the schema: {}", e.message),
    })
}

impl<P: Provider> Provider for Checked<P> {
    async fn get_provider_schema(&self) -> ProviderSchema {
        self.schema().await.clone()
    }

    fn server_capabilities(&self) -> ServerCapabilities {
        self.inner.server_capabilities()
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        self.inner.validate_provider_config(config).await
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        self.inner.configure_provider(req).await
    }

    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.inner.validate_resource_config(req).await
    }

    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.inner.validate_data_resource_config(req).await
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let type_name = req.type_name.clone();
        let mut resp = self.inner.upgrade_resource_state(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        if let Some((_, ty)) = self.resource(&type_name).await {
            let violations = match decode_result(&resp.upgraded_state, ty) {
                Ok(state) => check_wholly_known(&state),
                Err(v) => vec![v],
            };
            resp.diagnostics.extend(self.diagnostics(
                "Invalid resource state upgrade",
                "UpgradeResourceState",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let type_name = req.type_name.clone();
        let current = req.current_state.clone();
        let mut resp = self.inner.read_resource(req).await;
        if let Some((_, ty)) = self.resource(&type_name).await {
            let violations = match decode_result(&resp.new_state, ty) {
                Ok(state) => check_wholly_known(&state),
                Err(v) => vec![v],
            };
            if !violations.is_empty() {
                // Keep what Terraform knew rather than a state it cannot store.
                resp.new_state = current;
            }
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid object",
                "ReadResource",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let type_name = req.type_name.clone();
        let inputs = self.resource(&type_name).await.and_then(|(schema, ty)| {
            let prior = req.prior_state.decode(ty).ok()?;
            let config = req.config.decode(ty).ok()?;
            Some((schema, ty, prior, config))
        });
        let mut resp = self.inner.plan_resource_change(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        // Inputs Terraform sent that do not decode are not the provider's fault: no check.
        if let Some((schema, ty, prior, config)) = inputs {
            let mut violations = match decode_result(&resp.planned_state, ty) {
                Ok(planned) => check_plan(&schema.block, &prior, &config, &planned),
                Err(v) => vec![v],
            };
            violations.extend(check_requires_replace(
                &schema.block,
                &prior,
                &resp.requires_replace,
            ));
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid plan",
                "PlanResourceChange",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let type_name = req.type_name.clone();
        let prior_state = req.prior_state.clone();
        let inputs = self.resource(&type_name).await.and_then(|(schema, ty)| {
            let planned = req.planned_state.decode(ty).ok()?;
            Some((schema, ty, planned))
        });
        let mut resp = self.inner.apply_resource_change(req).await;
        if let Some((schema, ty, planned)) = inputs {
            let violations = match decode_result(&resp.new_state, ty) {
                // With errors the provider may return a partial state: only its shape matters.
                Ok(_) if tfwasm_model::has_error(&resp.diagnostics) => Vec::new(),
                Ok(new) => check_apply(&schema.block, &planned, &new),
                Err(v) => {
                    // Terraform cannot store what does not decode; keep the prior object.
                    resp.new_state = prior_state;
                    vec![v]
                }
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced inconsistent result after apply",
                "ApplyResourceChange",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let requested = req.type_name.clone();
        let mut resp = self.inner.import_resource_state(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        let mut violations = Vec::new();
        let mut kept = Vec::new();
        for imported in std::mem::take(&mut resp.imported_resources) {
            let known_type = self.resource(&imported.type_name).await;
            let found = match &known_type {
                Some((_, ty)) => match decode_result(&imported.state, ty) {
                    Ok(state) => check_import(&imported.type_name, true, &state),
                    Err(v) => vec![v],
                },
                None => check_import(&imported.type_name, false, &Value::Null),
            };
            // Terraform 1.0.3 crashes on an import without a known type, so such an object
            // never leaves the host, even in warn mode; others follow the mode.
            if found.is_empty() || (self.mode == Mode::Warn && known_type.is_some()) {
                kept.push(imported);
            }
            violations.extend(found);
        }
        resp.imported_resources = kept;
        resp.diagnostics.extend(self.diagnostics(
            "Provider produced invalid object",
            "ImportResourceState",
            &requested,
            violations,
        ));
        resp
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let type_name = req.type_name.clone();
        let mut resp = self.inner.read_data_source(req).await;
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        let schema = self.schema().await.data_sources.get(&type_name).cloned();
        if let Some(schema) = schema {
            let violations = match decode_result(&resp.state, &schema.block.implied_type()) {
                Ok(state) => check_data_source(&state),
                Err(v) => vec![v],
            };
            resp.diagnostics.extend(self.diagnostics(
                "Provider produced invalid object",
                "ReadDataSource",
                &type_name,
                violations,
            ));
        }
        resp
    }

    async fn stop_provider(&self) -> Result<(), String> {
        self.inner.stop_provider().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::rpc::ImportedResource;
    use tfwasm_model::{Attribute, AttributePath, Block};

    /// A provider that answers every call with canned responses.
    #[derive(Default)]
    struct Fake {
        plan: PlanResourceChangeResponse,
        apply: ApplyResourceChangeResponse,
        read: ReadResourceResponse,
        import: ImportResourceStateResponse,
        data: ReadDataSourceResponse,
        upgrade: UpgradeResourceStateResponse,
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

    impl Provider for Fake {
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
        async fn validate_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
            Vec::new()
        }
        async fn validate_data_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
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
        async fn read_data_source(&self, _: ReadDataSourceRequest) -> ReadDataSourceResponse {
            self.data.clone()
        }
        async fn stop_provider(&self) -> Result<(), String> {
            Ok(())
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
        let resp =
            run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
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
        let resp =
            run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
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
        let resp =
            run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
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
        let resp =
            run(Checked::new(fake, "fake", Mode::Enforce).plan_resource_change(plan_request()));
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
}
