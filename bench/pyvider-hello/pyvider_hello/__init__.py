"""pyhello_greeting with pyvider: the same resource as sample-providers/python-hello.

`name` (required, replaces), `template` (optional, defaults to "Hello, {name}!"), `message`
(computed at apply) and `id` (computed at create, kept on update). Written as pyvider's own
docs and scaffolds write a resource: attrs classes for config and state, `_create_apply` and
`_update_apply` hooks.
"""

from typing import Any

import attrs
from pyvider.cty import CtyString, CtyValue
from pyvider.providers import BaseProvider, ProviderMetadata, register_provider
from pyvider.resources import ResourceContext, register_resource
from pyvider.resources.base import BaseResource
from pyvider.schema import PvsSchema, a_str, s_resource

DEFAULT_TEMPLATE = "Hello, {name}!"


@attrs.define(frozen=True)
class GreetingConfig:
    name: str = attrs.field()
    template: str | None = attrs.field(default=None)


@attrs.define(frozen=True)
class GreetingState:
    name: str = attrs.field()
    template: str | None = attrs.field(default=None)
    message: str | None = attrs.field(default=None)
    id: str | None = attrs.field(default=None)


def _rendered(state: GreetingState, **changes: Any) -> GreetingState:
    template = state.template or DEFAULT_TEMPLATE
    return attrs.evolve(state, template=template, message=template.format(name=state.name), **changes)


@register_provider("pyhello")
class PyhelloProvider(BaseProvider):
    def __init__(self) -> None:
        super().__init__(metadata=ProviderMetadata(name="pyhello", version="0.1.0"))


@register_resource("pyhello_greeting")
class Greeting(BaseResource["pyhello_greeting", GreetingState, GreetingConfig]):
    config_class = GreetingConfig
    state_class = GreetingState

    @classmethod
    def get_schema(cls) -> PvsSchema:
        return s_resource(
            attributes={
                "name": a_str(required=True, requires_replace=True, description="Who is greeted."),
                "template": a_str(optional=True, computed=True, default=DEFAULT_TEMPLATE),
                "message": a_str(computed=True, description="The rendered greeting."),
                "id": a_str(computed=True),
            }
        )

    async def _validate_config(self, config: GreetingConfig) -> list[str]:
        if isinstance(config.name, str) and not config.name.strip():
            return ["name must not be empty"]
        return []

    async def _update(self, ctx: ResourceContext, base_plan: dict[str, Any]) -> tuple[dict[str, Any], None]:
        # The message is rendered at apply: a new template leaves it unknown in the plan
        # (the prior message is only kept while nothing it depends on changes).
        if base_plan.get("template") != ctx.state.template:
            base_plan["message"] = CtyValue.unknown(CtyString())
        return base_plan, None

    async def read(self, ctx: ResourceContext) -> GreetingState | None:
        return _rendered(ctx.state) if ctx.state else None

    async def _create_apply(self, ctx: ResourceContext) -> tuple[GreetingState | None, None]:
        planned = ctx.planned_state
        return _rendered(planned, id="greeting-" + planned.name), None

    async def _update_apply(self, ctx: ResourceContext) -> tuple[GreetingState | None, None]:
        return _rendered(ctx.planned_state, id=ctx.state.id), None

    async def _delete_apply(self, ctx: ResourceContext) -> None:
        return None
