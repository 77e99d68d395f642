//! The ephemeral resource family: validate, open, renew, close.

use super::*;

/// `validate-ephemeral-resource-config`.
pub fn validate_ephemeral_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let (ephemeral, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(ephemeral.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// Milliseconds since the Unix epoch (0 for times before it).
fn unix_ms(at: std::time::SystemTime) -> u64 {
    at.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `open-ephemeral-resource`: the schema's defaults fill null attributes of the
/// configuration, then the author's `open` runs.
pub fn open_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::OpenRequest,
) -> wit::OpenResponse {
    let result = (|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let (ephemeral, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let mut config = decode(&req.config, ty, "configuration")?;
        crate::log::mask_sensitive(schema, &config);
        for (attr, behaviour) in schema.attributes() {
            if let Some(default) = &behaviour.default
                && config.get(&attr.name).is_none_or(Value::is_null)
            {
                config.set(&attr.name, default.clone());
            }
        }
        let ctx = context(c, ctx)?;
        let opened = ephemeral.open(&ctx, &config)?;
        crate::log::mask_sensitive(schema, &opened.result);
        let result = encode(&opened.result, ty, "ephemeral result")?;
        Ok((result, save_private(&ctx), opened.renew_at.map(unix_ms)))
    })();
    match result {
        Ok((result, private, renew_at_unix_ms)) => wit::OpenResponse {
            result,
            private,
            renew_at_unix_ms,
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::OpenResponse {
            result: Vec::new(),
            private: Vec::new(),
            renew_at_unix_ms: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}

/// `renew-ephemeral-resource`.
pub fn renew_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PrivateRequest,
) -> wit::RenewResponse {
    let result = (|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let ctx = context(c, ctx)?;
        load_private(&ctx, &req.private)?;
        let renew_at = entry.item.renew(&ctx)?;
        Ok((save_private(&ctx), renew_at.map(unix_ms)))
    })();
    match result {
        Ok((private, renew_at_unix_ms)) => wit::RenewResponse {
            private,
            renew_at_unix_ms,
            diagnostics: Vec::new(),
        },
        Err(d) => wit::RenewResponse {
            private: req.private,
            renew_at_unix_ms: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `close-ephemeral-resource`.
pub fn close_ephemeral_resource(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::PrivateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_ephemeral(c, &req.type_name)?;
        let ctx = context(c, ctx)?;
        load_private(&ctx, &req.private)?;
        entry.item.close(&ctx)?;
        Ok(Vec::new())
    })
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self, wit};

    fn renew_at(unix_ms: Option<u64>) -> Option<std::time::SystemTime> {
        unix_ms.map(|ms| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms))
    }

    impl EphemeralServer for NativeProvider {
        async fn validate_ephemeral_resource_config(
            &self,
            req: ValidateConfigRequest,
        ) -> Diagnostics {
            diagnostics(glue::validate_ephemeral_resource_config(
                self.p(),
                self.ctx(),
                wit::ValidateRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                },
            ))
        }

        async fn open_ephemeral_resource(
            &self,
            req: OpenEphemeralResourceRequest,
        ) -> OpenEphemeralResourceResponse {
            let resp = glue::open_ephemeral_resource(
                self.p(),
                self.ctx_for(req.client_capabilities),
                wit::OpenRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                },
            );
            OpenEphemeralResourceResponse {
                deferred: deferred(resp.deferred),
                result: dv(resp.result),
                private: resp.private,
                renew_at: renew_at(resp.renew_at_unix_ms),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn renew_ephemeral_resource(
            &self,
            req: RenewEphemeralResourceRequest,
        ) -> RenewEphemeralResourceResponse {
            let resp = glue::renew_ephemeral_resource(
                self.p(),
                self.ctx(),
                wit::PrivateRequest {
                    type_name: req.type_name,
                    private: req.private,
                },
            );
            RenewEphemeralResourceResponse {
                private: resp.private,
                renew_at: renew_at(resp.renew_at_unix_ms),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn close_ephemeral_resource(
            &self,
            req: CloseEphemeralResourceRequest,
        ) -> Diagnostics {
            diagnostics(glue::close_ephemeral_resource(
                self.p(),
                self.ctx(),
                wit::PrivateRequest {
                    type_name: req.type_name,
                    private: req.private,
                },
            ))
        }
    }
}
