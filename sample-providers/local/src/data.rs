//! Data sources `local_file` and `local_sensitive_file`: a file's content, as text and
//! base64, with its digests.

use base64::Engine as _;
use tfwasm_sdk::prelude::*;

use crate::files::check_granted;
use crate::hashes::Hashes;

/// `local_file`, or `local_sensitive_file` when `sensitive`.
pub struct LocalFileData {
    /// The content attributes are sensitive.
    pub sensitive: bool,
}

impl DataSource for LocalFileData {
    fn type_name(&self) -> &'static str {
        crate::type_name(self.sensitive)
    }

    fn schema(&self) -> ResourceSchema {
        let content = |name: &str, description: &str| {
            let attr = Attr::string(name).computed().description(description);
            crate::sensitive_if(attr, self.sensitive)
        };
        let mut schema = ResourceSchema::new()
            .description("Reads a file inside a directory the operator granted.")
            .attr(
                Attr::string("filename")
                    .required()
                    .description("Absolute guest path of the file, inside a granted directory."),
            )
            .attr(content(
                "content",
                "The content as UTF-8 text (invalid bytes replaced).",
            ))
            .attr(content("content_base64", "The content, base64-encoded."));
        for (name, _) in Hashes::of(b"").attributes() {
            schema = schema.attr(
                Attr::string(name)
                    .computed()
                    .description("Digest of the content."),
            );
        }
        schema
    }

    fn read(&self, _ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        let filename = config.get_string("filename")?.unwrap_or_default();
        check_granted("filename", &filename)?;
        let content = std::fs::read(&filename).map_err(|e| {
            Diagnostic::error("Cannot read file", format!("reading {filename:?}: {e}"))
                .at(AttributePath::attribute("filename"))
        })?;
        let mut value = config
            .clone()
            .with("content", String::from_utf8_lossy(&content).into_owned())
            .with(
                "content_base64",
                base64::engine::general_purpose::STANDARD.encode(&content),
            );
        for (name, digest) in Hashes::of(&content).attributes() {
            value = value.with(name, digest);
        }
        Ok(value)
    }
}
