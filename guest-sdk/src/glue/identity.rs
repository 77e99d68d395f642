//! The identity family: UpgradeResourceIdentity.

use super::*;

/// `upgrade-resource-identity`: an identity at the current version is decoded as it is;
/// older ones go through the identity's upgrader for their version.
pub fn upgrade_resource_identity(
    c: &Catalog,
    _ctx: wit::ProviderContext,
    req: wit::UpgradeIdentityRequest,
) -> wit::UpgradeIdentityResponse {
    let result = (|| {
        let entry = find_resource(c, &req.type_name)?;
        let (identity, ty) = entry.identity().ok_or_else(|| {
            Diagnostic::error(
                "Resource identity not supported",
                format!(
                    "{} declares no identity, so it has none to upgrade.",
                    req.type_name
                ),
            )
        })?;
        let value = if req.version == identity.current_version() {
            codec::json::decode_bytes(&req.raw_identity_json, ty).map_err(|e| {
                Diagnostic::error(
                    "Invalid stored identity",
                    format!(
                        "The stored identity of {} does not match its identity schema: {e}.",
                        req.type_name
                    ),
                )
            })?
        } else {
            let upgrader = identity.upgrader(req.version).ok_or_else(|| {
                Diagnostic::error(
                    "Unable to upgrade resource identity",
                    format!(
                        "{} has no identity upgrader from version {} to {}; this is a bug in the provider.",
                        req.type_name,
                        req.version,
                        identity.current_version()
                    ),
                )
            })?;
            let raw: serde_json::Value = serde_json::from_slice(&req.raw_identity_json)
                .map_err(|e| Diagnostic::error("Invalid stored identity", e.to_string()))?;
            upgrader(&raw)?
        };
        encode(&value, ty, "upgraded identity")
    })();
    match result {
        Ok(identity) => wit::UpgradeIdentityResponse {
            upgraded_identity: Some(identity),
            diagnostics: Vec::new(),
        },
        Err(d) => wit::UpgradeIdentityResponse {
            upgraded_identity: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
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

    impl IdentityServer for NativeProvider {
        async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
            GetResourceIdentitySchemasResponse {
                identity_schemas: self
                    .p()
                    .provider()
                    .resources()
                    .iter()
                    .filter_map(|r| Some((r.type_name().to_owned(), r.identity()?.to_wire())))
                    .collect(),
                diagnostics: Vec::new(),
            }
        }

        async fn upgrade_resource_identity(
            &self,
            req: UpgradeResourceIdentityRequest,
        ) -> UpgradeResourceIdentityResponse {
            let resp = glue::upgrade_resource_identity(
                self.p(),
                self.ctx(),
                wit::UpgradeIdentityRequest {
                    type_name: req.type_name,
                    version: req.version,
                    raw_identity_json: req.raw_identity.json,
                },
            );
            UpgradeResourceIdentityResponse {
                upgraded_identity: resp.upgraded_identity.map(dv),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }
    }
}
