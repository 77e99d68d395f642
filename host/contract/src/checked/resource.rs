//! The resource family: upgrade, read, plan, apply and import results are checked.

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ImportResourceStateRequest,
    ImportResourceStateResponse, PlanResourceChangeRequest, PlanResourceChangeResponse,
    ReadResourceRequest, ReadResourceResponse, ResourceServer, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::{Diagnostic, Diagnostics, Provider, SchemaIndex, Value};

use std::sync::Arc;

use super::aside;
use super::{Checked, Mode, decode_result, decode_result_unless, resource_in, stored};
use crate::decodings::Of;
use crate::{
    IdentityRole, Violations, check_apply_with, check_import, check_plan_with,
    check_requires_replace_in, check_write_only_null, has_write_only,
};

impl<P: Provider> ResourceServer for Checked<P> {
    /// Also the client's side of write-only attributes: a client that cannot keep them out of
    /// state (Terraform < 1.11 says so by not announcing `write_only_attributes_allowed`)
    /// must not be given one, or the secret would be stored.
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        let allowed = req.client_capabilities.write_only_attributes_allowed;
        let (type_name, config) = (req.type_name.clone(), req.config.clone());
        let mut diagnostics = self.inner.validate_resource_config(req).await;
        if allowed {
            return diagnostics;
        }
        if let Some((schema, ty)) = self.resource(&type_name).await
            && has_write_only(&schema.block)
            && let Ok(decoded) = config.decode(ty)
        {
            let found = check_write_only_null(&schema.block, &decoded);
            self.hand_on(Of::Resource(&type_name), &config, decoded);
            for v in found {
                // A sensitive map's keys (the user's configuration) are not shown.
                let v = crate::secret::mask(&schema.block, v);
                diagnostics.push(
                    Diagnostic::error(
                        "Write-only attribute not supported by this client",
                        format!(
                            "`{}` of {type_name} is write-only: its value must never be stored, but this Terraform/OpenTofu does not support write-only attributes and would store it in state and plan files. Use Terraform >= 1.11, or leave it unset.",
                            v.path
                        ),
                    )
                    .at(v.path),
                );
            }
        }
        diagnostics
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
        if let Some((schema, ty)) = self.resource(&type_name).await {
            let violations = match decode_result(&resp.upgraded_state, ty) {
                Ok(state) => {
                    let found = stored(&schema.block, &state);
                    self.hand_on(Of::Resource(&type_name), &resp.upgraded_state, state);
                    found
                }
                Err(v) => Violations::from(vec![v]),
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
        let current_identity = req.current_identity.clone();
        let allowed = req.client_capabilities.deferral_allowed;
        let mut resp = self.inner.read_resource(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "ReadResource",
            &type_name,
        );
        if let Some((schema, ty)) = self.resource(&type_name).await {
            let mut violations = if resp.new_state == current {
                // The state Terraform holds, byte for byte (every resource a refresh finds
                // unchanged): it stored it, so it can store it again.
                Violations::new()
            } else {
                match decode_result(&resp.new_state, ty) {
                    Ok(state) => {
                        let found = stored(&schema.block, &state);
                        // Only a state that stays in the answer (below) is worth keeping.
                        if found.is_empty() {
                            self.hand_on(Of::Resource(&type_name), &resp.new_state, state);
                        }
                        found
                    }
                    Err(v) => Violations::from(vec![v]),
                }
            };
            if !violations.is_empty() {
                // Keep what Terraform knew rather than a state it cannot store.
                resp.new_state = current;
                resp.new_identity = current_identity;
            } else if !tfwasm_model::has_error(&resp.diagnostics) {
                let exists = !resp.new_state.is_null();
                violations.extend(
                    self.check_identity(
                        &type_name,
                        exists,
                        &mut resp.new_identity,
                        IdentityRole::Final,
                        Some((&current_identity, "during refresh")),
                    )
                    .await,
                );
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
        // Asked once per call: a failed schema answer is not kept, so each ask reaches the guest.
        let index = Arc::clone(self.index().await);
        // Decoded for the checks while the provider plans, when large (aside.rs).
        let input_bytes = aside::bytes(&[&req.prior_state, &req.config]);
        let inputs = aside::decode(
            &index,
            &type_name,
            [&req.prior_state, &req.config],
            plan_inputs,
        );
        let allowed = req.client_capabilities.deferral_allowed;
        let computed_blocks = req.client_capabilities.computed_blocks_allowed;
        let prior_identity = req.prior_identity.clone();
        // Kept to recognise a planned state that is the prior one byte for byte (every
        // resource a refresh plan leaves unchanged), which then needs no decoding of its own.
        let prior_state = req.prior_state.clone();
        // Its bytes, to find the checks' decoding again, when the call is recorded.
        let config =
            crate::decodings::would_keep(req.config.msgpack.len()).then(|| req.config.clone());
        let mut resp = self.inner.plan_resource_change(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "PlanResourceChange",
            &type_name,
        );
        if tfwasm_model::has_error(&resp.diagnostics) {
            // Not waited for: a helper still decoding finishes and frees what it decoded.
            drop(inputs);
            return resp;
        }
        // Inputs Terraform sent that do not decode are not the provider's fault: no check.
        if let (Some((schema, ty, layout)), Some((prior, config_value))) =
            (resource_in(&index, &type_name), inputs.join().flatten())
        {
            let planned_bytes = aside::bytes(&[&resp.planned_state]);
            let mut violations = match decode_result_unless(&resp.planned_state, &prior_state, ty) {
                Ok(planned) => {
                    let plan = planned.as_ref().unwrap_or(&prior);
                    let block = &schema.block;
                    let found = check_plan_with(
                        block,
                        layout,
                        &prior,
                        &config_value,
                        plan,
                        computed_blocks,
                    );
                    if let Some(planned) = planned
                        && let Some(planned) =
                            self.hand_on(Of::Resource(&type_name), &resp.planned_state, planned)
                    {
                        aside::free(planned_bytes, planned);
                    }
                    found
                }
                Err(v) => Violations::from(vec![v]),
            };
            violations.extend(check_requires_replace_in(
                ty,
                &prior,
                &resp.requires_replace,
            ));
            // An update keeps the object, so it keeps its identity; a replacement or a
            // create names a new one.
            let update = !prior.is_null() && resp.requires_replace.is_empty();
            let of = Of::Resource(&type_name);
            let config_value = match &config {
                Some(config) => self.hand_on(of, config, config_value),
                None => Some(config_value),
            };
            let prior = self.hand_on(of, &prior_state, prior);
            aside::free(input_bytes, (prior, config_value));
            let exists = !resp.planned_state.is_null();
            violations.extend(
                self.check_identity(
                    &type_name,
                    exists && resp.deferred.is_none(),
                    &mut resp.planned_identity,
                    IdentityRole::Planned,
                    update.then_some((&prior_identity, "in the plan of an update")),
                )
                .await,
            );
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
        let planned_identity = req.planned_identity.clone();
        let index = Arc::clone(self.index().await);
        // Decoded for the checks while the provider applies, when large (aside.rs).
        let planned_bytes = aside::bytes(&[&req.planned_state]);
        // Kept to recognise a new state that is the planned one byte for byte (an update
        // the plan knew all of), which then needs no decoding of its own.
        let planned_state = req.planned_state.clone();
        let inputs = aside::decode(
            &index,
            &type_name,
            [&req.planned_state],
            |index, name, [v]| v.decode(index.resource_type(name)?).ok(),
        );
        let mut resp = self.inner.apply_resource_change(req).await;
        if let (Some((schema, ty, layout)), Some(planned)) =
            (resource_in(&index, &type_name), inputs.join().flatten())
        {
            let new_bytes = aside::bytes(&[&resp.new_state]);
            let violations = match decode_result_unless(&resp.new_state, &planned_state, ty) {
                // With errors the provider may return a partial state: only its shape matters.
                Ok(new) if tfwasm_model::has_error(&resp.diagnostics) => {
                    let kept =
                        self.hand_on_applied(&type_name, &planned_state, planned, &resp, new);
                    aside::free(planned_bytes + new_bytes, kept);
                    Violations::new()
                }
                Ok(new) => {
                    let state = new.as_ref().unwrap_or(&planned);
                    let mut found = check_apply_with(&schema.block, layout, &planned, state);
                    found.extend(check_write_only_null(&schema.block, state));
                    found.extend(
                        self.check_identity(
                            &type_name,
                            !state.is_null(),
                            &mut resp.new_identity,
                            IdentityRole::Final,
                            Some((&planned_identity, "between plan and apply")),
                        )
                        .await,
                    );
                    let kept =
                        self.hand_on_applied(&type_name, &planned_state, planned, &resp, new);
                    aside::free(planned_bytes + new_bytes, kept);
                    found
                }
                Err(v) => {
                    // Terraform cannot store what does not decode; keep the prior object.
                    resp.new_state = prior_state;
                    Violations::from(vec![v])
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
        let allowed = req.client_capabilities.deferral_allowed;
        let mut resp = self.inner.import_resource_state(req).await;
        self.refuse_deferral(
            allowed,
            &mut resp.deferred,
            &mut resp.diagnostics,
            "ImportResourceState",
            &requested,
        );
        if tfwasm_model::has_error(&resp.diagnostics) {
            return resp;
        }
        let mut violations = Violations::new();
        let mut kept = Vec::new();
        for mut imported in std::mem::take(&mut resp.imported_resources) {
            let known_type = self.resource(&imported.type_name).await;
            let mut decoded = None;
            let found = match &known_type {
                Some((schema, ty)) => match decode_result(&imported.state, ty) {
                    Ok(state) => {
                        let mut found = check_import(&imported.type_name, true, &state);
                        found.extend(check_write_only_null(&schema.block, &state));
                        found.extend(
                            self.check_identity(
                                &imported.type_name,
                                !state.is_null(),
                                &mut imported.identity,
                                IdentityRole::Final,
                                None,
                            )
                            .await,
                        );
                        decoded = Some(state);
                        found
                    }
                    Err(v) => Violations::from(vec![v]),
                },
                None => check_import(&imported.type_name, false, &Value::Null),
            };
            // Terraform 1.0.3 crashes on an import without a known type, so such an object
            // never leaves the host, even in warn mode; others follow the mode.
            if found.is_empty() || (self.mode == Mode::Warn && known_type.is_some()) {
                if let Some(state) = decoded {
                    self.hand_on(Of::Resource(&imported.type_name), &imported.state, state);
                }
                kept.push(imported);
            }
            // Masked by the object's own type, which may not be the requested one.
            match &known_type {
                Some((schema, _)) => {
                    let block = &schema.block;
                    violations.extend(found.map(|v| crate::secret::mask(block, v)));
                }
                None => violations.extend(found),
            }
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
}

impl<P: Provider> Checked<P> {
    /// An apply's planned and new states handed on to the call's recording
    /// ([`Checked::hand_on`]); what it does not keep is given back to be freed.
    fn hand_on_applied(
        &self,
        type_name: &str,
        planned_state: &DynamicValue,
        planned: Value,
        resp: &ApplyResourceChangeResponse,
        new: Option<Value>,
    ) -> (Option<Value>, Option<Value>) {
        let of = Of::Resource(type_name);
        let new = new.and_then(|new| self.hand_on(of, &resp.new_state, new));
        (self.hand_on(of, planned_state, planned), new)
    }
}

/// A plan's prior state and configuration, decoded for its checks; none when the schema has
/// no such type or Terraform's values do not decode (not the provider's fault: no check).
fn plan_inputs(
    index: &SchemaIndex,
    type_name: &str,
    [prior, config]: [&DynamicValue; 2],
) -> Option<(Value, Value)> {
    let ty = index.resource_type(type_name)?;
    Some((prior.decode(ty).ok()?, config.decode(ty).ok()?))
}
