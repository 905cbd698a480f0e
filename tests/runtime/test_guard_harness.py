"""The invoker with boundaries, as the guard, pagination and output tests use it.

`toolgen_runtime.Invoker` validates without a validation context and knows nothing of pages or
output contracts. `BoundaryInvoker` is the smallest change that wires them in, written here as a
subclass so the Invoker stays untouched until the lead moves it in (see docs/boundaries.md,
"Wiring"). The tests at the bottom show that without guards it answers exactly as the Invoker.

The other test files import this module by name (pytest puts tests/runtime on sys.path).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from toolgen_runtime import (
    DeclaredError,
    FieldHint,
    Invoker,
    ToolError,
    dumps,
    invalid_arguments_envelope,
    make_tool,
)
from toolgen_runtime.guards import Boundaries, problem_details
from toolgen_runtime.output import (
    OutputContract,
    find_sensitive,
    redact_exception,
    redacted_details,
    sensitive_values,
)
from toolgen_runtime.pagination import Pagination
from toolgen_runtime.testing import Recorder, invoke


def envelope_with_codes(
    tool_name: str, exc: ValidationError, hints: Mapping[str, FieldHint]
) -> dict[str, Any]:
    """The invalid-arguments envelope, each boundary problem with its code and how-to-fix."""
    envelope: dict[str, Any] = invalid_arguments_envelope(tool_name, exc, hints)
    for problem, error in zip(
        envelope["problems"], exc.errors(include_url=False), strict=True
    ):
        problem.update(problem_details(error))
    return envelope


class BoundaryInvoker(Invoker[Any, Any, Any]):
    def __init__(
        self,
        *,
        boundaries: Boundaries,
        identity: Callable[[Any], object] = lambda run_context: None,
        pagination: Pagination | None = None,
        output: OutputContract | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.boundaries = boundaries
        self.identity = identity
        self.pagination = pagination
        self.output = output

    async def __call__(self, ctx: Any, raw_json: str) -> str:
        # 1. validate with the call's boundaries: the identity comes from the run context
        context = self.boundaries.for_call(self.identity(getattr(ctx, "context", None)))
        try:
            args = self.args_model.model_validate_json(raw_json, context=context)
        except ValidationError as exc:
            return dumps(envelope_with_codes(self.tool_name, exc, self._hints))
        implementation = self.implementation()
        # 2. the call runs with its sensitive values known to logging and exceptions
        with sensitive_values(find_sensitive(args)):
            try:
                if self._build_context is None:
                    outcome = implementation(args)
                else:
                    outcome = implementation(args, self._context(ctx))
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except ToolError as err:
                err.details = redacted_details(err.details)
                return dumps(self._error_envelope(err))
            except BaseException as exc:
                redact_exception(exc)
                raise
            # 3. a page is built by the runtime, then the output contract applies
            if self.pagination is not None:
                envelope = self.pagination.envelope(outcome, args, context)
            else:
                envelope = self._success(outcome)
            if self.output is not None:
                envelope = self.output.apply(envelope)
            return dumps(envelope)


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
    invoker = BoundaryInvoker(
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
