//! The state store family (WIT 0.3.0): each call names its store with the configuration
//! ConfigureStateStore accepted, decoded here against the store's schema.

use super::*;
use crate::bindings::exports::tfwasm::provider0_3_0::state_store::{
    LockResponse, ReadResponse, StatesResponse, Store,
};

type Found<'c> = (&'c Entry<Box<dyn crate::state_store::StateStore>>, Value);

/// The store `store.type_name` with its configuration decoded.
fn found<'c>(c: &'c Catalog, store: &Store) -> Result<Found<'c>, Diagnostic> {
    let entry = (c.state_stores.iter())
        .find(|s| HasSchema::type_name(&s.item) == store.type_name)
        .ok_or_else(|| {
            Diagnostic::error(
                "Unknown state store type",
                format!(
                    "This provider has no state store type {:?}.",
                    store.type_name
                ),
            )
        })?;
    let config = decode(&store.config, entry.ty(), "state store configuration")?;
    Ok((entry, config))
}

/// The schemas of the state store types.
pub fn state_store_schemas(c: &Catalog) -> Vec<wit::NamedSchema> {
    (c.state_stores.iter())
        .map(|s| wit::NamedSchema {
            type_name: s.item.type_name().to_owned(),
            schema: to_wit_schema(&s.schema().to_wire()),
        })
        .collect()
}

/// `validate-state-store-config`: the schema's checks, then the store's own.
pub fn validate_state_store_config(c: &Catalog, type_name: String, config: Vec<u8>) -> Diags {
    run_diags(|| {
        let (entry, config) = found(c, &Store { type_name, config })?;
        let mut diagnostics = entry.schema().check_config(&config);
        diagnostics.extend(entry.item.validate(&Context::default(), &config));
        Ok(diagnostics)
    })
}

/// `configure-state-store`.
pub fn configure_state_store(c: &Catalog, ctx: wit::ProviderContext, store: Store) -> Diags {
    run_diags(|| {
        let (entry, config) = found(c, &store)?;
        Ok(entry.item.configure(&context(c, ctx)?, &config))
    })
}

/// `read-state`.
pub fn read_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    store: Store,
    id: String,
) -> ReadResponse {
    let result = (|| {
        let (entry, config) = found(c, &store)?;
        entry.item.read(&context(c, ctx)?, &config, &id)
    })();
    match result {
        Ok(state) => ReadResponse {
            state,
            diagnostics: Vec::new(),
        },
        Err(d) => ReadResponse {
            state: None,
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `write-state`.
pub fn write_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    store: Store,
    id: String,
    state: Vec<u8>,
) -> Diags {
    run_diags(|| {
        let (entry, config) = found(c, &store)?;
        entry.item.write(&context(c, ctx)?, &config, &id, &state)?;
        Ok(Vec::new())
    })
}

/// `lock-state`.
pub fn lock_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    store: Store,
    id: String,
    operation: String,
) -> LockResponse {
    let result = (|| {
        let (entry, config) = found(c, &store)?;
        entry.item.lock(&context(c, ctx)?, &config, &id, &operation)
    })();
    match result {
        Ok(lock_id) => LockResponse {
            lock_id,
            diagnostics: Vec::new(),
        },
        Err(d) => LockResponse {
            lock_id: String::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `unlock-state`.
pub fn unlock_state(
    c: &Catalog,
    ctx: wit::ProviderContext,
    store: Store,
    id: String,
    lock_id: String,
) -> Diags {
    run_diags(|| {
        let (entry, config) = found(c, &store)?;
        entry
            .item
            .unlock(&context(c, ctx)?, &config, &id, &lock_id)?;
        Ok(Vec::new())
    })
}

/// `get-states`.
pub fn get_states(c: &Catalog, ctx: wit::ProviderContext, store: Store) -> StatesResponse {
    let result = (|| {
        let (entry, config) = found(c, &store)?;
        entry.item.states(&context(c, ctx)?, &config)
    })();
    match result {
        Ok(state_ids) => StatesResponse {
            state_ids,
            diagnostics: Vec::new(),
        },
        Err(d) => StatesResponse {
            state_ids: Vec::new(),
            diagnostics: vec![to_wit_diagnostic(&d)],
        },
    }
}

/// `delete-state`.
pub fn delete_state(c: &Catalog, ctx: wit::ProviderContext, store: Store, id: String) -> Diags {
    run_diags(|| {
        let (entry, config) = found(c, &store)?;
        entry.item.delete(&context(c, ctx)?, &config, &id)?;
        Ok(Vec::new())
    })
}

/// The `state-store` interface's exports (WIT 0.3.0), beside the family's glue: an RPC
/// added to the family is exported and glued in this one file. Expanded by
/// [`export_provider!`](crate::export_provider).
#[doc(hidden)]
#[macro_export]
macro_rules! __tfwasm_export_state_store {
    ($export:ident, $provider:ident) => {
        impl $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Guest for $export {
            fn state_store_schemas() -> ::std::vec::Vec<$crate::glue::wit::NamedSchema> {
                $crate::glue::state_store_schemas($provider())
            }
            fn validate_state_store_config(
                type_name: ::std::string::String,
                config: ::std::vec::Vec<u8>,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_state_store_config($provider(), type_name, config)
            }
            fn configure_state_store(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::configure_state_store($provider(), ctx, store)
            }
            fn read_state(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
                state_id: ::std::string::String,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::state_store::ReadResponse {
                $crate::glue::read_state($provider(), ctx, store, state_id)
            }
            fn write_state(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
                state_id: ::std::string::String,
                state: ::std::vec::Vec<u8>,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::write_state($provider(), ctx, store, state_id, state)
            }
            fn lock_state(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
                state_id: ::std::string::String,
                operation: ::std::string::String,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::state_store::LockResponse {
                $crate::glue::lock_state($provider(), ctx, store, state_id, operation)
            }
            fn unlock_state(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
                state_id: ::std::string::String,
                lock_id: ::std::string::String,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::unlock_state($provider(), ctx, store, state_id, lock_id)
            }
            fn get_states(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
            ) -> $crate::bindings::exports::tfwasm::provider0_3_0::state_store::StatesResponse {
                $crate::glue::get_states($provider(), ctx, store)
            }
            fn delete_state(
                ctx: $crate::glue::wit::ProviderContext,
                store: $crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store,
                state_id: ::std::string::String,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::delete_state($provider(), ctx, store, state_id)
            }
        }
    };
}

/// This family served natively (feature `native`, the baseline of `make bench`): the model's
/// request through the glue above and the answer back, as the WIT export does in a component.
#[cfg(feature = "native")]
mod native {
    use tfwasm_model::Diagnostics;
    use tfwasm_model::rpc::*;

    use super::super::native::*;
    use crate::bindings::exports::tfwasm::provider0_3_0::state_store::Store;
    use crate::glue::{self};

    /// The state stores natively: the configuration kept here, as the runtime keeps it.
    impl StateStoreServer for NativeProvider {
        async fn validate_state_store_config(
            &self,
            req: ValidateStateStoreConfigRequest,
        ) -> Diagnostics {
            diagnostics(glue::validate_state_store_config(
                self.p(),
                req.type_name,
                req.config.msgpack,
            ))
        }

        async fn configure_state_store(
            &self,
            req: ConfigureStateStoreRequest,
        ) -> ConfigureStateStoreResponse {
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
            ConfigureStateStoreResponse {
                diagnostics: diags,
                chunk_size: req.chunk_size.clamp(1, 8 << 20),
            }
        }

        async fn read_state(&self, req: StateRequest) -> ReadStateResponse {
            let resp = glue::read_state(
                self.p(),
                self.ctx(),
                self.store(&req.type_name),
                req.state_id,
            );
            ReadStateResponse {
                bytes: resp.state.unwrap_or_default(),
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn write_state(&self, req: WriteStateRequest) -> Diagnostics {
            let store = self.store(&req.type_name);
            diagnostics(glue::write_state(
                self.p(),
                self.ctx(),
                store,
                req.state_id,
                req.bytes,
            ))
        }

        async fn lock_state(&self, req: LockStateRequest) -> LockStateResponse {
            let store = self.store(&req.type_name);
            let resp = glue::lock_state(self.p(), self.ctx(), store, req.state_id, req.operation);
            LockStateResponse {
                lock_id: resp.lock_id,
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn unlock_state(&self, req: UnlockStateRequest) -> Diagnostics {
            let store = self.store(&req.type_name);
            diagnostics(glue::unlock_state(
                self.p(),
                self.ctx(),
                store,
                req.state_id,
                req.lock_id,
            ))
        }

        async fn get_states(&self, req: GetStatesRequest) -> GetStatesResponse {
            let resp = glue::get_states(self.p(), self.ctx(), self.store(&req.type_name));
            GetStatesResponse {
                state_ids: resp.state_ids,
                diagnostics: diagnostics(resp.diagnostics),
            }
        }

        async fn delete_state(&self, req: StateRequest) -> Diagnostics {
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
}
