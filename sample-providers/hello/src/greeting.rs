//! `hello_greeting`: a greeting rendered by the provider, with no remote object behind it.

use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::regex;

pub(crate) struct Greeting;

const DEFAULT_TEMPLATE: &str = "Hello, {name}!";

/// `template` with every `{name}` replaced by `name`.
fn render(template: &str, name: &str) -> String {
    template.replace("{name}", name)
}

/// The state for `planned` (or a refreshed `state`): the message rendered from its template.
fn rendered(value: &Value) -> Result<Value, Diagnostic> {
    let name = value.get_string("name")?.unwrap_or_default();
    let template = value
        .get_string("template")?
        .unwrap_or_else(|| DEFAULT_TEMPLATE.to_owned());
    Ok(value.clone().with("message", render(&template, &name)))
}

impl Resource for Greeting {
    fn type_name(&self) -> &'static str {
        "hello_greeting"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("A greeting, rendered by the provider.")
            .attr(
                Attr::string("name")
                    .required()
                    .requires_replace()
                    .validate(regex(r"\S", "a name that is not blank"))
                    .description("Who is greeted; changing it replaces the greeting."),
            )
            .attr(
                Attr::string("template")
                    .optional()
                    .computed()
                    .default(DEFAULT_TEMPLATE)
                    .description("`{name}` is replaced by the name."),
            )
            .attr(
                Attr::string("message")
                    .computed()
                    .description("The rendered greeting."),
            )
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn create(
        &self,
        _ctx: &Context,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        let name = planned.get_string("name")?.unwrap_or_default();
        tfwasm_sdk::log::info("creating greeting", &[("name", &name)]);
        Ok(rendered(planned)?.with("id", format!("greeting-{name}")))
    }

    fn update(
        &self,
        _ctx: &Context,
        _prior: &Value,
        planned: &Value,
        _config: &Value,
    ) -> Result<Value, Diagnostic> {
        rendered(planned)
    }

    fn read(&self, _ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        rendered(state).map(Some)
    }

    /// The import ID is `greeting-NAME`, the `id` a create gives.
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        let Some(name) = id.strip_prefix("greeting-") else {
            return Err(Diagnostic::error(
                "Invalid import ID",
                format!("Expected greeting-NAME, got {id:?}."),
            ));
        };
        Ok(self
            .schema()
            .null_object()
            .with("id", id)
            .with("name", name)
            .with("template", DEFAULT_TEMPLATE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_replaced() {
        assert_eq!(render("Hello, {name}!", "ada"), "Hello, ada!");
        assert_eq!(render("{name} and {name}", "x"), "x and x");
        assert_eq!(render("no placeholder", "x"), "no placeholder");
    }

    #[test]
    fn import_ids_name_the_greeting() {
        let state = Greeting
            .import(&Context::default(), "greeting-ada")
            .unwrap();
        assert_eq!(state.get_string("name").unwrap().as_deref(), Some("ada"));
        let error = Greeting.import(&Context::default(), "ada").unwrap_err();
        assert!(error.detail.contains("greeting-NAME"), "{}", error.detail);
    }
}
