"""A tool around an argument model, for the runtime's tests: its implementation a `Recorder`
(toolgen_runtime.testing), its schema empty (these tests send raw arguments)."""

from __future__ import annotations

from typing import Any

from agents import FunctionTool
from toolgen_runtime import Invoker, make_tool
from toolgen_runtime.testing import Recorder


def recording_tool(
    name: str, args_model: Any, result_type: Any, recorder: Recorder, **options: Any
) -> FunctionTool:
    """Tool `name` over `args_model`, answering `result_type`, implemented by `recorder`;
    `options` go to the `Invoker` (hints, approval, ...)."""
    invoker: Invoker[Any, Any, Any] = Invoker(
        tool_name=name,
        args_model=args_model,
        result_type=result_type,
        errors={},
        load_implementation=lambda: recorder,
        **options,
    )
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    return make_tool(name=name, description="d", parameters=schema, invoker=invoker)
