//! The provider family: schema, provider configuration, StopProvider.

use tfwasm_model::rpc::{ConfigureProviderRequest, DynamicValue, ProviderServer};
use tfwasm_model::{Diagnostic, Diagnostics, ProviderSchema, Rpc, has_error};

use std::sync::Arc;

use tfwasm_model::SchemaIndex;

use super::super::call::ReturnedValues;
use super::super::{KnownSchema, WasmProvider};
use super::{bytes, diagnostics};
use crate::bindings::Exports as _;
use crate::bindings::{self, wit};

impl WasmProvider {
    /// The guest's schema and function signatures: asked for once and kept. A failure
    /// (as diagnostics) is not kept, so the next call asks again.
    pub(super) async fn guest_schema(&self) -> Result<&KnownSchema, Diagnostics> {
        if let Some(known) = self.schema.get() {
            return Ok(known);
        }
        let (raw, added) = self
            .call(Rpc::GetProviderSchema, "", |store, guest| {
                Box::pin(async move {
                    let schema = guest.get_schema(&mut *store).await?;
                    let mut added = bindings::AddedSchemas::default();
                    if let Some(export) = guest.list_resource() {
                        added.lists = export.call_list_resource_schemas(&mut *store).await?;
                    }
                    if let Some(export) = guest.action() {
                        added.actions = export.call_action_schemas(&mut *store).await?;
                    }
                    if let Some(export) = guest.state_store() {
                        added.state_stores = export.call_state_store_schemas(&mut *store).await?;
                    }
                    Ok((schema, added))
                })
            })
            .await
            .map_err(|e| vec![self.call_diagnostic(&e.error, "")])?;
        match bindings::provider_schema(raw, added) {
            Ok(mut known) => {
                let problems = self.schema_problems(&known.schema);
                known.schema.diagnostics.extend(problems);
                let index = SchemaIndex::new(known.schema, known.functions, known.identities);
                Ok(self.schema.get_or_init(|| KnownSchema {
                    index: Arc::new(index),
                    current_state_types: known.current_state_types,
                }))
            }
            Err(e) => Err(vec![Diagnostic::error(
                "Provider returned an invalid schema",
                format!(
                    "The Wasm provider {} returned an invalid schema: {e}. This is a bug in the provider.",
                    self.name
                ),
            )]),
        }
    }
}

impl ProviderServer for WasmProvider {
    async fn get_provider_schema(&self) -> ProviderSchema {
        match self.guest_schema().await {
            Ok(known) => known.index.provider.clone(),
            Err(diagnostics) => ProviderSchema {
                diagnostics,
                ..ProviderSchema::default()
            },
        }
    }

    /// Components plan destroys too (the WIT contract: a null proposal plans null), so
    /// Terraform >= 1.3 sends them through PlanResourceChange, where the contract checks see
    /// them.
    fn plans_destroy(&self) -> bool {
        true
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        let config = bytes(config);
        self.call(Rpc::ValidateProviderConfig, "", move |store, guest| {
            Box::pin(async move { guest.validate_provider_config(store, &config).await })
        })
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, "the provider configuration")],
            diagnostics,
        )
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        let ctx = wit::ProviderContext {
            terraform_version: req.terraform_version,
            config: Some(bytes(req.config)),
            client_capabilities: bindings::client_capabilities(req.client_capabilities),
        };
        let candidate = ctx.clone();
        let mut result = self
            .call(Rpc::ConfigureProvider, "", move |store, guest| {
                Box::pin(async move { guest.configure_provider(store, &candidate).await })
            })
            .await
            .map_or_else(
                |e| vec![self.call_diagnostic(&e.error, "the provider configuration")],
                diagnostics,
            );
        if !has_error(&result) {
            *self
                .context
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = ctx;
        }
        result.extend(self.take_slow_start());
        result
    }

    async fn schema_index(&self) -> Option<Arc<SchemaIndex>> {
        self.guest_schema()
            .await
            .ok()
            .map(|known| known.index.clone())
    }

    async fn stop_provider(&self) -> Result<(), String> {
        // In-flight calls stop at once (waiting in the host) or within one epoch tick
        // (running wasm); calls that start afterwards run normally.
        self.stop_generation
            .send_modify(|generation| *generation += 1);
        Ok(())
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for wit::ProviderSchema {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
}
/// The schema with 0.3.0's families' schemas beside it.
impl ReturnedValues for (wit::ProviderSchema, crate::bindings::AddedSchemas) {
    fn diagnostics(&mut self) -> Option<&mut Vec<wit::Diagnostic>> {
        Some(&mut self.0.diagnostics)
    }
}
