"""Diagnostics: what Terraform shows the user, with the attribute they are about.

Return them in a list, or raise :class:`Error` (one error diagnostic) from anywhere in a
resource's code. Any other exception becomes an error diagnostic too, with its traceback.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any, List, Sequence, Union

class Key(str):
    """A map element's key in a path (a plain ``str`` is an attribute name)."""


#: An attribute path: attribute names (``str``), list indexes (``int``), map keys (:class:`Key`).
Path = Sequence[Union[str, int]]


@dataclass
class Diagnostic:
    summary: str
    detail: str = ""
    #: Where: ``["rule", 0, "port"]``, ``["tags", Key("env")]``.
    path: List[Union[str, int]] = field(default_factory=list)
    warning: bool = False

    def to_wit(self, types: Any) -> Any:
        steps: List[Any] = []
        for step in self.path:
            if isinstance(step, int):
                steps.append(types.PathStep_ElementKeyInt(step))
            elif isinstance(step, Key):
                steps.append(types.PathStep_ElementKeyString(str(step)))
            else:
                steps.append(types.PathStep_AttributeName(step))
        return types.Diagnostic(
            severity=types.Severity.WARNING if self.warning else types.Severity.ERROR,
            summary=self.summary,
            detail=self.detail,
            attribute=steps,
        )


def error(summary: str, detail: str = "", path: Path = ()) -> Diagnostic:
    return Diagnostic(summary, detail, list(path))


def warning(summary: str, detail: str = "", path: Path = ()) -> Diagnostic:
    return Diagnostic(summary, detail, list(path), warning=True)


class Error(Exception):
    """Raise to stop a call with one error diagnostic."""

    def __init__(self, summary: str, detail: str = "", path: Path = ()):
        super().__init__(summary)
        self.diagnostic = error(summary, detail, path)


def from_exception(exc: BaseException, where: str) -> Diagnostic:
    """An unexpected exception, as the author needs it: type, message and traceback."""
    if isinstance(exc, Error):
        return exc.diagnostic
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return error(
        f"Unexpected error in {where}",
        f"The provider raised {type(exc).__name__}: {exc}\n\n{trace.rstrip()}",
    )
