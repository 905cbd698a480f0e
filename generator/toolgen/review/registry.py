"""The registry of diff rules: every kind of change `toolgen diff` reports, with its id, its
level and its documentation.

A diff rule is one small function over one kind of element pair (a tool in both versions, a
parameter, a return field, an error code, a guard), registered with `@rule(id, name, level)`,
the decorator `diff_rules(kind, group)` makes for one group. It yields `Found` values: a
one-line reason naming the old and the new value, and where in the tool's contract file the
change is. Its docstring is its documentation (What it reports / Why this level / Example);
docs/diff-rules.md is generated from it, and says what each level (`breaking`, `dangerous`,
`safe`) means to a reviewer (`diff_report._INTRO`).

Ids are stable and never reused (TD100-TD999).
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from toolgen.codes import KEBAB_CASE, Titled
from toolgen.diagnostics import Severity


class Level(enum.Enum):
    BREAKING = "breaking"
    DANGEROUS = "dangerous"
    SAFE = "safe"

    @property
    def severity(self) -> Severity:
        """How the level reads in diagnostics formats (GitHub annotations, SARIF)."""
        return _SEVERITY[self]


_SEVERITY = {
    Level.BREAKING: Severity.ERROR,
    Level.DANGEROUS: Severity.WARNING,
    Level.SAFE: Severity.INFO,
}


class Group(Titled):
    TOOLS = "tools", "Tools and what the model reads"
    PARAMETERS = "parameters", "Parameters"
    RETURNS = "returns", "Return fields"
    ERRORS = "errors", "Error codes"
    SAFETY = "safety", "Safety: effect, confirmation, idempotency, context"
    BOUNDARIES = "boundaries", "Boundaries: guards, pagination, output contracts"


@dataclass(frozen=True, slots=True)
class Found:
    """One change a rule reports: the reason, and where it is in the tool's contract
    (a path of keys in the YAML file, such as `("params", "sku", "pattern")`)."""

    message: str
    where: tuple[str | int, ...] = ()


E = TypeVar("E")
Check = Callable[[E], Iterable[Found]]


@dataclass(frozen=True, slots=True)
class DiffRule:
    id: str
    name: str
    level: Level
    group: Group
    kind: type
    check: Callable[[Any], Iterable[Found]]
    doc: str

    @property
    def summary(self) -> str:
        """The first paragraph of the docstring, on one line."""
        return " ".join(self.doc.split("\n\n", 1)[0].split())


REGISTRY: dict[str, DiffRule] = {}
_ID = re.compile(r"^TD[1-9]\d\d$")


def diff_rules(
    kind: type[E], group: Group
) -> Callable[[str, str, Level], Callable[[Check[E]], Check[E]]]:
    """The decorator of the rules of `group` over one kind of element pair:
    `@rule(id, name, level)` registers a check; its docstring documents the rule."""

    def rule(id: str, name: str, level: Level) -> Callable[[Check[E]], Check[E]]:
        def register(check: Check[E]) -> Check[E]:
            if not _ID.fullmatch(id):
                raise ValueError(f"diff rule id {id!r} is not TD100-TD999")
            if id in REGISTRY or any(r.name == name for r in REGISTRY.values()):
                raise ValueError(f"diff rule {id} {name!r} is already taken")
            if not KEBAB_CASE.fullmatch(name):
                raise ValueError(f"diff rule name {name!r} is not kebab-case")
            doc = inspect.cleandoc(check.__doc__ or "")
            REGISTRY[id] = DiffRule(id, name, level, group, kind, check, doc)
            return check

        return register

    return rule


def all_diff_rules() -> list[DiffRule]:
    """Every registered diff rule, by id (importing the rule modules registers them)."""
    from toolgen.review import (  # noqa: F401
        boundary_rules,
        contract_rules,
        safety_rules,
        tool_rules,
        toolset_rules,
    )

    return [REGISTRY[k] for k in sorted(REGISTRY)]
