//! The floor: tfwasm's tfplugin6 server with handlers that do nothing. A request costs
//! only gRPC, HTTP/2, protobuf and the thin protobuf ⇄ model copy, so latency over this
//! floor is what the provider behind the server adds.

use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ConfigureProviderRequest,
    DynamicValue, ImportResourceStateRequest, ImportResourceStateResponse,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::rpc::{
    DataSourceServer, NoEphemeralResources, NoFunctions, NoMoves, ProviderServer, ResourceServer,
};
use tfwasm_model::{Diagnostics, ProviderSchema};

/// Answers every call at once: upgrades answer the stored JSON, reads the current state,
/// plans the proposal, applies the plan.
pub struct Floor;

impl ProviderServer for Floor {
    async fn get_provider_schema(&self) -> ProviderSchema {
        ProviderSchema::default()
    }
    async fn validate_provider_config(&self, _config: DynamicValue) -> Diagnostics {
        Vec::new()
    }
    async fn configure_provider(&self, _req: ConfigureProviderRequest) -> Diagnostics {
        Vec::new()
    }
    async fn stop_provider(&self) -> Result<(), String> {
        Ok(())
    }
    fn plans_destroy(&self) -> bool {
        true
    }
}

impl ResourceServer for Floor {
    async fn validate_resource_config(&self, _req: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        // The stored JSON as the state, in DynamicValue's JSON form: the state travels on
        // through the read and the plan as a provider's would, and nothing decodes it.
        UpgradeResourceStateResponse {
            upgraded_state: DynamicValue {
                msgpack: Vec::new(),
                json: req.raw_state.json,
            },
            ..Default::default()
        }
    }
    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        ReadResourceResponse {
            new_state: req.current_state,
            ..Default::default()
        }
    }
    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        PlanResourceChangeResponse {
            planned_state: req.proposed_new_state,
            ..Default::default()
        }
    }
    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        ApplyResourceChangeResponse {
            new_state: req.planned_state,
            ..Default::default()
        }
    }
    async fn import_resource_state(
        &self,
        _req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        ImportResourceStateResponse::default()
    }
}

impl DataSourceServer for Floor {
    async fn validate_data_resource_config(&self, _req: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        ReadDataSourceResponse {
            state: req.config,
            ..Default::default()
        }
    }
}

impl NoFunctions for Floor {}

impl NoMoves for Floor {}

impl tfwasm_model::rpc::NoIdentity for Floor {}

impl NoEphemeralResources for Floor {}

impl tfwasm_model::rpc::NoConfigGeneration for Floor {}
impl tfwasm_model::rpc::NoListResources for Floor {}
impl tfwasm_model::rpc::NoActions for Floor {}
impl tfwasm_model::rpc::NoStateStores for Floor {}
