//! [`Guest`]: an instance of a component of any supported WIT version, with one method per
//! export in the latest version's types ([`Exports`]). Each version's bindings implement
//! [`Exports`] in their own module, converting on the way in and out (Zed's extension host
//! does the same), so the rest of the runtime knows one version, and a new version is its
//! module and a line in `versions!` and `dispatch!` below, not an arm in every method.

use wasmtime::component::{Component, InstancePre};
use wasmtime::{Engine, Store};

use super::latest::exports::tfwasm::provider::{data_source, ephemeral, function, resource};
use super::latest::tfwasm::provider::types as wit;
use super::{latest, v0_1_0};
use crate::state::StoreState;

/// Declares the WIT versions tfwasm serves, newest first: [`WitVersion`], and a [`GuestPre`]
/// and [`Guest`] variant for each, holding that version's bindings.
macro_rules! versions {
    ($($(#[$doc:meta])* $variant:ident = $text:literal in $module:ident,)+) => {
        /// A WIT version tfwasm serves.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum WitVersion {
            $($(#[$doc])* $variant,)+
        }

        impl WitVersion {
            /// Newest first.
            pub const ALL: &'static [WitVersion] = &[$(WitVersion::$variant),+];

            /// `0.1.0`, `0.2.0`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(WitVersion::$variant => $text,)+
                }
            }
        }

        /// A pre-linked component of a known version.
        pub(crate) enum GuestPre {
            $($variant($module::TfwasmProviderPre<StoreState>),)+
        }

        impl GuestPre {
            /// Checks `pre` against the bindings of `version`.
            pub fn new(version: WitVersion, pre: InstancePre<StoreState>) -> wasmtime::Result<GuestPre> {
                Ok(match version {
                    $(WitVersion::$variant => GuestPre::$variant($module::TfwasmProviderPre::new(pre)?),)+
                })
            }

            /// A fresh instance.
            pub async fn instantiate_async(
                &self,
                store: &mut Store<StoreState>,
            ) -> wasmtime::Result<Guest> {
                Ok(match self {
                    $(GuestPre::$variant(pre) => Guest::$variant(pre.instantiate_async(store).await?),)+
                })
            }

            /// The component's WIT version.
            pub fn version(&self) -> WitVersion {
                match self {
                    $(GuestPre::$variant(_) => WitVersion::$variant,)+
                }
            }
        }

        /// An instance of a component.
        pub(crate) enum Guest {
            $($variant($module::TfwasmProvider),)+
        }
    };
}

versions! {
    /// `tfwasm:provider@0.2.0`: adds functions, moves, ephemeral resources, write-only
    /// attributes, deferral and resource identity.
    V0_2_0 = "0.2.0" in latest,
    /// `tfwasm:provider@0.1.0`: resources and data sources.
    V0_1_0 = "0.1.0" in v0_1_0,
}

/// Runs `$call` with `$g` the instance's bindings, whatever its version.
macro_rules! dispatch {
    ($guest:expr, $g:ident => $call:expr) => {
        match $guest {
            Guest::V0_2_0($g) => $call,
            Guest::V0_1_0($g) => $call,
        }
    };
}

impl WitVersion {
    /// The version whose `provider` interface `component` exports, if any.
    pub fn of(component: &Component, engine: &Engine) -> Option<WitVersion> {
        let exports: Vec<String> = component
            .component_type()
            .exports(engine)
            .map(|(name, _)| name.to_owned())
            .collect();
        WitVersion::ALL.iter().copied().find(|v| {
            let wanted = format!("tfwasm:provider/provider@{}", v.as_str());
            exports.contains(&wanted)
        })
    }
}

pub(crate) type Result<T> = wasmtime::Result<T>;
pub(crate) type S<'a> = &'a mut Store<StoreState>;

/// Every export of the latest WIT, in its types: what each version's bindings implement
/// (an older version converts, or answers what it cannot do with a diagnostic), and what
/// [`Guest`] offers the runtime whatever the version.
#[allow(async_fn_in_trait)]
// `&Vec<u8>`, not `&[u8]`: what the generated bindings take.
#[allow(clippy::ptr_arg)]
pub(crate) trait Exports {
    /// `provider.get-schema`.
    async fn get_schema(&self, store: S<'_>) -> Result<wit::ProviderSchema>;
    /// `provider.validate-provider-config`.
    async fn validate_provider_config(
        &self,
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `provider.configure-provider`.
    async fn configure_provider(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `resource.validate-resource-config`.
    async fn validate_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `resource.upgrade-resource-state`.
    async fn upgrade_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeRequest,
    ) -> Result<resource::UpgradeResponse>;
    /// `resource.read-resource`.
    async fn read_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ReadRequest,
    ) -> Result<resource::ReadResponse>;
    /// `resource.plan-resource-change`.
    async fn plan_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::PlanRequest,
    ) -> Result<resource::PlanResponse>;
    /// `resource.apply-resource-change`.
    async fn apply_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ApplyRequest,
    ) -> Result<resource::ApplyResponse>;
    /// `resource.import-resource-state`.
    async fn import_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ImportRequest,
    ) -> Result<resource::ImportResponse>;
    /// `resource.move-resource-state`.
    async fn move_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::MoveRequest,
    ) -> Result<resource::MoveResponse>;
    /// `resource.upgrade-resource-identity`.
    async fn upgrade_resource_identity(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> Result<resource::UpgradeIdentityResponse>;
    /// `data-source.validate-data-resource-config`.
    async fn validate_data_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `data-source.read-data-source`.
    async fn read_data_source(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &data_source::ReadDataRequest,
    ) -> Result<data_source::ReadDataResponse>;
    /// `ephemeral.validate-ephemeral-resource-config`.
    async fn validate_ephemeral_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `ephemeral.open-ephemeral-resource`.
    async fn open_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> Result<ephemeral::OpenResponse>;
    /// `ephemeral.renew-ephemeral-resource`.
    async fn renew_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<ephemeral::RenewResponse>;
    /// `ephemeral.close-ephemeral-resource`.
    async fn close_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<Vec<wit::Diagnostic>>;
    /// `function.call-function`.
    async fn call_function(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        name: &str,
        arguments: &[Vec<u8>],
    ) -> Result<std::result::Result<Vec<u8>, function::FunctionError>>;
}

impl Exports for Guest {
    async fn get_schema(&self, store: S<'_>) -> Result<wit::ProviderSchema> {
        dispatch!(self, g => g.get_schema(store).await)
    }
    async fn validate_provider_config(
        &self,
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.validate_provider_config(store, config).await)
    }
    async fn configure_provider(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.configure_provider(store, ctx).await)
    }
    async fn validate_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.validate_resource_config(store, ctx, req).await)
    }
    async fn upgrade_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeRequest,
    ) -> Result<resource::UpgradeResponse> {
        dispatch!(self, g => g.upgrade_resource_state(store, ctx, req).await)
    }
    async fn read_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ReadRequest,
    ) -> Result<resource::ReadResponse> {
        dispatch!(self, g => g.read_resource(store, ctx, req).await)
    }
    async fn plan_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::PlanRequest,
    ) -> Result<resource::PlanResponse> {
        dispatch!(self, g => g.plan_resource_change(store, ctx, req).await)
    }
    async fn apply_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ApplyRequest,
    ) -> Result<resource::ApplyResponse> {
        dispatch!(self, g => g.apply_resource_change(store, ctx, req).await)
    }
    async fn import_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ImportRequest,
    ) -> Result<resource::ImportResponse> {
        dispatch!(self, g => g.import_resource_state(store, ctx, req).await)
    }
    async fn move_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::MoveRequest,
    ) -> Result<resource::MoveResponse> {
        dispatch!(self, g => g.move_resource_state(store, ctx, req).await)
    }
    async fn upgrade_resource_identity(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> Result<resource::UpgradeIdentityResponse> {
        dispatch!(self, g => g.upgrade_resource_identity(store, ctx, req).await)
    }
    async fn validate_data_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.validate_data_resource_config(store, ctx, req).await)
    }
    async fn read_data_source(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &data_source::ReadDataRequest,
    ) -> Result<data_source::ReadDataResponse> {
        dispatch!(self, g => g.read_data_source(store, ctx, req).await)
    }
    async fn validate_ephemeral_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.validate_ephemeral_resource_config(store, ctx, req).await)
    }
    async fn open_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> Result<ephemeral::OpenResponse> {
        dispatch!(self, g => g.open_ephemeral_resource(store, ctx, req).await)
    }
    async fn renew_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<ephemeral::RenewResponse> {
        dispatch!(self, g => g.renew_ephemeral_resource(store, ctx, req).await)
    }
    async fn close_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        dispatch!(self, g => g.close_ephemeral_resource(store, ctx, req).await)
    }
    async fn call_function(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        name: &str,
        arguments: &[Vec<u8>],
    ) -> Result<std::result::Result<Vec<u8>, function::FunctionError>> {
        dispatch!(self, g => g.call_function(store, ctx, name, arguments).await)
    }
}

/// The latest version's exports, as they are.
impl Exports for latest::TfwasmProvider {
    async fn get_schema(&self, store: S<'_>) -> Result<wit::ProviderSchema> {
        self.tfwasm_provider_provider().call_get_schema(store).await
    }
    async fn validate_provider_config(
        &self,
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_provider())
            .call_validate_provider_config(store, config)
            .await
    }
    async fn configure_provider(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_provider())
            .call_configure_provider(store, ctx)
            .await
    }
    async fn validate_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_resource())
            .call_validate_resource_config(store, ctx, req)
            .await
    }
    async fn upgrade_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeRequest,
    ) -> Result<resource::UpgradeResponse> {
        (self.tfwasm_provider_resource())
            .call_upgrade_resource_state(store, ctx, req)
            .await
    }
    async fn read_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ReadRequest,
    ) -> Result<resource::ReadResponse> {
        (self.tfwasm_provider_resource())
            .call_read_resource(store, ctx, req)
            .await
    }
    async fn plan_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::PlanRequest,
    ) -> Result<resource::PlanResponse> {
        (self.tfwasm_provider_resource())
            .call_plan_resource_change(store, ctx, req)
            .await
    }
    async fn apply_resource_change(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ApplyRequest,
    ) -> Result<resource::ApplyResponse> {
        (self.tfwasm_provider_resource())
            .call_apply_resource_change(store, ctx, req)
            .await
    }
    async fn import_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ImportRequest,
    ) -> Result<resource::ImportResponse> {
        (self.tfwasm_provider_resource())
            .call_import_resource_state(store, ctx, req)
            .await
    }
    async fn move_resource_state(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::MoveRequest,
    ) -> Result<resource::MoveResponse> {
        (self.tfwasm_provider_resource())
            .call_move_resource_state(store, ctx, req)
            .await
    }
    async fn upgrade_resource_identity(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> Result<resource::UpgradeIdentityResponse> {
        (self.tfwasm_provider_resource())
            .call_upgrade_resource_identity(store, ctx, req)
            .await
    }
    async fn validate_data_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_data_source())
            .call_validate_data_resource_config(store, ctx, req)
            .await
    }
    async fn read_data_source(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &data_source::ReadDataRequest,
    ) -> Result<data_source::ReadDataResponse> {
        (self.tfwasm_provider_data_source())
            .call_read_data_source(store, ctx, req)
            .await
    }
    async fn validate_ephemeral_resource_config(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_ephemeral())
            .call_validate_ephemeral_resource_config(store, ctx, req)
            .await
    }
    async fn open_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> Result<ephemeral::OpenResponse> {
        (self.tfwasm_provider_ephemeral())
            .call_open_ephemeral_resource(store, ctx, req)
            .await
    }
    async fn renew_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<ephemeral::RenewResponse> {
        (self.tfwasm_provider_ephemeral())
            .call_renew_ephemeral_resource(store, ctx, req)
            .await
    }
    async fn close_ephemeral_resource(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Result<Vec<wit::Diagnostic>> {
        (self.tfwasm_provider_ephemeral())
            .call_close_ephemeral_resource(store, ctx, req)
            .await
    }
    async fn call_function(
        &self,
        store: S<'_>,
        ctx: &wit::ProviderContext,
        name: &str,
        arguments: &[Vec<u8>],
    ) -> Result<std::result::Result<Vec<u8>, function::FunctionError>> {
        (self.tfwasm_provider_function())
            .call_call_function(store, ctx, name, arguments)
            .await
    }
}
