"""The invoker with boundaries, as the guard, pagination and output tests use it.

`guarded_tool` builds a hand-made tool on `toolgen_runtime.Invoker` with boundaries (the
validation context of each call), a pagination and an output contract, as generated tools do.
The tests at the bottom show that with empty boundaries it answers exactly as a plain one.

The other test files import this module by name (pytest puts tests/runtime on sys.path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from toolgen_runtime import DeclaredError, Invoker, ToolError, make_tool
from toolgen_runtime.guards import Boundaries
from toolgen_runtime.output import OutputContract
from toolgen_runtime.pagination import Pagination
from toolgen_runtime.testing import Recorder, invoke


def guarded_tool(
    args_model: type[BaseModel],
    implementation: Any,
    *,
    boundaries: Boundaries | None = None,
    result_type: type[object] = object,
    errors: Mapping[str, DeclaredError] | None = None,
    identity: Callable[[Any], object] = lambda run_context: None,
    pagination: Pagination | None = None,
    output: OutputContract | None = None,
    name: str = "guarded",
    catalogue_context: type[object] | None = None,
    build_context: Callable[[Any], object] | None = None,
) -> Any:
    invoker: Invoker[Any, Any, Any] = Invoker(
        boundaries=boundaries or Boundaries(),
        identity=identity,
        pagination=pagination,
        output=output,
        tool_name=pagination.tool if pagination else name,
        args_model=args_model,
        result_type=result_type,
        errors=errors or {},
        load_implementation=lambda: implementation,
        catalogue_context=catalogue_context,
        build_context=build_context,
    )
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    return make_tool(
        name=invoker.tool_name,
        description="A hand-made tool of the boundary tests.",
        parameters=parameters,
        invoker=invoker,
    )


# --- without guards, the same answers as the Invoker ---------------------------------------


class PlainArgs(BaseModel):
    model_config = {"extra": "forbid", "strict": True, "frozen": True}
    quantity: int


@dataclass(frozen=True, slots=True)
class PlainResult:
    quantity: int


def _both(implementation: Any) -> tuple[Any, Any]:
    errors = {"too_many": DeclaredError("Order fewer.", retryable=False)}
    plain = Invoker(
        tool_name="guarded",
        args_model=PlainArgs,
        result_type=PlainResult,
        errors=errors,
        load_implementation=lambda: implementation,
    )
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    before = make_tool(
        name="guarded", description="d", parameters=parameters, invoker=plain
    )
    after = guarded_tool(
        PlainArgs, implementation, result_type=PlainResult, errors=errors
    )
    return before, after


def test_without_guards_success_is_unchanged() -> None:
    before, after = _both(Recorder(PlainResult(3)))
    assert invoke(after, {"quantity": 3}, None) == invoke(before, {"quantity": 3}, None)
    assert invoke(after, {"quantity": 3}, None) == {"ok": True, "quantity": 3}


def test_without_guards_invalid_arguments_are_unchanged() -> None:
    before, after = _both(Recorder(PlainResult(3)))
    for bad in ({"quantity": "3"}, {}, {"quantity": 3, "more": 1}):
        assert invoke(after, bad, None) == invoke(before, bad, None)
        # pydantic's own problems get no code: only boundary checks have one
        assert all("code" not in p for p in invoke(after, bad, None)["problems"])


def test_without_guards_declared_errors_are_unchanged() -> None:
    before, after = _both(Recorder(error=ToolError("too_many", most=10)))
    assert invoke(after, {"quantity": 3}, None) == invoke(before, {"quantity": 3}, None)
