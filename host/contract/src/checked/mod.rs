//! [`Checked`]: a provider whose every result is checked before it leaves the host.
//!
//! One module per RPC family, as the model groups them; each implements its family trait in
//! full (no defaults), so an RPC added to a family is a compile error here until it is
//! checked or deliberately forwarded.

mod action;
mod aside;
mod config_generation;
mod data_source;
mod ephemeral;
mod function;
mod identity;
mod list;
mod moves;
mod provider;
mod resource;
mod state_store;
#[cfg(test)]
mod tests;

use std::sync::{Arc, OnceLock};

use tfwasm_model::rpc::{DynamicValue, GetFunctionsResponse};
use tfwasm_model::{
    Diagnostic, Diagnostics, Layout, Provider, ProviderSchema, Schema, SchemaIndex, Severity, Type,
    Value,
};

use crate::decodings::Of;
use crate::{Violation, Violations};

/// What a violation does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// An error: Terraform stops (the default).
    #[default]
    Enforce,
    /// A warning: for provider authors migrating a provider; Terraform may still reject the
    /// result later with its own, vaguer error.
    Warn,
}

/// Wraps a provider and checks its results against the lifecycle contracts.
pub struct Checked<P> {
    inner: P,
    provider: String,
    mode: Mode,
    /// The provider's schemas and their value types, shared with the provider's own (the
    /// runtime's) index: a call borrows them, as copying a schema per call copied its
    /// descriptions too (a 64 MiB description: 33 ms per ReadDataSource).
    schema: OnceLock<Arc<SchemaIndex>>,
    functions: OnceLock<GetFunctionsResponse>,
}

impl<P: Provider> Checked<P> {
    /// Checks `inner`, naming it `provider` in diagnostics.
    pub fn new(inner: P, provider: impl Into<String>, mode: Mode) -> Checked<P> {
        Checked {
            inner,
            provider: provider.into(),
            mode,
            schema: OnceLock::new(),
            functions: OnceLock::new(),
        }
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// The schema index, asked of the wrapped provider until it answers without an error.
    /// A failed answer is not kept (the seventeenth hostile pass: a guest that failed its
    /// first schema calls turned every check off for the process); the call that met it is
    /// checked against no schema, as for a type the provider does not have.
    async fn index(&self) -> &Arc<SchemaIndex> {
        static NONE: std::sync::LazyLock<Arc<SchemaIndex>> = std::sync::LazyLock::new(Arc::default);
        if let Some(index) = self.schema.get() {
            return index;
        }
        let index = tfwasm_model::schema_index::index_of(&self.inner).await;
        if tfwasm_model::has_error(&index.provider.diagnostics) {
            return &NONE;
        }
        self.schema.get_or_init(|| index)
    }

    /// Hands `value`, decoded from `encoded` as a value of `of`, on to the call's recording
    /// when it keeps the checks' decodings (`decodings.rs`); otherwise gives it back to be
    /// freed. A value decoded at all was decoded with a type of the kept index.
    fn hand_on(&self, of: Of<'_>, encoded: &DynamicValue, value: Value) -> Option<Value> {
        match self.schema.get() {
            Some(index) => crate::decodings::keep(index, of, encoded, value),
            None => Some(value),
        }
    }

    /// The value type of the data source `type_name`, if the schema has it.
    async fn data_source_type(&self, type_name: &str) -> Option<&Type> {
        self.index().await.data_source_type(type_name)
    }

    /// The value type of the ephemeral resource `type_name`, if the schema has it.
    async fn ephemeral_type(&self, type_name: &str) -> Option<&Type> {
        self.index().await.ephemeral_type(type_name)
    }

    /// The identity type of `type_name`, if it declares an identity.
    async fn identity_type(&self, type_name: &str) -> Option<&Type> {
        self.index().await.identity_type(type_name)
    }

    /// The identity checks of one result: it decodes against the identity schema, is
    /// present (and, for `Final`, wholly known) when `exists`, and keeps the known parts of
    /// `before`. A non-conforming identity is dropped, so Terraform still stores the state.
    async fn check_identity(
        &self,
        type_name: &str,
        exists: bool,
        identity: &mut Option<DynamicValue>,
        role: crate::IdentityRole,
        before: Option<(&Option<DynamicValue>, &str)>,
    ) -> Violations {
        let ty = self.identity_type(type_name).await;
        if !exists {
            return Violations::new();
        }
        let decoded = match (ty, identity.as_ref()) {
            (Some(ty), Some(value)) => match decode_result(value, ty) {
                Ok(v) => Some(v),
                Err(mut v) => {
                    *identity = None;
                    v.message = format!("the identity {}", v.message);
                    return Violations::from(vec![v]);
                }
            },
            _ => None,
        };
        let returned = identity
            .is_some()
            .then(|| decoded.as_ref().unwrap_or(&Value::Null));
        let mut found = crate::check_identity(ty.is_some(), returned, role);
        let of = Of::Identity(type_name);
        if let (Some(ty), Some(after), Some((Some(before), step))) = (ty, &decoded, before)
            && let Ok(before_value) = before.decode(ty)
        {
            if !crate::is_empty_identity(&before_value) {
                found.extend(crate::check_identity_kept(&before_value, after, step));
            }
            self.hand_on(of, before, before_value);
        }
        if let (Some(after), Some(encoded)) = (decoded, identity.as_ref()) {
            self.hand_on(of, encoded, after);
        }
        found
    }

    async fn schema(&self) -> &ProviderSchema {
        &self.index().await.provider
    }

    async fn resource(&self, type_name: &str) -> Option<(&Schema, &Type)> {
        let (schema, ty, _) = resource_in(self.index().await, type_name)?;
        Some((schema, ty))
    }

    /// The block of the object `rpc` answers with for `type_name`, by the RPC's family, once
    /// the schema is known.
    fn object_block(&self, rpc: &str, type_name: &str) -> Option<&tfwasm_model::Block> {
        use tfwasm_model::rpc::Family;
        let schema = &self.schema.get()?.provider;
        let schemas = match rpc.parse::<tfwasm_model::Rpc>().ok()?.family() {
            Family::Resource | Family::Move | Family::ConfigGeneration | Family::List => {
                &schema.resources
            }
            Family::DataSource => &schema.data_sources,
            Family::Ephemeral => &schema.ephemeral_resources,
            Family::Action => &schema.actions,
            Family::StateStore => &schema.state_stores,
            Family::Provider | Family::Function | Family::Identity => return None,
        };
        schemas.get(type_name).map(|s| &s.block)
    }

    fn diagnostics(
        &self,
        summary: &str,
        rpc: &str,
        type_name: &str,
        violations: Violations,
    ) -> Diagnostics {
        let more = violations.more();
        let shown = violations.len();
        let block = self.object_block(rpc, type_name);
        let mut out: Diagnostics = violations
            .into_iter()
            // Nothing at or past a sensitive or write-only attribute is shown.
            .map(|v| match block {
                Some(block) => crate::secret::mask(block, v),
                None => v,
            })
            .map(|v| Diagnostic {
                severity: match self.mode {
                    Mode::Enforce => Severity::Error,
                    Mode::Warn => Severity::Warning,
                },
                summary: summary.to_owned(),
                detail: format!(
                    "tfwasm checked the {rpc} result of provider {:?} for {type_name} and found at {}: {}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
                    self.provider,
                    if v.path.is_root() { "the object itself".to_owned() } else { format!("`{}`", v.path) },
                    v.message
                ),
                attribute: (!v.path.is_root()).then_some(v.path),
            })
            .collect();
        if more > 0 {
            out.push(Diagnostic {
                severity: match self.mode {
                    Mode::Enforce => Severity::Error,
                    Mode::Warn => Severity::Warning,
                },
                summary: summary.to_owned(),
                detail: format!(
                    "tfwasm found {more} more violations of this kind in the {rpc} result of provider {:?} for {type_name}; only the first {shown} are shown.",
                    self.provider,
                ),
                attribute: None,
            });
        }
        out
    }
}

impl<P: Provider> Checked<P> {
    /// A deferral the client did not allow (`deferral_allowed`) is never sent: the provider
    /// is told so in a diagnostic instead.
    fn refuse_deferral(
        &self,
        allowed: bool,
        deferred: &mut Option<tfwasm_model::rpc::DeferredReason>,
        diagnostics: &mut Diagnostics,
        rpc: &str,
        type_name: &str,
    ) {
        if allowed {
            return;
        }
        if let Some(reason) = deferred.take() {
            diagnostics.extend(self.diagnostics(
                "Provider deferred a change the client cannot defer",
                rpc,
                type_name,
                Violations::from(vec![Violation {
                    path: tfwasm_model::AttributePath::root(),
                    message: format!(
                        "the provider deferred ({reason:?}), but the client did not announce deferral_allowed"
                    ),
                }]),
            ));
        }
    }
}

/// The rules of every state a provider hands back to be stored (read, upgrade, move): wholly
/// known, and no write-only value.
fn stored(block: &tfwasm_model::Block, state: &Value) -> Violations {
    let mut found = crate::check_wholly_known(state);
    found.extend(crate::check_write_only_null(block, state));
    found
}

/// The schema, value type and layout of the resource `type_name` in `index`, if it has it.
fn resource_in<'i>(
    index: &'i SchemaIndex,
    type_name: &str,
) -> Option<(&'i Schema, &'i Type, &'i Layout)> {
    let (ty, layout) = index.resource_type_and_layout(type_name)?;
    Some((index.provider.resources.get(type_name)?, ty, layout))
}

/// Decodes a provider result; a value that does not fit the schema is itself a violation.
fn decode_result(value: &DynamicValue, ty: &Type) -> Result<Value, Violation> {
    value.decode(ty).map_err(|e| Violation {
        path: e.path.clone(),
        message: format!("{}: {}", crate::secret::DECODE_ERROR, e.message),
    })
}

/// [`decode_result`] of `value`, or `None` when it is `decoded`'s bytes byte for byte: a
/// value the call already decoded (an unchanged plan is the prior state, an apply that adds
/// nothing the planned state), which the caller then checks with that decoding.
fn decode_result_unless(
    value: &DynamicValue,
    decoded: &DynamicValue,
    ty: &Type,
) -> Result<Option<Value>, Violation> {
    if value == decoded {
        Ok(None)
    } else {
        decode_result(value, ty).map(Some)
    }
}
