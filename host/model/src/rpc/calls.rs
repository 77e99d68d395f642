//! A [`Call`] marker per RPC, generated from the RPC table (each family's entries, gathered
//! by `rpc/table.rs`): `calls::ReadResource` is the type a generic wrapper names to handle
//! ReadResource.

use super::*;
use crate::{Diagnostics, ProviderSchema, Rpc};

macro_rules! define_calls {
    ([] $(
        $name:ident {
            family: $family:ident,
            guest: $guest:literal,
            wire: $wire:ident,
            method: [$($method:tt)*],
            subject: |$sreq:ident| $subject:expr,
            request: { $($qf:ident: $qk:ident),* $(,)? },
            response: { $($sf:ident: $sk:ident),* $(,)? },
        }
    )+) => {
        $(
            #[doc = concat!("The ", stringify!($name), " RPC.")]
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl Call for $name {
                const RPC: Rpc = Rpc::$name;
                type Request = $crate::__rpc_method!(request: $($method)*);
                type Response = $crate::__rpc_method!(response: $($method)*);

                fn subject($sreq: &Self::Request) -> &str {
                    $subject
                }

                fn call<P: Provider>(
                    provider: &P,
                    request: Self::Request,
                ) -> impl std::future::Future<Output = Self::Response> + Send {
                    $crate::__rpc_method!(call provider request: $($method)*)
                }
            }
        )+
    };
}

crate::rpc_table!(define_calls);
