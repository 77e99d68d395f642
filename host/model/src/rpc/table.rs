//! The one declaration of every RPC the family traits serve: its name, family, whether the
//! provider's code answers it, its request and response types, how a wrapper calls it, what
//! it is about (its subject) and what each field of its messages holds.
//!
//! Everything else is derived from this table: [`Rpc`](crate::Rpc) and its names, the
//! [`Call`](super::Call) markers through which a wrapper (recording, replay) handles every
//! RPC with one generic function, and the [`Field`](super::Field) of each message field
//! that recordings redact by. An RPC missing here is missing everywhere at once; a field
//! missing here is redacted whole (and fails the table's completeness test).
//!
//! StopProvider and GetMetadata are not here: they carry no values and reach no family
//! trait as a request/response pair.

/// Hands the table to `$callback`, a `macro_rules!` macro that generates code from it.
macro_rules! rpc_table {
    ($callback:ident) => {
        $callback! {
            GetProviderSchema {
                family: Provider,
                guest: true,
                call: |p, req: NoRequest| -> ProviderSchema { { let NoRequest {} = req; p.get_provider_schema() } },
                subject: |_req| "",
                request: {},
                response: {
                    provider: Plain, provider_meta: Plain, resources: Plain, data_sources: Plain,
                    ephemeral_resources: Plain, diagnostics: Diagnostics,
                },
            }
            ValidateProviderConfig {
                family: Provider,
                guest: true,
                call: |p, req: ValidateProviderConfigRequest| -> Diagnostics { p.validate_provider_config(req.config) },
                subject: |_req| "",
                request: { config: Object },
                response: { diagnostics: Diagnostics },
            }
            ConfigureProvider {
                family: Provider,
                guest: true,
                call: |p, req: ConfigureProviderRequest| -> Diagnostics { p.configure_provider(req) },
                subject: |_req| "",
                request: { terraform_version: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics },
            }
            ValidateResourceConfig {
                family: Resource,
                guest: true,
                call: |p, req: ValidateConfigRequest| -> Diagnostics { p.validate_resource_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics },
            }
            ValidateDataResourceConfig {
                family: DataSource,
                guest: true,
                call: |p, req: ValidateConfigRequest| -> Diagnostics { p.validate_data_resource_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics },
            }
            UpgradeResourceState {
                family: Resource,
                guest: true,
                call: |p, req: UpgradeResourceStateRequest| -> UpgradeResourceStateResponse { p.upgrade_resource_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, version: Plain, raw_state: RawState },
                response: { upgraded_state: Object, diagnostics: Diagnostics },
            }
            ReadResource {
                family: Resource,
                guest: true,
                call: |p, req: ReadResourceRequest| -> ReadResourceResponse { p.read_resource(req) },
                subject: |req| &req.type_name,
                request: {
                    type_name: Plain, current_state: Object, private: Private,
                    provider_meta: ProviderMeta, client_capabilities: Plain, current_identity: Identity,
                },
                response: {
                    new_state: Object, diagnostics: Diagnostics, private: Private, deferred: Plain,
                    new_identity: Identity,
                },
            }
            PlanResourceChange {
                family: Resource,
                guest: true,
                call: |p, req: PlanResourceChangeRequest| -> PlanResourceChangeResponse { p.plan_resource_change(req) },
                subject: |req| &req.type_name,
                request: {
                    type_name: Plain, prior_state: Object, proposed_new_state: Object, config: Object,
                    prior_private: Private, provider_meta: ProviderMeta, client_capabilities: Plain,
                    prior_identity: Identity, planned_private: Private,
                },
                response: {
                    planned_state: Object, requires_replace: Paths, planned_private: Private,
                    diagnostics: Diagnostics, deferred: Plain, planned_identity: Identity,
                },
            }
            ApplyResourceChange {
                family: Resource,
                guest: true,
                call: |p, req: ApplyResourceChangeRequest| -> ApplyResourceChangeResponse { p.apply_resource_change(req) },
                subject: |req| &req.type_name,
                request: {
                    type_name: Plain, prior_state: Object, planned_state: Object, config: Object,
                    planned_private: Private, provider_meta: ProviderMeta, planned_identity: Identity,
                },
                response: { new_state: Object, private: Private, diagnostics: Diagnostics, new_identity: Identity },
            }
            ImportResourceState {
                family: Resource,
                guest: true,
                call: |p, req: ImportResourceStateRequest| -> ImportResourceStateResponse { p.import_resource_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, id: ImportId, client_capabilities: Plain, identity: Identity },
                response: { imported_resources: Imported, diagnostics: Diagnostics, deferred: Plain },
            }
            ReadDataSource {
                family: DataSource,
                guest: true,
                call: |p, req: ReadDataSourceRequest| -> ReadDataSourceResponse { p.read_data_source(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, provider_meta: ProviderMeta, client_capabilities: Plain },
                response: { state: Object, diagnostics: Diagnostics, deferred: Plain },
            }
            GetFunctions {
                family: Function,
                guest: false,
                call: |p, req: NoRequest| -> GetFunctionsResponse { { let NoRequest {} = req; p.get_functions() } },
                subject: |_req| "",
                request: {},
                response: { functions: Plain, diagnostics: Diagnostics },
            }
            CallFunction {
                family: Function,
                guest: true,
                call: |p, req: CallFunctionRequest| -> CallFunctionResponse { p.call_function(req) },
                subject: |req| &req.name,
                request: { name: Plain, arguments: Arguments },
                response: { result: FunctionResult, error: FunctionError },
            }
            MoveResourceState {
                family: Move,
                guest: true,
                call: |p, req: MoveResourceStateRequest| -> MoveResourceStateResponse { p.move_resource_state(req) },
                subject: |req| &req.target_type_name,
                request: {
                    source_provider_address: Plain, source_type_name: Plain, source_schema_version: Plain,
                    source_state: Foreign, target_type_name: Plain, source_private: Private,
                    source_identity: Foreign, source_identity_schema_version: Plain,
                },
                response: {
                    target_state: Object, target_private: Private, diagnostics: Diagnostics,
                    target_identity: Identity,
                },
            }
            GenerateResourceConfig {
                family: ConfigGeneration,
                guest: true,
                call: |p, req: GenerateResourceConfigRequest| -> GenerateResourceConfigResponse { p.generate_resource_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state: Object },
                response: { config: Object, diagnostics: Diagnostics },
            }
            GetResourceIdentitySchemas {
                family: Identity,
                guest: false,
                call: |p, req: NoRequest| -> GetResourceIdentitySchemasResponse { { let NoRequest {} = req; p.get_resource_identity_schemas() } },
                subject: |_req| "",
                request: {},
                response: { identity_schemas: Plain, diagnostics: Diagnostics },
            }
            UpgradeResourceIdentity {
                family: Identity,
                guest: true,
                call: |p, req: UpgradeResourceIdentityRequest| -> UpgradeResourceIdentityResponse { p.upgrade_resource_identity(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, version: Plain, raw_identity: RawIdentity },
                response: { upgraded_identity: Identity, diagnostics: Diagnostics },
            }
            ValidateEphemeralResourceConfig {
                family: Ephemeral,
                guest: true,
                call: |p, req: ValidateConfigRequest| -> Diagnostics { p.validate_ephemeral_resource_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics },
            }
            OpenEphemeralResource {
                family: Ephemeral,
                guest: true,
                call: |p, req: OpenEphemeralResourceRequest| -> OpenEphemeralResourceResponse { p.open_ephemeral_resource(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, client_capabilities: Plain },
                response: {
                    result: EphemeralResult, private: Private, renew_at: Plain, diagnostics: Diagnostics,
                    deferred: Plain,
                },
            }
            RenewEphemeralResource {
                family: Ephemeral,
                guest: true,
                call: |p, req: RenewEphemeralResourceRequest| -> RenewEphemeralResourceResponse { p.renew_ephemeral_resource(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, private: Private },
                response: { private: Private, renew_at: Plain, diagnostics: Diagnostics },
            }
            CloseEphemeralResource {
                family: Ephemeral,
                guest: true,
                call: |p, req: CloseEphemeralResourceRequest| -> Diagnostics { p.close_ephemeral_resource(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, private: Private },
                response: { diagnostics: Diagnostics },
            }
            ValidateListResourceConfig {
                family: List,
                guest: true,
                call: |p, req: ValidateListResourceConfigRequest| -> Diagnostics { p.validate_list_resource_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object },
                response: { diagnostics: Diagnostics },
            }
            ListResource {
                family: List,
                guest: true,
                call: |p, req: ListResourceRequest| -> ListResourcePage { p.list_resource(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, include_resource_object: Plain, limit: Plain, cursor: Private },
                response: { events: ListEvents, next: Private, diagnostics: Diagnostics },
            }
            ValidateActionConfig {
                family: Action,
                guest: true,
                call: |p, req: ValidateActionConfigRequest| -> Diagnostics { p.validate_action_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object },
                response: { diagnostics: Diagnostics },
            }
            PlanAction {
                family: Action,
                guest: true,
                call: |p, req: PlanActionRequest| -> PlanActionResponse { p.plan_action(req) },
                subject: |req| &req.action_type,
                request: { action_type: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics, deferred: Plain },
            }
            InvokeAction {
                family: Action,
                guest: true,
                call: |p, req: InvokeActionRequest| -> Diagnostics { p.invoke_action(req) },
                subject: |req| &req.action_type,
                request: { action_type: Plain, config: Object, client_capabilities: Plain },
                response: { diagnostics: Diagnostics },
            }
            ValidateStateStoreConfig {
                family: StateStore,
                guest: true,
                call: |p, req: ValidateStateStoreConfigRequest| -> Diagnostics { p.validate_state_store_config(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object },
                response: { diagnostics: Diagnostics },
            }
            ConfigureStateStore {
                family: StateStore,
                guest: true,
                call: |p, req: ConfigureStateStoreRequest| -> ConfigureStateStoreResponse { p.configure_state_store(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, config: Object, chunk_size: Plain },
                response: { diagnostics: Diagnostics, chunk_size: Plain },
            }
            ReadStateBytes {
                family: StateStore,
                guest: true,
                call: |p, req: StateRequest| -> ReadStateResponse { p.read_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state_id: Plain },
                response: { bytes: Private, diagnostics: Diagnostics },
            }
            WriteStateBytes {
                family: StateStore,
                guest: true,
                call: |p, req: WriteStateRequest| -> Diagnostics { p.write_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state_id: Plain, bytes: Private },
                response: { diagnostics: Diagnostics },
            }
            LockState {
                family: StateStore,
                guest: true,
                call: |p, req: LockStateRequest| -> LockStateResponse { p.lock_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state_id: Plain, operation: Plain },
                response: { lock_id: Plain, diagnostics: Diagnostics },
            }
            UnlockState {
                family: StateStore,
                guest: true,
                call: |p, req: UnlockStateRequest| -> Diagnostics { p.unlock_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state_id: Plain, lock_id: Plain },
                response: { diagnostics: Diagnostics },
            }
            GetStates {
                family: StateStore,
                guest: true,
                call: |p, req: GetStatesRequest| -> GetStatesResponse { p.get_states(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain },
                response: { state_ids: Plain, diagnostics: Diagnostics },
            }
            DeleteState {
                family: StateStore,
                guest: true,
                call: |p, req: StateRequest| -> Diagnostics { p.delete_state(req) },
                subject: |req| &req.type_name,
                request: { type_name: Plain, state_id: Plain },
                response: { diagnostics: Diagnostics },
            }
        }
    };
}

pub(crate) use rpc_table;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::Rpc;
    use crate::rpc::{Call, CallVisitor, Field, IMPORTED_FIELDS, ImportedResource};

    /// The field names of a message's recorded form: a message of diagnostics only is
    /// recorded as `{"diagnostics": [...]}`.
    fn keys(message: serde_json::Value) -> BTreeSet<String> {
        match message {
            serde_json::Value::Object(fields) => fields.into_iter().map(|(k, _)| k).collect(),
            serde_json::Value::Array(_) => BTreeSet::from(["diagnostics".to_owned()]),
            other => panic!("a message that is neither an object nor diagnostics: {other}"),
        }
    }

    fn names(fields: &[(&str, Field)]) -> BTreeSet<String> {
        fields.iter().map(|(name, _)| (*name).to_owned()).collect()
    }

    struct Forms;

    impl CallVisitor for Forms {
        type Output = (BTreeSet<String>, BTreeSet<String>);
        fn visit<C: Call>(self) -> Self::Output {
            let request = serde_json::to_value(C::Request::default()).unwrap();
            let response = serde_json::to_value(C::Response::default()).unwrap();
            (keys(request), keys(response))
        }
    }

    /// Every field of every message is declared, and nothing declared is missing: a field
    /// added to a message without saying what it holds fails here (and until then is
    /// redacted whole).
    #[test]
    fn the_table_names_every_field_of_every_message() {
        for &rpc in Rpc::ALL {
            let (request, response) = rpc.visit(Forms);
            assert_eq!(request, names(rpc.request_fields()), "{rpc} request");
            assert_eq!(response, names(rpc.response_fields()), "{rpc} response");
        }
        let imported = keys(serde_json::to_value(ImportedResource::default()).unwrap());
        assert_eq!(imported, names(IMPORTED_FIELDS));
    }

    /// A field that holds a value is declared as one in every message that has it (a
    /// `config` or `state` is never plain).
    #[test]
    fn value_fields_are_never_plain() {
        for &rpc in Rpc::ALL {
            for (name, what) in rpc.request_fields().iter().chain(rpc.response_fields()) {
                let value_like = ["config", "state", "private", "identity", "result", "meta"]
                    .iter()
                    .any(|word| name.contains(word))
                    && !name.ends_with("_version")
                    && !name.ends_with("_schemas")
                    // A state's ID is its name (the workspace), not a value.
                    && !name.ends_with("_id")
                    && !name.ends_with("_ids");
                let schema = matches!(rpc, Rpc::GetProviderSchema);
                assert!(
                    !value_like || schema || *what != Field::Plain,
                    "{rpc}.{name} is declared plain"
                );
            }
        }
    }

    #[test]
    fn each_rpc_is_found_by_name_with_its_fields() {
        assert_eq!(Rpc::ReadResource.field("private"), Some(Field::Private));
        assert_eq!(Rpc::ReadResource.field("new_state"), Some(Field::Object));
        assert_eq!(Rpc::ReadResource.field("no_such_field"), None);
        assert!(!Rpc::GetFunctions.reaches_guest());
        assert!(Rpc::CallFunction.reaches_guest());
    }
}
