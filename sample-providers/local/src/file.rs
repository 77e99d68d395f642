//! Resources `local_file` and `local_sensitive_file`: a file with exactly one of `content`,
//! `sensitive_content` (local_file only, deprecated), `content_base64` or `source`. Every
//! input forces a new file; reading finds the file gone or changed (its SHA-1 is the `id`)
//! and Terraform plans to write it again.

use base64::Engine as _;
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::{exactly_one_of, regex};

use crate::files::check_granted;
use crate::hashes::{Hashes, sha1_hex};

/// `local_file`, or `local_sensitive_file` when `sensitive`.
pub struct LocalFile {
    /// Content attributes are sensitive and permissions default to `0700`.
    pub sensitive: bool,
}

/// What a permission attribute accepts: three or four octal digits.
fn permission(name: &str, default: &'static str) -> Attr {
    Attr::string(name)
        .default(default)
        .requires_replace()
        .validate(regex(r"^0?[0-7]{3}$", "an octal mode such as 0644"))
        .description(&format!(
            "Mode in octal (default {default}), set by the host when the file (or a directory it creates) is made."
        ))
}

fn content_sources(sensitive: bool) -> &'static [&'static str] {
    if sensitive {
        &["content", "content_base64", "source"]
    } else {
        &["content", "sensitive_content", "content_base64", "source"]
    }
}

impl LocalFile {
    fn default_mode(&self) -> &'static str {
        if self.sensitive { "0700" } else { "0777" }
    }

    /// The bytes to write, from whichever content attribute is set.
    fn content(&self, planned: &Value) -> Result<Vec<u8>, Diagnostic> {
        for name in content_sources(self.sensitive) {
            let Some(text) = planned.get_string(name)? else {
                continue;
            };
            return match *name {
                "content_base64" => base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .map_err(|e| {
                        Diagnostic::error(
                            "Invalid base64",
                            format!("content_base64 is not valid base64: {e}"),
                        )
                        .at(AttributePath::attribute("content_base64"))
                    }),
                "source" => {
                    check_granted("source", &text)?;
                    std::fs::read(&text).map_err(|e| {
                        Diagnostic::error("Cannot read source", format!("reading {text:?}: {e}"))
                            .at(AttributePath::attribute("source"))
                    })
                }
                _ => Ok(text.into_bytes()),
            };
        }
        Err(Diagnostic::error(
            "No content",
            format!("Set one of {}.", content_sources(self.sensitive).join(", ")),
        ))
    }
}

impl Resource for LocalFile {
    fn type_name(&self) -> &'static str {
        crate::type_name(self.sensitive)
    }

    fn schema(&self) -> ResourceSchema {
        let content = |name: &str, description: &str| {
            let attr = Attr::string(name)
                .optional()
                .requires_replace()
                .description(description);
            crate::sensitive_if(attr, self.sensitive)
        };
        let mut schema = ResourceSchema::new()
            .description("A file with the given content, inside a directory the operator granted.")
            .attr(
                Attr::string("filename")
                    .required()
                    .requires_replace()
                    .description("Absolute guest path of the file, inside a granted directory."),
            )
            .attr(content("content", "Content as UTF-8 text."))
            .attr(content(
                "content_base64",
                "Content as base64, for binary files.",
            ))
            .attr(
                Attr::string("source")
                    .optional()
                    .requires_replace()
                    .description("Guest path of a file to copy."),
            )
            .attr(permission("file_permission", self.default_mode()))
            .attr(permission("directory_permission", self.default_mode()))
            .attr(
                Attr::string("id")
                    .computed()
                    .description("SHA-1 of the content, hex."),
            )
            .validate(exactly_one_of(content_sources(self.sensitive)));
        if !self.sensitive {
            schema = schema.attr(
                Attr::string("sensitive_content")
                    .optional()
                    .sensitive()
                    .requires_replace()
                    .deprecated("Use the local_sensitive_file resource instead.")
                    .description("Sensitive content (deprecated)."),
            );
        }
        for (name, _) in Hashes::of(b"").attributes().iter().skip(1) {
            schema = schema.attr(
                Attr::string(name)
                    .computed()
                    .description("Digest of the content."),
            );
        }
        schema
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let filename = planned.get_string("filename")?.unwrap_or_default();
        check_granted("filename", &filename)?;
        let content = self.content(planned)?;
        let mode = |name: &str| -> Result<u32, Diagnostic> {
            let text = planned.get_string(name)?.unwrap_or_default();
            tfwasm_sdk::files::parse_mode(&text).ok_or_else(|| {
                Diagnostic::error(
                    "Invalid mode",
                    format!("{name} = {text:?} is not an octal mode"),
                )
                .at(AttributePath::attribute(name))
            })
        };
        let (file_mode, dir_mode) = (mode("file_permission")?, mode("directory_permission")?);
        let host_refused = |what: &str, why: String| {
            Diagnostic::error("Cannot write file", format!("{what} {filename:?}: {why}"))
                .at(AttributePath::attribute("filename"))
        };
        // The directories this creates get directory_permission, as hashicorp/local's do;
        // existing ones keep theirs.
        let mut missing = Vec::new();
        let mut dir = std::path::Path::new(&filename).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            missing.push(d.to_owned());
            dir = d.parent();
        }
        for d in missing.iter().rev() {
            tfwasm_sdk::files::create_dir(&d.to_string_lossy(), dir_mode)
                .map_err(|why| host_refused("creating the directory of", why))?;
        }
        // Created with its mode before a byte is written: a secret is never readable by
        // others, even for a moment.
        tfwasm_sdk::files::write_file(&filename, &content, file_mode)
            .map_err(|why| host_refused("writing", why))?;
        let hashes = Hashes::of(&content);
        let mut state = planned.clone();
        for (name, value) in hashes.attributes() {
            state = state.with(name, value);
        }
        Ok(state)
    }

    /// Gone, or changed behind Terraform's back (its SHA-1 is not the `id`): `None`, so
    /// Terraform writes it again.
    fn read(&self, _ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        let filename = state.get_string("filename")?.unwrap_or_default();
        check_granted("filename", &filename)?;
        match std::fs::read(&filename) {
            Ok(content) if Some(sha1_hex(&content)) == state.get_string("id")? => {
                Ok(Some(state.clone()))
            }
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Diagnostic::error(
                "Cannot read file",
                format!("reading {filename:?}: {e}"),
            )),
        }
    }

    fn delete(&self, _ctx: &Context, prior: &Value) -> Result<(), Diagnostic> {
        let filename = prior.get_string("filename")?.unwrap_or_default();
        check_granted("filename", &filename)?;
        match std::fs::remove_file(&filename) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Diagnostic::error(
                "Cannot delete file",
                format!("deleting {filename:?}: {e}"),
            )),
            _ => Ok(()),
        }
    }
}
