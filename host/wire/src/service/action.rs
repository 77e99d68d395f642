//! The action family: ValidateActionConfig, PlanAction, and InvokeAction's stream, which
//! carries the action's progress messages as the provider reports them and ends with one
//! completed event holding its diagnostics.

use std::sync::Arc;

use futures::{StreamExt as _, future, stream};
use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    InvokeActionRequest, PlanActionRequest, Progress, ValidateActionConfigRequest,
};

use super::BoxStream;
use crate::convert;
use crate::proto::tfplugin6 as pb;

pub(super) async fn validate_action_config<P: Provider>(
    p: &P,
    req: pb::validate_action_config::Request,
) -> pb::validate_action_config::Response {
    let diagnostics = p
        .validate_action_config(ValidateActionConfigRequest {
            type_name: req.type_name,
            config: convert::dynamic_value(req.config),
        })
        .await;
    pb::validate_action_config::Response {
        diagnostics: convert::diagnostics(diagnostics),
    }
}

pub(super) async fn plan_action<P: Provider>(
    p: &P,
    req: pb::plan_action::Request,
) -> pb::plan_action::Response {
    let resp = p
        .plan_action(PlanActionRequest {
            action_type: req.action_type,
            config: convert::dynamic_value(req.config),
            client_capabilities: convert::client_capabilities(req.client_capabilities),
        })
        .await;
    pb::plan_action::Response {
        diagnostics: convert::diagnostics(resp.diagnostics),
        deferred: convert::deferred(resp.deferred),
    }
}

/// The invocation runs as the stream is read: progress events as the provider reports
/// them, then the completed event, after which nothing holds the channel and the stream
/// ends.
pub(super) fn invoke_action<P: Provider>(
    provider: Arc<P>,
    req: pb::invoke_action::Request,
) -> BoxStream<pb::invoke_action::Event> {
    use pb::invoke_action::event;
    let (events, received) = futures::channel::mpsc::unbounded();
    let progress_events = events.clone();
    let progress = Progress::to(move |message| {
        let progress = event::Progress {
            message: convert::one_line(message),
        };
        let _ = progress_events.unbounded_send(pb::invoke_action::Event {
            r#type: Some(event::Type::Progress(progress)),
        });
    });
    let request = InvokeActionRequest {
        action_type: req.action_type,
        config: convert::dynamic_value(req.config),
        client_capabilities: convert::client_capabilities(req.client_capabilities),
        progress,
    };
    let run = async move {
        let diagnostics = provider.invoke_action(request).await;
        let _ = events.unbounded_send(pb::invoke_action::Event {
            r#type: Some(event::Type::Completed(event::Completed {
                diagnostics: convert::diagnostics(diagnostics),
            })),
        });
    };
    // The call yields nothing itself; it is polled beside the channel until both end.
    let driver = stream::once(run).filter_map(|()| future::ready(None));
    Box::pin(stream::select(driver, received).map(Ok))
}
