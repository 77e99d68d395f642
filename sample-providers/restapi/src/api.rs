//! The API as the provider block describes it: an HTTP client with the base URL, headers,
//! credentials and timeout, and what every operation shares (IDs, `{id}` paths, `api_data`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value as Json};
use tfwasm_sdk::http::{Client, Method, Response};
use tfwasm_sdk::prelude::*;

/// The provider block.
#[derive(Deserialize)]
struct Settings {
    uri: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    bearer_token: Option<String>,
    username: Option<String>,
    password: Option<String>,
    timeout: Option<i64>,
    id_attribute: Option<String>,
    write_returns_object: Option<bool>,
    create_returns_object: Option<bool>,
}

/// A configured API.
pub(crate) struct Api {
    client: Client,
    /// Default key of an object's ID.
    pub(crate) id_attribute: String,
    pub(crate) write_returns_object: bool,
    pub(crate) create_returns_object: bool,
}

/// Built once per instance from the provider block (and `REST_API_*` for what it leaves
/// out), then shared by every call: `ctx.provider_data::<Api>()`.
impl ProviderData for Api {
    fn from_config(ctx: &Context) -> Result<Api, Diagnostic> {
        let settings: Settings = ctx.provider_config_as()?;
        let uri = settings.uri.as_deref().ok_or_else(|| {
            Diagnostic::error(
                "No API address",
                "Set uri in the provider block, or REST_API_URI in the environment (granted to the provider with --allow-env REST_API_URI).",
            )
            .at(AttributePath::attribute("uri"))
        })?;
        let mut client = Client::new(uri).map_err(|e| {
            Diagnostic::error("Invalid uri", e.to_string()).at(AttributePath::attribute("uri"))
        })?;
        for (name, value) in settings.headers.iter().flatten() {
            client = client.header(name, value);
        }
        if let Some(token) = &settings.bearer_token {
            client = client.bearer_auth(token);
        }
        if let Some(user) = &settings.username {
            client = client.basic_auth(user, settings.password.as_deref().unwrap_or_default());
        }
        if let Some(secs) = settings.timeout.filter(|s| *s > 0) {
            client = client.timeout(Duration::from_secs(secs.unsigned_abs()));
        }
        Ok(Api {
            client,
            id_attribute: settings.id_attribute.unwrap_or_else(|| "id".into()),
            write_returns_object: settings.write_returns_object.unwrap_or(false),
            create_returns_object: settings.create_returns_object.unwrap_or(false),
        })
    }
}

impl Api {
    /// Sends `method path` with an optional JSON body; any status comes back as a response.
    pub(crate) fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Json>,
    ) -> Result<Response, Diagnostic> {
        let mut request = self.client.request(method, path);
        if let Some(body) = body {
            request = request.json(body)?;
        }
        Ok(request.send()?)
    }

    /// Sends `method path` with `json`, JSON already serialized (a large body is not
    /// serialized twice); any status comes back as a response.
    pub(crate) fn send_json_text(
        &self,
        method: Method,
        path: &str,
        json: &str,
    ) -> Result<Response, Diagnostic> {
        Ok(self
            .client
            .request(method, path)
            .header("content-type", "application/json")
            .body(json)
            .send()?)
    }

    /// Like [`Api::send`], but a 4xx/5xx answer is an error naming the request.
    pub(crate) fn expect(
        &self,
        method: Method,
        path: &str,
        body: Option<&Json>,
    ) -> Result<Response, Diagnostic> {
        Ok(self.send(method, path, body)?.error_for_status()?)
    }
}

/// An object's ID as text: strings as they are, numbers as written.
pub(crate) fn id_of(object: &Map<String, Json>, key: &str) -> Option<String> {
    match object.get(key)? {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `template` with `{id}` replaced, or `base/{id}` when there is no template.
pub(crate) fn id_path(template: Option<&str>, base: &str, id: &str) -> String {
    match template {
        Some(t) => t.replace("{id}", id),
        None => format!("{}/{id}", base.trim_end_matches('/')),
    }
}

/// The response body as a JSON object, or an error naming the request.
pub(crate) fn object_of(response: &Response) -> Result<Map<String, Json>, Diagnostic> {
    match response.json::<Json>() {
        Ok(Json::Object(map)) => Ok(map),
        Ok(other) => Err(Diagnostic::error(
            "The API did not answer with an object",
            format!(
                "{} answered {}, which is not a JSON object.",
                response.url(),
                short(&other)
            ),
        )),
        Err(e) => Err(e.to_diagnostic()),
    }
}

/// `api_data`: every top-level key, strings as they are and anything else as JSON text.
pub(crate) fn api_data(object: &Map<String, Json>) -> BTreeMap<String, String> {
    object
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect()
}

fn short(value: &Json) -> String {
    let text = value.to_string();
    if text.len() > 200 {
        format!("{}…", &text[..text.floor_char_boundary(200)])
    } else {
        text
    }
}
