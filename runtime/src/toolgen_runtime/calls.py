"""Running one tool call outside the Agents SDK's Runner, as the Runner would run it.

An application that talks to a model API itself (the Chat Completions, Anthropic Messages or
Gemini API, with the definitions `toolgen export` writes) gets back the tool calls the model
made: a name and its arguments. `run_call` runs such a call through the generated tool, so
it is validated, answered and guarded exactly as under the Runner: the text it returns is
what goes back to the model; a `ToolgenError` (an infrastructure failure) is raised, and the
application should stop rather than send anything back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from agents import FunctionTool
from agents.tool_context import ToolContext

__all__ = ["run_call"]


async def run_call(
    tool: FunctionTool,
    arguments: str | Mapping[str, object],
    context: object,
    *,
    call_id: str = "call",
) -> str:
    """The answer to one call of `tool`: `arguments` as the API returned them (JSON text,
    as OpenAI sends them, or an object, as Anthropic and Gemini do); `context` the
    catalogue's run context, which the application builds, never the model."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = ToolContext(
        context=context, tool_name=tool.name, tool_call_id=call_id, tool_arguments=raw
    )
    answer: str = await tool.on_invoke_tool(call, raw)
    return answer
