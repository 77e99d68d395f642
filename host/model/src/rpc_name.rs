//! [`Rpc`]: the provider RPCs by name, typed, so that a per-RPC limit, an error or a log line
//! cannot name an RPC that does not exist, and adding one is a compile error wherever RPCs
//! are listed exhaustively.

use std::fmt;
use std::str::FromStr;

/// Defines [`Rpc`], [`Rpc::ALL`] and [`Rpc::name`] from one list, so a new RPC cannot be
/// missing from `ALL` (and so from `FromStr` and the limits settings).
macro_rules! rpcs {
    ($($name:ident),+ $(,)?) => {
        /// A tfplugin6 RPC that reaches the provider's code (a call into the component), named
        /// as in the protocol and as operators see it in logs and in `[limits.rpc.NAME]`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rpc {
            $(
                #[doc = stringify!($name)]
                $name,
            )+
        }

        impl Rpc {
            /// Every RPC, in protocol order.
            pub const ALL: &'static [Rpc] = &[$(Rpc::$name),+];

            /// The protocol's method name, e.g. `PlanResourceChange`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Rpc::$name => stringify!($name),)+
                }
            }
        }
    };
}

rpcs!(
    GetProviderSchema,
    ValidateProviderConfig,
    ConfigureProvider,
    ValidateResourceConfig,
    ValidateDataResourceConfig,
    UpgradeResourceState,
    ReadResource,
    PlanResourceChange,
    ApplyResourceChange,
    ImportResourceState,
    ReadDataSource,
    CallFunction,
    MoveResourceState,
    UpgradeResourceIdentity,
    ValidateEphemeralResourceConfig,
    OpenEphemeralResource,
    RenewEphemeralResource,
    CloseEphemeralResource,
);

impl fmt::Display for Rpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Rpc::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown RPC {name:?} (expected one of {})", Rpc::ALL.iter().map(|r| r.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownRpc {
    /// The name given.
    pub name: String,
}

impl FromStr for Rpc {
    type Err = UnknownRpc;

    fn from_str(name: &str) -> Result<Rpc, UnknownRpc> {
        Rpc::ALL
            .iter()
            .copied()
            .find(|rpc| rpc.name() == name)
            .ok_or_else(|| UnknownRpc {
                name: name.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_known_ones() {
        for &rpc in Rpc::ALL {
            assert_eq!(rpc.name().parse::<Rpc>(), Ok(rpc));
            assert_eq!(rpc.to_string(), rpc.name());
        }
        let error = "PlanResource".parse::<Rpc>().unwrap_err().to_string();
        assert!(
            error.starts_with("unknown RPC \"PlanResource\" (expected one of GetProviderSchema,"),
            "{error}"
        );
        let last = Rpc::ALL.last().unwrap().name();
        assert!(error.ends_with(&format!("{last})")), "{error}");
    }
}
