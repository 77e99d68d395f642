//! The data source family: ValidateDataResourceConfig, ReadDataSource.

use super::*;

/// `validate-data-resource-config`.
pub fn validate_data_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ValidateRequest,
) -> Diags {
    run_diags(|| {
        let entry = find_data_source(c, &req.type_name)?;
        let (source, schema, ty) = (&entry.item, entry.schema(), entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut diagnostics = schema.check_config(&config);
        diagnostics.extend(source.validate(&context(c, ctx)?, &config));
        Ok(diagnostics)
    })
}

/// `read-data-source`.
pub fn read_data_source(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: wit::ReadDataRequest,
) -> wit::ReadDataResponse {
    let result = (|| {
        let entry = find_data_source(c, &req.type_name)?;
        let (source, ty) = (&entry.item, entry.ty());
        let config = decode(&req.config, ty, "configuration")?;
        let mut ctx = context(c, ctx)?;
        with_meta(c, &mut ctx, &req.provider_meta)?;
        let state = source.read(&ctx, &config)?;
        encode(&state, ty, "data source result")
    })();
    match result {
        Ok(state) => wit::ReadDataResponse {
            state,
            diagnostics: Vec::new(),
            deferred: deferred(),
        },
        Err(d) => wit::ReadDataResponse {
            state: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
            deferred: None,
        },
    }
}
