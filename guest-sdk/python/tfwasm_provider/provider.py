"""What an author writes: a :class:`Provider` with :class:`Resource`, :class:`DataSource` and
:class:`Function` objects. Each method gets plain Python values (see :mod:`.cty`) and a
:class:`Context`; the SDK decodes requests, plans, checks and encodes responses.

The guest keeps no state between calls: the provider configuration accepted by
``configure`` comes back in every call as ``ctx.config``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import cty
from .diagnostics import Diagnostic, Error
from .schema import Schema


class Context:
    """The call's context: provider configuration, Terraform's version, logging, the
    resource's private state, and (during apply) reporting a created object before the call
    ends."""

    def __init__(
        self,
        terraform_version: str = "",
        config: Optional[dict] = None,
        reporter: Optional[Callable[[dict, bool], None]] = None,
        logger: Optional[Callable[[str, str, Dict[str, str]], None]] = None,
        private: Optional[dict] = None,
    ):
        self.terraform_version = terraform_version
        #: The provider block as ``configure`` accepted it (``None`` before that).
        self.config = config
        self._reporter = reporter
        self._logger = logger
        self._private = dict(private or {})

    def private(self, key: str) -> Any:
        """An entry of the resource's private state (JSON the provider stored earlier with
        :meth:`set_private`; ``None`` if absent). Terraform keeps it beside the state and never
        shows it. Available in read, planning, apply and import."""
        return self._private.get(key)

    def set_private(self, key: str, value: Any) -> None:
        """Stores (or with ``None``, removes) a private state entry: any JSON value. Set while
        planning, it reaches the apply; set in create, update, read or import, it is stored
        with the new state."""
        if not isinstance(key, str) or not key or key.startswith("."):
            raise Error(
                "Invalid private state key",
                f'Private state key {key!r} is reserved: keys must not be empty or start with ".".',
            )
        if value is None:
            self._private.pop(key, None)
            return
        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise Error("Invalid private state value", f"The value for {key!r} is not JSON: {exc}.") from exc
        self._private[key] = value

    def report_state(self, state: dict) -> None:
        """During create or update: the remote object exists now, with ``state``. Should the
        call fail after this (an exception, a limit), Terraform still records the object."""
        if self._reporter is None:
            raise Error("report_state outside apply", "Context.report_state only works during create and update.")
        self._reporter(state, False)

    def report_created(self, state: dict) -> None:
        """During create: the remote object exists now. Call it the moment the API has answered
        with the new object's ID, before a read-back or a wait: ``{**planned, "id": new_id}``
        is enough, and what is still unknown is reported as null. Should the provider process
        then be killed, the next plan names the object and the import that brings it back
        instead of creating a second one."""
        if self._reporter is None:
            raise Error("report_created outside apply", "Context.report_created only works during create and update.")
        self._reporter(state, True)

    def log(self, level: str, message: str, **fields: Any) -> None:
        """A line in Terraform's provider log (``TF_LOG``): level trace, debug, info, warn or error."""
        if self._logger is not None:
            self._logger(level, message, {k: str(v) for k, v in fields.items()})


def load_private(data: bytes) -> dict:
    """Private state bytes as Terraform keeps them (a JSON object, as the Rust SDK writes it;
    empty for none)."""
    if not data:
        return {}
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise Error("Unable to read private state", f"The resource's private state is not JSON: {exc}.") from exc
    if not isinstance(value, dict):
        raise Error("Unable to read private state", "The resource's private state is not a JSON object.")
    return value


def save_private(ctx: Context) -> bytes:
    """The context's private state as bytes: compact JSON with sorted keys, empty for none."""
    if not ctx._private:
        return b""
    return json.dumps(ctx._private, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class Plan:
    """A planned change, for :meth:`Resource.modify_plan`: change ``planned`` in place;
    add attribute names to ``requires_replace``."""

    prior: Optional[dict]
    config: dict
    planned: dict
    requires_replace: List[str] = field(default_factory=list)

    @property
    def is_create(self) -> bool:
        return self.prior is None


class Resource:
    """A managed resource type. Override ``create`` and ``read``; ``update`` when some
    attribute changes in place; ``delete`` when the remote object must be removed."""

    type_name: str = ""
    schema: Schema = Schema([])
    #: State upgraders by the schema version they read: raw JSON dict -> current-version dict.
    upgraders: Dict[int, Callable[[dict], dict]] = {}

    def validate(self, ctx: Context, config: dict) -> List[Diagnostic]:
        """Checks beyond the attributes' validators (values may be :data:`cty.UNKNOWN`)."""
        return []

    def modify_plan(self, ctx: Context, plan: Plan) -> None:
        """Adjusts a plan after the SDK applied the schema's rules."""

    def create(self, ctx: Context, planned: dict) -> dict:
        raise NotImplementedError(f"{self.type_name}.create")

    def read(self, ctx: Context, state: dict) -> Optional[dict]:
        """The object as it is now; ``None`` when it is gone."""
        return state

    def update(self, ctx: Context, prior: dict, planned: dict) -> dict:
        return planned

    def delete(self, ctx: Context, state: dict) -> None:
        pass

    def import_state(self, ctx: Context, id: str) -> dict:
        """A state (attributes not known yet may stay null) from an import ID; ``read``
        fills in the rest."""
        raise Error(f"{self.type_name} does not support import", "This resource type cannot be imported.")


class DataSource:
    """A data source: ``read`` returns the configuration with computed attributes set."""

    type_name: str = ""
    schema: Schema = Schema([])

    def validate(self, ctx: Context, config: dict) -> List[Diagnostic]:
        return []

    def read(self, ctx: Context, config: dict) -> dict:
        raise NotImplementedError(f"{self.type_name}.read")


@dataclass
class Function:
    """A provider-defined function: ``provider::NAME::FUNC(args)`` in Terraform >= 1.8."""

    name: str
    parameters: Sequence[Tuple[str, cty.Type]]
    returns: cty.Type
    call: Callable[..., Any]
    summary: str = ""
    description: str = ""


@dataclass
class Provider:
    """The provider: its own configuration block and everything it serves."""

    resources: Sequence[Resource] = ()
    data_sources: Sequence[DataSource] = ()
    functions: Sequence[Function] = ()
    schema: Schema = field(default_factory=lambda: Schema([]))
    #: Checks the provider block before it is accepted (values are known).
    configure: Optional[Callable[[Context, dict], List[Diagnostic]]] = None

    def resource(self, type_name: str) -> Resource:
        for r in self.resources:
            if r.type_name == type_name:
                return r
        raise Error("Unknown resource type", f"This provider has no resource type {type_name!r}.")

    def data_source(self, type_name: str) -> DataSource:
        for d in self.data_sources:
            if d.type_name == type_name:
                return d
        raise Error("Unknown data source", f"This provider has no data source {type_name!r}.")

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise Error("Unknown function", f"This provider has no function {name!r}.")

    def problems(self) -> List[str]:
        """Mistakes in the declarations, reported with the schema."""
        out = []
        for kind, items in (("resource", self.resources), ("data source", self.data_sources)):
            for item in items:
                if not item.type_name:
                    out.append(f"a {kind} ({type(item).__name__}) has no type_name")
                out += [f"{item.type_name}: {p}" for p in item.schema.problems()]
        return out


# ---------------------------------------------------------------- the schema's rules


def validate_attributes(schema: Schema, config: dict) -> List[Diagnostic]:
    """Runs each attribute's validators on its known, non-null configured value."""
    out = []
    for a in schema.attributes:
        value = config.get(a.name)
        if value is None or not cty.is_wholly_known(value):
            continue
        for check in a.validators:
            problem = check(value)
            if problem:
                out.append(Diagnostic("Invalid attribute value", problem, [a.name]))
    return out


def plan_change(
    resource: Resource, ctx: Context, prior: Optional[dict], proposed: Optional[dict], config: Optional[dict]
) -> Tuple[Optional[dict], List[str]]:
    """The planned state and the attributes forcing replacement, from Terraform's proposed
    state: defaults for unset optional+computed attributes, "known after apply" for computed
    ones that may change, the prior value where ``use_state_for_unknown`` says so, then the
    resource's ``modify_plan``."""
    if proposed is None:
        return None, []
    schema = resource.schema
    config = config or schema.null_object()
    planned = dict(proposed)
    for a in schema.attributes:
        if a.has_default and config.get(a.name) is None:
            planned[a.name] = a.default

    def decided_by_provider(a: Any) -> bool:
        return a.computed and config.get(a.name) is None and not a.has_default

    def differs(a: Any) -> bool:
        return not cty.equal(planned.get(a.name), prior.get(a.name), a.type)

    changed = prior is None or any(differs(a) for a in schema.attributes if not decided_by_provider(a))
    if changed:
        for a in schema.attributes:
            if not decided_by_provider(a):
                continue
            if a.use_state_for_unknown and prior is not None:
                planned[a.name] = prior.get(a.name)
            else:
                planned[a.name] = cty.UNKNOWN
    replace = []
    if prior is not None:
        for a in schema.attributes:
            if a.requires_replace and planned.get(a.name) is not cty.UNKNOWN and differs(a):
                replace.append(a.name)
    plan = Plan(prior=prior, config=config, planned=planned, requires_replace=replace)
    resource.modify_plan(ctx, plan)
    # A replacement creates a new object: what the prior one's state said no longer holds.
    if plan.requires_replace and prior is not None:
        for a in schema.attributes:
            if decided_by_provider(a):
                plan.planned[a.name] = cty.UNKNOWN
    return plan.planned, plan.requires_replace
