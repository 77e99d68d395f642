//! The resource family: validation, upgrade, read, plan, apply and import.

use super::*;

/// `validate-resource-config`.
pub fn validate_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(resource.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// `upgrade-resource-state`. State at the current version is decoded straight from JSON;
/// older versions go to the resource's upgrader for that version.
pub fn upgrade_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::UpgradeRequest,
) -> wit::UpgradeResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let json: serde_json::Value = serde_json::from_slice(&req.raw_state_json).map_err(|e| {
            Diagnostic::error(
                "Unable to read stored state",
                format!("The stored state is not valid JSON: {e}."),
            )
        })?;
        let value = if req.version == schema.version {
            codec::json::decode(&json, ty).map_err(|e| {
                Diagnostic::error("Unable to read stored state", format!("{e}.")).at(e.path.clone())
            })?
        } else if req.version > schema.version {
            return Err(Diagnostic::error(
                "Resource state written by a newer provider",
                format!(
                    "The {} state has schema version {} but this provider only knows up to {}; upgrade the provider.",
                    req.type_name, req.version, schema.version
                ),
            ));
        } else {
            let ctx = context(c, ctx)?;
            let mut upgraders = resource.upgraders();
            let Some(upgrader) = upgraders.remove(&req.version) else {
                let known: Vec<i64> = upgraders.keys().copied().collect();
                return Err(Diagnostic::error(
                    "Unable to upgrade resource state",
                    format!(
                        "{} has no upgrader from schema version {} to {} (upgraders exist for versions {known:?}).",
                        req.type_name, req.version, schema.version
                    ),
                ));
            };
            let prior_value = match &upgrader.prior_schema {
                Some(prior) => codec::json::decode(&json, &prior.value_type()).map_err(|e| {
                    Diagnostic::error(
                        "Unable to read stored state",
                        format!(
                            "The {} state does not match its schema version {}: {e}.",
                            req.type_name, req.version
                        ),
                    )
                    .at(e.path.clone())
                })?,
                None => Value::Null,
            };
            let prior = crate::PriorState {
                version: req.version,
                raw: json,
                value: prior_value,
            };
            let upgraded = (upgrader.upgrade)(&ctx, &prior)?;
            // Unknowns in upgraded state are always a bug (Terraform ≥ 1.8 rejects them).
            if let Some(path) = upgraded.first_unknown() {
                return Err(Diagnostic::error(
                    "Provider returned an unknown value in upgraded state",
                    format!(
                        "The upgrader of {} from version {} left {path}; upgraded state must be wholly known.",
                        req.type_name, req.version
                    ),
                ));
            }
            upgraded
        };
        encode(&value, ty, "upgraded state")
    })();
    match result {
        Ok(state) => wit::UpgradeResponse {
            upgraded_state: state,
            diagnostics: Vec::new(),
        },
        Err(d) => wit::UpgradeResponse {
            upgraded_state: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `read-resource`.
pub fn read_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ReadRequest,
) -> wit::ReadResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let state = decode(&req.current_state, ty, "current state")?;
        if state.is_null() {
            return Ok((codec::msgpack::NULL.to_vec(), req.private.clone(), None));
        }
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &state);
        load_private(&ctx, &req.private)?;
        match resource.read(&ctx, &state)? {
            Some(new_state) => {
                #[cfg(feature = "invariants")]
                if crate::invariants::ENABLED {
                    invariant(crate::invariants::check_known(
                        &req.type_name,
                        "the state after read",
                        &new_state,
                    ))?;
                }
                Ok((
                    encode_or_copy(
                        &new_state,
                        (&req.current_state, &state),
                        ty,
                        "state after read",
                    )?,
                    save_private(&ctx),
                    identity_for(entry, &new_state)?,
                ))
            }
            None => Ok((codec::msgpack::NULL.to_vec(), Vec::new(), None)),
        }
    })();
    match result {
        Ok((new_state, private, new_identity)) => wit::ReadResponse {
            new_state,
            private,
            diagnostics: Vec::new(),
            deferred: deferred(),
            new_identity,
        },
        // Keep the current state on error so Terraform does not forget the object.
        Err(d) => wit::ReadResponse {
            new_state: req.current_state,
            private: req.private,
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
            new_identity: req.current_identity,
        },
    }
}

/// Largest encoded prior state a plan copies to recognise an unchanged plan by.
const COPY_PRIOR_BYTES: usize = 64 << 10;

/// `plan-resource-change`.
pub fn plan_resource_change(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PlanRequest,
) -> wit::PlanResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let prior = decode(&req.prior_state, ty, "prior state")?;
        let proposed = decode_or_copy(
            &req.proposed_new_state,
            (&req.prior_state, &prior),
            ty,
            "proposed new state",
        )?;
        let config = decode_or_copy(
            &req.config,
            (&req.proposed_new_state, &proposed),
            ty,
            "configuration",
        )?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &config);
        crate::log::mask_sensitive(schema, &prior);
        load_private(&ctx, &req.prior_private)?;
        ctx.saved_plan_private = parse_private(&req.planned_private)?;
        let computed_blocks = ctx.client.computed_blocks_allowed;
        // What an unchanged plan is recognised by: a copy, since `modify_plan` may change
        // `plan.prior` too. Only for a small prior, whose copy costs less than the encoding it
        // spares (a refresh plan); a large one is encoded as before.
        let before =
            (!prior.is_null() && req.prior_state.len() <= COPY_PRIOR_BYTES).then(|| prior.clone());
        let mut plan = plan_defaults_for(schema, prior, proposed, config, computed_blocks);
        resource.modify_plan(&ctx, &mut plan)?;
        #[cfg(feature = "invariants")]
        if crate::invariants::ENABLED {
            let block = schema.to_wire().block;
            invariant(crate::invariants::check_plan(
                &req.type_name,
                &block,
                &plan.prior,
                &plan.config,
                &plan.planned,
                computed_blocks,
            ))?;
        }
        let planned = match &before {
            Some(prior) => encode_or_copy(&plan.planned, (&req.prior_state, prior), ty, "plan")?,
            None => encode(&plan.planned, ty, "plan")?,
        };
        // An update keeps the object and so its identity; a create or replacement names a
        // new object: planned only when the plan already knows all of it, as
        // terraform-plugin-framework plans none. OpenTofu stores the planned identity as
        // JSON, which cannot hold an unknown, and fails the plan on one.
        let keeps_object = !plan.prior.is_null() && plan.requires_replace.is_empty();
        let identity = match stored_identity(&req.prior_identity, entry) {
            Some(_) if keeps_object && !plan.planned.is_null() => req.prior_identity.clone(),
            _ => known_identity(entry, &plan.planned)?,
        };
        Ok((planned, plan.requires_replace, save_private(&ctx), identity))
    })();
    match result {
        Ok((planned_state, requires_replace, planned_private, planned_identity)) => {
            wit::PlanResponse {
                planned_state,
                requires_replace: requires_replace.iter().map(to_wit_path).collect(),
                planned_private,
                diagnostics: Vec::new(),
                deferred: deferred(),
                planned_identity,
            }
        }
        Err(d) => wit::PlanResponse {
            planned_state: req.proposed_new_state,
            requires_replace: Vec::new(),
            planned_private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
            planned_identity: None,
        },
    }
}

/// `apply-resource-change`: create, update or delete by which side is null.
pub fn apply_resource_change(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ApplyRequest,
) -> wit::ApplyResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let prior = decode(&req.prior_state, ty, "prior state")?;
        let planned = decode(&req.planned_state, ty, "planned state")?;
        let config = decode_or_copy(
            &req.config,
            (&req.planned_state, &planned),
            ty,
            "configuration",
        )?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        crate::log::mask_sensitive(schema, &config);
        crate::log::mask_sensitive(schema, &prior);
        ctx.state_type = Some(entry.shared_ty().clone());
        load_private(&ctx, &req.planned_private)?;
        crate::provider::LAST_REPORTED.with(|slot| slot.borrow_mut().take());
        let new_state = if planned.is_null() {
            resource.delete(&ctx, &prior)?;
            Value::Null
        } else if prior.is_null() {
            resource.create(&ctx, &planned, &config)?
        } else {
            resource.update(&ctx, &prior, &planned, &config)?
        };
        crate::log::mask_sensitive(schema, &new_state);
        let bytes = encode(&new_state, ty, "new state")?;
        // The object exists: a broken invariant is handed back with the state, never lost.
        #[cfg(feature = "invariants")]
        let diagnostics = if crate::invariants::ENABLED {
            let block = schema.to_wire().block;
            crate::invariants::check_apply(&req.type_name, &block, &planned, &new_state)
        } else {
            Vec::new()
        };
        #[cfg(not(feature = "invariants"))]
        let diagnostics = Vec::new();
        let private = if new_state.is_null() {
            Vec::new()
        } else {
            save_private(&ctx)
        };
        let identity = identity_for(entry, &new_state)?;
        Ok((bytes, private, diagnostics, identity))
    })();
    match result {
        Ok((new_state, private, diagnostics, new_identity)) => wit::ApplyResponse {
            new_state,
            private,
            diagnostics: diags(&diagnostics),
            new_identity,
        },
        // On failure hand back the state the resource reported (the remote object exists),
        // else the prior state: the object is as it was before this apply.
        Err(d) => wit::ApplyResponse {
            new_state: crate::provider::LAST_REPORTED
                .with(|slot| slot.borrow_mut().take())
                .unwrap_or(req.prior_state),
            private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            new_identity: None,
        },
    }
}

/// `import-resource-state`.
pub fn import_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ImportRequest,
) -> wit::ImportResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, ty) = (&entry.item, entry.ty());
        let ctx = context(c, ctx)?;
        let state = match stored_identity(&req.identity, entry) {
            Some(identity) if req.id.is_empty() => resource.import_identity(&ctx, &identity)?,
            _ if req.id.is_empty() && req.identity.is_some() => {
                return Err(Diagnostic::error(
                    "Import by identity not supported",
                    format!(
                        "{} declares no identity, so it can only be imported by ID.",
                        req.type_name
                    ),
                ));
            }
            _ => resource.import(&ctx, &req.id)?,
        };
        #[cfg(feature = "invariants")]
        if crate::invariants::ENABLED {
            invariant(crate::invariants::check_known(
                &req.type_name,
                "the imported state",
                &state,
            ))?;
        }
        let identity = identity_for(entry, &state)?;
        Ok((
            encode(&state, ty, "imported state")?,
            save_private(&ctx),
            identity,
        ))
    })();
    match result {
        Ok((state, private, identity)) => wit::ImportResponse {
            imported: vec![wit::ImportedResource {
                type_name: req.type_name,
                state,
                private,
                identity,
            }],
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::ImportResponse {
            imported: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self, wit};

    impl ResourceServer for NativeProvider {
        async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
            diagnostics(glue::validate_resource_config(
                self.p(),
                self.ctx(),
                wit::ValidateRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                },
            ))
        }

        async fn upgrade_resource_state(
            &self,
            req: UpgradeResourceStateRequest,
        ) -> UpgradeResourceStateResponse {
            let resp = glue::upgrade_resource_state(
                self.p(),
                self.ctx(),
                wit::UpgradeRequest {
                    type_name: req.type_name,
                    version: req.version,
                    raw_state_json: req.raw_state.json,
                },
            );
            UpgradeResourceStateResponse {
                upgraded_state: dv(resp.upgraded_state),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
            let resp = self.io(|| {
                glue::read_resource(
                    self.p(),
                    self.ctx_for(req.client_capabilities),
                    wit::ReadRequest {
                        type_name: req.type_name,
                        current_state: req.current_state.msgpack,
                        private: req.private,
                        provider_meta: req.provider_meta.msgpack,
                        current_identity: identity(req.current_identity),
                    },
                )
            });
            ReadResourceResponse {
                deferred: deferred(resp.deferred),
                new_state: dv(resp.new_state),
                diagnostics: diagnostics(resp.diagnostics),
                private: resp.private,
                new_identity: resp.new_identity.map(dv),
            }
        }

        async fn plan_resource_change(
            &self,
            req: PlanResourceChangeRequest,
        ) -> PlanResourceChangeResponse {
            let resp = glue::plan_resource_change(
                self.p(),
                self.ctx_for(req.client_capabilities),
                wit::PlanRequest {
                    type_name: req.type_name,
                    prior_state: req.prior_state.msgpack,
                    proposed_new_state: req.proposed_new_state.msgpack,
                    config: req.config.msgpack,
                    prior_private: req.prior_private,
                    provider_meta: req.provider_meta.msgpack,
                    prior_identity: identity(req.prior_identity),
                    planned_private: req.planned_private,
                },
            );
            PlanResourceChangeResponse {
                deferred: deferred(resp.deferred),
                planned_state: dv(resp.planned_state),
                requires_replace: resp.requires_replace.into_iter().map(path).collect(),
                planned_private: resp.planned_private,
                diagnostics: diagnostics(resp.diagnostics),
                planned_identity: resp.planned_identity.map(dv),
            }
        }

        async fn apply_resource_change(
            &self,
            req: ApplyResourceChangeRequest,
        ) -> ApplyResourceChangeResponse {
            let resp = self.io(|| {
                glue::apply_resource_change(
                    self.p(),
                    self.ctx(),
                    wit::ApplyRequest {
                        type_name: req.type_name,
                        prior_state: req.prior_state.msgpack,
                        planned_state: req.planned_state.msgpack,
                        config: req.config.msgpack,
                        planned_private: req.planned_private,
                        provider_meta: req.provider_meta.msgpack,
                        planned_identity: identity(req.planned_identity),
                    },
                )
            });
            ApplyResourceChangeResponse {
                new_state: dv(resp.new_state),
                private: resp.private,
                diagnostics: diagnostics(resp.diagnostics),
                new_identity: resp.new_identity.map(dv),
            }
        }

        async fn import_resource_state(
            &self,
            req: ImportResourceStateRequest,
        ) -> ImportResourceStateResponse {
            let resp = self.io(|| {
                glue::import_resource_state(
                    self.p(),
                    self.ctx_for(req.client_capabilities),
                    wit::ImportRequest {
                        type_name: req.type_name,
                        id: req.id,
                        identity: identity(req.identity),
                    },
                )
            });
            ImportResourceStateResponse {
                deferred: deferred(resp.deferred),
                imported_resources: resp
                    .imported
                    .into_iter()
                    .map(|i| ImportedResource {
                        type_name: i.type_name,
                        state: dv(i.state),
                        private: i.private,
                        identity: i.identity.map(dv),
                    })
                    .collect(),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }
    }
}
