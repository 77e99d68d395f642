//! The families WIT 0.3.0 adds, each an interface of its own beside 0.2.0's (which 0.3.0's
//! world includes unchanged): a component exports the ones it implements, and the host loads
//! each that is there, so an older component is served as before and nothing is converted.

/// Bindings of the 0.3.0 interfaces only; the shared types are 0.2.0's ([`super::wit`]).
#[allow(missing_docs)]
pub mod generated {
    wasmtime::component::bindgen!({
        inline: "
            package tfwasm:host;
            world additions {
                import tfwasm:provider/files@0.3.0;
                import tfwasm:provider/action-progress@0.3.0;
                export tfwasm:provider/config-generation@0.3.0;
                export tfwasm:provider/list-resource@0.3.0;
                export tfwasm:provider/action@0.3.0;
                export tfwasm:provider/state-store@0.3.0;
            }
        ",
        path: ["../../wit/since_v0.2.0", "../../wit/since_v0.3.0"],
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "tfwasm:provider/types@0.2.0": super::super::latest::tfwasm::provider::types,
        },
    });
}

/// The `action` interface's records.
pub use generated::exports::tfwasm::provider0_3_0::action;
/// The `config-generation` interface's records.
pub use generated::exports::tfwasm::provider0_3_0::config_generation;
/// The `list-resource` interface's records.
pub use generated::exports::tfwasm::provider0_3_0::list_resource;
/// The `state-store` interface's records.
pub use generated::exports::tfwasm::provider0_3_0::state_store;
/// The host's side of the `action-progress` import.
pub(crate) use generated::tfwasm::provider0_3_0::action_progress;
/// The host's side of the `files` import.
pub(crate) use generated::tfwasm::provider0_3_0::files;
/// The bindings of a component's `config-generation` export.
pub(crate) type ConfigGeneration = config_generation::Guest;
/// The bindings of a component's `list-resource` export.
pub(crate) type ListResource = list_resource::Guest;
/// The bindings of a component's `action` export.
pub(crate) type Action = action::Guest;
/// The bindings of a component's `state-store` export.
pub(crate) type StateStore = state_store::Guest;

use wasmtime::Store;
use wasmtime::component::{Instance, InstancePre};

use crate::state::StoreState;

/// Declares the added families, each with the interface a component exports it as: where
/// they are in a pre-linked component ([`AdditionsIndices`]), their bindings in an instance
/// ([`Additions`]) and which a component has ([`Families`]).
macro_rules! additions {
    ($($(#[$doc:meta])* $family:ident = $interface:literal,)+) => {
        /// Which of the added families a component exports.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct Families {
            $($(#[$doc])* pub $family: bool,)+
        }

        /// Where the added families a component exports are.
        pub(crate) struct AdditionsIndices {
            $($family: Option<generated::exports::tfwasm::provider0_3_0::$family::GuestIndices>,)+
        }

        impl AdditionsIndices {
            /// Finds each added family `pre`'s component exports, checking its types; a
            /// family it does not export is absent, not an error.
            pub fn new(pre: &InstancePre<StoreState>) -> wasmtime::Result<AdditionsIndices> {
                Ok(AdditionsIndices {
                    $($family: match pre.component().get_export_index(None, $interface) {
                        Some(_) => Some(generated::exports::tfwasm::provider0_3_0::$family::GuestIndices::new(pre)?),
                        None => None,
                    },)+
                })
            }

            /// The bindings of the added families in `instance`.
            pub fn load(&self, store: &mut Store<StoreState>, instance: &Instance) -> wasmtime::Result<Additions> {
                Ok(Additions {
                    $($family: match &self.$family {
                        Some(indices) => Some(indices.load(&mut *store, instance)?),
                        None => None,
                    },)+
                })
            }

            /// Which added families are there.
            pub fn families(&self) -> Families {
                Families {
                    $($family: self.$family.is_some(),)+
                }
            }
        }

        /// An instance's bindings of the added families it exports.
        pub(crate) struct Additions {
            $(pub $family: Option<generated::exports::tfwasm::provider0_3_0::$family::Guest>,)+
        }
    };
}

additions! {
    /// GenerateResourceConfig (`config-generation`).
    config_generation = "tfwasm:provider/config-generation@0.3.0",
    /// ListResource and ValidateListResourceConfig (`list-resource`).
    list_resource = "tfwasm:provider/list-resource@0.3.0",
    /// ValidateActionConfig, PlanAction and InvokeAction (`action`).
    action = "tfwasm:provider/action@0.3.0",
    /// The state store family (`state-store`).
    state_store = "tfwasm:provider/state-store@0.3.0",
}
