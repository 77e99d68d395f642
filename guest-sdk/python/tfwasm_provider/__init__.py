"""tfwasm-provider: write Terraform providers in Python, run them sandboxed by tfwasm.

A provider is a module that declares resources with schemas and ends with the export line
componentize-py binds to the ``tfwasm:provider`` world::

    import tfwasm_provider as tf

    class Greeting(tf.Resource):
        type_name = "hello_greeting"
        schema = tf.Schema([tf.string("name", required=True, requires_replace=True), ...])

        def create(self, ctx, planned):
            return {**planned, "id": planned["name"]}

    PROVIDER = tf.Provider(resources=[Greeting()])
    Provider, Resource, DataSource, Function, Ephemeral = tf.exports(PROVIDER)

Pure Python (no C extensions), so componentize-py can bundle it.
"""

from .cty import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    UNKNOWN,
    CtyError,
    Dynamic,
    Type,
    is_wholly_known,
    list_of,
    map_of,
    object_of,
    set_of,
    tuple_of,
)
from .diagnostics import Diagnostic, Error, Key, error, warning
from .exports import exports
from .provider import Context, DataSource, Function, Plan, Provider, Resource
from .schema import Attribute, Schema, bool_, list_, map_, number, set_, string

__all__ = [
    "BOOL", "DYNAMIC", "NUMBER", "STRING", "UNKNOWN", "CtyError", "Dynamic", "Type",
    "is_wholly_known", "list_of", "map_of", "object_of", "set_of", "tuple_of",
    "Diagnostic", "Error", "Key", "error", "warning", "exports",
    "Context", "DataSource", "Function", "Plan", "Provider", "Resource",
    "Attribute", "Schema", "bool_", "list_", "map_", "number", "set_", "string",
]
