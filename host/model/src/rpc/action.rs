//! The action family (tfplugin6.10, Terraform 1.14): an `action` block names an action type
//! and a `config` of its schema; Terraform plans it (PlanAction) and invokes it
//! (InvokeAction) from an `action_trigger` of a resource's lifecycle or from
//! `terraform apply -invoke`. An invocation reports progress as it goes and ends with its
//! diagnostics.
//!
//! Progress travels beside the call, not in its answer: the request carries a [`Progress`]
//! sink that whoever serves the stream reads while the call runs, so a long action shows
//! what it does as it does it. Recordings keep none of it.

use std::future::Future;
use std::sync::Arc;

use super::{ClientCapabilities, DeferredReason, DynamicValue};
use crate::Diagnostics;

/// This family's entries in the RPC table, which `table.rs` gathers and describes.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpcs_action {
    ($($then:tt)*) => { $crate::__rpc_family! { [$($then)*] Action {
        ValidateActionConfig {
            guest: true,
            wire: derived,
            method: [validate_action_config(req: ValidateActionConfigRequest) -> Diagnostics],
            subject: |req| &req.type_name,
            request: { type_name: Plain, config: Object },
            response: { diagnostics: Diagnostics },
        }
        PlanAction {
            guest: true,
            wire: derived,
            method: [plan_action(req: PlanActionRequest) -> PlanActionResponse],
            subject: |req| &req.action_type,
            request: { action_type: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics, deferred: Plain },
        }
        InvokeAction {
            guest: true,
            wire: by_hand,
            method: [invoke_action(req: InvokeActionRequest) -> Diagnostics],
            subject: |req| &req.action_type,
            request: { action_type: Plain, config: Object, client_capabilities: Plain },
            response: { diagnostics: Diagnostics },
        }
    } } };
}

/// ValidateActionConfig: an `action` block's `config`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidateActionConfigRequest {
    /// The action type.
    pub type_name: String,
    /// Its `config`, of the action's schema; may contain unknowns.
    pub config: DynamicValue,
}

/// PlanAction.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanActionRequest {
    /// The action type.
    pub action_type: String,
    /// Its `config`; may contain unknowns.
    pub config: DynamicValue,
    /// What the client supports (deferral).
    pub client_capabilities: ClientCapabilities,
}

/// PlanAction's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanActionResponse {
    /// Problems.
    pub diagnostics: Diagnostics,
    /// Why the action waits for a later run, when the client allows deferral.
    pub deferred: Option<DeferredReason>,
}

/// Where an invocation's progress messages go while it runs.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Fn(String) + Send + Sync>>);

impl Progress {
    /// Progress handed to `sink`, one message at a time.
    pub fn to(sink: impl Fn(String) + Send + Sync + 'static) -> Progress {
        Progress(Some(Arc::new(sink)))
    }

    /// Reports one message (nothing happens without a sink).
    pub fn report(&self, message: String) {
        if let Some(sink) = &self.0 {
            sink(message);
        }
    }

    /// This progress with every message passed through `f` first (a wrapper that checks
    /// or cuts them).
    pub fn map(&self, f: impl Fn(String) -> String + Send + Sync + 'static) -> Progress {
        let inner = self.clone();
        Progress::to(move |message| inner.report(f(message)))
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(sink)"
        } else {
            "Progress(none)"
        })
    }
}

/// Progress is where messages go, not a value: any two are alike to a comparison.
impl PartialEq for Progress {
    fn eq(&self, _: &Progress) -> bool {
        true
    }
}

impl Eq for Progress {}

/// InvokeAction.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InvokeActionRequest {
    /// The action type.
    pub action_type: String,
    /// Its `config`, wholly known.
    pub config: DynamicValue,
    /// What the client supports.
    pub client_capabilities: ClientCapabilities,
    /// Where progress goes while the action runs; never recorded.
    #[serde(skip)]
    pub progress: Progress,
}

/// ValidateActionConfig, PlanAction and InvokeAction.
///
/// A provider without actions implements [`NoActions`] instead: it declares no action
/// schema, so Terraform sends it none of these.
pub trait ActionServer: Send + Sync + 'static {
    /// ValidateActionConfig.
    fn validate_action_config(
        &self,
        req: ValidateActionConfigRequest,
    ) -> impl Future<Output = Diagnostics> + Send;

    /// PlanAction.
    fn plan_action(
        &self,
        req: PlanActionRequest,
    ) -> impl Future<Output = PlanActionResponse> + Send;

    /// InvokeAction: runs the action, reporting progress through the request's sink, and
    /// answers with its diagnostics once it is done.
    fn invoke_action(&self, req: InvokeActionRequest) -> impl Future<Output = Diagnostics> + Send;
}

/// Marks a provider without actions.
pub trait NoActions: Send + Sync + 'static {}

/// The error a provider without actions answers with.
fn no_action(type_name: &str) -> Diagnostics {
    vec![crate::Diagnostic::error(
        "Action Not Supported",
        format!("This provider has no action of type {type_name:?}."),
    )]
}

impl<T: NoActions> ActionServer for T {
    async fn validate_action_config(&self, req: ValidateActionConfigRequest) -> Diagnostics {
        no_action(&req.type_name)
    }

    async fn plan_action(&self, req: PlanActionRequest) -> PlanActionResponse {
        PlanActionResponse {
            diagnostics: no_action(&req.action_type),
            deferred: None,
        }
    }

    async fn invoke_action(&self, req: InvokeActionRequest) -> Diagnostics {
        no_action(&req.action_type)
    }
}
