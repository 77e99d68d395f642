//! Data sources: `restapi_object` finds one object by a key's value; `restapi_objects` lists
//! every object under a path (optionally filtered), following `Link: <…>; rel="next"` pages.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};
use tfwasm_sdk::http::{Method, Response};
use tfwasm_sdk::prelude::*;

use crate::api::{Api, api_data, id_of};

/// Pages followed at most, so a server whose `next` never ends cannot loop a read forever.
const MAX_PAGES: usize = 1000;

/// The `restapi_object` data source.
pub struct RestApiObjectData;

#[derive(Serialize, Deserialize)]
struct One {
    path: String,
    search_key: String,
    search_value: String,
    query_string: Option<String>,
    results_key: Option<String>,
    id_attribute: Option<String>,
    id: Option<String>,
    api_data: Option<BTreeMap<String, String>>,
    api_response: Option<String>,
}

/// The `restapi_objects` data source.
pub struct RestApiObjectsData;

#[derive(Serialize, Deserialize)]
struct Many {
    path: String,
    search_key: Option<String>,
    search_value: Option<String>,
    query_string: Option<String>,
    results_key: Option<String>,
    id_attribute: Option<String>,
    ids: Option<Vec<String>>,
    objects: Option<Vec<BTreeMap<String, String>>>,
}

fn common() -> ResourceSchema {
    ResourceSchema::new()
        .attr(Attr::string("path").required().description("Path of the collection, e.g. /items."))
        .attr(
            Attr::string("query_string")
                .optional()
                .description("Query string added to the request, e.g. `team=core`."),
        )
        .attr(Attr::string("results_key").optional().description(
            "Key of the list in the answer, when the API wraps it (e.g. `data`); slash-separated for nesting.",
        ))
        .attr(
            Attr::string("id_attribute")
                .optional()
                .description("The key of an object's ID (default: the provider's)."),
        )
}

/// Every object under `path`, page after page.
fn list(
    api: &Api,
    path: &str,
    query: Option<&str>,
    results_key: Option<&str>,
) -> Result<Vec<Map<String, Json>>, Diagnostic> {
    let mut next = Some(match query {
        Some(q) if path.contains('?') => format!("{path}&{q}"),
        Some(q) => format!("{path}?{q}"),
        None => path.to_owned(),
    });
    let mut seen = Vec::new();
    let mut objects = Vec::new();
    while let Some(url) = next.take() {
        if seen.contains(&url) || seen.len() >= MAX_PAGES {
            break;
        }
        let response = api.expect(Method::Get, &url, None)?;
        objects.extend(items(&response, results_key)?);
        next = next_link(&response);
        seen.push(url);
    }
    Ok(objects)
}

fn items(
    response: &Response,
    results_key: Option<&str>,
) -> Result<Vec<Map<String, Json>>, Diagnostic> {
    let mut body: Json = response.json()?;
    for key in results_key.into_iter().flat_map(|k| k.split('/')) {
        body = body.get_mut(key).map(Json::take).unwrap_or(Json::Null);
    }
    let Json::Array(list) = body else {
        return Err(Diagnostic::error(
            "The API did not answer with a list",
            format!(
                "{} did not answer with a JSON list{}; set results_key to the key holding the list.",
                response.url(),
                results_key
                    .map(|k| format!(" under {k:?}"))
                    .unwrap_or_default()
            ),
        ));
    };
    Ok(list
        .into_iter()
        .filter_map(|item| match item {
            Json::Object(map) => Some(map),
            _ => None,
        })
        .collect())
}

/// The `rel="next"` target of a `Link` header, resolved against the request's URL.
fn next_link(response: &Response) -> Option<String> {
    let header = response.header("link")?;
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        // `rel="next"`, `rel=next`, any case and spacing.
        let is_next = params.split(';').any(|p| {
            let p = p.replace([' ', '"'], "");
            p.eq_ignore_ascii_case("rel=next")
        });
        is_next.then(|| {
            target
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned()
        })
    })
}

/// Whether `object[key]` reads as `value` (strings as they are, numbers and booleans as
/// written).
fn matches(object: &Map<String, Json>, key: &str, value: &str) -> bool {
    match object.get(key) {
        Some(Json::String(s)) => s == value,
        Some(Json::Number(n)) => n.to_string() == value,
        Some(Json::Bool(b)) => b.to_string() == value,
        _ => false,
    }
}

impl DataSource for RestApiObjectData {
    fn type_name(&self) -> &'static str {
        "restapi_object"
    }

    fn schema(&self) -> ResourceSchema {
        common()
            .description("One object of the API, found by the value of one of its keys.")
            .attr(
                Attr::string("search_key")
                    .required()
                    .description("The key to match, e.g. name."),
            )
            .attr(
                Attr::string("search_value")
                    .required()
                    .description("The value it must have."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .description("The object's ID."),
            )
            .attr(
                Attr::map("api_data", Type::String)
                    .computed()
                    .description("The object's top-level keys (non-strings as JSON)."),
            )
            .attr(
                Attr::string("api_response")
                    .computed()
                    .description("The object, raw JSON."),
            )
    }

    fn read(&self, ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let schema = self.schema();
        let mut one: One = schema.decode(config)?;
        let objects = list(
            &api,
            &one.path,
            one.query_string.as_deref(),
            one.results_key.as_deref(),
        )?;
        let found = objects
            .into_iter()
            .find(|o| matches(o, &one.search_key, &one.search_value))
            .ok_or_else(|| {
                Diagnostic::error(
                    "No such object",
                    format!(
                        "No object under {} has {} = {:?}.",
                        one.path, one.search_key, one.search_value
                    ),
                )
            })?;
        let id_key = one
            .id_attribute
            .clone()
            .unwrap_or_else(|| api.id_attribute.clone());
        one.id = id_of(&found, &id_key);
        one.api_data = Some(api_data(&found));
        one.api_response = Some(Json::Object(found).to_string());
        schema.encode(&one)
    }
}

impl DataSource for RestApiObjectsData {
    fn type_name(&self) -> &'static str {
        "restapi_objects"
    }

    fn schema(&self) -> ResourceSchema {
        common()
            .description("Every object under a path (following Link rel=\"next\" pages), optionally those whose search_key has search_value.")
            .attr(Attr::string("search_key").optional().description("Only objects whose key…"))
            .attr(Attr::string("search_value").optional().description("…has this value."))
            .attr(Attr::list("ids", Type::String).computed().description("The objects' IDs, in the API's order."))
            .attr(
                Attr::list("objects", Type::Map(Box::new(Type::String)))
                    .computed()
                    .description("The objects' top-level keys (non-strings as JSON), in the API's order."),
            )
    }

    fn read(&self, ctx: &Context, config: &Value) -> Result<Value, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let schema = self.schema();
        let mut many: Many = schema.decode(config)?;
        let filter = match (&many.search_key, &many.search_value) {
            (Some(k), Some(v)) => Some((k.clone(), v.clone())),
            (None, None) => None,
            _ => {
                return Err(Diagnostic::error(
                    "Incomplete search",
                    "search_key and search_value go together: set both or neither.",
                ));
            }
        };
        let objects: Vec<_> = list(
            &api,
            &many.path,
            many.query_string.as_deref(),
            many.results_key.as_deref(),
        )?
        .into_iter()
        .filter(|o| filter.as_ref().is_none_or(|(k, v)| matches(o, k, v)))
        .collect();
        let id_key = many
            .id_attribute
            .clone()
            .unwrap_or_else(|| api.id_attribute.clone());
        many.ids = Some(objects.iter().filter_map(|o| id_of(o, &id_key)).collect());
        many.objects = Some(objects.iter().map(api_data).collect());
        schema.encode(&many)
    }
}
