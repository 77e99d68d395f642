//! `policy_document`: statements and tags in, a JSON policy and per-element fingerprints out.

use serde_json::{Map, Value as Json, json};
use tfwasm_sdk::custom;
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::schema::Block;
use tfwasm_sdk::validate::{at_least_one_of, one_of};

pub struct PolicyDocument;

impl PolicyDocument {
    fn statement() -> Block {
        Block::set(
            "statement",
            ResourceSchema::new()
                .description("One statement; statements are identified by `sid`.")
                .attr(Attr::string("sid").required().description("Statement ID, unique in the policy."))
                .attr(
                    Attr::string("effect")
                        .default("Allow")
                        .validate(one_of(&["Allow", "Deny"]))
                        .description("`Allow` (default) or `Deny`."),
                )
                .attr(Attr::set("actions", Type::String).required().description("Actions the statement covers."))
                .attr(
                    Attr::map_nested(
                        "principals",
                        vec![Attr::set("identifiers", Type::String)
                            .required()
                            .description("Principals of this type, e.g. role ARNs.")],
                    )
                    .optional()
                    .description("Who the statement applies to, by principal type (`AWS`, `Service`, ...)."),
                )
                .attr(
                    Attr::custom("condition", &custom::JSON)
                        .optional()
                        .description("Condition as a JSON object: validated, and compared by meaning, so formatting never shows as a change."),
                )
                .attr(
                    Attr::string("fingerprint")
                        .computed()
                        .description("Digest of the statement's content; changes only when the statement does."),
                ),
        )
        .match_elements_by(&["sid"])
    }
}

impl Resource for PolicyDocument {
    fn type_name(&self) -> &'static str {
        "policy_document"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("An access policy document assembled from statements.")
            .attr(
                Attr::string("name")
                    .required()
                    .requires_replace()
                    .description("Name of the policy."),
            )
            .attr(
                Attr::list_nested(
                    "tag",
                    vec![
                        Attr::string("key").required(),
                        Attr::string("value").default(""),
                        Attr::string("etag")
                            .computed()
                            .description("Digest of the tag."),
                    ],
                )
                .optional()
                .match_elements_by(&["key"])
                .description("Tags, matched across plans by `key`."),
            )
            .attr(
                Attr::string("json")
                    .computed()
                    .description("The rendered policy document."),
            )
            .attr(
                Attr::string("id")
                    .computed()
                    .use_state_for_unknown()
                    .description("Same as `name`."),
            )
            .block(Self::statement())
            // A path expression reaching into the set: a policy needs a statement.
            .validate(at_least_one_of(&["statement[*].sid"]))
    }

    /// A tag's etag depends only on its key and value, so it is planned, not left unknown
    /// until apply: computed values you can work out at plan time belong in the plan.
    fn modify_plan(&self, _ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        plan.update_planned("tag[*]", |_, tag| {
            if let (Some(key), Some(value)) = (tag.attr("key").as_str(), tag.attr("value").as_str())
            {
                let etag = etag(key, value);
                tag.set("etag", Value::from(etag));
            }
        })?;
        Ok(())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(render(planned))
    }

    fn update(
        &self,
        _ctx: &Context,
        _prior: &Value,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        Ok(render(planned))
    }
}

/// Fills every computed value of a planned state: fingerprints, etags, the document, the ID.
fn render(planned: &Value) -> Value {
    let mut state = planned.clone();
    let mut statements: Vec<Value> = planned
        .attr("statement")
        .as_elements()
        .unwrap_or_default()
        .to_vec();
    for statement in &mut statements {
        let digest = fingerprint(statement);
        statement.set("fingerprint", Value::from(digest));
    }
    let tags: Vec<Value> = planned
        .attr("tag")
        .as_elements()
        .unwrap_or_default()
        .iter()
        .map(|tag| {
            let key = tag.attr("key").as_str().unwrap_or_default();
            let value = tag.attr("value").as_str().unwrap_or_default();
            tag.clone().with("etag", etag(key, value))
        })
        .collect();
    let document = document(&statements);
    state.set("statement", Value::Set(statements));
    if !planned.attr("tag").is_null() {
        state.set("tag", Value::List(tags));
    }
    state.set("json", Value::from(document));
    state.set("id", planned.attr("name").clone());
    state
}

fn etag(key: &str, value: &str) -> String {
    hex(fnv(format!("{key}={value}").as_bytes()))
}

/// The policy as JSON, statements sorted by `sid` so the document is stable.
fn document(statements: &[Value]) -> String {
    let mut rendered: Vec<(String, Json)> = statements
        .iter()
        .map(|s| {
            let sid = s.attr("sid").as_str().unwrap_or_default().to_owned();
            let mut out = Map::new();
            out.insert("Sid".into(), json!(sid));
            out.insert(
                "Effect".into(),
                json!(s.attr("effect").as_str().unwrap_or("Allow")),
            );
            out.insert("Action".into(), json!(actions(s)));
            if let Some(principals) = principals(s) {
                out.insert("Principal".into(), principals);
            }
            if let Some(condition) = s.attr("condition").as_str() {
                out.insert(
                    "Condition".into(),
                    serde_json::from_str(condition).unwrap_or(Json::Null),
                );
            }
            (sid, Json::Object(out))
        })
        .collect();
    rendered.sort_by(|a, b| a.0.cmp(&b.0));
    json!({
        "Version": "2012-10-17",
        "Statement": rendered.into_iter().map(|(_, s)| s).collect::<Vec<_>>(),
    })
    .to_string()
}

fn actions(statement: &Value) -> Vec<String> {
    let mut out: Vec<String> = statement
        .attr("actions")
        .as_elements()
        .unwrap_or_default()
        .iter()
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect();
    out.sort();
    out
}

/// `{"AWS": ["arn:..."], ...}`: each type's identifiers sorted, so the document is stable.
fn principals(statement: &Value) -> Option<Json> {
    let entries = statement.attr("principals").as_entries()?;
    let mut out = Map::new();
    for (kind, principal) in entries {
        let mut ids: Vec<&str> = principal
            .attr("identifiers")
            .as_elements()
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        ids.sort_unstable();
        out.insert(kind.to_string(), json!(ids));
    }
    Some(Json::Object(out))
}

/// A statement's digest over its meaning: the condition is normalised, actions and
/// principals sorted.
fn fingerprint(statement: &Value) -> String {
    let condition = statement
        .attr("condition")
        .as_str()
        .and_then(|c| serde_json::from_str::<Json>(c).ok())
        .map(|c| c.to_string())
        .unwrap_or_default();
    let mut text = format!(
        "{}\n{}\n{}\n{}",
        statement.attr("sid").as_str().unwrap_or_default(),
        statement.attr("effect").as_str().unwrap_or_default(),
        actions(statement).join(","),
        condition
    );
    if let Some(principals) = principals(statement) {
        text.push_str(&format!("\n{principals}"));
    }
    hex(fnv(text.as_bytes()))
}

/// 64-bit FNV-1a: a stable digest (not a security property; the sample needs only
/// "changes when the content does").
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hex(n: u64) -> String {
    format!("{n:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_follow_meaning_not_formatting() {
        let statement = |condition: &str, actions: Vec<&str>| {
            Value::object([
                ("sid", Value::from("s1")),
                ("effect", Value::from("Allow")),
                (
                    "actions",
                    Value::Set(actions.into_iter().map(Value::from).collect()),
                ),
                ("condition", Value::from(condition)),
                ("fingerprint", Value::Null),
            ])
        };
        let a = fingerprint(&statement(r#"{"a": 1}"#, vec!["x", "y"]));
        assert_eq!(a, fingerprint(&statement(r#"{"a":1}"#, vec!["y", "x"])));
        assert_ne!(a, fingerprint(&statement(r#"{"a":2}"#, vec!["x", "y"])));
    }
}
