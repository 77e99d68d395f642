//! # tfwasm-sample-http
//!
//! hashicorp/http's `http` data source, written with `tfwasm-sdk`'s HTTP client: a GET, HEAD
//! or POST whose status, headers and body Terraform can use. Attribute names follow
//! hashicorp/http, so configurations move over unchanged.
//!
//! What the sandbox changes: the provider reaches only the destinations the operator
//! granted (`tfwasm package --allow-http https://api.example.com`), and trusted CAs and
//! proxies are the operator's settings (`--ca-file`, `--https-proxy`) rather than
//! `ca_cert_pem`/`insecure` attributes, so a configuration cannot weaken TLS.
//!
//! Like hashicorp/http 3.x, any status is a successful read: check `status_code` with a
//! `postcondition` when only some are acceptable.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine as _;
use tfwasm_sdk::http::{Client, Method, Retry};
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::one_of;

/// The provider: no configuration, one data source.
pub struct HttpProvider;

impl Provider for HttpProvider {
    fn data_sources(&self) -> Vec<Box<dyn DataSource>> {
        vec![Box::new(HttpData)]
    }
}

tfwasm_sdk::export_provider!(HttpProvider);

/// The `http` data source.
pub struct HttpData;

/// The configuration and the read result; computed fields are `None` until read.
#[derive(Serialize, Deserialize)]
struct Model {
    url: String,
    method: Option<String>,
    request_headers: Option<BTreeMap<String, String>>,
    request_body: Option<String>,
    request_timeout_ms: Option<i64>,
    retry: Option<RetryBlock>,
    response_body: Option<String>,
    response_body_base64: Option<String>,
    response_headers: Option<BTreeMap<String, String>>,
    status_code: Option<i64>,
    id: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct RetryBlock {
    attempts: Option<i64>,
    min_delay_ms: Option<i64>,
    max_delay_ms: Option<i64>,
}

impl RetryBlock {
    /// hashicorp/http counts retries (`attempts = 2` tries three times); no block, no retry.
    fn policy(block: Option<&RetryBlock>) -> Retry {
        let Some(block) = block else {
            return Retry::none();
        };
        let ms = |v: Option<i64>, default: u64| {
            Duration::from_millis(v.map_or(default, |v| v.max(0).unsigned_abs()))
        };
        Retry {
            attempts: u32::try_from(block.attempts.unwrap_or(0).max(0)).unwrap_or(u32::MAX) + 1,
            min_delay: ms(block.min_delay_ms, 0),
            max_delay: ms(block.max_delay_ms, 60_000),
        }
    }
}

impl DataSource for HttpData {
    fn type_name(&self) -> &'static str {
        "http"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("Makes an HTTP request to a granted destination and exposes the response.")
            .attr(Attr::string("url").required().description(
                "The URL to request (http or https); the operator must have granted its host.",
            ))
            .attr(
                Attr::string("method")
                    .optional()
                    .validate(one_of(&["GET", "POST", "HEAD"]))
                    .description("GET (default), POST or HEAD."),
            )
            .attr(
                Attr::map("request_headers", Type::String)
                    .optional()
                    .description("Request headers."),
            )
            .attr(Attr::string("request_body").optional().description("The request body."))
            .attr(
                Attr::number("request_timeout_ms")
                    .optional()
                    .description("Deadline of each attempt, in milliseconds (the host also bounds it)."),
            )
            .attr(Attr::string("response_body").computed().description("The response body as text."))
            .attr(
                Attr::string("response_body_base64")
                    .computed()
                    .description("The response body, base64-encoded (for binary responses)."),
            )
            .attr(
                Attr::map("response_headers", Type::String)
                    .computed()
                    .description("Response headers; repeated headers are joined with \", \"."),
            )
            .attr(Attr::number("status_code").computed().description("The HTTP status code."))
            .attr(Attr::string("id").computed().description("The URL requested."))
            .block(
                Block::single(
                    "retry",
                    ResourceSchema::new()
                        .attr(Attr::number("attempts").optional().description(
                            "Retries after the first try (idempotent methods, on failures and 429/5xx).",
                        ))
                        .attr(Attr::number("min_delay_ms").optional().description("Shortest wait between tries."))
                        .attr(Attr::number("max_delay_ms").optional().description("Longest wait between tries.")),
                ),
            )
    }

    fn read(&self, _ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        let schema = self.schema();
        let mut model: Model = schema.decode(config)?;
        let method_name = model.method.as_deref().unwrap_or("GET");
        let method = Method::parse(method_name).ok_or_else(|| {
            Diagnostic::error(
                "Invalid method",
                format!("method {method_name:?} is not GET, POST or HEAD"),
            )
            .at(AttributePath::attribute("method"))
        })?;
        let mut request = Client::without_base()
            .request(method, &model.url)
            .retry(RetryBlock::policy(model.retry.as_ref()));
        for (name, value) in model.request_headers.iter().flatten() {
            request = request.header(name, value);
        }
        if let Some(body) = &model.request_body {
            request = request.body(body.as_bytes());
        }
        if let Some(ms) = model.request_timeout_ms.filter(|ms| *ms > 0) {
            request = request.timeout(Duration::from_millis(ms.unsigned_abs()));
        }
        let response = request.send().map_err(|e| e.to_diagnostic())?;

        let mut headers = BTreeMap::<String, String>::new();
        for (name, value) in response.headers() {
            headers
                .entry(canonical_header(name))
                .and_modify(|joined| {
                    joined.push_str(", ");
                    joined.push_str(value);
                })
                .or_insert_with(|| value.clone());
        }
        model.status_code = Some(i64::from(response.status()));
        model.response_body = Some(response.text());
        model.response_body_base64 =
            Some(base64::engine::general_purpose::STANDARD.encode(response.bytes()));
        model.response_headers = Some(headers);
        model.id = Some(model.url.clone());
        schema.encode(&model)
    }
}

/// `content-type` as `Content-Type`, the form hashicorp/http (Go's net/http) exposes.
fn canonical_header(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_valid() {
        assert_eq!(
            tfwasm_sdk::check_schemas(&HttpProvider),
            Vec::<String>::new()
        );
    }

    #[test]
    fn header_names_are_canonical() {
        assert_eq!(canonical_header("content-type"), "Content-Type");
        assert_eq!(canonical_header("x-request-id"), "X-Request-Id");
    }

    #[test]
    fn retry_counts_retries_like_hashicorp_http() {
        assert_eq!(RetryBlock::policy(None).attempts, 1);
        let block = RetryBlock {
            attempts: Some(2),
            min_delay_ms: Some(10),
            max_delay_ms: None,
        };
        let policy = RetryBlock::policy(Some(&block));
        assert_eq!(policy.attempts, 3);
        assert_eq!(policy.min_delay, Duration::from_millis(10));
    }
}
