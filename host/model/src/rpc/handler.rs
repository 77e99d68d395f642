//! A provider written as one generic function: a [`Handler`] answers any RPC by its
//! [`Call`] marker, and [`Handled`] turns it into a whole [`Provider`](super::Provider).
//!
//! Wrappers that treat every RPC alike (recording, a test fake that notes what it was asked,
//! a baseline that answers nothing) implement [`Handler`] once instead of every family trait
//! method by hand, so an RPC added to the table reaches them all through the family impls
//! below, which are derived from the table.

use std::future::Future;

use super::*;
use crate::{Diagnostics, ProviderSchema};

/// Answers every RPC, generically.
pub trait Handler: Send + Sync + 'static {
    /// Answers one call of the RPC `C`.
    fn handle<C: Call>(&self, req: C::Request) -> impl Future<Output = C::Response> + Send;

    /// The capabilities to announce. No default: a wrapper passes its inner provider's
    /// through ([`server_capabilities`](super::server_capabilities)), so a capability added
    /// later reaches every wrapper instead of being announced by none.
    fn server_capabilities(&self) -> ServerCapabilities;

    /// StopProvider.
    fn stop_provider(&self) -> impl Future<Output = Result<(), String>> + Send {
        async { Ok(()) }
    }

    /// The schemas indexed, when kept (see [`ProviderServer::schema_index`]).
    fn schema_index(
        &self,
    ) -> impl Future<Output = Option<std::sync::Arc<crate::SchemaIndex>>> + Send {
        async { None }
    }
}

/// A [`Handler`] as a [`Provider`](super::Provider).
#[derive(Debug, Clone, Default)]
pub struct Handled<H>(pub H);

/// `Handled<H>`'s impl of one family's trait from the family's table entries: each method
/// hands its request to the handler as that RPC. `extra` are the trait's other items (the
/// capabilities, read from the handler's [`ServerCapabilities`]).
macro_rules! handled {
    ([$Trait:ident { $($extra:tt)* }] $(
        $name:ident { family: $family:ident, guest: $guest:literal, wire: $wire:ident, method: [$($method:tt)*], $($entry:tt)* }
    )*) => {
        impl<H: Handler> $Trait for Handled<H> {
            $($extra)*
            $(crate::__rpc_method!(handled $name: $($method)*);)*
        }
    };
}

crate::__rpcs_provider!(each handled ProviderServer {
    fn plans_destroy(&self) -> bool {
        self.0.server_capabilities().plan_destroy
    }

    async fn stop_provider(&self) -> Result<(), String> {
        self.0.stop_provider().await
    }

    async fn schema_index(&self) -> Option<std::sync::Arc<crate::SchemaIndex>> {
        self.0.schema_index().await
    }
});
crate::__rpcs_resource!(each handled ResourceServer {});
crate::__rpcs_data_source!(each handled DataSourceServer {});
crate::__rpcs_function!(each handled FunctionServer {});
crate::__rpcs_moves!(each handled MoveServer {
    fn moves_state(&self) -> bool {
        self.0.server_capabilities().move_resource_state
    }
});
crate::__rpcs_config_generation!(each handled ConfigGenerationServer {
    fn generates_config(&self) -> bool {
        self.0.server_capabilities().generate_resource_config
    }
});
crate::__rpcs_identity!(each handled IdentityServer {});
crate::__rpcs_ephemeral!(each handled EphemeralServer {});
crate::__rpcs_list!(each handled ListServer {});
crate::__rpcs_action!(each handled ActionServer {});
crate::__rpcs_state_store!(each handled StateStoreServer {});

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::Rpc;

    /// Notes each RPC it is asked and answers its default.
    #[derive(Default)]
    struct Notes(Mutex<Vec<(Rpc, String)>>);

    impl Handler for Notes {
        async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
            let subject = C::subject(&req).to_owned();
            self.0.lock().unwrap().push((C::RPC, subject));
            C::Response::default()
        }

        fn server_capabilities(&self) -> ServerCapabilities {
            ServerCapabilities {
                plan_destroy: true,
                get_provider_schema_optional: true,
                move_resource_state: true,
                generate_resource_config: true,
            }
        }
    }

    fn run<F: Future>(f: F) -> F::Output {
        // The handler's futures are ready at once.
        let waker = std::task::Waker::noop();
        let mut f = std::pin::pin!(f);
        match f.as_mut().poll(&mut std::task::Context::from_waker(waker)) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => panic!("pending"),
        }
    }

    /// Calls one RPC's family trait method on a `Handled` with its default request.
    struct CallIt<'a>(&'a Handled<Notes>);

    impl CallVisitor for CallIt<'_> {
        type Output = ();
        fn visit<C: Call>(self) {
            run(C::call(self.0, C::Request::default()));
        }
    }

    /// Every family method reaches the handler as its own RPC: the table's `call` of each RPC
    /// goes through the family trait's method that the table derived for `Handled` (that an
    /// entry names its own RPC's method is `rpc_name`'s
    /// `each_rpc_is_served_by_the_method_of_its_name`).
    #[test]
    fn every_rpc_reaches_the_handler_as_itself() {
        let p = Handled(Notes::default());
        for &rpc in Rpc::ALL {
            rpc.visit(CallIt(&p));
        }
        let notes = std::mem::take(&mut *p.0.0.lock().unwrap());
        let rpcs: Vec<Rpc> = notes.iter().map(|(rpc, _)| *rpc).collect();
        assert_eq!(rpcs, Rpc::ALL, "each once, as itself");
    }

    /// The subject a handler sees is the request's, through methods whose arguments are the
    /// request's fields too.
    #[test]
    fn the_handler_sees_each_requests_subject() {
        let p = Handled(Notes::default());
        run(p.read_resource(ReadResourceRequest {
            type_name: "t_read".into(),
            ..Default::default()
        }));
        run(p.move_resource_state(MoveResourceStateRequest {
            target_type_name: "t_to".into(),
            ..Default::default()
        }));
        run(p.call_function(CallFunctionRequest {
            name: "f".into(),
            arguments: Vec::new(),
        }));
        run(p.generate_resource_config(GenerateResourceConfigRequest {
            type_name: "t_gen".into(),
            ..Default::default()
        }));
        run(p.list_resource(ListResourceRequest {
            type_name: "t_list".into(),
            ..Default::default()
        }));
        run(p.invoke_action(InvokeActionRequest {
            action_type: "t_act".into(),
            ..Default::default()
        }));
        run(p.lock_state(LockStateRequest {
            type_name: "t_store".into(),
            ..Default::default()
        }));
        run(p.validate_provider_config(DynamicValue::null()));
        run(p.get_provider_schema());
        let notes = p.0.0.into_inner().unwrap();
        let seen: Vec<(Rpc, &str)> = notes.iter().map(|(r, s)| (*r, s.as_str())).collect();
        assert_eq!(
            seen,
            [
                (Rpc::ReadResource, "t_read"),
                (Rpc::MoveResourceState, "t_to"),
                (Rpc::CallFunction, "f"),
                (Rpc::GenerateResourceConfig, "t_gen"),
                (Rpc::ListResource, "t_list"),
                (Rpc::InvokeAction, "t_act"),
                (Rpc::LockState, "t_store"),
                (Rpc::ValidateProviderConfig, ""),
                (Rpc::GetProviderSchema, ""),
            ]
        );
    }

    /// A wrapper announces what its handler does, every capability at once: one added to
    /// [`ServerCapabilities`] reaches every wrapper (the recording announced no config
    /// generation while `Handler` had one default method per capability).
    #[test]
    fn every_capability_reaches_the_provider() {
        let p = Handled(Notes::default());
        assert_eq!(server_capabilities(&p), p.0.server_capabilities());
    }
}
