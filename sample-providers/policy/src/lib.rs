//! # tfwasm-sample-policy
//!
//! `policy_document`: an access policy (in the shape of an AWS IAM policy) assembled from a
//! set of `statement` blocks and a list of `tag` objects, rendered to a JSON document. It
//! keeps nothing outside Terraform's state, like hashicorp/random, so it shows the SDK's
//! planning at depth without a server:
//!
//! - statements are a **set of blocks matched by `sid`**: a statement that did not change
//!   keeps its computed `fingerprint`, a changed one plans it unknown, and only that
//!   statement shows in the plan, whatever the set's size (10,000 statements plan in
//!   milliseconds, see `docs/benchmarks.md`);
//! - a statement's `condition` is of the **custom type** `custom::JSON`: validated, and
//!   compared by meaning, so reformatting it plans no change even inside the set;
//! - `effect` has a **default and a validator inside the block**;
//! - `tag` is a **list nested attribute matched by `key`**: reordering tags keeps each
//!   one's computed `etag`.

mod document;

use tfwasm_sdk::prelude::*;

/// The provider: no configuration, one resource.
pub struct PolicyProvider;

impl Provider for PolicyProvider {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(document::PolicyDocument)]
    }
}

tfwasm_sdk::export_provider!(PolicyProvider);

#[cfg(test)]
mod tests {
    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&super::PolicyProvider),
            Vec::<String>::new()
        );
    }
}
