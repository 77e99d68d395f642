"""python-hello: a tfwasm provider written in Python.

`pyhello_greeting` renders a greeting from a template; the template may change in place, the
name replaces the object. `pyhello_shout` (data source) and `shout` (function) show the other
families. Build: `make build` (or `make -C sample-providers/python-hello`).
"""

import tfwasm_provider as tf


def not_empty(value):
    return None if value.strip() else "must not be empty"


def render(template: str, name: str) -> str:
    # A template with an unknown placeholder raises KeyError here: the SDK turns it into an
    # error diagnostic with this traceback.
    return template.format(name=name)


class Greeting(tf.Resource):
    type_name = "pyhello_greeting"
    schema = tf.Schema(
        [
            tf.string(
                "name",
                required=True,
                requires_replace=True,
                validators=[not_empty],
                description="Who is greeted; changing it replaces the greeting.",
            ),
            tf.string(
                "template",
                optional=True,
                computed=True,
                default="Hello, {name}!",
                description="`{name}` is replaced by the name.",
            ),
            tf.string("message", computed=True, description="The rendered greeting."),
            tf.string("id", computed=True, use_state_for_unknown=True),
        ],
        description="A greeting, rendered by the provider.",
    )

    def create(self, ctx, planned):
        ctx.log("info", "creating greeting", name=planned["name"])
        return {**planned, "message": render(planned["template"], planned["name"]), "id": "greeting-" + planned["name"]}

    def update(self, ctx, prior, planned):
        return {**planned, "message": render(planned["template"], planned["name"])}

    def read(self, ctx, state):
        return {**state, "message": render(state["template"], state["name"])}

    def import_state(self, ctx, id):
        if not id.startswith("greeting-"):
            raise tf.Error("Invalid import ID", f"Expected greeting-NAME, got {id!r}.")
        return {"id": id, "name": id.removeprefix("greeting-"), "template": "Hello, {name}!"}


class Shout(tf.DataSource):
    type_name = "pyhello_shout"
    schema = tf.Schema(
        [tf.string("text", required=True), tf.string("result", computed=True)],
        description="The text in capitals.",
    )

    def read(self, ctx, config):
        return {**config, "result": config["text"].upper()}


PROVIDER = tf.Provider(
    resources=[Greeting()],
    data_sources=[Shout()],
    functions=[tf.Function("shout", [("text", tf.STRING)], tf.STRING, lambda text: text.upper(), summary="Capitals.")],
)

Provider, Resource, DataSource, Function, Ephemeral = tf.exports(PROVIDER)
