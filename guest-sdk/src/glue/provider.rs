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
