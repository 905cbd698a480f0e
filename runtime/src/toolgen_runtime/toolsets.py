"""Toolsets: the tools one agent holds, made from the cards, the deferred ones found by search.

A generated package's `toolset(name, search=...)` calls `make_toolset` with the cards of the
toolset's tools. Two ways to load a deferred tool (one whose card says `deferred`):

- `search="hosted"` (OpenAI Responses): every tool, grouped with the SDK's `tool_namespace` by
  its card's namespace, the deferred ones with `defer_loading`, each with its answer's schema
  (`output_json_schema`), and the SDK's `ToolSearchTool` when one is deferred. The model reads
  a deferred namespace's name and description until OpenAI's search loads its tools.
- `search="client"` (any model): the tools that are not deferred, plus `search_tools`, which
  searches the deferred ones with toolgen's own search (`toolgen_runtime.search`, over the
  index the build shipped in the package's `_search` module) and adds what it finds to the
  running agent's tools: the runner reads them again before every turn, so the model can call
  them on the next one. No Responses-only feature is used.

The tools `search_tools` adds stay on the agent after the run. The SDK refuses a change of
`Agent.tools` while another run uses the same agent (a `UserError`), so an application whose
runs overlap gives each its own agent: `agent.clone(tools=toolset(...))`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from agents import FunctionTool, Tool, ToolSearchTool, tool_namespace
from agents.tool_context import ToolContext

from toolgen_runtime.cards import Card, lazy_tool
from toolgen_runtime.errors import ToolgenError
from toolgen_runtime.search import ToolIndex
from toolgen_runtime.search_tool import (
    SEARCH_PARAMETERS,
    SEARCH_TOOL,
    DeferredTools,
    search_description,
)

__all__ = ["Search", "make_toolset"]

Search = Literal["hosted", "client"]


@lru_cache(maxsize=64)
def _index(package: str, toolset: str) -> ToolIndex:
    """The search index of a toolset's deferred tools, which the build shipped as data in
    the package's `_search` module: loaded on the first search."""
    indexes = importlib.import_module(f"{package}._search").INDEXES
    return ToolIndex.from_data(indexes[toolset])


class _SearchTools:
    """`on_invoke_tool` of `search_tools`: the answer `search_tool.DeferredTools` gives,
    and the tools it found added to the running agent."""

    def __init__(
        self, package: str, toolset: str, deferred: Mapping[str, tuple[Card, str]]
    ) -> None:
        self.package = package
        self.toolset = toolset
        self.deferred = deferred
        self._tools: DeferredTools | None = None

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
        agent = getattr(ctx, "agent", None)
        if agent is None:
            raise ToolgenError(
                f"{SEARCH_TOOL} loads tools into the running agent: call it through the "
                "Agents SDK's Runner"
            )
        if self._tools is None:
            descriptions = {
                name: c.description for name, (c, _) in self.deferred.items()
            }
            self._tools = DeferredTools(
                _index(self.package, self.toolset), descriptions
            )
        searched = self._tools.answer(raw_json)
        loaded = {getattr(tool, "name", None) for tool in agent.tools}
        for name in searched.found:
            if name not in loaded:
                agent.tools.append(lazy_tool(*self.deferred[name]))
        return searched.text


def make_toolset(
    package: str,
    toolset: str,
    cards: Sequence[tuple[Card, str]],
    namespaces: Mapping[str, str],
    search: Search,
) -> list[Tool]:
    """The tools of toolset `toolset` of the generated package `package` for one agent:
    `cards` are its tools' cards with the module of each (relative to the package), in
    order, `namespaces` the description of each namespace."""
    members = [(card, f"{package}.{module}") for card, module in cards]
    if search == "client":
        return _client(package, toolset, members, namespaces)
    if search != "hosted":
        raise ValueError(f"search must be 'hosted' or 'client', not {search!r}")
    made = {
        card.name: lazy_tool(card, module, responses=True) for card, module in members
    }
    for namespace in dict.fromkeys(c.namespace for c, _ in members if c.namespace):
        grouped = [made[c.name] for c, _ in members if c.namespace == namespace]
        described = namespaces[namespace]
        made.update(
            (t.name, t)
            for t in tool_namespace(
                name=namespace, description=described, tools=grouped
            )
        )
    tools: list[Tool] = [made[card.name] for card, _ in members]
    if any(card.deferred for card, _ in members):
        tools.append(ToolSearchTool())
    return tools


def _client(
    package: str,
    toolset: str,
    members: Sequence[tuple[Card, str]],
    namespaces: Mapping[str, str],
) -> list[Tool]:
    tools: list[Tool] = [lazy_tool(c, m) for c, m in members if not c.deferred]
    deferred = {card.name: (card, module) for card, module in members if card.deferred}
    if not deferred:
        return tools
    if any(card.name == SEARCH_TOOL for card, _ in members):
        raise ValueError(
            f"toolset {toolset!r} has a tool named {SEARCH_TOOL}, the name of the tool "
            "that finds its deferred tools: rename it, or use search='hosted'"
        )
    tools.append(
        FunctionTool(
            name=SEARCH_TOOL,
            description=search_description(
                {n: namespaces[n] for c, _ in deferred.values() if (n := c.namespace)}
            ),
            params_json_schema=SEARCH_PARAMETERS,
            on_invoke_tool=_SearchTools(package, toolset, deferred),
            strict_json_schema=True,
        )
    )
    return tools
