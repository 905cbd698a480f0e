"""What one export carries: the tools of a toolset (or of the whole catalogue), their
namespaces, which of them load only when searched for, and the search over those.

Every export groups its tools as the contract says, for the whole catalogue as for a
toolset (`--toolset`): an API with hosted tool search (OpenAI Responses, Anthropic) gets the
deferred tools marked and its search tool; the others get the tools loaded up front and
`search_tools` (`toolgen_runtime.search_tool`), whose index over the deferred tools the
export builds here with the runtime's own search (`toolgen_runtime.search`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolgen_runtime.search import ToolIndex
from toolgen_runtime.search_tool import SEARCH_TOOL

from toolgen.spec import snapshot
from toolgen.spec.groups import search_document
from toolgen.spec.ir import Catalogue
from toolgen.spec.summary import summary

__all__ = ["SearchNameTaken", "Selection", "UnknownToolset", "names_of", "select"]


class UnknownToolset(ValueError):
    """`--toolset` names no toolset of the catalogue."""


class SearchNameTaken(ValueError):
    """A tool of the export is named like the tool that finds its deferred tools."""


@dataclass(frozen=True, slots=True)
class Selection:
    """The tools of one export, from the catalogue snapshot, in name order."""

    tools: tuple[Mapping[str, Any], ...]
    namespaces: Mapping[str, str]  # the description of each namespace of `tools`
    # the index over the deferred tools (`ToolIndex.to_data`); None when none is deferred
    index: Mapping[str, Any] | None

    @property
    def deferred(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(t for t in self.tools if t["deferred"])

    @property
    def up_front(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(t for t in self.tools if not t["deferred"])

    def client_index(self) -> Mapping[str, Any] | None:
        """`index`, for an export whose own `search_tools` searches it: SearchNameTaken
        when a tool of the export has that name."""
        if self.index is not None and any(t["name"] == SEARCH_TOOL for t in self.tools):
            raise SearchNameTaken(
                f"tool {SEARCH_TOOL!r} has the name of the tool that finds the deferred "
                "tools: rename it, or load every tool up front"
            )
        return self.index

    def deferred_namespaces(self) -> dict[str, str]:
        """The namespaces of the deferred tools, with their descriptions: what search finds."""
        names = dict.fromkeys(t["namespace"] for t in self.deferred)
        return {name: self.namespaces[name] for name in sorted(names)}


def names_of(catalogue: Catalogue, toolset: str | None) -> tuple[str, ...]:
    """The tools of `toolset` (every tool for None); UnknownToolset when there is none."""
    if toolset is None:
        return tuple(t.name for t in catalogue.tools)
    for found in catalogue.toolsets:
        if found.name == toolset:
            return found.tools
    known = ", ".join(t.name for t in catalogue.toolsets)
    raise UnknownToolset(
        f"catalogue {catalogue.name!r} has no toolset {toolset!r}; its toolsets: {known}"
    )


def select(catalogue: Catalogue, toolset: str | None) -> Selection:
    """The selection of `toolset` (None: every tool of the catalogue)."""
    chosen = set(names_of(catalogue, toolset))
    shot = snapshot.catalogue_snapshot(catalogue)
    tools = tuple(t for t in shot["tools"] if t["name"] in chosen)
    deferred = [t for t in catalogue.tools if t.name in chosen and t.deferred]
    documents = [search_document(summary(t), catalogue) for t in deferred]
    index = ToolIndex.build(documents).to_data() if documents else None
    described = {n.name: n.description for n in catalogue.namespaces}
    namespaces = {
        name: described[name]
        for name in sorted({t["namespace"] for t in tools if t["namespace"]})
    }
    return Selection(tools, namespaces, index)
