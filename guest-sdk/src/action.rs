//! Actions (Terraform >= 1.14): something a provider does on request, outside the lifecycle
//! of any resource: send a request, restart a service, run a job. An `action` block gives its
//! `config`; Terraform invokes it from a resource's `action_trigger` (after create, update...)
//! or on demand with `terraform apply -invoke=action.TYPE.NAME`.
//!
//! ```no_run
//! use tfwasm_sdk::action::{Action, Progress};
//! use tfwasm_sdk::prelude::*;
//!
//! struct Notify;
//!
//! impl Action for Notify {
//!     fn type_name(&self) -> &'static str {
//!         "example_notify"
//!     }
//!     fn schema(&self) -> ResourceSchema {
//!         ResourceSchema::new().attr(Attr::string("message").required())
//!     }
//!     fn invoke(&self, _ctx: &Context, config: &Value, progress: &Progress) -> Result<(), Diagnostic> {
//!         progress.report("sending the notification");
//!         let _message = config.get_string("message")?;
//!         progress.report("sent");
//!         Ok(())
//!     }
//! }
//! ```
//!
//! Each message passed to [`Progress::report`] is shown by Terraform as the action runs
//! (tfwasm passes on the first 1,000 of an invocation, each cut to 1 KiB).

use tfwasm_model::{Diagnostic, Diagnostics, Value};

use crate::{Context, ResourceSchema};

/// An action type.
pub trait Action: Send + Sync {
    /// Full type name, e.g. `restapi_call`.
    fn type_name(&self) -> &'static str;
    /// The schema of the `action` block's `config`.
    fn schema(&self) -> ResourceSchema;
    /// Checks configuration (may contain unknowns).
    fn validate(&self, _ctx: &Context, _config: &Value) -> Diagnostics {
        Vec::new()
    }
    /// Checks, at plan time, that the action can run with `config` (may contain unknowns).
    /// The default accepts it.
    ///
    /// # Errors
    /// The action cannot run as configured.
    fn plan(&self, _ctx: &Context, _config: &Value) -> Result<(), Diagnostic> {
        Ok(())
    }
    /// Runs the action with its (wholly known) configuration, reporting progress as it goes.
    ///
    /// # Errors
    /// The action failed; Terraform stops.
    fn invoke(&self, ctx: &Context, config: &Value, progress: &Progress) -> Result<(), Diagnostic>;
}

/// Where an invoked action's progress goes: Terraform's output, as it happens.
pub struct Progress<'a>(&'a dyn Fn(&str));

impl<'a> Progress<'a> {
    /// Progress handed to `sink` (the SDK makes the one an action gets).
    #[doc(hidden)]
    pub fn new(sink: &'a dyn Fn(&str)) -> Progress<'a> {
        Progress(sink)
    }

    /// Reports one message.
    pub fn report(&self, message: &str) {
        (self.0)(message);
    }
}
