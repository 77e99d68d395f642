//! The provider family: ValidateProviderConfig, ConfigureProvider.

use super::*;

/// `validate-provider-config`.
pub fn validate_provider_config(c: &Catalog, config: Vec<u8>) -> Diags {
    run_diags(|| {
        let config = decode(&config, &c.provider_type, "provider configuration")?;
        Ok(c.provider.validate_config(&config))
    })
}

/// `configure-provider`.
pub fn configure_provider(c: &Catalog, ctx: wit::ProviderContext) -> Diags {
    run_diags(|| Ok(c.provider.configure(&context(c, ctx)?)))
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::rpc::*;
    use tfwasm_model::{Diagnostics, ProviderSchema};

    use super::super::native::*;
    use crate::glue::{self, wit};

    impl ProviderServer for NativeProvider {
        async fn get_provider_schema(&self) -> ProviderSchema {
            let p = self.inner.provider();
            ProviderSchema {
                provider: p.schema().to_wire(),
                provider_meta: None,
                resources: p
                    .resources()
                    .iter()
                    .map(|r| (r.type_name().to_owned(), r.schema().to_wire()))
                    .collect(),
                data_sources: p
                    .data_sources()
                    .iter()
                    .map(|d| (d.type_name().to_owned(), d.schema().to_wire()))
                    .collect(),
                ephemeral_resources: p
                    .ephemeral_resources()
                    .iter()
                    .map(|e| (e.type_name().to_owned(), e.schema().to_wire()))
                    .collect(),
                list_resources: p
                    .resources()
                    .iter()
                    .filter_map(|r| Some((r.type_name().to_owned(), r.list_schema()?.to_wire())))
                    .collect(),
                actions: p
                    .actions()
                    .iter()
                    .map(|a| (a.type_name().to_owned(), a.schema().to_wire()))
                    .collect(),
                state_stores: p
                    .state_stores()
                    .iter()
                    .map(|s| (s.type_name().to_owned(), s.schema().to_wire()))
                    .collect(),
                diagnostics: Vec::new(),
            }
        }

        fn plans_destroy(&self) -> bool {
            true
        }

        async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
            diagnostics(glue::validate_provider_config(self.p(), config.msgpack))
        }

        async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
            let ctx = wit::ProviderContext {
                terraform_version: req.terraform_version,
                config: Some(req.config.msgpack),
                client_capabilities: wit_capabilities(req.client_capabilities),
            };
            let diags = diagnostics(glue::configure_provider(self.p(), ctx.clone()));
            // As the runtime does: a configuration the provider rejected is not kept.
            if !tfwasm_model::has_error(&diags)
                && let Ok(mut slot) = self.context.write()
            {
                *slot = ctx;
            }
            diags
        }

        async fn stop_provider(&self) -> Result<(), String> {
            // Native calls are short and synchronous; nothing to interrupt.
            Ok(())
        }
    }
}
