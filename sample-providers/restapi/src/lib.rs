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
//! Beyond Mastercard/restapi (Terraform >= 1.14): `list "restapi_object"` finds a
//! collection's objects for `terraform query`, the action `restapi_call` ([`call`]) sends
//! one request when invoked, reporting its progress, and (Terraform >= 1.15, experimental)
//! the state store `restapi_state` ([`state`]) keeps Terraform's state on the API, with locks.
//!
//! Beyond Mastercard/restapi, as its users asked: data source `restapi_objects` lists every
//! object under a path, following `Link: <…>; rel="next"` pages (restapi issues 149 and 281),
//! and `ignore_server_additions` stops keys the server adds to an object from showing as
//! drift (restapi issue 348).
//!
//! The operator grants the API: `tfwasm package --allow-http https://api.example.com`.

mod api;
pub mod call;
pub mod lookup;
pub mod object;
pub mod state;

use tfwasm_sdk::prelude::*;

/// The provider.
pub struct RestApiProvider;

impl Provider for RestApiProvider {
    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .attr(
                Attr::string("uri")
                    .optional()
                    .env_fallback(&["REST_API_URI"])
                    .description(
                        "Base URL of the API, e.g. https://api.example.com/v1; object paths are appended. Default: $REST_API_URI (granted with --allow-env).",
                    ),
            )
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
                    .env_fallback(&["REST_API_USERNAME"])
                    .description("Basic authentication user. Default: $REST_API_USERNAME."),
            )
            .attr(
                Attr::string("password")
                    .optional()
                    .sensitive()
                    .env_fallback(&["REST_API_PASSWORD"])
                    .description("Basic authentication password. Default: $REST_API_PASSWORD."),
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
        match ctx.provider_data::<api::Api>() {
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

    fn actions(&self) -> Vec<Box<dyn tfwasm_sdk::action::Action>> {
        vec![Box::new(call::RestApiCall)]
    }

    fn state_stores(&self) -> Vec<Box<dyn tfwasm_sdk::state_store::StateStore>> {
        vec![Box::new(state::RestApiState)]
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
