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
