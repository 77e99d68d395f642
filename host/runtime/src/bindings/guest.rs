//! [`Guest`]: an instance of a component of any supported WIT version, with one method per
//! export in the latest version's types ([`Exports`]). Each version's bindings implement
//! [`Exports`] in their own module, converting on the way in and out (Zed's extension host
//! does the same), so the rest of the runtime knows one version, and a new version is its
//! module and a line in `versions!` and `dispatch!` below, not an arm in every method.

use wasmtime::component::{Component, Instance, InstancePre};
use wasmtime::{Engine, Store};

use super::additions::{Additions, AdditionsIndices, Families};
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

        /// Where a version's exports are in a pre-linked component.
        enum BaseIndices {
            $($variant($module::TfwasmProviderIndices),)+
        }

        impl BaseIndices {
            fn new(version: WitVersion, pre: &InstancePre<StoreState>) -> wasmtime::Result<BaseIndices> {
                Ok(match version {
                    $(WitVersion::$variant => {
                        BaseIndices::$variant($module::TfwasmProviderIndices::new(pre)?)
                    })+
                })
            }

            fn load(&self, store: &mut Store<StoreState>, instance: &Instance) -> wasmtime::Result<Base> {
                Ok(match self {
                    $(BaseIndices::$variant(indices) => Base::$variant(indices.load(store, instance)?),)+
                })
            }

            fn version(&self) -> WitVersion {
                match self {
                    $(BaseIndices::$variant(_) => WitVersion::$variant,)+
                }
            }
        }

        /// An instance's bindings of the version it was built against.
        pub(crate) enum Base {
            $($variant($module::TfwasmProvider),)+
        }
    };
}

/// A pre-linked component: its version's exports, and the families of later versions it
/// exports too.
pub(crate) struct GuestPre {
    pre: InstancePre<StoreState>,
    base: BaseIndices,
    additions: AdditionsIndices,
}

impl GuestPre {
    /// Checks `pre` against the bindings of `version` and finds the added families.
    pub fn new(version: WitVersion, pre: InstancePre<StoreState>) -> wasmtime::Result<GuestPre> {
        Ok(GuestPre {
            base: BaseIndices::new(version, &pre)?,
            additions: AdditionsIndices::new(&pre)?,
            pre,
        })
    }

    /// A fresh instance.
    pub async fn instantiate_async(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Guest> {
        let instance = self.pre.instantiate_async(&mut *store).await?;
        Ok(Guest {
            base: self.base.load(store, &instance)?,
            additions: self.additions.load(store, &instance)?,
        })
    }

    /// The component's WIT version.
    pub fn version(&self) -> WitVersion {
        self.base.version()
    }

    /// Which later families the component exports.
    pub fn additions(&self) -> Families {
        self.additions.families()
    }
}

/// An instance of a component.
pub(crate) struct Guest {
    base: Base,
    additions: Additions,
}

impl Guest {
    /// The `config-generation` export, if the component has it.
    pub fn config_generation(&self) -> Option<&super::additions::ConfigGeneration> {
        self.additions.config_generation.as_ref()
    }

    /// The `state-store` export, if the component has it.
    pub fn state_store(&self) -> Option<&super::additions::StateStore> {
        self.additions.state_store.as_ref()
    }

    /// The `action` export, if the component has it.
    pub fn action(&self) -> Option<&super::additions::Action> {
        self.additions.action.as_ref()
    }

    /// The `list-resource` export, if the component has it.
    pub fn list_resource(&self) -> Option<&super::additions::ListResource> {
        self.additions.list_resource.as_ref()
    }
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
        match &$guest.base {
            Base::V0_2_0($g) => $call,
            Base::V0_1_0($g) => $call,
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

/// Declares [`Exports`] from one list of the latest WIT's exports (each with the interface
/// accessor and the generated call of the latest bindings), and implements it for [`Guest`]
/// (dispatching to the instance's version) and for the latest bindings (calling the export as
/// it is): an export is declared once here, and each older version implements it in its module.
macro_rules! exports {
    ($(
        $(#[$doc:meta])*
        fn $name:ident(store: S<'_> $(, $arg:ident: $ty:ty)* $(,)?)
            -> $ret:ty = $iface:ident.$call:ident;
    )+) => {
        /// Every export of the latest WIT, in its types: what each version's bindings
        /// implement (an older version converts, or answers what it cannot do with a
        /// diagnostic), and what [`Guest`] offers the runtime whatever the version.
        #[allow(async_fn_in_trait)]
        // `&Vec<u8>`, not `&[u8]`: what the generated bindings take.
        #[allow(clippy::ptr_arg)]
        pub(crate) trait Exports {
            $(
                $(#[$doc])*
                async fn $name(&self, store: S<'_> $(, $arg: $ty)*) -> Result<$ret>;
            )+
        }

        impl Exports for Guest {
            $(
                async fn $name(&self, store: S<'_> $(, $arg: $ty)*) -> Result<$ret> {
                    dispatch!(self, g => g.$name(store $(, $arg)*).await)
                }
            )+
        }

        /// The latest version's exports, as they are.
        impl Exports for latest::TfwasmProvider {
            $(
                async fn $name(&self, store: S<'_> $(, $arg: $ty)*) -> Result<$ret> {
                    interface!(self, $iface).$call(store $(, $arg)*).await
                }
            )+
        }
    };
}

/// The latest bindings' accessor of one interface.
macro_rules! interface {
    ($g:expr, provider) => {
        $g.tfwasm_provider_provider()
    };
    ($g:expr, resource) => {
        $g.tfwasm_provider_resource()
    };
    ($g:expr, data_source) => {
        $g.tfwasm_provider_data_source()
    };
    ($g:expr, ephemeral) => {
        $g.tfwasm_provider_ephemeral()
    };
    ($g:expr, function) => {
        $g.tfwasm_provider_function()
    };
}

exports! {
    /// `provider.get-schema`.
    fn get_schema(store: S<'_>) -> wit::ProviderSchema = provider.call_get_schema;
    /// `provider.validate-provider-config`.
    fn validate_provider_config(
        store: S<'_>,
        config: &Vec<u8>,
    ) -> Vec<wit::Diagnostic> = provider.call_validate_provider_config;
    /// `provider.configure-provider`.
    fn configure_provider(
        store: S<'_>,
        ctx: &wit::ProviderContext,
    ) -> Vec<wit::Diagnostic> = provider.call_configure_provider;
    /// `resource.validate-resource-config`.
    fn validate_resource_config(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Vec<wit::Diagnostic> = resource.call_validate_resource_config;
    /// `resource.upgrade-resource-state`.
    fn upgrade_resource_state(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeRequest,
    ) -> resource::UpgradeResponse = resource.call_upgrade_resource_state;
    /// `resource.read-resource`.
    fn read_resource(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ReadRequest,
    ) -> resource::ReadResponse = resource.call_read_resource;
    /// `resource.plan-resource-change`.
    fn plan_resource_change(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::PlanRequest,
    ) -> resource::PlanResponse = resource.call_plan_resource_change;
    /// `resource.apply-resource-change`.
    fn apply_resource_change(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ApplyRequest,
    ) -> resource::ApplyResponse = resource.call_apply_resource_change;
    /// `resource.import-resource-state`.
    fn import_resource_state(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::ImportRequest,
    ) -> resource::ImportResponse = resource.call_import_resource_state;
    /// `resource.move-resource-state`.
    fn move_resource_state(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::MoveRequest,
    ) -> resource::MoveResponse = resource.call_move_resource_state;
    /// `resource.upgrade-resource-identity`.
    fn upgrade_resource_identity(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &resource::UpgradeIdentityRequest,
    ) -> resource::UpgradeIdentityResponse = resource.call_upgrade_resource_identity;
    /// `data-source.validate-data-resource-config`.
    fn validate_data_resource_config(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Vec<wit::Diagnostic> = data_source.call_validate_data_resource_config;
    /// `data-source.read-data-source`.
    fn read_data_source(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &data_source::ReadDataRequest,
    ) -> data_source::ReadDataResponse = data_source.call_read_data_source;
    /// `ephemeral.validate-ephemeral-resource-config`.
    fn validate_ephemeral_resource_config(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &wit::ValidateRequest,
    ) -> Vec<wit::Diagnostic> = ephemeral.call_validate_ephemeral_resource_config;
    /// `ephemeral.open-ephemeral-resource`.
    fn open_ephemeral_resource(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::OpenRequest,
    ) -> ephemeral::OpenResponse = ephemeral.call_open_ephemeral_resource;
    /// `ephemeral.renew-ephemeral-resource`.
    fn renew_ephemeral_resource(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> ephemeral::RenewResponse = ephemeral.call_renew_ephemeral_resource;
    /// `ephemeral.close-ephemeral-resource`.
    fn close_ephemeral_resource(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        req: &ephemeral::PrivateRequest,
    ) -> Vec<wit::Diagnostic> = ephemeral.call_close_ephemeral_resource;
    /// `function.call-function`.
    fn call_function(
        store: S<'_>,
        ctx: &wit::ProviderContext,
        name: &str,
        arguments: &[Vec<u8>],
    ) -> std::result::Result<Vec<u8>, function::FunctionError> = function.call_call_function;
}
