//! A [`Call`] marker per RPC, generated from the RPC table (`rpc/table.rs`): `calls::ReadResource`
//! is the type a generic wrapper names to handle ReadResource.

use super::*;
use crate::{Diagnostics, ProviderSchema, Rpc};

macro_rules! define_calls {
    ($(
        $name:ident {
            family: $family:ident,
            guest: $guest:literal,
            call: |$p:ident, $req:ident : $Req:ty| -> $Resp:ty $body:block,
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
                type Request = $Req;
                type Response = $Resp;

                fn subject($sreq: &$Req) -> &str {
                    $subject
                }

                fn call<P: Provider>(
                    $p: &P,
                    $req: $Req,
                ) -> impl std::future::Future<Output = $Resp> + Send {
                    $body
                }
            }
        )+
    };
}

super::table::rpc_table!(define_calls);
