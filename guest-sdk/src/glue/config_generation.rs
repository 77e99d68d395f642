//! The config generation family: GenerateResourceConfig (WIT 0.3.0).

use super::*;
use crate::bindings::exports::tfwasm::provider0_3_0::config_generation::{
    GenerateRequest, GenerateResponse,
};

/// `generate-resource-config`: the resource's [`Resource::generate_config`] of the imported
/// object's state, which must be wholly known.
pub fn generate_resource_config(
    c: &Catalog,
    ctx: wit::ProviderContext,
    req: GenerateRequest,
) -> GenerateResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (resource, ty) = (&entry.item, entry.ty());
        let state = decode(&req.state, ty, "imported state")?;
        let ctx = context(c, ctx)?;
        let config = resource.generate_config(&ctx, &state)?;
        if let Some(path) = config.first_unknown() {
            return Err(Diagnostic::error(
                "Provider generated an unknown value",
                format!(
                    "The configuration generated for {} holds an unknown value at {path}; Terraform writes values into the file, so every one must be known.",
                    req.type_name
                ),
            ));
        }
        encode(&config, ty, "generated configuration")
    })();
    match result {
        Ok(config) => GenerateResponse {
            config,
            diagnostics: Vec::new(),
        },
        Err(d) => GenerateResponse {
            config: codec::msgpack::NULL.to_vec(),
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// The `config-generation` interface's exports (WIT 0.3.0), beside the family's glue: an RPC
/// added to the family is exported and glued in this one file. Expanded by
/// [`export_provider!`](crate::export_provider).
#[doc(hidden)]
#[macro_export]
macro_rules! __tfwasm_export_config_generation {
    ($export:ident, $provider:ident) => {
        impl $crate::bindings::exports::tfwasm::provider0_3_0::config_generation::Guest for $export {
            fn generate_resource_config(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::bindings::exports::tfwasm::provider0_3_0::config_generation::GenerateRequest,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::config_generation::GenerateResponse {
                $crate::glue::generate_resource_config($provider(), ctx, req)
            }
        }
    };
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self};

    impl ConfigGenerationServer for NativeProvider {
        fn generates_config(&self) -> bool {
            true
        }

        async fn generate_resource_config(
            &self,
            req: GenerateResourceConfigRequest,
        ) -> GenerateResourceConfigResponse {
            use crate::bindings::exports::tfwasm::provider0_3_0::config_generation::GenerateRequest;
            let resp = glue::generate_resource_config(
                self.p(),
                self.ctx(),
                GenerateRequest {
                    type_name: req.type_name,
                    state: req.state.msgpack,
                },
            );
            GenerateResourceConfigResponse {
                config: dv(resp.config),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }
    }
}
