//! The move family: MoveResourceState.

use super::*;

/// `move-resource-state`: the first of the target type's movers that takes the source
/// returns the target state, which must be wholly known. The target's private data is what
/// the mover sets (`Context::set_private`); the source's, written by whichever provider
/// owned it, is not carried over.
pub fn move_resource_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::MoveRequest,
) -> wit::MoveResponse {
    let result = (|| {
        let entry = find_resource(c, &req.target_type_name)?;
        let (resource, ty) = (&entry.item, entry.ty());
        let raw: serde_json::Value =
            serde_json::from_slice(&req.source_state_json).map_err(|e| {
                Diagnostic::error(
                    "Unable to read the moved state",
                    format!("The stored state of the source is not valid JSON: {e}."),
                )
            })?;
        let ctx = context(c, ctx)?;
        let mut source = crate::MoveSource {
            provider_address: req.source_provider_address.clone(),
            type_name: req.source_type_name.clone(),
            schema_version: req.source_schema_version,
            raw,
            value: Value::Null,
            identity: req
                .source_identity_json
                .as_deref()
                .and_then(|json| serde_json::from_slice(json).ok())
                .map(|json| (json, req.source_identity_version)),
        };
        for mover in resource.movers() {
            source.value = match &mover.source {
                Some((type_name, schema)) => {
                    if *type_name != source.type_name || schema.version != source.schema_version {
                        continue;
                    }
                    match codec::json::decode(&source.raw, &schema.value_type()) {
                        Ok(value) => value,
                        // Same name, other shape (another provider's type): not this mover's.
                        Err(_) => continue,
                    }
                }
                None => Value::Null,
            };
            let Some(moved) = (mover.mover)(&ctx, &source)? else {
                continue;
            };
            if let Some(path) = moved.first_unknown() {
                return Err(Diagnostic::error(
                    "Provider returned an unknown value in moved state",
                    format!(
                        "Moving {} to {} left {path}; a moved state must be wholly known.",
                        source.type_name, req.target_type_name
                    ),
                ));
            }
            let identity = identity_for(entry, &moved)?;
            return Ok((
                encode(&moved, ty, "moved state")?,
                save_private(&ctx),
                identity,
            ));
        }
        Err(Diagnostic::error(
            "Unable to Move Resource State",
            format!(
                "{} cannot be moved from {} of {} (schema version {}): no state mover of {} accepts it.",
                req.target_type_name,
                req.source_type_name,
                req.source_provider_address,
                req.source_schema_version,
                req.target_type_name
            ),
        ))
    })();
    match result {
        Ok((state, private, identity)) => wit::MoveResponse {
            target_state: state,
            target_private: private,
            diagnostics: Vec::new(),
            target_identity: identity,
        },
        Err(d) => wit::MoveResponse {
            target_state: Vec::new(),
            target_private: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            target_identity: None,
        },
    }
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self, wit};

    impl MoveServer for NativeProvider {
        fn moves_state(&self) -> bool {
            true
        }

        async fn move_resource_state(
            &self,
            req: MoveResourceStateRequest,
        ) -> MoveResourceStateResponse {
            let resp = glue::move_resource_state(
                self.p(),
                self.ctx(),
                wit::MoveRequest {
                    source_provider_address: req.source_provider_address,
                    source_type_name: req.source_type_name,
                    source_schema_version: req.source_schema_version,
                    source_state_json: req.source_state.json,
                    target_type_name: req.target_type_name,
                    source_private: req.source_private,
                    source_identity_json: req.source_identity.map(|raw| raw.json),
                    source_identity_version: req.source_identity_schema_version,
                },
            );
            MoveResourceStateResponse {
                target_state: dv(resp.target_state),
                target_private: resp.target_private,
                diagnostics: diagnostics(resp.diagnostics),
                target_identity: resp.target_identity.map(dv),
            }
        }
    }
}
