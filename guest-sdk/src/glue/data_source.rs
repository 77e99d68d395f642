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

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self, wit};

    impl DataSourceServer for NativeProvider {
        async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
            diagnostics(glue::validate_data_resource_config(
                self.p(),
                self.ctx(),
                wit::ValidateRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                },
            ))
        }

        async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
            let resp = self.io(|| {
                glue::read_data_source(
                    self.p(),
                    self.ctx_for(req.client_capabilities),
                    wit::ReadDataRequest {
                        type_name: req.type_name,
                        config: req.config.msgpack,
                        provider_meta: req.provider_meta.msgpack,
                    },
                )
            });
            ReadDataSourceResponse {
                deferred: deferred(resp.deferred),
                state: dv(resp.state),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }
    }
}
