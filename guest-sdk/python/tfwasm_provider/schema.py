"""Declarative schemas: a resource, data source or provider block is a list of
:class:`Attribute`. Behaviour Terraform does not know about (defaults, requires-replace,
use-state-for-unknown, validators) lives on the attribute too, and the SDK's planning applies
it, so a resource's code only talks to its remote API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence

from . import cty

#: A validator: returns an error message for a bad (known, non-null) value, else ``None``.
Validator = Callable[[Any], Optional[str]]

_MISSING = object()


@dataclass
class Attribute:
    """One attribute. Exactly one of ``required``, ``optional`` or ``computed`` must be
    set (``optional`` and ``computed`` together: the user may set it, else the provider
    decides)."""

    name: str
    type: cty.Type
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    write_only: bool = False
    description: str = ""
    deprecation_message: str = ""
    #: The value planned when the configuration leaves it null (needs ``computed``).
    default: Any = _MISSING
    #: A change of this attribute replaces the object instead of updating it.
    requires_replace: bool = False
    #: Keep the prior state's value in plans instead of "known after apply".
    use_state_for_unknown: bool = False
    validators: Sequence[Validator] = field(default_factory=tuple)

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING

    def problems(self) -> List[str]:
        """Mistakes in the declaration itself (checked when the schema is asked for)."""
        out = []
        if not (self.required or self.optional or self.computed):
            out.append(f"attribute {self.name!r} must be required, optional or computed")
        if self.required and (self.optional or self.computed):
            out.append(f"attribute {self.name!r}: required excludes optional and computed")
        if self.has_default and not self.computed:
            out.append(f"attribute {self.name!r}: a default needs computed=True (as Terraform plans it)")
        return out


def string(name: str, **flags: Any) -> Attribute:
    return Attribute(name, cty.STRING, **flags)


def number(name: str, **flags: Any) -> Attribute:
    return Attribute(name, cty.NUMBER, **flags)


def bool_(name: str, **flags: Any) -> Attribute:
    return Attribute(name, cty.BOOL, **flags)


def list_(name: str, element: cty.Type, **flags: Any) -> Attribute:
    return Attribute(name, cty.list_of(element), **flags)


def set_(name: str, element: cty.Type, **flags: Any) -> Attribute:
    return Attribute(name, cty.set_of(element), **flags)


def map_(name: str, element: cty.Type, **flags: Any) -> Attribute:
    return Attribute(name, cty.map_of(element), **flags)


@dataclass
class Schema:
    """A block of attributes, with a version for state upgrades."""

    attributes: List[Attribute]
    description: str = ""
    version: int = 0
    deprecation_message: str = ""

    def __post_init__(self) -> None:
        self.attributes = list(self.attributes)
        self.by_name = {a.name: a for a in self.attributes}

    @property
    def type(self) -> cty.Type:
        """The object type of values of this block."""
        return cty.object_of({a.name: a.type for a in self.attributes})

    def null_object(self) -> dict:
        """An object of this block with every attribute null."""
        return {a.name: None for a in self.attributes}

    def problems(self) -> List[str]:
        out = [p for a in self.attributes for p in a.problems()]
        seen = set()
        for a in self.attributes:
            if a.name in seen:
                out.append(f"attribute {a.name!r} is declared twice")
            seen.add(a.name)
        return out

    def to_wit(self, types: Any) -> Any:
        """The WIT record (``types`` is the generated ``wit_world.imports.types``)."""
        attributes = []
        for a in self.attributes:
            flags = types.AttributeFlags(0)
            for on, flag in (
                (a.required, types.AttributeFlags.REQUIRED),
                (a.optional, types.AttributeFlags.OPTIONAL),
                (a.computed, types.AttributeFlags.COMPUTED),
                (a.sensitive, types.AttributeFlags.SENSITIVE),
                (bool(a.deprecation_message), types.AttributeFlags.DEPRECATED),
                (a.write_only, types.AttributeFlags.WRITE_ONLY),
            ):
                if on:
                    flags |= flag
            attributes.append(
                types.Attribute(
                    name=a.name,
                    type=types.AttributeType_TypeJson(a.type.json_text()),
                    description=a.description,
                    description_kind=types.StringKind.MARKDOWN,
                    flags=flags,
                    deprecation_message=a.deprecation_message,
                )
            )
        block = types.Block(
            attributes=attributes,
            block_types=[],
            description=self.description,
            description_kind=types.StringKind.MARKDOWN,
            deprecated=bool(self.deprecation_message),
            deprecation_message=self.deprecation_message,
            computed=False,
        )
        return types.Schema(version=self.version, blocks=[block], objects=[])
