//! # tfwasm-sample-hello
//!
//! The Rust twin of `sample-providers/python-hello`, written line for line against the same
//! behaviour so that the two languages can be read (and measured, `tfwasm-bench --only
//! python`) side by side: `hello_greeting` renders a greeting from a template (the template
//! changes in place, the name replaces the object), `hello_shout` (data source) and
//! `provider::hello::shout` (function) show the other families.

mod greeting;
mod shout;

use tfwasm_sdk::prelude::*;

/// The provider: no configuration.
pub struct HelloProvider;

impl Provider for HelloProvider {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(greeting::Greeting)]
    }

    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        vec![Box::new(shout::ShoutData)]
    }

    fn functions(&self) -> Vec<Box<dyn Function>> {
        vec![Box::new(shout::ShoutFunction)]
    }
}

tfwasm_sdk::export_provider!(HelloProvider);

#[cfg(test)]
mod tests {
    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&super::HelloProvider),
            Vec::<String>::new()
        );
    }
}
