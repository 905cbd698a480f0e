"""Helpers the generated tests use: a recording fake implementation and direct invocation.

Kept in toolgen so every generated test file stays short and reads as a list of claims.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext


@dataclass(frozen=True, slots=True)
class Call:
    args: Any
    context: Any


class Recorder:
    """A fake implementation: records each call, then returns `result` or raises `error`."""

    def __init__(
        self, result: object = None, *, error: BaseException | None = None
    ) -> None:
        self.result = result
        self.error = error
        self.calls: list[Call] = []

    def __call__(self, args: Any, context: Any = None) -> Any:
        self.calls.append(Call(args, context))
        if self.error is not None:
            raise self.error
        return self.result


def invoke_raw(tool: FunctionTool, raw_json: str, context: object) -> Any:
    """Call a tool the way the SDK does, with raw argument text; returns the parsed output."""
    ctx = ToolContext(
        context=context,
        tool_name=tool.name,
        tool_call_id="call-test",
        tool_arguments=raw_json,
    )

    async def call() -> Any:
        return await tool.on_invoke_tool(ctx, raw_json)

    return json.loads(asyncio.run(call()))


def invoke(tool: FunctionTool, args: object, context: object) -> Any:
    return invoke_raw(tool, json.dumps(args), context)


def problem_fields(output: dict[str, Any]) -> list[str]:
    return [str(problem["field"]) for problem in output.get("problems", [])]


def schema_keywords(schema: object) -> set[str]:
    """Every keyword used anywhere in a JSON Schema (property names are not keywords)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.add(key)
                if key == "properties" and isinstance(value, dict):
                    stack.extend(value.values())
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found
