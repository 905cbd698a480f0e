"""What the stages over the whole catalogue read of each tool: `ToolSummary`, plain data.

The checks and lint rules over the catalogue or a pair of tools, the catalogue's own files
(package, cards, lockfile) and the implementation check read summaries, not the IR
(`ir.py`), so a build keeps each tool file's summaries with its other results and a rebuild
reads no unchanged tool's IR (build/cache.py, whose reader checks these types). This module
stays small: a rebuild with nothing changed imports it, and not the IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from toolgen.diagnostics import Span

if TYPE_CHECKING:
    from toolgen.spec.ir import Tool

Effect = Literal["read", "write", "destructive"]
Role = Literal["tool", "prepare", "confirm"]


@dataclass(frozen=True, slots=True)
class PyNames:
    """The Python names of one tool's generated code."""

    module: str  # module name inside the generated package (find_customer)
    prefix: str  # PascalCase stem (FindCustomer)
    args_class: str
    context_class: str
    result_class: str
    error_class: str


@dataclass(frozen=True, slots=True)
class Reference:
    """Something a tool file names, where it names it: another tool (`requires`, a
    not_when's `use`, with its `when`), or a lint rule it silences (with its reason)."""

    name: str
    at: Span
    text: str = ""  # the not_when's case, or the suppression's reason
    text_at: Span | None = None


@dataclass(frozen=True, slots=True)
class ToolSummary:
    """A tool as the catalogue-wide stages read it (which ones, and why plain data: the
    module's docstring)."""

    name: str
    file: str
    role: Role
    py: PyNames
    intent: str
    use_when: str
    effect: Effect
    param_names: tuple[str, ...]
    has_context: bool
    returns_annotation: str
    name_at: Span
    requires: tuple[Reference, ...]
    not_when: tuple[Reference, ...]
    suppressions: tuple[Reference, ...]
    namespace: str | None = None
    deferred: bool = False
    asks: tuple[str, ...] = ()
    param_texts: tuple[str, ...] = ()  # the description of each of `param_names`

    @property
    def derived(self) -> bool:
        return self.role == "prepare"

    @property
    def required(self) -> tuple[str, ...]:
        """The tools it `requires`, by name."""
        return tuple(item.name for item in self.requires)

    @property
    def not_when_uses(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.not_when)

    @property
    def suppressed_rules(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.suppressions)


def summary(tool: Tool) -> ToolSummary:
    """What the catalogue-wide stages read of `tool`."""
    return ToolSummary(
        name=tool.name,
        file=tool.file,
        role=tool.role,
        py=tool.py,
        intent=tool.intent,
        use_when=tool.use_when,
        effect=tool.effect,
        param_names=tool.param_names,
        has_context=bool(tool.context),
        returns_annotation=tool.returns_annotation,
        name_at=tool.origin.span("name"),
        requires=tuple(
            Reference(name, tool.origin.span("requires", index))
            for index, name in enumerate(tool.requires)
        ),
        not_when=tuple(
            Reference(
                item.use, item.origin.span("use"), item.when, item.origin.span("when")
            )
            for item in tool.not_when
        ),
        suppressions=tuple(
            Reference(item.rule, item.origin.span("rule"), item.reason)
            for item in tool.suppressions
        ),
        namespace=tool.namespace,
        deferred=tool.deferred,
        asks=tool.asks,
        param_texts=tuple(param.description for param in tool.params),
    )
