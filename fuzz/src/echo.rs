//! A provider that answers every call with the fuzzer's bytes as its result value, so the
//! host's decoding and contract checks see what an arbitrary guest could return after the
//! WIT boundary (values cross it as msgpack bytes, as here).

use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ConfigureProviderRequest,
    DataSourceServer, DynamicValue, ImportResourceStateRequest, ImportResourceStateResponse,
    ImportedResource, NoEphemeralResources, NoFunctions, NoIdentity, NoMoves,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ProviderServer, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, ResourceServer,
    UpgradeResourceStateRequest, UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::{
    Attribute, AttributePath, Block, BlockNesting, Diagnostics, NestedBlock, ProviderSchema,
    Schema, Type,
};

/// The resource type and data source the echo provider declares.
pub const RESOURCE: &str = "fuzz_thing";
/// See [`RESOURCE`].
pub const DATA_SOURCE: &str = "fuzz_data";

/// Answers with `result` (msgpack bytes of the declared type, or not).
pub struct Echo {
    /// The value every result carries.
    pub result: Vec<u8>,
    /// Paths the plan says require replacement.
    pub requires_replace: Vec<AttributePath>,
}

/// `id` (computed), `name` (required), `tags`, `size` (optional+computed), a sensitive and a
/// write-only attribute, and a list block of rules with a set inside.
pub fn block() -> Block {
    let attr = |name: &str, ty: Type, set: fn(&mut Attribute)| {
        let mut a = Attribute::new(name, ty);
        set(&mut a);
        a
    };
    let rule = Block {
        attributes: vec![
            attr("port", Type::Number, |a| a.required = true),
            attr("cidrs", Type::set(Type::String), |a| a.optional = true),
        ],
        ..Block::default()
    };
    Block {
        attributes: vec![
            attr("id", Type::String, |a| a.computed = true),
            attr("name", Type::String, |a| a.required = true),
            attr("tags", Type::map(Type::String), |a| a.optional = true),
            attr("size", Type::Number, |a| {
                a.optional = true;
                a.computed = true;
            }),
            attr("secret", Type::String, |a| {
                a.optional = true;
                a.sensitive = true;
            }),
            attr("token", Type::String, |a| {
                a.optional = true;
                a.write_only = true;
            }),
        ],
        block_types: vec![NestedBlock {
            type_name: "rule".into(),
            block: rule,
            nesting: BlockNesting::List,
            min_items: 0,
            max_items: 0,
        }],
        ..Block::default()
    }
}

impl Echo {
    fn value(&self) -> DynamicValue {
        DynamicValue::from_msgpack(self.result.clone())
    }
}

impl ProviderServer for Echo {
    async fn get_provider_schema(&self) -> ProviderSchema {
        let schema = Schema {
            version: 1,
            block: block(),
        };
        let mut out = ProviderSchema::default();
        out.resources.insert(RESOURCE.into(), schema.clone());
        out.data_sources.insert(DATA_SOURCE.into(), schema);
        out
    }
    fn plans_destroy(&self) -> bool {
        true
    }
    async fn validate_provider_config(&self, _: DynamicValue) -> Diagnostics {
        Vec::new()
    }
    async fn configure_provider(&self, _: ConfigureProviderRequest) -> Diagnostics {
        Vec::new()
    }
    async fn stop_provider(&self) -> Result<(), String> {
        Ok(())
    }
}

impl ResourceServer for Echo {
    async fn validate_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn upgrade_resource_state(
        &self,
        _: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        UpgradeResourceStateResponse {
            upgraded_state: self.value(),
            ..Default::default()
        }
    }
    async fn read_resource(&self, _: ReadResourceRequest) -> ReadResourceResponse {
        ReadResourceResponse {
            new_state: self.value(),
            ..Default::default()
        }
    }
    async fn plan_resource_change(
        &self,
        _: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        PlanResourceChangeResponse {
            planned_state: self.value(),
            requires_replace: self.requires_replace.clone(),
            ..Default::default()
        }
    }
    async fn apply_resource_change(
        &self,
        _: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        ApplyResourceChangeResponse {
            new_state: self.value(),
            ..Default::default()
        }
    }
    async fn import_resource_state(
        &self,
        _: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        ImportResourceStateResponse {
            imported_resources: vec![ImportedResource {
                type_name: RESOURCE.into(),
                state: self.value(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }
}

impl DataSourceServer for Echo {
    async fn validate_data_resource_config(&self, _: ValidateConfigRequest) -> Diagnostics {
        Vec::new()
    }
    async fn read_data_source(&self, _: ReadDataSourceRequest) -> ReadDataSourceResponse {
        ReadDataSourceResponse {
            state: self.value(),
            ..Default::default()
        }
    }
}

impl NoFunctions for Echo {}
impl NoMoves for Echo {}
impl NoIdentity for Echo {}
impl NoEphemeralResources for Echo {}
impl tfwasm_model::rpc::NoConfigGeneration for Echo {}
impl tfwasm_model::rpc::NoListResources for Echo {}
impl tfwasm_model::rpc::NoActions for Echo {}
impl tfwasm_model::rpc::NoStateStores for Echo {}
