//! Diagnostics: the errors and warnings that reach the Terraform user.

use std::fmt;

use crate::AttributePath;

/// The summary of the host's diagnostic for a request it refused to send, shared with the
/// guest SDKs: a guest error with this summary only restates the host's, which names the
/// grant to add, so the host keeps its own in place of the guest's.
pub const HTTP_DENIED_SUMMARY: &str = "Outgoing HTTP request denied";

/// How serious a diagnostic is. Terraform treats anything but a warning as an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Severity {
    /// Stops the operation.
    Error,
    /// Shown, but the operation goes on.
    Warning,
}

/// One message for the user, optionally pointing at an attribute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One line saying what happened.
    pub summary: String,
    /// Where, why, and who should act.
    pub detail: String,
    /// The attribute the message is about, if any.
    pub attribute: Option<AttributePath>,
}

impl Diagnostic {
    /// An error diagnostic.
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            attribute: None,
        }
    }

    /// A warning diagnostic.
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            summary: summary.into(),
            detail: detail.into(),
            attribute: None,
        }
    }

    /// The same diagnostic pointing at `path`.
    #[must_use]
    pub fn at(mut self, path: AttributePath) -> Diagnostic {
        self.attribute = Some(path);
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}: {}", self.summary)?;
        if let Some(path) = self.attribute.as_ref().filter(|p| !p.is_root()) {
            write!(f, " (at {path})")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

/// A list of diagnostics, as every RPC response carries.
pub type Diagnostics = Vec<Diagnostic>;

/// True when any diagnostic in the list is an error.
pub fn has_error(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}
