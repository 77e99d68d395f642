//! Action `restapi_call` (Terraform >= 1.14): one request to the API, made when Terraform
//! invokes it (from a resource's `action_trigger`, or `terraform apply -invoke`), reporting
//! what it sends and how the API answered. An answer of 4xx or 5xx fails the action.
//!
//! ```hcl
//! action "restapi_call" "rebuild" {
//!   config {
//!     path = "/jobs"
//!     body = jsonencode({ kind = "rebuild" })
//!   }
//! }
//! ```

use serde_json::Value as Json;
use tfwasm_sdk::action::{Action, Progress};
use tfwasm_sdk::http::Method;
use tfwasm_sdk::prelude::*;

use crate::api::Api;

/// The action type.
pub struct RestApiCall;

impl Action for RestApiCall {
    fn type_name(&self) -> &'static str {
        "restapi_call"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("One request to the API, sent when the action is invoked.")
            .attr(
                Attr::string("path")
                    .required()
                    .description("Path of the request, e.g. /jobs."),
            )
            .attr(
                Attr::string("method")
                    .optional()
                    .description("HTTP method (default POST)."),
            )
            .attr(
                Attr::string("body")
                    .optional()
                    .description("The request's body, a JSON string (none by default)."),
            )
    }

    fn validate(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        let mut problems = Vec::new();
        if let Some(method) = config.attr("method").as_str()
            && Method::parse(method).is_none()
        {
            problems.push(Diagnostic::error(
                "Unknown HTTP method",
                format!("{method:?} is not an HTTP method restapi_call sends."),
            ));
        }
        if let Some(body) = config.attr("body").as_str()
            && serde_json::from_str::<Json>(body).is_err()
        {
            problems.push(Diagnostic::error(
                "The body is not JSON",
                "body must be a JSON string (write it with jsonencode).",
            ));
        }
        problems
    }

    fn invoke(&self, ctx: &Context, config: &Value, progress: &Progress) -> Result<(), Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let path = config.get_string("path")?.unwrap_or_default();
        let name = config
            .get_string("method")?
            .unwrap_or_else(|| "POST".into());
        let method = Method::parse(&name).ok_or_else(|| {
            Diagnostic::error(
                "Unknown HTTP method",
                format!("{name:?} is not an HTTP method restapi_call sends."),
            )
        })?;
        let body = match config.get_string("body")? {
            Some(text) => Some(
                serde_json::from_str::<Json>(&text)
                    .map_err(|e| Diagnostic::error("The body is not JSON", e.to_string()))?,
            ),
            None => None,
        };
        progress.report(&format!("sending {} {path}", method.as_str()));
        let response = api.send(method, &path, body.as_ref())?;
        progress.report(&format!("{path} answered {}", response.status()));
        response.error_for_status()?;
        Ok(())
    }
}
