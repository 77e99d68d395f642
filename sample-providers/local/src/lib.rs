//! # tfwasm-sample-local
//!
//! hashicorp/local on `tfwasm-sdk`: resources and data sources `local_file` and
//! `local_sensitive_file`, with hashicorp/local's attribute names, defaults, hashes and
//! replacement rules, so configurations move over; the function `direxists`; and the state
//! store `local_state` ([`state`]: Terraform's state in a granted directory, with locks).
//!
//! What the sandbox changes: `filename` is a path inside a directory the operator granted
//! (`tfwasm package --allow-dir /srv/out:/out:rw`, then `filename = "/out/config.txt"`); a path
//! outside every grant is refused with the `--allow-dir` to add ([`files`]). WASI has no
//! `chmod`, so `file_permission` and `directory_permission` are validated and kept in state but
//! the file gets the host's default mode; a non-default value says so in a warning.

pub mod data;
pub mod direxists;
pub mod file;
mod files;
mod hashes;
pub mod state;

use tfwasm_sdk::prelude::*;

/// The provider: no configuration.
pub struct LocalProvider;

impl Provider for LocalProvider {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![
            Box::new(file::LocalFile { sensitive: false }),
            Box::new(file::LocalFile { sensitive: true }),
        ]
    }

    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        vec![
            Box::new(data::LocalFileData { sensitive: false }),
            Box::new(data::LocalFileData { sensitive: true }),
        ]
    }

    fn state_stores(&self) -> Vec<Box<dyn tfwasm_sdk::state_store::StateStore>> {
        vec![Box::new(state::LocalState)]
    }

    fn functions(&self) -> Vec<Box<dyn Function>> {
        vec![Box::new(direxists::DirExists)]
    }
}

tfwasm_sdk::export_provider!(LocalProvider);

/// The type name of the plain or the sensitive variant (resource and data source alike).
pub(crate) fn type_name(sensitive: bool) -> &'static str {
    if sensitive {
        "local_sensitive_file"
    } else {
        "local_file"
    }
}

/// `attr`, marked sensitive in the sensitive variant.
pub(crate) fn sensitive_if(attr: Attr, sensitive: bool) -> Attr {
    if sensitive { attr.sensitive() } else { attr }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&super::LocalProvider),
            Vec::<String>::new()
        );
    }
}
