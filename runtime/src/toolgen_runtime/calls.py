"""Running one tool call outside the Agents SDK's Runner, as the Runner would run it.

An application that talks to a model API itself (the Chat Completions, Anthropic Messages or
Gemini API, with the definitions `toolgen export` writes) gets back the tool calls the model
made: a name and its arguments. `run_call` runs such a call through the generated tool, so
it is validated, answered and guarded exactly as under the Runner: the text it returns is
what goes back to the model; a `ToolgenError` (an infrastructure failure) is raised, and the
application should stop rather than send anything back.

`ToolSearch` is the `search_tools` of an export whose tools are partly deferred: run like
any tool, it finds the deferred tools and says which definitions the next request carries.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

from toolgen_runtime.arguments import MAX_NESTING
from toolgen_runtime.search import ToolIndex
from toolgen_runtime.search_tool import (
    SEARCH_DESCRIPTION,
    SEARCH_PARAMETERS,
    SEARCH_TOOL,
    DeferredTools,
)

__all__ = ["ToolSearch", "run_call"]


async def run_call(
    tool: FunctionTool,
    arguments: str | Mapping[str, object] | None,
    context: object,
    *,
    call_id: str = "call",
) -> str:
    """The answer to one call of `tool`: `arguments` as the API returned them (JSON text,
    as OpenAI sends them, an object, as Anthropic and Gemini do, or None, as Gemini leaves
    them out of a call without arguments); `context` the catalogue's run context, which the
    application builds, never the model."""
    raw = _text(arguments)
    call = ToolContext(
        context=context, tool_name=tool.name, tool_call_id=call_id, tool_arguments=raw
    )
    answer: str = await tool.on_invoke_tool(call, raw)
    return answer


def _text(arguments: str | Mapping[str, object] | None) -> str:
    """The arguments as the JSON text the tool reads, answered as the same text would be."""
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    try:
        # not escaped to ASCII: a lone surrogate stays one, and is answered as in text
        return json.dumps(arguments, ensure_ascii=False)
    except RecursionError:
        # nested deeper than Python can encode here, which is far deeper than the tool
        # reads: a text the parser stops reading at that depth, answered as the object's
        return "[" * (MAX_NESTING + 1)


class ToolSearch:
    """`search_tools` for an application that calls a model API without hosted tool search
    (Chat Completions, Gemini) with the file `toolgen export` wrote for a catalogue whose
    tools are partly deferred: that file's `tools` are the definitions loaded up front and
    `search_tools`, `deferred_tools` the definitions of the others, `search_index` their
    search.

    `tool` is the `search_tools` FunctionTool: run its calls with `run_call`, like any
    tool. Each tool it finds is added to `loaded`, and `tools()` gives the tools of the
    next request: the file's, and the definitions of every tool found so far. Keep one
    `ToolSearch` per conversation: what it loaded is that conversation's.
    """

    def __init__(self, exported: Mapping[str, Any]) -> None:
        deferred = exported.get("deferred_tools")
        index = exported.get("search_index")
        if not isinstance(deferred, Mapping) or not isinstance(index, Mapping):
            raise ValueError(
                "this export has no deferred tools (no deferred_tools and search_index): "
                "its tools are all loaded up front, and it needs no ToolSearch"
            )
        self._exported = exported
        self._deferred = {name: dict(d) for name, d in deferred.items()}
        self._search = DeferredTools(
            ToolIndex.from_data(index),
            {name: _description(d) for name, d in self._deferred.items()},
        )
        self.loaded: list[str] = []
        self.tool = FunctionTool(
            name=SEARCH_TOOL,
            description=_search_description(exported["tools"]),
            params_json_schema=SEARCH_PARAMETERS,
            on_invoke_tool=self._invoke,
            strict_json_schema=True,
        )

    async def _invoke(self, ctx: ToolContext[Any], raw_json: str) -> str:
        searched = self._search.answer(raw_json)
        self.loaded.extend(n for n in searched.found if n not in self.loaded)
        return searched.text

    def tools(self) -> list[dict[str, Any]]:
        """The `tools` of the next request: the export's, then the definition of each tool
        found so far (for Gemini, in its one group of function declarations)."""
        tools = copy.deepcopy(list(self._exported["tools"]))
        found = [copy.deepcopy(self._deferred[name]) for name in self.loaded]
        if len(tools) == 1 and "functionDeclarations" in tools[0]:
            tools[0]["functionDeclarations"].extend(found)
            return tools
        return [*tools, *found]


def _search_description(tools: list[Any]) -> str:
    """The description of the export's own `search_tools` (it names the namespaces it
    searches), in a Chat Completions or a Gemini file."""
    for tool in tools:
        for definition in tool.get("functionDeclarations", [tool]):
            inner = definition.get("function", definition)
            if inner.get("name") == SEARCH_TOOL:
                return str(inner.get("description", SEARCH_DESCRIPTION))
    return SEARCH_DESCRIPTION


def _description(definition: Mapping[str, Any]) -> str:
    """The description of a Chat Completions function tool, or of a Gemini declaration."""
    inner = definition.get("function", definition)
    return str(inner.get("description", ""))
