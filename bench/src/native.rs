//! A `tfwasm-sdk` provider served natively: each RPC goes through the SDK's own glue (the
//! code the component runs), without wasm, instances or limits.

use std::sync::RwLock;

use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, ConfigureProviderRequest,
    DynamicValue, ImportResourceStateRequest, ImportResourceStateResponse, ImportedResource,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest,
    ReadDataSourceResponse, ReadResourceRequest, ReadResourceResponse, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateConfigRequest,
};
use tfwasm_model::rpc::{
    CallFunctionRequest, CallFunctionResponse, CloseEphemeralResourceRequest, DataSourceServer,
    EphemeralServer, FunctionServer, GetFunctionsResponse, GetResourceIdentitySchemasResponse,
    IdentityServer, MoveResourceStateRequest, MoveResourceStateResponse, MoveServer,
    OpenEphemeralResourceRequest, OpenEphemeralResourceResponse, ProviderServer,
    RenewEphemeralResourceRequest, RenewEphemeralResourceResponse, ResourceServer,
    UpgradeResourceIdentityRequest, UpgradeResourceIdentityResponse,
};
use tfwasm_model::{AttributePath, Diagnostic, Diagnostics, PathStep, ProviderSchema, Severity};
use tfwasm_sdk::bindings::exports::tfwasm::provider0_3_0::state_store::Store;
use tfwasm_sdk::glue::{self, wit};

/// An SDK provider as a `tfwasm_model::Provider`.
pub struct NativeProvider {
    inner: glue::Catalog,
    context: RwLock<wit::ProviderContext>,
    blocking_io: bool,
    /// Each state store's configuration as ConfigureStateStore accepted it.
    stores: std::sync::Mutex<std::collections::BTreeMap<String, Vec<u8>>>,
}

impl NativeProvider {
    /// Wraps `provider`.
    pub fn new(provider: impl tfwasm_sdk::Provider) -> NativeProvider {
        NativeProvider {
            inner: glue::Catalog::new(Box::new(provider)),
            context: RwLock::new(wit::ProviderContext {
                terraform_version: String::new(),
                config: None,
                client_capabilities: wit_capabilities(Default::default()),
            }),
            blocking_io: false,
            stores: Default::default(),
        }
    }

    /// For providers whose calls block on I/O (the SDK's native HTTP client): read, apply,
    /// import and data-source calls run with `block_in_place`, so a waiting call does not
    /// hold one of the runtime's few worker threads and Terraform's parallel calls overlap,
    /// as they do in tfwasm (async host calls) and in Go providers (a goroutine per call).
    pub fn with_blocking_io(mut self) -> NativeProvider {
        self.blocking_io = true;
        self
    }

    fn io<R>(&self, call: impl FnOnce() -> R) -> R {
        if self.blocking_io {
            tokio::task::block_in_place(call)
        } else {
            call()
        }
    }

    fn p(&self) -> &glue::Catalog {
        &self.inner
    }

    /// The context of a call that carries its own client capabilities.
    fn ctx_for(&self, client: tfwasm_model::rpc::ClientCapabilities) -> wit::ProviderContext {
        wit::ProviderContext {
            client_capabilities: wit_capabilities(client),
            ..self.ctx()
        }
    }

    fn ctx(&self) -> wit::ProviderContext {
        self.context
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }
}

fn diagnostics(list: Vec<wit::Diagnostic>) -> Diagnostics {
    list.into_iter()
        .map(|d| Diagnostic {
            severity: match d.severity {
                wit::Severity::Error => Severity::Error,
                wit::Severity::Warning => Severity::Warning,
            },
            summary: d.summary,
            detail: d.detail,
            attribute: (!d.attribute.is_empty()).then(|| path(d.attribute)),
        })
        .collect()
}

fn path(steps: Vec<wit::PathStep>) -> AttributePath {
    AttributePath(
        steps
            .into_iter()
            .map(|s| match s {
                wit::PathStep::AttributeName(n) => PathStep::Attribute(n),
                wit::PathStep::ElementKeyString(k) => PathStep::KeyString(k),
                wit::PathStep::ElementKeyInt(i) => PathStep::KeyInt(i),
            })
            .collect(),
    )
}

fn deferred(reason: Option<wit::DeferredReason>) -> Option<tfwasm_model::rpc::DeferredReason> {
    use tfwasm_model::rpc::DeferredReason as D;
    reason.map(|r| match r {
        wit::DeferredReason::Unknown => D::Unknown,
        wit::DeferredReason::ResourceConfigUnknown => D::ResourceConfigUnknown,
        wit::DeferredReason::ProviderConfigUnknown => D::ProviderConfigUnknown,
        wit::DeferredReason::AbsentPrereq => D::AbsentPrereq,
    })
}

fn wit_capabilities(c: tfwasm_model::rpc::ClientCapabilities) -> wit::ClientCapabilities {
    wit::ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
        store_planned_private: c.store_planned_private,
        computed_blocks_allowed: c.computed_blocks_allowed,
    }
}

fn identity(value: Option<DynamicValue>) -> Option<Vec<u8>> {
    value.map(|v| v.msgpack)
}

fn dv(bytes: Vec<u8>) -> DynamicValue {
    DynamicValue::from_msgpack(bytes)
}

impl ProviderServer for NativeProvider {
    async fn get_provider_schema(&self) -> ProviderSchema {
        let p = self.inner.provider();
        ProviderSchema {
            provider: p.schema().to_wire(),
            provider_meta: None,
            resources: p
                .resources()
                .iter()
                .map(|r| (r.type_name().to_owned(), r.schema().to_wire()))
                .collect(),
            data_sources: p
                .data_sources()
                .iter()
                .map(|d| (d.type_name().to_owned(), d.schema().to_wire()))
                .collect(),
            ephemeral_resources: p
                .ephemeral_resources()
                .iter()
                .map(|e| (e.type_name().to_owned(), e.schema().to_wire()))
                .collect(),
            list_resources: p
                .resources()
                .iter()
                .filter_map(|r| Some((r.type_name().to_owned(), r.list_schema()?.to_wire())))
                .collect(),
            actions: p
                .actions()
                .iter()
                .map(|a| (a.type_name().to_owned(), a.schema().to_wire()))
                .collect(),
            state_stores: p
                .state_stores()
                .iter()
                .map(|s| (s.type_name().to_owned(), s.schema().to_wire()))
                .collect(),
            diagnostics: Vec::new(),
        }
    }

    fn plans_destroy(&self) -> bool {
        true
    }

    async fn validate_provider_config(&self, config: DynamicValue) -> Diagnostics {
        diagnostics(glue::validate_provider_config(self.p(), config.msgpack))
    }

    async fn configure_provider(&self, req: ConfigureProviderRequest) -> Diagnostics {
        let ctx = wit::ProviderContext {
            terraform_version: req.terraform_version,
            config: Some(req.config.msgpack),
            client_capabilities: wit_capabilities(req.client_capabilities),
        };
        let diags = diagnostics(glue::configure_provider(self.p(), ctx.clone()));
        // As the runtime does: a configuration the provider rejected is not kept.
        if !tfwasm_model::has_error(&diags)
            && let Ok(mut slot) = self.context.write()
        {
            *slot = ctx;
        }
        diags
    }

    async fn stop_provider(&self) -> Result<(), String> {
        // Native calls are short and synchronous; nothing to interrupt.
        Ok(())
    }
}

impl ResourceServer for NativeProvider {
    async fn validate_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        diagnostics(glue::validate_resource_config(
            self.p(),
            self.ctx(),
            wit::ValidateRequest {
                type_name: req.type_name,
                config: req.config.msgpack,
            },
        ))
    }

    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> UpgradeResourceStateResponse {
        let resp = glue::upgrade_resource_state(
            self.p(),
            self.ctx(),
            wit::UpgradeRequest {
                type_name: req.type_name,
                version: req.version,
                raw_state_json: req.raw_state.json,
            },
        );
        UpgradeResourceStateResponse {
            upgraded_state: dv(resp.upgraded_state),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn read_resource(&self, req: ReadResourceRequest) -> ReadResourceResponse {
        let resp = self.io(|| {
            glue::read_resource(
                self.p(),
                self.ctx_for(req.client_capabilities),
                wit::ReadRequest {
                    type_name: req.type_name,
                    current_state: req.current_state.msgpack,
                    private: req.private,
                    provider_meta: req.provider_meta.msgpack,
                    current_identity: identity(req.current_identity),
                },
            )
        });
        ReadResourceResponse {
            deferred: deferred(resp.deferred),
            new_state: dv(resp.new_state),
            diagnostics: diagnostics(resp.diagnostics),
            private: resp.private,
            new_identity: resp.new_identity.map(dv),
        }
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        let resp = glue::plan_resource_change(
            self.p(),
            self.ctx_for(req.client_capabilities),
            wit::PlanRequest {
                type_name: req.type_name,
                prior_state: req.prior_state.msgpack,
                proposed_new_state: req.proposed_new_state.msgpack,
                config: req.config.msgpack,
                prior_private: req.prior_private,
                provider_meta: req.provider_meta.msgpack,
                prior_identity: identity(req.prior_identity),
                planned_private: req.planned_private,
            },
        );
        PlanResourceChangeResponse {
            deferred: deferred(resp.deferred),
            planned_state: dv(resp.planned_state),
            requires_replace: resp.requires_replace.into_iter().map(path).collect(),
            planned_private: resp.planned_private,
            diagnostics: diagnostics(resp.diagnostics),
            planned_identity: resp.planned_identity.map(dv),
        }
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        let resp = self.io(|| {
            glue::apply_resource_change(
                self.p(),
                self.ctx(),
                wit::ApplyRequest {
                    type_name: req.type_name,
                    prior_state: req.prior_state.msgpack,
                    planned_state: req.planned_state.msgpack,
                    config: req.config.msgpack,
                    planned_private: req.planned_private,
                    provider_meta: req.provider_meta.msgpack,
                    planned_identity: identity(req.planned_identity),
                },
            )
        });
        ApplyResourceChangeResponse {
            new_state: dv(resp.new_state),
            private: resp.private,
            diagnostics: diagnostics(resp.diagnostics),
            new_identity: resp.new_identity.map(dv),
        }
    }

    async fn import_resource_state(
        &self,
        req: ImportResourceStateRequest,
    ) -> ImportResourceStateResponse {
        let resp = self.io(|| {
            glue::import_resource_state(
                self.p(),
                self.ctx_for(req.client_capabilities),
                wit::ImportRequest {
                    type_name: req.type_name,
                    id: req.id,
                    identity: identity(req.identity),
                },
            )
        });
        ImportResourceStateResponse {
            deferred: deferred(resp.deferred),
            imported_resources: resp
                .imported
                .into_iter()
                .map(|i| ImportedResource {
                    type_name: i.type_name,
                    state: dv(i.state),
                    private: i.private,
                    identity: i.identity.map(dv),
                })
                .collect(),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }
}

impl DataSourceServer for NativeProvider {
    async fn validate_data_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        diagnostics(glue::validate_data_resource_config(
            self.p(),
            self.ctx(),
            wit::ValidateRequest {
                type_name: req.type_name,
                config: req.config.msgpack,
            },
        ))
    }

    async fn read_data_source(&self, req: ReadDataSourceRequest) -> ReadDataSourceResponse {
        let resp = self.io(|| {
            glue::read_data_source(
                self.p(),
                self.ctx_for(req.client_capabilities),
                wit::ReadDataRequest {
                    type_name: req.type_name,
                    config: req.config.msgpack,
                    provider_meta: req.provider_meta.msgpack,
                },
            )
        });
        ReadDataSourceResponse {
            deferred: deferred(resp.deferred),
            state: dv(resp.state),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }
}

impl FunctionServer for NativeProvider {
    async fn get_functions(&self) -> GetFunctionsResponse {
        GetFunctionsResponse {
            functions: self
                .inner
                .provider()
                .functions()
                .iter()
                .map(|f| (f.name().to_owned(), f.signature().to_wire()))
                .collect(),
            diagnostics: Vec::new(),
        }
    }

    async fn call_function(&self, req: CallFunctionRequest) -> CallFunctionResponse {
        let arguments = req.arguments.into_iter().map(|a| a.msgpack).collect();
        match glue::call_function(self.p(), self.ctx(), req.name, arguments) {
            Ok(result) => CallFunctionResponse {
                result: dv(result),
                error: None,
            },
            Err(e) => CallFunctionResponse::error(e.text, e.argument.map(i64::from)),
        }
    }
}

/// The `main` of a native baseline binary: serves `provider` (wrapped in the contract
/// checks) as Terraform launches plugins, with tfwasm's own server.
pub fn serve_main(name: &str, provider: NativeProvider) -> std::process::ExitCode {
    use std::process::ExitCode;

    use tfwasm_contract::{Checked, Mode};
    use tfwasm_wire::handshake::PluginEnv;
    use tfwasm_wire::{ServeOptions, serve};

    let env = PluginEnv::from_process();
    if !env.has_magic_cookie() {
        eprintln!(
            "This binary is a plugin. These are not meant to be executed directly.\n\
             Please execute the program that consumes these plugins, which will\n\
             load any plugins automatically"
        );
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("native-{name}: cannot start a runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let tcp = std::env::args().any(|a| a == "--tcp");
    runtime.block_on(async move {
        // Terraform stops providers with StopProvider; a Ctrl-C reaches the whole group.
        if let Ok(mut signals) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        {
            tokio::spawn(async move { while signals.recv().await.is_some() {} });
        }
        let provider = Checked::new(provider, name, Mode::Enforce);
        match serve(provider, ServeOptions { env, tcp }).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("native-{name}: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

impl MoveServer for NativeProvider {
    fn moves_state(&self) -> bool {
        true
    }

    async fn move_resource_state(
        &self,
        req: MoveResourceStateRequest,
    ) -> MoveResourceStateResponse {
        let resp = glue::move_resource_state(
            self.p(),
            self.ctx(),
            wit::MoveRequest {
                source_provider_address: req.source_provider_address,
                source_type_name: req.source_type_name,
                source_schema_version: req.source_schema_version,
                source_state_json: req.source_state.json,
                target_type_name: req.target_type_name,
                source_private: req.source_private,
                source_identity_json: req.source_identity.map(|raw| raw.json),
                source_identity_version: req.source_identity_schema_version,
            },
        );
        MoveResourceStateResponse {
            target_state: dv(resp.target_state),
            target_private: resp.target_private,
            diagnostics: diagnostics(resp.diagnostics),
            target_identity: resp.target_identity.map(dv),
        }
    }
}

impl tfwasm_model::rpc::ConfigGenerationServer for NativeProvider {
    fn generates_config(&self) -> bool {
        true
    }

    async fn generate_resource_config(
        &self,
        req: tfwasm_model::rpc::GenerateResourceConfigRequest,
    ) -> tfwasm_model::rpc::GenerateResourceConfigResponse {
        use tfwasm_sdk::bindings::exports::tfwasm::provider0_3_0::config_generation::GenerateRequest;
        let resp = glue::generate_resource_config(
            self.p(),
            self.ctx(),
            GenerateRequest {
                type_name: req.type_name,
                state: req.state.msgpack,
            },
        );
        tfwasm_model::rpc::GenerateResourceConfigResponse {
            config: dv(resp.config),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }
}

impl tfwasm_model::rpc::ListServer for NativeProvider {
    async fn validate_list_resource_config(
        &self,
        req: tfwasm_model::rpc::ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        diagnostics(glue::validate_list_resource_config(
            self.p(),
            req.type_name,
            req.config.msgpack,
        ))
    }

    async fn list_resource(
        &self,
        req: tfwasm_model::rpc::ListResourceRequest,
    ) -> tfwasm_model::rpc::ListResourcePage {
        use tfwasm_sdk::bindings::exports::tfwasm::provider0_3_0::list_resource::ListRequest;
        let page = glue::list_resource(
            self.p(),
            self.ctx(),
            ListRequest {
                type_name: req.type_name,
                config: req.config.msgpack,
                include_resource_object: req.include_resource_object,
                limit: req.limit,
                cursor: req.cursor,
            },
        );
        tfwasm_model::rpc::ListResourcePage {
            events: (page.objects.into_iter())
                .map(|o| tfwasm_model::rpc::ListResourceEvent {
                    identity: dv(o.identity),
                    display_name: o.display_name,
                    resource_object: o.resource_object.map(dv),
                    diagnostics: diagnostics(o.diagnostics),
                })
                .collect(),
            next: page.next,
            diagnostics: diagnostics(page.diagnostics),
        }
    }
}

impl tfwasm_model::rpc::ActionServer for NativeProvider {
    async fn validate_action_config(
        &self,
        req: tfwasm_model::rpc::ValidateActionConfigRequest,
    ) -> Diagnostics {
        diagnostics(glue::validate_action_config(
            self.p(),
            req.type_name,
            req.config.msgpack,
        ))
    }

    async fn plan_action(
        &self,
        req: tfwasm_model::rpc::PlanActionRequest,
    ) -> tfwasm_model::rpc::PlanActionResponse {
        let resp = glue::plan_action(self.p(), self.ctx(), req.action_type, req.config.msgpack);
        tfwasm_model::rpc::PlanActionResponse {
            diagnostics: diagnostics(resp.diagnostics),
            deferred: deferred(resp.deferred),
        }
    }

    async fn invoke_action(&self, req: tfwasm_model::rpc::InvokeActionRequest) -> Diagnostics {
        let progress = req.progress;
        diagnostics(glue::invoke_action(
            self.p(),
            self.ctx(),
            req.action_type,
            req.config.msgpack,
            &|message| progress.report(message.to_owned()),
        ))
    }
}

/// The state stores natively: the configuration kept here, as the runtime keeps it.
impl tfwasm_model::rpc::StateStoreServer for NativeProvider {
    async fn validate_state_store_config(
        &self,
        req: tfwasm_model::rpc::ValidateStateStoreConfigRequest,
    ) -> Diagnostics {
        diagnostics(glue::validate_state_store_config(
            self.p(),
            req.type_name,
            req.config.msgpack,
        ))
    }

    async fn configure_state_store(
        &self,
        req: tfwasm_model::rpc::ConfigureStateStoreRequest,
    ) -> tfwasm_model::rpc::ConfigureStateStoreResponse {
        let store = Store {
            type_name: req.type_name.clone(),
            config: req.config.msgpack,
        };
        let diags = diagnostics(glue::configure_state_store(
            self.p(),
            self.ctx(),
            store.clone(),
        ));
        if !tfwasm_model::has_error(&diags) {
            (self.stores.lock().unwrap()).insert(req.type_name, store.config);
        }
        tfwasm_model::rpc::ConfigureStateStoreResponse {
            diagnostics: diags,
            chunk_size: req.chunk_size.clamp(1, 8 << 20),
        }
    }

    async fn read_state(
        &self,
        req: tfwasm_model::rpc::StateRequest,
    ) -> tfwasm_model::rpc::ReadStateResponse {
        let resp = glue::read_state(
            self.p(),
            self.ctx(),
            self.store(&req.type_name),
            req.state_id,
        );
        tfwasm_model::rpc::ReadStateResponse {
            bytes: resp.state.unwrap_or_default(),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn write_state(&self, req: tfwasm_model::rpc::WriteStateRequest) -> Diagnostics {
        let store = self.store(&req.type_name);
        diagnostics(glue::write_state(
            self.p(),
            self.ctx(),
            store,
            req.state_id,
            req.bytes,
        ))
    }

    async fn lock_state(
        &self,
        req: tfwasm_model::rpc::LockStateRequest,
    ) -> tfwasm_model::rpc::LockStateResponse {
        let store = self.store(&req.type_name);
        let resp = glue::lock_state(self.p(), self.ctx(), store, req.state_id, req.operation);
        tfwasm_model::rpc::LockStateResponse {
            lock_id: resp.lock_id,
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn unlock_state(&self, req: tfwasm_model::rpc::UnlockStateRequest) -> Diagnostics {
        let store = self.store(&req.type_name);
        diagnostics(glue::unlock_state(
            self.p(),
            self.ctx(),
            store,
            req.state_id,
            req.lock_id,
        ))
    }

    async fn get_states(
        &self,
        req: tfwasm_model::rpc::GetStatesRequest,
    ) -> tfwasm_model::rpc::GetStatesResponse {
        let resp = glue::get_states(self.p(), self.ctx(), self.store(&req.type_name));
        tfwasm_model::rpc::GetStatesResponse {
            state_ids: resp.state_ids,
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn delete_state(&self, req: tfwasm_model::rpc::StateRequest) -> Diagnostics {
        let store = self.store(&req.type_name);
        diagnostics(glue::delete_state(
            self.p(),
            self.ctx(),
            store,
            req.state_id,
        ))
    }
}

impl NativeProvider {
    /// The store `type_name` with the configuration ConfigureStateStore accepted (empty
    /// before that: the SDK then reports it cannot decode it).
    fn store(&self, type_name: &str) -> Store {
        let config = (self.stores.lock().unwrap()).get(type_name).cloned();
        Store {
            type_name: type_name.to_owned(),
            config: config.unwrap_or_default(),
        }
    }
}

impl IdentityServer for NativeProvider {
    async fn get_resource_identity_schemas(&self) -> GetResourceIdentitySchemasResponse {
        GetResourceIdentitySchemasResponse {
            identity_schemas: self
                .p()
                .provider()
                .resources()
                .iter()
                .filter_map(|r| Some((r.type_name().to_owned(), r.identity()?.to_wire())))
                .collect(),
            diagnostics: Vec::new(),
        }
    }

    async fn upgrade_resource_identity(
        &self,
        req: UpgradeResourceIdentityRequest,
    ) -> UpgradeResourceIdentityResponse {
        let resp = glue::upgrade_resource_identity(
            self.p(),
            self.ctx(),
            wit::UpgradeIdentityRequest {
                type_name: req.type_name,
                version: req.version,
                raw_identity_json: req.raw_identity.json,
            },
        );
        UpgradeResourceIdentityResponse {
            upgraded_identity: resp.upgraded_identity.map(dv),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }
}

fn renew_at(unix_ms: Option<u64>) -> Option<std::time::SystemTime> {
    unix_ms.map(|ms| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms))
}

impl EphemeralServer for NativeProvider {
    async fn validate_ephemeral_resource_config(&self, req: ValidateConfigRequest) -> Diagnostics {
        diagnostics(glue::validate_ephemeral_resource_config(
            self.p(),
            self.ctx(),
            wit::ValidateRequest {
                type_name: req.type_name,
                config: req.config.msgpack,
            },
        ))
    }

    async fn open_ephemeral_resource(
        &self,
        req: OpenEphemeralResourceRequest,
    ) -> OpenEphemeralResourceResponse {
        let resp = glue::open_ephemeral_resource(
            self.p(),
            self.ctx_for(req.client_capabilities),
            wit::OpenRequest {
                type_name: req.type_name,
                config: req.config.msgpack,
            },
        );
        OpenEphemeralResourceResponse {
            deferred: deferred(resp.deferred),
            result: dv(resp.result),
            private: resp.private,
            renew_at: renew_at(resp.renew_at_unix_ms),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn renew_ephemeral_resource(
        &self,
        req: RenewEphemeralResourceRequest,
    ) -> RenewEphemeralResourceResponse {
        let resp = glue::renew_ephemeral_resource(
            self.p(),
            self.ctx(),
            wit::PrivateRequest {
                type_name: req.type_name,
                private: req.private,
            },
        );
        RenewEphemeralResourceResponse {
            private: resp.private,
            renew_at: renew_at(resp.renew_at_unix_ms),
            diagnostics: diagnostics(resp.diagnostics),
        }
    }

    async fn close_ephemeral_resource(&self, req: CloseEphemeralResourceRequest) -> Diagnostics {
        diagnostics(glue::close_ephemeral_resource(
            self.p(),
            self.ctx(),
            wit::PrivateRequest {
                type_name: req.type_name,
                private: req.private,
            },
        ))
    }
}
