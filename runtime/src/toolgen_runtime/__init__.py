"""The runtime contract every generated tool keeps: what the model receives, and what stops a run.

Generated modules import this, and nothing else of toolgen. Every tool output is one JSON object
with `ok`:

- success: `{"ok": true, ...the declared return fields only}`;
- invalid arguments: `{"ok": false, "error": "invalid_arguments", "problems": [{"field", "problem",
  ...}], "how_to_fix": ...}`; the implementation is never called;
- a declared data error raised by the implementation as `ToolError(code, **details)`:
  `{"ok": false, "error": code, "how_to_fix": ..., "retryable": ..., ...details}`;
- anything else (an undeclared error, a broken result, missing run context, an implementation
  that is still the stub) raises a `ToolgenError`, which the SDK lets out of `Runner.run`
  unwrapped: the run stops and the failure is seen, never turned into text for the model.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, dataclass_transform

import pydantic.dataclasses
from agents import FunctionTool
from agents.tool_context import ToolContext
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError, to_jsonable_python

from toolgen_runtime.errors import (
    ContractViolation,
    DeclaredError,
    MissingContext,
    NotImplementedYet,
    ToolError,
    ToolgenError,
    UndeclaredError,
)

__all__ = [
    "ContractViolation",
    "DeclaredError",
    "FieldHint",
    "Invoker",
    "MissingContext",
    "NotImplementedYet",
    "ToolError",
    "ToolgenError",
    "UndeclaredError",
    "make_tool",
    "not_a_bool",
    "null_means",
    "result_class",
]

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ContextT = TypeVar("ContextT")
ResultT = TypeVar("ResultT")

INVALID_ARGUMENTS = "invalid_arguments"


def _reject_bool(value: object) -> object:
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


# An integer enum is a Literal of ints, and Python's True == 1: pydantic would take `true`
# for `1` even in strict mode. This runs first and refuses booleans as integers do.
not_a_bool = BeforeValidator(_reject_bool)


_RESULT_CONFIG = ConfigDict(strict=True, defer_build=True)

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def result_class(cls: type[_T]) -> type[_T]:
    """Make a result class: a frozen, strict pydantic dataclass, so a result built with a
    wrong type fails in the implementation, loudly, never reaching the model as `ok`."""
    made = pydantic.dataclasses.dataclass(
        frozen=True, slots=True, config=_RESULT_CONFIG
    )
    return cast("type[_T]", made(cls))


def null_means(default: object) -> BeforeValidator:
    """Apply a parameter's default when the model sends null (strict schemas have no absent
    fields: an optional parameter is required and nullable)."""

    def apply(value: object) -> object:
        return default if value is None else value

    return BeforeValidator(apply)


# --- what the model reads when arguments are invalid ---------------------------------------


def _got(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_TYPE_WORDS = {
    "int_type": "a JSON integer",
    "int_parsing": "a JSON integer",
    "int_from_float": "a JSON integer",
    "float_type": "a JSON number",
    "float_parsing": "a JSON number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a JSON string",
    "list_type": "a JSON array",
    "model_type": "a JSON object",
    "model_attributes_type": "a JSON object",
    "dict_type": "a JSON object",
    "date_type": "a date as YYYY-MM-DD",
    "date_parsing": "a date as YYYY-MM-DD",
    "date_from_datetime_parsing": "a date as YYYY-MM-DD",
    "date_from_datetime_inexact": "a date as YYYY-MM-DD",
    "datetime_type": "a date and time as 2026-10-09T14:30:00+02:00",
    "datetime_parsing": "a date and time as 2026-10-09T14:30:00+02:00",
    "datetime_from_date_parsing": "a date and time as 2026-10-09T14:30:00+02:00",
    "timezone_aware": "a date and time with a UTC offset, as 2026-10-09T14:30:00+02:00",
}


@dataclass(frozen=True, slots=True)
class FieldHint:
    """What the model is told about one field when its value is rejected: the pattern and
    the choices as the schema states them, an example, and whether null is allowed."""

    example: object = None
    pattern: str | None = None
    one_of: tuple[object, ...] | None = None
    nullable: bool = False


_NO_HINT = FieldHint()


def _choices(values: tuple[object, ...]) -> str:
    words = [_got(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _problem_text(err: Mapping[str, Any], hint: FieldHint) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    got = _got(err.get("input"))
    if kind == "missing":
        return "is missing" + ("; send null to leave it out" if hint.nullable else "")
    if kind == "extra_forbidden":
        return "is not a parameter of this tool"
    if kind in _TYPE_WORDS:
        return f"must be {_TYPE_WORDS[kind]}, got {got}"
    if kind == "literal_error":
        expected = _choices(hint.one_of) if hint.one_of else ctx.get("expected", "")
        return f"must be one of {expected}, got {got}"
    if kind == "string_pattern_mismatch":
        return f"must match the pattern {hint.pattern or ctx.get('pattern', '')}, got {got}"
    if kind in ("greater_than_equal", "greater_than"):
        word = "at least" if kind == "greater_than_equal" else "more than"
        return f"must be {word} {ctx.get('ge', ctx.get('gt'))}, got {got}"
    if kind in ("less_than_equal", "less_than"):
        word = "at most" if kind == "less_than_equal" else "less than"
        return f"must be {word} {ctx.get('le', ctx.get('lt'))}, got {got}"
    if kind == "string_too_short":
        return f"must have at least {ctx.get('min_length')} characters, got {got}"
    if kind == "string_too_long":
        return f"must have at most {ctx.get('max_length')} characters, got {got}"
    if kind == "too_short":
        return f"must have at least {ctx.get('min_length')} items"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "json_invalid":
        return f"the arguments are not valid JSON ({ctx.get('error', 'syntax error')})"
    message = str(err.get("msg", "is not valid"))
    return message[:1].lower() + message[1:]


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "$"


def invalid_arguments_envelope(
    tool_name: str, exc: ValidationError, hints: Mapping[str, FieldHint]
) -> dict[str, object]:
    problems: list[dict[str, object]] = []
    for err in exc.errors(include_url=False):
        field = _field(tuple(err["loc"]))
        # hints are by field path without list indexes: parcels.0.weight_kg -> parcels.weight_kg
        hint = hints.get(
            ".".join(p for p in field.split(".") if not p.isdigit()), _NO_HINT
        )
        problem: dict[str, object] = {
            "field": field,
            "problem": _problem_text(err, hint),
        }
        if hint.example is not None and err["type"] != "missing":
            problem["example"] = hint.example
        problems.append(problem)
    return {
        "ok": False,
        "error": INVALID_ARGUMENTS,
        "problems": problems,
        "how_to_fix": (
            f"Nothing was done. Correct the fields listed in problems and call {tool_name} "
            "again with every parameter present (null for an optional one)."
        ),
    }


def dumps(payload: Mapping[str, object]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


# --- invoking ---------------------------------------------------------------------------


Implementation = Callable[..., object]


class Invoker(Generic[ArgsT, ContextT, ResultT]):
    """`on_invoke_tool` of one generated tool: validate, call, wrap the outcome."""

    __slots__ = (
        "_build_context",
        "_catalogue_context",
        "_errors",
        "_hints",
        "_implementation",
        "_load_implementation",
        "args_model",
        "result_type",
        "tool_name",
    )

    def __init__(
        self,
        *,
        tool_name: str,
        args_model: type[ArgsT],
        result_type: type[ResultT],
        errors: Mapping[str, DeclaredError],
        load_implementation: Callable[[], Implementation],
        catalogue_context: type[object] | None = None,
        build_context: Callable[[Any], ContextT] | None = None,
        hints: Mapping[str, FieldHint] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.args_model = args_model
        self.result_type = result_type
        self._errors = errors
        self._load_implementation = load_implementation
        self._implementation: Implementation | None = None
        self._catalogue_context = catalogue_context
        self._build_context = build_context
        self._hints = hints or {}

    def implementation(self) -> Implementation:
        # resolved on the first call: importing the generated package stays cheap, and an
        # implementation module may import its own generated types without a cycle
        if self._implementation is None:
            self._implementation = self._load_implementation()
        return self._implementation

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
        try:
            args = self.args_model.model_validate_json(raw_json)
        except ValidationError as exc:
            return dumps(invalid_arguments_envelope(self.tool_name, exc, self._hints))
        implementation = self.implementation()
        try:
            if self._build_context is None:
                outcome = implementation(args)
            else:
                outcome = implementation(args, self._context(ctx))
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except ToolError as err:
            return dumps(self._error_envelope(err))
        return dumps(self._success(outcome))

    def _context(self, ctx: ToolContext[Any]) -> ContextT:
        assert self._build_context is not None
        run_context = getattr(ctx, "context", None)
        expected = self._catalogue_context
        if expected is not None and not isinstance(run_context, expected):
            raise MissingContext(
                f"{self.tool_name} reads its context from the run context, which must be a "
                f"{expected.__module__}.{expected.__qualname__}: pass "
                f"Runner.run(..., context={expected.__qualname__}(...)); got "
                f"{type(run_context).__name__}"
            )
        return self._build_context(run_context)

    def _error_envelope(self, err: ToolError) -> dict[str, object]:
        declared = self._errors.get(err.code)
        if declared is None:
            raise UndeclaredError(
                f"{self.tool_name} raised error code {err.code!r}, which its contract does not "
                f"declare (declared: {', '.join(sorted(self._errors)) or 'none'}); declare it "
                "in the spec or fix the implementation"
            ) from err
        envelope: dict[str, object] = {
            "ok": False,
            "error": err.code,
            "how_to_fix": declared.how_to_fix,
            "retryable": declared.retryable,
        }
        clash = envelope.keys() & err.details.keys()
        if clash:
            raise ContractViolation(
                f"{self.tool_name} error {err.code!r} has details named {sorted(clash)}, "
                "which the envelope already uses"
            )
        envelope.update(to_jsonable_python(err.details))
        return envelope

    def _success(self, outcome: object) -> dict[str, object]:
        if type(outcome) is not self.result_type:
            raise ContractViolation(
                f"{self.tool_name} returned {type(outcome).__name__}, expected "
                f"{self.result_type.__name__}"
            )
        # the result class is a strict pydantic dataclass: its fields were validated when the
        # implementation built it, so this only turns dates and nested results into JSON
        fields = to_jsonable_python(outcome)
        return {"ok": True, **fields}


def make_tool(
    *,
    name: str,
    description: str,
    parameters: dict[str, Any],
    invoker: Callable[[ToolContext[Any], str], Awaitable[str]],
) -> FunctionTool:
    """The SDK tool: the exact schema the model sees, already strict, and our invoker."""
    return FunctionTool(
        name=name,
        description=description,
        params_json_schema=parameters,
        on_invoke_tool=invoker,
        strict_json_schema=True,
    )
