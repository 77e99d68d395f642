//! [`Rpc`]: the provider RPCs by name, typed, so that a per-RPC limit, an error or a log line
//! cannot name an RPC that does not exist, and adding one is a compile error wherever RPCs
//! are listed exhaustively.

use std::fmt;
use std::str::FromStr;

use crate::rpc::{CallVisitor, Family, Field};

/// Defines [`Rpc`] and what is known of each RPC from the RPC table (each family's
/// entries, gathered by `rpc/table.rs`), so a
/// new RPC cannot be missing from `ALL` (and so from `FromStr`, the limits settings and
/// every exhaustive `match`), and its fields cannot be missing from redaction.
/// The two ways the wire routes an RPC: from the table (`derived`) or by hand (`by_hand`:
/// streams, and methods whose messages the protocol names apart from them).
macro_rules! wire_word {
    (derived) => {
        true
    };
    (by_hand) => {
        false
    };
}

macro_rules! define_rpcs {
    ([] $(
        $name:ident {
            family: $family:ident,
            guest: $guest:literal,
            wire: $wire:ident,
            method: [$method:ident $($signature:tt)*],
            subject: |$sreq:ident| $subject:expr,
            request: { $($qf:ident: $qk:ident),* $(,)? },
            response: { $($sf:ident: $sk:ident),* $(,)? },
        }
    )+) => {
        /// A tfplugin6 RPC of the family traits, named as in the protocol and as operators
        /// see it in logs, recordings and `[limits.rpc.NAME]`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rpc {
            $(
                #[doc = stringify!($name)]
                $name,
            )+
        }

        // Each entry's `wire:` is one of the two words the wire knows: another is a compile
        // error here, in the model, rather than deep in the wire's route macro.
        const _: [bool; Rpc::ALL.len()] = [$(wire_word!($wire)),+];

        impl Rpc {
            /// Every RPC, in the table's order: by family (`rpc_table!`), then as each family
            /// lists them.
            pub const ALL: &'static [Rpc] = &[$(Rpc::$name),+];

            /// The protocol's method name, e.g. `PlanResourceChange`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Rpc::$name => stringify!($name),)+
                }
            }

            /// The family trait's method that serves it, e.g. `plan_resource_change` (for
            /// the test that each entry names its own RPC's).
            #[cfg(test)]
            const fn method_name(self) -> &'static str {
                match self {
                    $(Rpc::$name => stringify!($method),)+
                }
            }

            /// The family whose trait serves it.
            pub const fn family(self) -> Family {
                match self {
                    $(Rpc::$name => Family::$family,)+
                }
            }

            /// Whether the provider's code answers it (a call into the component, under the
            /// limits); the others are answered by the host from what it already has.
            pub const fn reaches_guest(self) -> bool {
                match self {
                    $(Rpc::$name => $guest,)+
                }
            }

            /// What each field of the request holds.
            pub const fn request_fields(self) -> &'static [(&'static str, Field)] {
                match self {
                    $(Rpc::$name => &[$((stringify!($qf), Field::$qk)),*],)+
                }
            }

            /// What each field of the response holds.
            pub const fn response_fields(self) -> &'static [(&'static str, Field)] {
                match self {
                    $(Rpc::$name => &[$((stringify!($sf), Field::$sk)),*],)+
                }
            }

            /// Calls `visitor` with this RPC's [`Call`] marker, so code generic over one RPC
            /// can be reached from its name (replay).
            pub fn visit<V: CallVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $(Rpc::$name => visitor.visit::<crate::rpc::calls::$name>(),)+
                }
            }
        }
    };
}

crate::rpc_table!(define_rpcs);

impl Rpc {
    /// What the field `name` of this RPC's request or response holds; `None` for a field the
    /// table does not know, which a reader must treat as a secret.
    pub fn field(self, name: &str) -> Option<Field> {
        (self.request_fields().iter())
            .chain(self.response_fields())
            .find(|(field, _)| *field == name)
            .map(|&(_, what)| what)
    }
}

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

    /// The family trait's method is the RPC's name in snake case, except where the trait
    /// moves whole states and the protocol moves them in chunks: an entry naming another
    /// RPC's method (which every generated layer would follow) fails here.
    #[test]
    fn each_rpc_is_served_by_the_method_of_its_name() {
        let snake = |name: &str| {
            let mut out = String::new();
            for c in name.chars() {
                if c.is_ascii_uppercase() && !out.is_empty() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        };
        for &rpc in Rpc::ALL {
            let want = match rpc {
                Rpc::ReadStateBytes => "read_state".to_owned(),
                Rpc::WriteStateBytes => "write_state".to_owned(),
                _ => snake(rpc.name()),
            };
            assert_eq!(rpc.method_name(), want, "{rpc}");
        }
    }

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
