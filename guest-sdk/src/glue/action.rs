//! The action family: ValidateActionConfig, PlanAction and InvokeAction (WIT 0.3.0), with an
//! invocation's progress sent through the `action-progress` import as it is reported.

use super::*;
use crate::bindings::exports::tfwasm::provider0_3_0::action::PlanActionResponse;

/// The action type `type_name`.
fn find_action<'c>(
    c: &'c Catalog,
    type_name: &str,
) -> Result<&'c Entry<Box<dyn crate::action::Action>>, Diagnostic> {
    (c.actions.iter())
        .find(|a| HasSchema::type_name(&a.item) == type_name)
        .ok_or_else(|| {
            Diagnostic::error(
                "Unknown action type",
                format!("This provider has no action type {type_name:?}."),
            )
        })
}

/// The schemas of the action types.
pub fn action_schemas(c: &Catalog) -> Vec<wit::NamedSchema> {
    (c.actions.iter())
        .map(|a| wit::NamedSchema {
            type_name: a.item.type_name().to_owned(),
            schema: to_wit_schema(&a.schema().to_wire()),
        })
        .collect()
}

/// `validate-action-config`: the schema's checks, then the action's own.
pub fn validate_action_config(c: &Catalog, type_name: String, config: Vec<u8>) -> Diags {
    run_diags(|| {
        let entry = find_action(c, &type_name)?;
        let config = decode(&config, entry.ty(), "action configuration")?;
        let mut diagnostics = entry.schema().check_config(&config);
        diagnostics.extend(entry.item.validate(&Context::default(), &config));
        Ok(diagnostics)
    })
}

/// `plan-action`.
pub fn plan_action(
    c: &Catalog,
    ctx: wit::ProviderContext,
    type_name: String,
    config: Vec<u8>,
) -> PlanActionResponse {
    let result = (|| {
        let entry = find_action(c, &type_name)?;
        let config = decode(&config, entry.ty(), "action configuration")?;
        entry.item.plan(&context(c, ctx)?, &config)
    })();
    PlanActionResponse {
        diagnostics: result.err().iter().map(to_wit_diagnostic).collect(),
        deferred: deferred(),
    }
}

/// `invoke-action`: runs the action, each progress message handed to `report` (the
/// `action-progress` import in a component).
pub fn invoke_action(
    c: &Catalog,
    ctx: wit::ProviderContext,
    type_name: String,
    config: Vec<u8>,
    report: &dyn Fn(&str),
) -> Diags {
    run_diags(|| {
        let entry = find_action(c, &type_name)?;
        let config = decode(&config, entry.ty(), "action configuration")?;
        let progress = crate::action::Progress::new(report);
        entry.item.invoke(&context(c, ctx)?, &config, &progress)?;
        Ok(Vec::new())
    })
}

/// Sends one progress message to the host (in a component; natively, nowhere).
pub fn report_progress(message: &str) {
    #[cfg(target_arch = "wasm32")]
    crate::bindings::tfwasm::provider0_3_0::action_progress::report_progress(message);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = message;
}

/// The `action` interface's exports (WIT 0.3.0), beside the family's glue: an RPC
/// added to the family is exported and glued in this one file. Expanded by
/// [`export_provider!`](crate::export_provider).
#[doc(hidden)]
#[macro_export]
macro_rules! __tfwasm_export_action {
    ($export:ident, $provider:ident) => {
        impl $crate::bindings::exports::tfwasm::provider0_3_0::action::Guest for $export {
            fn action_schemas() -> ::std::vec::Vec<$crate::glue::wit::NamedSchema> {
                $crate::glue::action_schemas($provider())
            }
            fn validate_action_config(
                type_name: ::std::string::String,
                config: ::std::vec::Vec<u8>,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_action_config($provider(), type_name, config)
            }
            fn plan_action(
                ctx: $crate::glue::wit::ProviderContext,
                type_name: ::std::string::String,
                config: ::std::vec::Vec<u8>,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::action::PlanActionResponse {
                $crate::glue::plan_action($provider(), ctx, type_name, config)
            }
            fn invoke_action(
                ctx: $crate::glue::wit::ProviderContext,
                type_name: ::std::string::String,
                config: ::std::vec::Vec<u8>,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::invoke_action(
                    $provider(),
                    ctx,
                    type_name,
                    config,
                    &$crate::glue::report_progress,
                )
            }
        }
    };
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::glue::{self};

    impl ActionServer for NativeProvider {
        async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
            diagnostics(glue::validate_action_config(
                self.p(),
                req.type_name,
                req.config.msgpack,
            ))
        }

        async fn plan_action(&self, req: PlanActionRequest) -> PlanActionResponse {
            let resp = glue::plan_action(self.p(), self.ctx(), req.action_type, req.config.msgpack);
            PlanActionResponse {
                diagnostics: diagnostics(resp.diagnostics),
                deferred: deferred(resp.deferred),
            }
        }

        async fn invoke_action(&self, req: InvokeActionRequest) -> Diagnostics {
            let progress = req.progress;
            diagnostics(glue::invoke_action(
                self.p(),
                self.ctx(),
                req.action_type,
                req.config.msgpack,
                &|message| progress.report(message.to_owned()),
            ))
        }
    }
}
