//! The provider family: forwarded; the schema is the one the checks use.

use tfwasm_model::rpc::{ConfigureProviderRequest, DynamicValue, ProviderServer};
use tfwasm_model::{Diagnostics, Provider, ProviderSchema};

use super::Checked;

impl<P: Provider> ProviderServer for Checked<P> {
    async fn get_provider_schema(&self) -> ProviderSchema {
        let schema = self.schema().await.clone();
        match self.schema.get() {
            Some(_) => schema,
            // Not known yet (the provider's answer failed): its answer, errors and all.
            None => self.inner.get_provider_schema().await,
        }
    }

    fn plans_destroy(&self) -> bool {
        self.inner.plans_destroy()
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        self.inner.validate_provider_config(config).await
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        self.inner.configure_provider(req).await
    }

    async fn stop_provider(&self) -> Result<(), String> {
        self.inner.stop_provider().await
    }

    async fn schema_index(&self) -> Option<std::sync::Arc<tfwasm_model::SchemaIndex>> {
        self.index().await;
        self.schema.get().cloned()
    }
}
