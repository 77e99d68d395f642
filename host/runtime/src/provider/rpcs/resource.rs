//! The resource family.

use tfwasm_model::Diagnostics;
use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, DynamicValue,
    ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadResourceRequest,
    ReadResourceResponse, ResourceServer, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};

use tfwasm_model::Block;

use super::super::WasmProvider;
use super::super::call::{ReturnedValues, ident, largest};
use super::{bytes, diagnostics};
use crate::Journal;
use crate::bindings::Exports as _;
use crate::bindings::{self, resource, wit};
use crate::journal::TypeSchema;

impl WasmProvider {
    /// UpgradeResourceState of state already at the current schema version, answered in the
    /// host when the guest declared that its answer would be the plain decode
    /// (`host-decodes-current-state`): one guest call fewer per resource and refresh. `None`
    /// when the guest must be asked.
    async fn decode_current_state(
        &self,
        req: &UpgradeResourceStateRequest,
    ) -> Option<UpgradeResourceStateResponse> {
        let known = self.guest_schema().await.ok()?;
        let ty = known.current_state_types.get(&req.type_name)?;
        let schema = known.index.provider.resources.get(&req.type_name)?;
        if schema.version != req.version || req.raw_state.json.is_empty() {
            return None;
        }
        let decoded = tfwasm_model::codec::json::decode_bytes(&req.raw_state.json, ty)
            .and_then(|value| DynamicValue::encode(&value, ty));
        Some(match decoded {
            Ok(upgraded_state) => UpgradeResourceStateResponse {
                upgraded_state,
                diagnostics: Vec::new(),
            },
            Err(e) => UpgradeResourceStateResponse {
                upgraded_state: DynamicValue::default(),
                diagnostics: vec![stored_state_error(req, &schema.block, e)],
            },
        })
    }
}

/// Why stored state did not decode. The stored value is the user's: past a sensitive or
/// write-only attribute neither a map key nor what could not be read is shown.
fn stored_state_error(
    req: &UpgradeResourceStateRequest,
    block: &Block,
    mut e: tfwasm_model::codec::CodecError,
) -> tfwasm_model::Diagnostic {
    let secret = tfwasm_model::schema_path::secret_prefix(block, &e.path.0);
    if let Some(end) = secret {
        e.path.0.truncate(end);
    }
    let why = match secret {
        Some(_) => format!(
            "the sensitive attribute at {} does not fit its type",
            e.path
        ),
        None => e.to_string(),
    };
    tfwasm_model::Diagnostic::error(
        "Unable to read stored state",
        format!(
            "The stored state of {} does not match its schema (version {}): {why}.",
            req.type_name, req.version
        ),
    )
    .at(e.path)
}

impl WasmProvider {
    /// The journal and the resource type's schema, when the journal is on and the guest
    /// knows `type_name`.
    async fn journal_for(&self, type_name: &str) -> Option<(&Journal, TypeSchema)> {
        let journal = self.journal.as_ref()?;
        let known = self.guest_schema().await.ok()?;
        Some((journal, TypeSchema::of(known.index.clone(), type_name)?))
    }
}

impl ResourceServer for WasmProvider {
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = wit::ValidateRequest {
            type_name: req.type_name,
            config: bytes(req.config),
        };
        self.call(
            Rpc::ValidateResourceConfig,
            &subject,
            move |store, guest| {
                Box::pin(async move { guest.validate_resource_config(store, &ctx, &wreq).await })
            },
        )
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        if let Some(resp) = self.decode_current_state(&req).await {
            return resp;
        }
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = resource::UpgradeRequest {
            type_name: req.type_name,
            version: req.version,
            raw_state_json: req.raw_state.json,
        };
        match self
            .call(Rpc::UpgradeResourceState, &subject, move |store, guest| {
                Box::pin(async move { guest.upgrade_resource_state(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => UpgradeResourceStateResponse {
                upgraded_state: DynamicValue::from_msgpack(resp.upgraded_state),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => UpgradeResourceStateResponse {
                upgraded_state: DynamicValue::default(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let ctx = self.context_for(req.client_capabilities);
        let subject = req.type_name.clone();
        let (current_state, private) = (req.current_state.clone(), req.private.clone());
        let wreq = resource::ReadRequest {
            type_name: req.type_name,
            current_state: bytes(req.current_state),
            private: req.private,
            provider_meta: bytes(req.provider_meta),
            current_identity: req.current_identity.clone().map(bytes),
        };
        let current_identity = req.current_identity;
        if let Some((journal, schema)) = self.journal_for(&subject).await {
            journal.settled(&subject, &current_state, &schema);
        }
        match self
            .call(Rpc::ReadResource, &subject, move |store, guest| {
                Box::pin(async move { guest.read_resource(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => ReadResourceResponse {
                new_state: DynamicValue::from_msgpack(resp.new_state),
                private: resp.private,
                diagnostics: diagnostics(resp.diagnostics),
                deferred: bindings::deferred(resp.deferred),
                new_identity: resp.new_identity.map(DynamicValue::from_msgpack),
            },
            // Keep the recorded state: a crash must not make Terraform forget the object.
            Err(e) => ReadResourceResponse {
                new_state: current_state,
                private,
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                deferred: None,
                new_identity: current_identity,
            },
        }
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let ctx = self.context_for(req.client_capabilities);
        let subject = req.type_name.clone();
        // A create of what an interrupted apply already created is stopped here.
        if req.prior_state.is_null()
            && let Some((journal, _)) = self.journal_for(&subject).await
        {
            let interrupted = journal.interrupted(&subject, &req.config);
            if !interrupted.is_empty() {
                return PlanResourceChangeResponse {
                    diagnostics: interrupted,
                    ..PlanResourceChangeResponse::default()
                };
            }
        }
        let wreq = resource::PlanRequest {
            type_name: req.type_name,
            prior_state: bytes(req.prior_state),
            proposed_new_state: bytes(req.proposed_new_state),
            config: bytes(req.config),
            prior_private: req.prior_private,
            provider_meta: bytes(req.provider_meta),
            prior_identity: req.prior_identity.map(bytes),
            planned_private: req.planned_private,
        };
        match self
            .call(Rpc::PlanResourceChange, &subject, move |store, guest| {
                Box::pin(async move { guest.plan_resource_change(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => PlanResourceChangeResponse {
                planned_state: DynamicValue::from_msgpack(resp.planned_state),
                requires_replace: resp
                    .requires_replace
                    .into_iter()
                    .map(bindings::path)
                    .collect(),
                planned_private: resp.planned_private,
                diagnostics: diagnostics(resp.diagnostics),
                deferred: bindings::deferred(resp.deferred),
                planned_identity: resp.planned_identity.map(DynamicValue::from_msgpack),
            },
            Err(e) => PlanResourceChangeResponse {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..PlanResourceChangeResponse::default()
            },
        }
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let prior = req.prior_state.clone();
        // Creates keep what the guest reports in the journal until they answer.
        let journal = if req.prior_state.is_null() {
            self.journal_for(&subject)
                .await
                .map(|(journal, schema)| journal.pending(&subject, &req.config, schema))
        } else {
            None
        };
        let wreq = resource::ApplyRequest {
            type_name: req.type_name,
            prior_state: bytes(req.prior_state),
            planned_state: bytes(req.planned_state),
            config: bytes(req.config),
            planned_private: req.planned_private,
            provider_meta: bytes(req.provider_meta),
            planned_identity: req.planned_identity.map(bytes),
        };
        match self
            .call_journaled(
                Rpc::ApplyResourceChange,
                &subject,
                journal,
                move |store, guest| {
                    Box::pin(async move { guest.apply_resource_change(store, &ctx, &wreq).await })
                },
            )
            .await
        {
            Ok(resp) => ApplyResourceChangeResponse {
                new_state: DynamicValue::from_msgpack(resp.new_state),
                private: resp.private,
                diagnostics: diagnostics(resp.diagnostics),
                new_identity: resp.new_identity.map(DynamicValue::from_msgpack),
            },
            // The call failed: hand back the state the guest reported (the remote object
            // exists), else the prior one, so Terraform keeps what it knew (null on create).
            Err(e) => ApplyResourceChangeResponse {
                new_state: e.reported.map_or(prior, DynamicValue::from_msgpack),
                private: Vec::new(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                new_identity: None,
            },
        }
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let ctx = self.context_for(req.client_capabilities);
        let subject = req.type_name.clone();
        let wreq = resource::ImportRequest {
            type_name: req.type_name,
            id: req.id,
            identity: req.identity.map(bytes),
        };
        match self
            .call(Rpc::ImportResourceState, &subject, move |store, guest| {
                Box::pin(async move { guest.import_resource_state(store, &ctx, &wreq).await })
            })
            .await
        {
            Ok(resp) => {
                let imported_resources: Vec<_> = resp
                    .imported
                    .into_iter()
                    .map(|r| ImportedResource {
                        type_name: r.type_name,
                        state: DynamicValue::from_msgpack(r.state),
                        private: r.private,
                        identity: r.identity.map(DynamicValue::from_msgpack),
                    })
                    .collect();
                for r in &imported_resources {
                    if let Some((journal, schema)) = self.journal_for(&r.type_name).await {
                        journal.settled(&r.type_name, &r.state, &schema);
                    }
                }
                ImportResourceStateResponse {
                    imported_resources,
                    diagnostics: diagnostics(resp.diagnostics),
                    deferred: bindings::deferred(resp.deferred),
                }
            }
            Err(e) => ImportResourceStateResponse {
                imported_resources: Vec::new(),
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                deferred: None,
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::resource::UpgradeResponse {
    fn largest_value(&self) -> usize {
        self.upgraded_state.len()
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::resource::ReadResponse {
    fn largest_value(&self) -> usize {
        largest(&[&self.new_state, &self.private, ident(&self.new_identity)])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::resource::PlanResponse {
    fn cap_lists(&mut self) {
        if let Some(error) = crate::answer_caps::check_requires_replace(&mut self.requires_replace)
        {
            self.diagnostics.push(error);
        }
    }
    fn largest_value(&self) -> usize {
        largest(&[
            &self.planned_state,
            &self.planned_private,
            ident(&self.planned_identity),
        ])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::resource::ApplyResponse {
    fn largest_value(&self) -> usize {
        largest(&[&self.new_state, &self.private, ident(&self.new_identity)])
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
impl ReturnedValues for crate::bindings::resource::ImportResponse {
    fn cap_lists(&mut self) {
        if let Some(error) = crate::answer_caps::check_imported(self.imported.len()) {
            self.imported.clear();
            self.diagnostics.push(error);
        }
    }
    fn largest_value(&self) -> usize {
        self.imported
            .iter()
            .map(|r| largest(&[&r.state, &r.private, ident(&r.identity)]))
            .max()
            .unwrap_or(0)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use tfwasm_model::rpc::RawState;
    use tfwasm_model::{Attribute, Type};

    use super::*;

    /// The sixteenth hostile pass: when the host decoded stored state itself, the error
    /// quoted the user's stored secret and a sensitive map's key.
    #[test]
    fn stored_state_that_does_not_decode_shows_no_secret() {
        let mut pin = Attribute::new("pin", Type::Number);
        pin.sensitive = true;
        let mut tokens = Attribute::new("tokens", Type::map(Type::Bool));
        tokens.sensitive = true;
        let block = Block {
            attributes: vec![pin, tokens, Attribute::new("n", Type::Number)],
            ..Block::default()
        };
        let ty = block.implied_type();
        let req = |json: &str| UpgradeResourceStateRequest {
            type_name: "t_x".into(),
            version: 0,
            raw_state: RawState {
                json: json.as_bytes().to_vec(),
                flatmap: Default::default(),
            },
        };
        for json in [
            r#"{"pin":"SECRET-hunter2","tokens":null,"n":1}"#,
            r#"{"pin":null,"tokens":{"SECRETKEY":"x"},"n":1}"#,
        ] {
            let r = req(json);
            let e = tfwasm_model::codec::json::decode_bytes(&r.raw_state.json, &ty).unwrap_err();
            let d = stored_state_error(&r, &block, e);
            assert!(!format!("{d:?}").contains("SECRET"), "{d:?}");
        }
        let r = req(r#"{"pin":null,"tokens":null,"n":"x"}"#);
        let e = tfwasm_model::codec::json::decode_bytes(&r.raw_state.json, &ty).unwrap_err();
        let d = stored_state_error(&r, &block, e);
        assert!(
            d.detail.contains(".n"),
            "what is not secret is still said: {}",
            d.detail
        );
    }
}
