//! A provider written as one generic function: a [`Handler`] answers any RPC by its
//! [`Call`] marker, and [`Handled`] turns it into a whole [`Provider`](super::Provider).
//!
//! Wrappers that treat every RPC alike (recording, a test fake that notes what it was asked,
//! a baseline that answers nothing) implement [`Handler`] once instead of every family trait
//! method by hand, so an RPC added to the table reaches them all through the family impls
//! below, the one place outside the table that names each RPC's method.

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

impl<H: Handler> ProviderServer for Handled<H> {
    async fn get_provider_schema(&self) -> ProviderSchema {
        self.0
            .handle::<calls::GetProviderSchema>(NoRequest {})
            .await
    }

    fn plans_destroy(&self) -> bool {
        self.0.server_capabilities().plan_destroy
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        let req = ValidateProviderConfigRequest { config };
        self.0.handle::<calls::ValidateProviderConfig>(req).await
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        self.0.handle::<calls::ConfigureProvider>(req).await
    }

    async fn stop_provider(&self) -> Result<(), String> {
        self.0.stop_provider().await
    }

    async fn schema_index(&self) -> Option<std::sync::Arc<crate::SchemaIndex>> {
        self.0.schema_index().await
    }
}

impl<H: Handler> ResourceServer for Handled<H> {
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.0.handle::<calls::ValidateResourceConfig>(req).await
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        self.0.handle::<calls::UpgradeResourceState>(req).await
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        self.0.handle::<calls::ReadResource>(req).await
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        self.0.handle::<calls::PlanResourceChange>(req).await
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        self.0.handle::<calls::ApplyResourceChange>(req).await
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        self.0.handle::<calls::ImportResourceState>(req).await
    }
}

impl<H: Handler> DataSourceServer for Handled<H> {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        self.0
            .handle::<calls::ValidateDataResourceConfig>(req)
            .await
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        self.0.handle::<calls::ReadDataSource>(req).await
    }
}

impl<H: Handler> FunctionServer for Handled<H> {
    async fn get_functions(&self) -> GetFunctionsResponse {
        self.0.handle::<calls::GetFunctions>(NoRequest {}).await
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        self.0.handle::<calls::CallFunction>(req).await
    }
}

impl<H: Handler> MoveServer for Handled<H> {
    fn moves_state(&self) -> bool {
        self.0.server_capabilities().move_resource_state
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        self.0.handle::<calls::MoveResourceState>(req).await
    }
}

impl<H: Handler> ConfigGenerationServer for Handled<H> {
    fn generates_config(&self) -> bool {
        self.0.server_capabilities().generate_resource_config
    }

    async fn generate_resource_config(
        &self,
        req: GenerateResourceConfigRequest,
    ) -> GenerateResourceConfigResponse {
        self.0.handle::<calls::GenerateResourceConfig>(req).await
    }
}

impl<H: Handler> ListServer for Handled<H> {
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        (self.0)
            .handle::<calls::ValidateListResourceConfig>(req)
            .await
    }

    async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
        self.0.handle::<calls::ListResource>(req).await
    }
}

impl<H: Handler> ActionServer for Handled<H> {
    async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
        self.0.handle::<calls::ValidateActionConfig>(req).await
    }

    async fn plan_action(&self, req: PlanActionRequest) -> PlanActionResponse {
        self.0.handle::<calls::PlanAction>(req).await
    }

    async fn invoke_action(&self, req: InvokeActionRequest) -> Diagnostics {
        self.0.handle::<calls::InvokeAction>(req).await
    }
}

impl<H: Handler> StateStoreServer for Handled<H> {
    async fn validate_state_store_config(
        &self,
        req: ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        (self.0)
            .handle::<calls::ValidateStateStoreConfig>(req)
            .await
    }

    async fn configure_state_store(
        &self,
        req: ConfigureStateStoreRequest,
    ) -> ConfigureStateStoreResponse {
        self.0.handle::<calls::ConfigureStateStore>(req).await
    }

    async fn read_state(&self, req: StateRequest) -> ReadStateResponse {
        self.0.handle::<calls::ReadStateBytes>(req).await
    }

    async fn write_state(&self, req: WriteStateRequest) -> Diagnostics {
        self.0.handle::<calls::WriteStateBytes>(req).await
    }

    async fn lock_state(&self, req: LockStateRequest) -> LockStateResponse {
        self.0.handle::<calls::LockState>(req).await
    }

    async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
        self.0.handle::<calls::UnlockState>(req).await
    }

    async fn get_states(&self, req: GetStatesRequest) -> GetStatesResponse {
        self.0.handle::<calls::GetStates>(req).await
    }

    async fn delete_state(&self, req: StateRequest) -> Diagnostics {
        self.0.handle::<calls::DeleteState>(req).await
    }
}

impl<H: Handler> IdentityServer for Handled<H> {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        (self.0)
            .handle::<calls::GetResourceIdentitySchemas>(NoRequest {})
            .await
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        self.0.handle::<calls::UpgradeResourceIdentity>(req).await
    }
}

impl<H: Handler> EphemeralServer for Handled<H> {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        (self.0)
            .handle::<calls::ValidateEphemeralResourceConfig>(req)
            .await
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        self.0.handle::<calls::OpenEphemeralResource>(req).await
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        self.0.handle::<calls::RenewEphemeralResource>(req).await
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        self.0.handle::<calls::CloseEphemeralResource>(req).await
    }
}

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

    /// Every family method reaches the handler as its own RPC, with its subject.
    #[test]
    fn every_rpc_reaches_the_handler_as_itself() {
        let p = Handled(Notes::default());
        let read = ReadResourceRequest {
            type_name: "t_read".into(),
            ..Default::default()
        };
        run(p.get_provider_schema());
        run(p.validate_provider_config(DynamicValue::null()));
        run(p.configure_provider(Default::default()));
        run(p.validate_resource_config(Default::default()));
        run(p.validate_data_resource_config(Default::default()));
        run(p.upgrade_resource_state(Default::default()));
        run(p.read_resource(read));
        run(p.plan_resource_change(Default::default()));
        run(p.apply_resource_change(Default::default()));
        run(p.import_resource_state(Default::default()));
        run(p.read_data_source(Default::default()));
        run(p.get_functions());
        run(p.call_function(CallFunctionRequest {
            name: "f".into(),
            arguments: Vec::new(),
        }));
        run(p.move_resource_state(MoveResourceStateRequest {
            target_type_name: "t_to".into(),
            ..Default::default()
        }));
        run(p.generate_resource_config(GenerateResourceConfigRequest {
            type_name: "t_gen".into(),
            ..Default::default()
        }));
        run(p.get_resource_identity_schemas());
        run(p.upgrade_resource_identity(Default::default()));
        run(p.validate_ephemeral_resource_config(Default::default()));
        run(p.open_ephemeral_resource(Default::default()));
        run(p.renew_ephemeral_resource(Default::default()));
        run(p.close_ephemeral_resource(Default::default()));
        run(p.validate_list_resource_config(Default::default()));
        run(p.list_resource(ListResourceRequest {
            type_name: "t_list".into(),
            ..Default::default()
        }));
        run(p.validate_action_config(Default::default()));
        run(p.plan_action(Default::default()));
        run(p.invoke_action(InvokeActionRequest {
            action_type: "t_act".into(),
            ..Default::default()
        }));
        run(p.validate_state_store_config(Default::default()));
        run(p.configure_state_store(Default::default()));
        run(p.read_state(Default::default()));
        run(p.write_state(Default::default()));
        run(p.lock_state(LockStateRequest {
            type_name: "t_store".into(),
            ..Default::default()
        }));
        run(p.unlock_state(Default::default()));
        run(p.get_states(Default::default()));
        run(p.delete_state(Default::default()));
        let notes = p.0.0.into_inner().unwrap();
        let rpcs: Vec<Rpc> = notes.iter().map(|(rpc, _)| *rpc).collect();
        assert_eq!(rpcs, Rpc::ALL, "each once, in the table's order");
        let subject = |rpc| notes.iter().find(|(r, _)| *r == rpc).unwrap().1.as_str();
        assert_eq!(subject(Rpc::ReadResource), "t_read");
        assert_eq!(subject(Rpc::MoveResourceState), "t_to");
        assert_eq!(subject(Rpc::CallFunction), "f");
        assert_eq!(subject(Rpc::GenerateResourceConfig), "t_gen");
        assert_eq!(subject(Rpc::ListResource), "t_list");
        assert_eq!(subject(Rpc::InvokeAction), "t_act");
        assert_eq!(subject(Rpc::LockState), "t_store");
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
