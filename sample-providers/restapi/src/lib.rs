//! # tfwasm-sample-restapi
//!
//! Mastercard/restapi on `tfwasm-sdk`: objects of any JSON REST API as Terraform resources.
//! Attribute names and behaviour follow Mastercard/restapi, so configurations move over:
//!
//! - provider: `uri` (required), `headers`, `bearer_token`, `username`/`password`, `timeout`
//!   (seconds), `id_attribute` (default `id`), `write_returns_object`, `create_returns_object`;
//! - resource `restapi_object` ([`object`]): `path` and `data` (a JSON string compared by
//!   meaning, not text), per-operation paths and methods, `force_new` keys, import ID
//!   `/path/{id}`;
//! - data source `restapi_object` ([`lookup`]): one object found by `search_key` =
//!   `search_value`.
//!
//! Beyond Mastercard/restapi, as its users asked: data source `restapi_objects` lists every
//! object under a path, following `Link: <…>; rel="next"` pages (restapi issues 149 and 281),
//! and `ignore_server_additions` stops keys the server adds to an object from showing as
//! drift (restapi issue 348).
//!
//! The operator grants the API: `tfwasm package --allow-http https://api.example.com`.

mod api;
pub mod lookup;
pub mod object;

use tfwasm_sdk::prelude::*;

/// The provider.
pub struct RestApiProvider;

impl Provider for RestApiProvider {
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(Attr::string("uri").required().description(
                "Base URL of the API, e.g. https://api.example.com/v1; object paths are appended.",
            ))
            .attr(
                Attr::map("headers", Type::String)
                    .optional()
                    .description("Headers sent with every request."),
            )
            .attr(
                Attr::string("bearer_token")
                    .optional()
                    .sensitive()
                    .description("Sent as `Authorization: Bearer TOKEN`."),
            )
            .attr(
                Attr::string("username")
                    .optional()
                    .description("Basic authentication user."),
            )
            .attr(
                Attr::string("password")
                    .optional()
                    .sensitive()
                    .description("Basic authentication password."),
            )
            .attr(
                Attr::number("timeout")
                    .optional()
                    .description("Seconds each request may take (default 30)."),
            )
            .attr(
                Attr::string("id_attribute")
                    .optional()
                    .description("The key of an object's ID in its JSON (default `id`)."),
            )
            .attr(
                Attr::bool("write_returns_object").optional().description(
                    "The API answers create and update with the object (saves a read).",
                ),
            )
            .attr(
                Attr::bool("create_returns_object")
                    .optional()
                    .description("The API answers create with the object, including its ID."),
            )
    }

    fn configure(&self, ctx: &Context) -> Diagnostics {
        // During plan the provider block may still hold unknowns (a uri from a resource not
        // created yet); they are checked once known. Resources defer meanwhile.
        if !ctx.provider_config.is_wholly_known() {
            return Vec::new();
        }
        match api::Api::from_context(ctx) {
            Ok(_) => Vec::new(),
            Err(diagnostic) => vec![diagnostic],
        }
    }

    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(object::RestApiObject)]
    }

    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        vec![
            Box::new(lookup::RestApiObjectData),
            Box::new(lookup::RestApiObjectsData),
        ]
    }
}

tfwasm_sdk::export_provider!(RestApiProvider);

#[cfg(test)]
mod tests {
    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&super::RestApiProvider),
            Vec::<String>::new()
        );
    }
}
