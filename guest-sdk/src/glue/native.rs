//! The SDK served natively, in process, as a `tfwasm_model::Provider` (feature `native`):
//! every RPC goes through the same glue a component runs, without wasm, instances or limits.
//! It is the baseline that isolates the Wasm layer in `make bench`. Each family's impl is in
//! its glue module, beside its WIT export: the two adapters of the same glue.

use std::sync::RwLock;

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{AttributePath, Diagnostic, Diagnostics, PathStep, Severity};

use super::{Catalog, wit};

/// Runs a call that blocks on I/O, as the caller's runtime allows (tokio's
/// `block_in_place`): see [`NativeProvider::with_blocking_io`]. It must call the call it is
/// given (once; a second call does nothing).
pub type BlockingRunner = fn(&mut dyn FnMut());

/// An SDK provider as a `tfwasm_model::Provider`.
pub struct NativeProvider {
    pub(super) inner: Catalog,
    pub(super) context: RwLock<wit::ProviderContext>,
    blocking_io: Option<BlockingRunner>,
    /// Each state store's configuration as ConfigureStateStore accepted it.
    pub(super) stores: std::sync::Mutex<std::collections::BTreeMap<String, Vec<u8>>>,
}

impl NativeProvider {
    /// Wraps `provider`.
    pub fn new(provider: impl crate::Provider) -> NativeProvider {
        NativeProvider {
            inner: Catalog::new(Box::new(provider)),
            context: RwLock::new(wit::ProviderContext {
                terraform_version: String::new(),
                config: None,
                client_capabilities: wit_capabilities(Default::default()),
            }),
            blocking_io: None,
            stores: Default::default(),
        }
    }

    /// For providers whose calls block on I/O (the SDK's native HTTP client): read, apply,
    /// import and data-source calls run through `runner` (tokio's `block_in_place`), so a
    /// waiting call does not hold one of the runtime's few worker threads and Terraform's
    /// parallel calls overlap, as they do in tfwasm (async host calls) and in Go providers
    /// (a goroutine per call).
    pub fn with_blocking_io(mut self, runner: BlockingRunner) -> NativeProvider {
        self.blocking_io = Some(runner);
        self
    }

    pub(super) fn io<R>(&self, call: impl FnOnce() -> R) -> R {
        let Some(runner) = self.blocking_io else {
            return call();
        };
        let (mut call, mut out) = (Some(call), None);
        runner(&mut || {
            if let Some(call) = call.take() {
                out = Some(call());
            }
        });
        out.expect("a BlockingRunner calls the call it is given")
    }

    pub(super) fn p(&self) -> &Catalog {
        &self.inner
    }

    /// The context of a call that carries its own client capabilities.
    pub(super) fn ctx_for(
        &self,
        client: tfwasm_model::rpc::ClientCapabilities,
    ) -> wit::ProviderContext {
        wit::ProviderContext {
            client_capabilities: wit_capabilities(client),
            ..self.ctx()
        }
    }

    pub(super) fn ctx(&self) -> wit::ProviderContext {
        self.context
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }
}

pub(super) fn diagnostics(list: Vec<wit::Diagnostic>) -> Diagnostics {
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

pub(super) fn path(steps: Vec<wit::PathStep>) -> AttributePath {
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

pub(super) fn deferred(
    reason: Option<wit::DeferredReason>,
) -> Option<tfwasm_model::rpc::DeferredReason> {
    use tfwasm_model::rpc::DeferredReason as D;
    reason.map(|r| match r {
        wit::DeferredReason::Unknown => D::Unknown,
        wit::DeferredReason::ResourceConfigUnknown => D::ResourceConfigUnknown,
        wit::DeferredReason::ProviderConfigUnknown => D::ProviderConfigUnknown,
        wit::DeferredReason::AbsentPrereq => D::AbsentPrereq,
    })
}

pub(super) fn wit_capabilities(
    c: tfwasm_model::rpc::ClientCapabilities,
) -> wit::ClientCapabilities {
    wit::ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
        store_planned_private: c.store_planned_private,
        computed_blocks_allowed: c.computed_blocks_allowed,
    }
}

pub(super) fn identity(value: Option<DynamicValue>) -> Option<Vec<u8>> {
    value.map(|v| v.msgpack)
}

pub(super) fn dv(bytes: Vec<u8>) -> DynamicValue {
    DynamicValue::from_msgpack(bytes)
}
