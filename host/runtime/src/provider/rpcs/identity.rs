//! The identity family: schemas come with `provider.get-schema` (asked once and kept);
//! stored identities of older versions go to `resource.upgrade-resource-identity`.

use tfwasm_model::Rpc;
use tfwasm_model::rpc::{
    DynamicValue, GetResourceIdentitySchemasResponse, IdentityServer,
    UpgradeResourceIdentityRequest, UpgradeResourceIdentityResponse,
};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::diagnostics;
use crate::bindings::Exports as _;
use crate::bindings::resource;

impl IdentityServer for WasmProvider {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        match self.guest_schema().await {
            Ok(known) => GetResourceIdentitySchemasResponse {
                identity_schemas: known.index.identities.clone(),
                diagnostics: Vec::new(),
            },
            Err(diagnostics) => GetResourceIdentitySchemasResponse {
                identity_schemas: Default::default(),
                diagnostics,
            },
        }
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = resource::UpgradeIdentityRequest {
            type_name: req.type_name,
            version: req.version,
            raw_identity_json: req.raw_identity.json,
        };
        match self
            .call(
                Rpc::UpgradeResourceIdentity,
                &subject,
                move |store, guest| {
                    Box::pin(
                        async move { guest.upgrade_resource_identity(store, &ctx, &wreq).await },
                    )
                },
            )
            .await
        {
            Ok(resp) => UpgradeResourceIdentityResponse {
                upgraded_identity: resp.upgraded_identity.map(DynamicValue::from_msgpack),
                diagnostics: diagnostics(resp.diagnostics),
            },
            Err(e) => UpgradeResourceIdentityResponse {
                upgraded_identity: None,
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::resource::UpgradeIdentityResponse {
    fn largest_value(&self) -> usize {
        self.upgraded_identity.as_ref().map_or(0, Vec::len)
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
