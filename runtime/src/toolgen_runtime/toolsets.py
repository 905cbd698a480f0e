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
from typing import Annotated, Any, Literal

from agents import FunctionTool, Tool, ToolSearchTool, tool_namespace
from agents.tool_context import ToolContext
from pydantic import Field

from toolgen_runtime.arguments import (
    ArgumentParser,
    Rejected,
    StrictArgs,
    hints_from_schema,
    null_means,
)
from toolgen_runtime.cards import Card, lazy_tool
from toolgen_runtime.envelope import MAX_PROBLEMS, dumps, invalid_arguments
from toolgen_runtime.errors import ToolgenError
from toolgen_runtime.search import MAX_QUERY_CHARS, ToolIndex

__all__ = ["SEARCH_TOOL", "Search", "make_toolset"]

Search = Literal["hosted", "client"]
SEARCH_TOOL = "search_tools"
MAX_FOUND = 10
SEARCH_DESCRIPTION = (
    "Find and load tools that are not loaded yet: describe what the user wants in a few "
    "words. The tools found can be called from the next step on."
)
SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What the user wants done, in a few words.",
        },
        "limit": {
            "type": ["integer", "null"],
            "minimum": 1,
            "maximum": MAX_FOUND,
            "description": "How many tools to load at most; null for 3.",
        },
    },
    "required": ["query", "limit"],
    "additionalProperties": False,
}


class SearchArgs(StrictArgs):
    query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    limit: Annotated[int, Field(ge=1, le=MAX_FOUND), null_means(3)]


@lru_cache(maxsize=64)
def _index(package: str, toolset: str) -> ToolIndex:
    """The search index of a toolset's deferred tools, which the build shipped as data in
    the package's `_search` module: loaded on the first search."""
    indexes = importlib.import_module(f"{package}._search").INDEXES
    return ToolIndex.from_data(indexes[toolset])


class _SearchTools:
    """`on_invoke_tool` of `search_tools`: validate, search, load, answer."""

    def __init__(
        self, package: str, toolset: str, deferred: Mapping[str, tuple[Card, str]]
    ) -> None:
        self.package = package
        self.toolset = toolset
        self.deferred = deferred
        self._parse = ArgumentParser(SearchArgs, keep=MAX_PROBLEMS).parse

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
        args = self._parse(raw_json)
        if type(args) is Rejected:
            hints = hints_from_schema(SEARCH_PARAMETERS, {"query": "returns policy"})
            return invalid_arguments(SEARCH_TOOL, args, hints)
        assert isinstance(args, SearchArgs)
        agent = getattr(ctx, "agent", None)
        if agent is None:
            raise ToolgenError(
                f"{SEARCH_TOOL} loads tools into the running agent: call it through the "
                "Agents SDK's Runner"
            )
        hits = _index(self.package, self.toolset).search(args.query, args.limit)
        loaded = {getattr(tool, "name", None) for tool in agent.tools}
        found = []
        for hit in hits:
            card, module = self.deferred[hit.name]
            if card.name not in loaded:
                agent.tools.append(lazy_tool(card, module))
            found.append({"name": card.name, "description": card.description})
        note = (
            "These tools are loaded: call the one that fits."
            if found
            else "No tool matches: search again with other words, or go on with the "
            "tools you have."
        )
        return dumps({"ok": True, "found": found, "note": note})


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
        return _client(package, toolset, members)
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
    package: str, toolset: str, members: Sequence[tuple[Card, str]]
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
            description=SEARCH_DESCRIPTION,
            params_json_schema=SEARCH_PARAMETERS,
            on_invoke_tool=_SearchTools(package, toolset, deferred),
            strict_json_schema=True,
        )
    )
    return tools
