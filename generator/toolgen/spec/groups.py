"""Namespaces and toolsets (issue 36): the groups of catalogue.yaml, as IR, and what follows
from them once the tools are known: the tools of each toolset, and a tool's search document.

A toolset names namespaces and tools (`members`); what they stand for needs every tool's
namespace, so `with_toolsets` resolves them over the tools' summaries: the model stage does
so for the whole IR, a build's catalogue-wide stage for the summaries it keeps. A member that
names nothing is the checks' to report (checks/groups.py); resolving passes over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from toolgen_runtime.search import SearchDocument

from toolgen.spec.ir import Catalogue, Origin, prepare_name
from toolgen.spec.summary import ToolSummary

IMPLICIT_TOOLSET = "all"


@dataclass(frozen=True, slots=True)
class Namespace:
    """A group of tools, with a description written for the model; `deferred` is the
    default of its tools (they load only when a tool search finds them)."""

    name: str
    description: str
    deferred: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class Toolset:
    """The tools one agent gets: `members` as written (namespace and tool names), `tools`
    the tool names they stand for, in name order, none twice; `budget`, the most tokens its
    up-front tools may cost on a turn. A catalogue that declares none has one, `all`, of
    every tool, with no members (`implicit`)."""

    name: str
    description: str
    members: tuple[str, ...]
    tools: tuple[str, ...]
    budget: int | None
    origin: Origin

    @property
    def implicit(self) -> bool:
        return not self.members


def with_toolsets(catalogue: Catalogue, tools: Sequence[ToolSummary]) -> Catalogue:
    """`catalogue` with each toolset's `tools` resolved over `tools`: a namespace stands for
    its tools, a token contract brings its prepare tool; with no toolset declared, the one
    toolset `all` of every tool."""
    names = {t.name for t in tools}
    # what a member stands for besides itself
    brings: dict[str, set[str]] = {}
    for tool in tools:
        if tool.namespace is not None:
            brings.setdefault(tool.namespace, set()).add(tool.name)
        if tool.role == "confirm":
            brings.setdefault(tool.name, set()).add(prepare_name(tool.name))
    declared = [t for t in catalogue.toolsets if not t.implicit]
    if not declared:
        all_of = Toolset(
            IMPLICIT_TOOLSET, "Every tool of the catalogue.", (), tuple(sorted(names)),
            None, catalogue.origin,
        )  # fmt: skip
        return replace(catalogue, toolsets=(all_of,))
    resolved = []
    for toolset in declared:
        chosen: set[str] = set()
        for member in toolset.members:
            chosen |= brings.get(member, set()) | ({member} & names)
        resolved.append(replace(toolset, tools=tuple(sorted(chosen))))
    return replace(catalogue, toolsets=tuple(resolved))


def search_document(tool: ToolSummary, catalogue: Catalogue) -> SearchDocument:
    """The words tool search reads of `tool` (toolgen_runtime.search), its namespace's
    description from `catalogue`."""
    described = {n.name: n.description for n in catalogue.namespaces}
    return SearchDocument(
        name=tool.name,
        intent=tool.intent,
        use_when=tool.use_when,
        not_when=tuple(item.text for item in tool.not_when),
        asks=tool.asks,
        parameters=tuple(zip(tool.param_names, tool.param_texts, strict=True)),
        namespace=tool.namespace or "",
        namespace_description=described.get(tool.namespace or "", ""),
    )
