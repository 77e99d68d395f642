//! `restapi_object`: one object of the API, created with `data` and kept equal to it.
//!
//! - Create sends `data` to `create_path` (default `path`); the ID comes from `object_id`,
//!   from `data`, or from the API's answer. Then the object is read back.
//! - Read gets `read_path` (default `path/{id}`). 404 means the object is gone, and
//!   Terraform plans to create it again. Keys of `data` the server changed show as a diff;
//!   keys the server added do too, unless `ignore_server_additions`.
//! - Update sends `data` to `update_path` with `update_method` (PUT); a change of a key named
//!   in `force_new` replaces the object instead.
//! - `data_wo` (write-only, Terraform >= 1.11): JSON merged into the body of every create and
//!   update, never stored: the state holds neither it nor the keys it set as the server
//!   echoes them (their names, not values, are kept in private state to leave them out).
//!   Terraform cannot diff a write-only value, so changing `data_wo_version` is how a new
//!   `data_wo` is sent (the pattern of AWS's `password_wo`/`password_wo_version`).
//! - Plans defer (Terraform 1.9+ with deferral allowed) while the provider block still holds
//!   unknown values.
//! - Delete accepts 404 and 410: the object is gone either way.
//! - Import ID: `/path/{id}`; identity (Terraform >= 1.12): `path` and `id`, so an `import`
//!   block may say `identity = { path = "/items", id = "42" }`.
//! - Listing (`terraform query`, Terraform >= 1.14): `list "restapi_object"` with `config {
//!   path = "/items" }` finds every object of the collection, a page of `page_size` at a time
//!   when that is set.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};
use tfwasm_sdk::http::Method;
use tfwasm_sdk::list::{ListPage, ListRequest};
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::semantic;

use crate::api::{Api, api_data, id_of, id_path, object_of};

/// The resource type.
pub struct RestApiObject;

#[derive(Serialize, Deserialize)]
struct Model {
    path: String,
    data: String,
    id_attribute: Option<String>,
    object_id: Option<String>,
    force_new: Option<Vec<String>>,
    create_path: Option<String>,
    read_path: Option<String>,
    update_path: Option<String>,
    destroy_path: Option<String>,
    create_method: Option<String>,
    update_method: Option<String>,
    destroy_method: Option<String>,
    ignore_server_additions: Option<bool>,
    data_wo: Option<String>,
    data_wo_version: Option<i64>,
    id: Tf<String>,
    api_data: Tf<BTreeMap<String, String>>,
    api_response: Tf<String>,
}

impl Model {
    fn id_attribute<'a>(&'a self, api: &'a Api) -> &'a str {
        self.id_attribute.as_deref().unwrap_or(&api.id_attribute)
    }

    fn data_object(&self) -> Result<Map<String, Json>, Diagnostic> {
        parse_data(&self.data)
    }

    fn method(
        &self,
        which: &Option<String>,
        default: Method,
        attr: &str,
    ) -> Result<Method, Diagnostic> {
        match which {
            None => Ok(default),
            Some(name) => Method::parse(name).ok_or_else(|| {
                Diagnostic::error("Invalid method", format!("{name:?} is not an HTTP method."))
                    .at(AttributePath::attribute(attr))
            }),
        }
    }

    fn known_id(&self) -> Result<&str, Diagnostic> {
        self.id.known().map(String::as_str).ok_or_else(|| {
            Diagnostic::error(
                "Object without an ID",
                "The state has no ID for this object.",
            )
        })
    }

    /// Records what the server holds.
    fn set_remote(&mut self, id: String, object: &Map<String, Json>) {
        self.id = Tf::Known(id);
        self.api_data = Tf::Known(api_data(object));
        self.api_response = Tf::Known(Json::Object(object.clone()).to_string());
    }
}

/// Private-state key of the names of the keys `data_wo` set.
const WRITE_ONLY_KEYS: &str = "data_wo_keys";

/// `data_wo` from the configuration, as an object (empty when unset).
fn write_only_data(config: &Value) -> Result<Map<String, Json>, Diagnostic> {
    match config.get_string("data_wo")? {
        Some(text) => parse_json_object(&text, "data_wo"),
        None => Ok(Map::new()),
    }
}

/// The body of a create or update: `data` with `data_wo`'s keys merged in; remembers the
/// names of those keys so reads leave them out of state.
fn body(
    ctx: &Context,
    data: Map<String, Json>,
    write_only: Map<String, Json>,
) -> Result<Json, Diagnostic> {
    let keys: Vec<&String> = write_only.keys().collect();
    ctx.set_private(
        WRITE_ONLY_KEYS,
        (!keys.is_empty()).then(|| serde_json::json!(keys)),
    )?;
    let mut body = data;
    body.extend(write_only);
    Ok(Json::Object(body))
}

/// `object` without the keys `data_wo` set (names from private state).
fn without_write_only(ctx: &Context, mut object: Map<String, Json>) -> Map<String, Json> {
    if let Some(Json::Array(keys)) = ctx.private(WRITE_ONLY_KEYS) {
        for key in keys.iter().filter_map(Json::as_str) {
            object.remove(key);
        }
    }
    object
}

fn parse_data(text: &str) -> Result<Map<String, Json>, Diagnostic> {
    parse_json_object(text, "data")
}

fn parse_json_object(text: &str, attribute: &str) -> Result<Map<String, Json>, Diagnostic> {
    match serde_json::from_str::<Json>(text) {
        Ok(Json::Object(map)) => Ok(map),
        Ok(_) => Err(Diagnostic::error(
            format!("Invalid {attribute}"),
            format!("{attribute} must be a JSON object."),
        )
        .at(AttributePath::attribute(attribute))),
        Err(e) => Err(Diagnostic::error(
            format!("Invalid {attribute}"),
            format!("{attribute} is not valid JSON: {e}"),
        )
        .at(AttributePath::attribute(attribute))),
    }
}

/// `data` as the server has it: the keys of `data` with the server's values (a key the
/// server dropped disappears), plus, unless `ignore_additions`, keys only the server has.
/// The ID key is the server's business and never counts.
fn as_on_server(
    data: &Map<String, Json>,
    server: &Map<String, Json>,
    id_key: &str,
    ignore_additions: bool,
) -> Map<String, Json> {
    let mut seen: Map<String, Json> = data
        .iter()
        .filter_map(|(k, _)| server.get(k).map(|v| (k.clone(), v.clone())))
        .collect();
    if let Some(id) = data.get(id_key) {
        seen.insert(id_key.to_owned(), id.clone());
    }
    if !ignore_additions {
        for (k, v) in server {
            if k != id_key && !data.contains_key(k) {
                seen.insert(k.clone(), v.clone());
            }
        }
    }
    seen
}

impl RestApiObject {
    fn schema_of() -> ResourceSchema {
        let path = |name: &str, what: &str| {
            Attr::string(name).optional().description(&format!(
                "Path for {what}, `{{id}}` replaced by the object's ID (default: `path` or `path/{{id}}`)."
            ))
        };
        let method = |name: &str, default: &str| {
            Attr::string(name)
                .optional()
                .description(&format!("HTTP method (default {default})."))
        };
        ResourceSchema::new()
            .description("An object of a JSON REST API.")
            .attr(
                Attr::string("path")
                    .required()
                    .requires_replace()
                    .description("Path of the collection, e.g. /items; objects live at path/{id}."),
            )
            .attr(
                Attr::string("data")
                    .required()
                    .semantic_equals(semantic::json)
                    .description("The object as a JSON string; compared by meaning, so formatting never shows as a change."),
            )
            .attr(Attr::string("id_attribute").optional().description(
                "The key of the object's ID (default: the provider's `id_attribute`).",
            ))
            .attr(
                Attr::string("object_id")
                    .optional()
                    .requires_replace()
                    .description("The object's ID when the API does not choose it."),
            )
            .attr(
                Attr::list("force_new", Type::String)
                    .optional()
                    .description("Top-level keys of `data` whose change replaces the object."),
            )
            .attr(path("create_path", "create"))
            .attr(path("read_path", "read"))
            .attr(path("update_path", "update"))
            .attr(path("destroy_path", "delete"))
            .attr(method("create_method", "POST"))
            .attr(method("update_method", "PUT"))
            .attr(method("destroy_method", "DELETE"))
            .attr(Attr::bool("ignore_server_additions").optional().description(
                "Keys the server adds to the object (timestamps, defaults) are not drift.",
            ))
            .attr(
                Attr::string("data_wo")
                    .optional()
                    .write_only()
                    .description("JSON object merged into the body of every create and update, never stored (Terraform >= 1.11). Change data_wo_version to send a new value."),
            )
            .attr(
                Attr::number("data_wo_version")
                    .optional()
                    .description("Change it to update the object with the current data_wo."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .use_state_for_unknown()
                    .description("The object's ID."),
            )
            .attr(
                Attr::map("api_data", Type::String)
                    .computed()
                    .description("The object's top-level keys as the server returns them (non-strings as JSON)."),
            )
            .attr(
                Attr::string("api_response")
                    .computed()
                    .description("The object as the server returned it, raw JSON."),
            )
    }

    /// Reads the object at its read path: `None` when the server says it is gone.
    fn fetch(api: &Api, model: &Model, id: &str) -> Result<Option<Map<String, Json>>, Diagnostic> {
        let path = id_path(model.read_path.as_deref(), &model.path, id);
        let response = api.send(Method::Get, &path, None)?;
        if matches!(response.status(), 404 | 410) {
            return Ok(None);
        }
        object_of(&response.error_for_status()?).map(Some)
    }

    /// The object after a write: the API's answer when it returns objects, else a read.
    fn after_write(
        api: &Api,
        model: &Model,
        id: &str,
        answer: Option<Map<String, Json>>,
    ) -> Result<Map<String, Json>, Diagnostic> {
        if let Some(object) = answer {
            return Ok(object);
        }
        Self::fetch(api, model, id)?.ok_or_else(|| {
            Diagnostic::error(
                "Object not found after writing it",
                format!(
                    "The API wrote object {id} under {} but then answered 404 reading it.",
                    model.path
                ),
            )
        })
    }
}

impl Resource for RestApiObject {
    fn type_name(&self) -> &'static str {
        "restapi_object"
    }

    fn schema(&self) -> ResourceSchema {
        Self::schema_of()
    }

    fn validate(&self, _ctx: &Context, config: &Value) -> Diagnostics {
        let mut problems: Diagnostics = match config.attr("data").as_str() {
            Some(text) => parse_data(text).err().into_iter().collect(),
            None => Vec::new(),
        };
        if let Some(text) = config.attr("data_wo").as_str() {
            problems.extend(parse_json_object(text, "data_wo").err());
        }
        problems
    }

    fn modify_plan(&self, ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        // The API is not known yet (the provider block holds unknowns): where the client
        // allows it, ask Terraform to plan this object again once it is.
        if !plan.is_destroy()
            && !ctx.provider_config.is_wholly_known()
            && ctx.client.deferral_allowed
        {
            ctx.defer(DeferredReason::ProviderConfigUnknown)?;
        }
        if plan.is_create() || plan.is_destroy() {
            return Ok(());
        }
        let (Some(before), Some(after)) = (
            plan.prior.attr("data").as_str(),
            plan.planned.attr("data").as_str(),
        ) else {
            return Ok(());
        };
        let (Ok(before), Ok(after)) = (parse_data(before), parse_data(after)) else {
            return Ok(());
        };
        let keys = plan
            .planned
            .attr("force_new")
            .as_elements()
            .unwrap_or_default();
        if keys
            .iter()
            .filter_map(Value::as_str)
            .any(|k| before.get(k) != after.get(k))
        {
            plan.require_replace(AttributePath::attribute("data"));
        }
        Ok(())
    }

    fn create(&self, ctx: &Context, planned: &Value, config: &Value) -> Result<Value, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let schema = self.schema();
        let mut model: Model = schema.decode(planned)?;
        let data = model.data_object()?;
        let id_key = model.id_attribute(&api).to_owned();
        let known_id = model.object_id.clone().or_else(|| id_of(&data, &id_key));
        let body = body(ctx, data, write_only_data(config)?)?;
        let path = match (&model.create_path, &known_id) {
            (Some(template), Some(id)) => template.replace("{id}", id),
            (Some(template), None) => template.clone(),
            (None, _) => model.path.clone(),
        };
        let method = model.method(&model.create_method, Method::Post, "create_method")?;
        let response = api.expect(method, &path, Some(&body))?;
        let answer = object_of(&response).ok();
        let id = known_id
            .or_else(|| answer.as_ref().and_then(|a| id_of(a, &id_key)))
            .ok_or_else(|| {
                Diagnostic::error(
                    "No ID for the new object",
                    format!(
                        "{} answered without an object carrying \"{id_key}\", and data has none. Put the ID in data, set object_id, or set id_attribute to the key the API uses.",
                        response.url()
                    ),
                )
            })?;
        // The object exists from here on: say so before the read-back, so a provider killed
        // now leaves the next plan an import to run, not a second object to create.
        model.id = Tf::Known(id.clone());
        ctx.report_created(&schema.encode(&model)?)?;
        let returns = api.create_returns_object || api.write_returns_object;
        let object = Self::after_write(&api, &model, &id, answer.filter(|_| returns))?;
        model.set_remote(id, &without_write_only(ctx, object));
        schema.encode(&model)
    }

    fn read(&self, ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let schema = self.schema();
        let mut model: Model = schema.decode(state)?;
        let id = model.known_id()?.to_owned();
        let Some(server) = Self::fetch(&api, &model, &id)? else {
            return Ok(None);
        };
        let server = without_write_only(ctx, server);
        let data = model.data_object()?;
        let seen = as_on_server(
            &data,
            &server,
            model.id_attribute(&api),
            model.ignore_server_additions.unwrap_or(false),
        );
        if seen != data {
            model.data = Json::Object(seen).to_string();
        }
        model.set_remote(id, &server);
        schema.encode(&model).map(Some)
    }

    fn update(
        &self,
        ctx: &Context,
        prior: &Value,
        planned: &Value,
        config: &Value,
    ) -> Result<Value, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let schema = self.schema();
        let mut model: Model = schema.decode(planned)?;
        let id = match prior.get_string("id")? {
            Some(id) => id,
            None => model.known_id()?.to_owned(),
        };
        let body = body(ctx, model.data_object()?, write_only_data(config)?)?;
        let path = id_path(model.update_path.as_deref(), &model.path, &id);
        let method = model.method(&model.update_method, Method::Put, "update_method")?;
        let response = api.expect(method, &path, Some(&body))?;
        let answer = object_of(&response)
            .ok()
            .filter(|_| api.write_returns_object);
        let object = Self::after_write(&api, &model, &id, answer)?;
        model.set_remote(id, &without_write_only(ctx, object));
        schema.encode(&model)
    }

    fn delete(&self, ctx: &Context, prior: &Value) -> Result<(), Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let model: Model = self.schema().decode(prior)?;
        let id = model.known_id()?;
        let path = id_path(model.destroy_path.as_deref(), &model.path, id);
        let method = model.method(&model.destroy_method, Method::Delete, "destroy_method")?;
        let response = api.send(method, &path, None)?;
        if matches!(response.status(), 404 | 410) {
            return Ok(());
        }
        response.error_for_status()?;
        Ok(())
    }

    /// `/path/{id}`: the object's collection path and its ID.
    fn import(&self, ctx: &Context, import_id: &str) -> Result<Value, Diagnostic> {
        let (path, id) = import_id
            .rsplit_once('/')
            .filter(|(path, id)| path.starts_with('/') && !id.is_empty())
            .ok_or_else(|| {
                Diagnostic::error(
                    "Invalid import ID",
                    format!("The import ID of restapi_object is /path/{{id}}, e.g. /items/42; got {import_id:?}."),
                )
            })?;
        self.import_object(ctx, path, id)
    }

    /// An object is named by its collection and its ID: `import { identity = { path =
    /// "/items", id = "42" } }` (Terraform >= 1.12) imports the same object as the ID
    /// `/items/42`.
    fn identity(&self) -> Option<Identity> {
        Some(
            Identity::new()
                .attr(
                    IdentityAttr::string("path")
                        .required_for_import()
                        .description("Path of the collection, e.g. /items."),
                )
                .attr(
                    IdentityAttr::string("id")
                        .required_for_import()
                        .description("The object's ID in its collection."),
                ),
        )
    }

    fn import_identity(&self, ctx: &Context, identity: &Value) -> Result<Value, Diagnostic> {
        let path = identity.get_string("path")?.unwrap_or_default();
        let id = identity.get_string("id")?.unwrap_or_default();
        self.import_object(ctx, &path, &id)
    }

    /// `list "restapi_object"` (`terraform query`, Terraform >= 1.14): the objects of the
    /// collection at `path`.
    fn list_schema(&self) -> Option<ResourceSchema> {
        Some(
            ResourceSchema::new()
                .attr(
                    Attr::string("path")
                        .required()
                        .description("Path of the collection, e.g. /items."),
                )
                .attr(Attr::number("page_size").optional().description(
                    "Objects asked for per request, with json-server's `_page` and `_limit` query parameters; unset, the collection is read in one request.",
                )),
        )
    }

    /// One request per page: `path?_page=N&_limit=page_size`, the next page asked for only
    /// after a full one (and only while Terraform reads on).
    fn list(&self, ctx: &Context, req: &ListRequest) -> Result<ListPage, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let path = req.config.get_string("path")?.unwrap_or_default();
        let page_size = req.config.get_i64("page_size")?.filter(|n| *n > 0);
        let page = req.cursor_number().unwrap_or(1);
        let url = match page_size {
            Some(size) => format!("{path}?_page={page}&_limit={size}"),
            None => path.clone(),
        };
        let response = api.expect(Method::Get, &url, None)?;
        let Json::Array(items) = response.json::<Json>().map_err(|e| e.to_diagnostic())? else {
            return Err(Diagnostic::error(
                "The API did not answer with a list",
                format!("{url} answered something other than a JSON array of objects."),
            ));
        };
        let full = page_size.is_some_and(|size| items.len() as i64 >= size);
        let objects = (items.iter())
            .filter_map(Json::as_object)
            .filter_map(|server| {
                let id = id_of(server, &api.id_attribute)?;
                let state = self.state_of(&api, Self::found(&path, &id), &id, server);
                Some(state.map(|state| (state, format!("{path}/{id}")).into()))
            })
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        if objects.is_empty() && !items.is_empty() {
            return Err(Diagnostic::error(
                "The API's objects have no ID",
                format!(
                    "{url} answered {} items, none an object with a {:?} key (the provider's id_attribute).",
                    items.len(),
                    api.id_attribute
                ),
            ));
        }
        Ok(ListPage {
            objects,
            next: full.then(|| (page + 1).to_string().into_bytes()),
        })
    }
}

impl RestApiObject {
    /// The state of the object `id` of the collection at `path`, as the server has it.
    fn import_object(&self, ctx: &Context, path: &str, id: &str) -> Result<Value, Diagnostic> {
        let api = ctx.provider_data::<Api>()?;
        let model = Self::found(path, id);
        let server = Self::fetch(&api, &model, id)?.ok_or_else(|| {
            Diagnostic::error(
                "Cannot import a missing object",
                format!("{path}/{id} answered 404: there is no such object."),
            )
        })?;
        self.state_of(&api, model, id, &server)
    }

    /// The state of the object `id` as the server has it (`server`), `model` naming where
    /// it lives: its `data` is everything but the ID.
    fn state_of(
        &self,
        api: &Api,
        mut model: Model,
        id: &str,
        server: &Map<String, Json>,
    ) -> Result<Value, Diagnostic> {
        let mut data = server.clone();
        data.remove(&api.id_attribute);
        model.data = Json::Object(data).to_string();
        model.set_remote(id.to_owned(), server);
        self.schema().encode(&model)
    }

    /// A model of the object `id` of the collection at `path`, with nothing configured.
    fn found(path: &str, id: &str) -> Model {
        Model {
            path: path.to_owned(),
            data: String::new(),
            id_attribute: None,
            object_id: None,
            force_new: None,
            create_path: None,
            read_path: None,
            update_path: None,
            destroy_path: None,
            create_method: None,
            update_method: None,
            destroy_method: None,
            ignore_server_additions: None,
            data_wo: None,
            data_wo_version: None,
            id: Tf::Known(id.to_owned()),
            api_data: Tf::Null,
            api_response: Tf::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(value: Json) -> Map<String, Json> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn drift_is_what_the_server_changed_or_added() {
        let data = map(json!({ "name": "a", "size": 1 }));
        let server = map(json!({ "id": 7, "name": "b", "size": 1, "added": true }));
        assert_eq!(
            Json::Object(as_on_server(&data, &server, "id", false)),
            json!({ "name": "b", "size": 1, "added": true })
        );
        assert_eq!(
            Json::Object(as_on_server(&data, &server, "id", true)),
            json!({ "name": "b", "size": 1 })
        );
        let dropped = map(json!({ "id": 7, "name": "a" }));
        assert_eq!(
            Json::Object(as_on_server(&data, &dropped, "id", true)),
            json!({ "name": "a" })
        );
    }

    #[test]
    fn data_must_be_a_json_object() {
        assert!(parse_data("[1]").is_err());
        assert!(parse_data("{").is_err());
        assert!(parse_data("{\"a\":1}").is_ok());
    }
}
