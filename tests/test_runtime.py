"""The runtime contract, on small hand-made tools: what the model reads for each outcome."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from toolgen_runtime import (
    ContractViolation,
    DeclaredError,
    FieldHint,
    Invoker,
    MissingContext,
    ToolError,
    UndeclaredError,
    make_tool,
    not_a_bool,
    null_means,
)
from toolgen_runtime.testing import Recorder, invoke, invoke_raw


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    sku: Annotated[str, Field(pattern="^SKU-[0-9]{2,6}$")]
    quantity: Annotated[int, Field(ge=1, le=10)]
    level: Annotated[Literal[1, 2], not_a_bool, null_means(2)]
    note: Annotated[str | None, Field(max_length=5)]


@dataclass(frozen=True, slots=True)
class Result:
    sku: str
    quantity: int


@dataclass(frozen=True, slots=True)
class AppContext:
    user: str


@dataclass(frozen=True, slots=True)
class ToolCtx:
    user: str


GOOD = {"sku": "SKU-11", "quantity": 2, "level": None, "note": None}


def tool(implementation: Any, *, context: bool = False) -> Any:
    invoker: Invoker[Args, ToolCtx, Result] = Invoker(
        tool_name="reorder",
        args_model=Args,
        result_type=Result,
        errors={
            "unknown_sku": DeclaredError("Call read_stock first.", retryable=False)
        },
        load_implementation=lambda: implementation,
        catalogue_context=AppContext if context else None,
        build_context=(lambda run: ToolCtx(run.user)) if context else None,
        hints={
            "sku": FieldHint(example="SKU-11", pattern="^SKU-[0-9]{2,6}$"),
            "level": FieldHint(one_of=(1, 2), nullable=True),
            "note": FieldHint(nullable=True),
        },
    )
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    return make_tool(
        name="reorder", description="d", parameters=parameters, invoker=invoker
    )


def test_success_returns_exactly_the_declared_fields() -> None:
    out = invoke(tool(Recorder(Result("SKU-11", 2))), GOOD, None)
    assert out == {"ok": True, "sku": "SKU-11", "quantity": 2}


def test_null_means_the_default() -> None:
    recorder = Recorder(Result("SKU-11", 2))
    invoke(tool(recorder), GOOD, None)
    assert recorder.calls[0].args.level == 2


@pytest.mark.parametrize(
    ("args", "field", "problem"),
    [
        ({**GOOD, "sku": "sku-11"}, "sku", 'must match the pattern ^SKU-[0-9]{2,6}$, got "sku-11"'),
        ({**GOOD, "quantity": 0}, "quantity", "must be at least 1, got 0"),
        ({**GOOD, "quantity": 11}, "quantity", "must be at most 10, got 11"),
        ({**GOOD, "quantity": True}, "quantity", "must be a JSON integer, got true"),
        ({**GOOD, "quantity": "4"}, "quantity", 'must be a JSON integer, got "4"'),
        ({**GOOD, "quantity": 4.0}, "quantity", "must be a JSON integer, got 4.0"),
        ({**GOOD, "level": True}, "level", "must be a JSON integer, got true"),
        ({**GOOD, "level": 3}, "level", "must be one of 1 or 2, got 3"),
        ({**GOOD, "note": "toolong"}, "note", 'must have at most 5 characters, got "toolong"'),
        ({**GOOD, "extra": 1}, "extra", "is not a parameter of this tool"),
        ({**GOOD, "": 1}, '""', "is an empty key, which is not a parameter of this tool"),
        ({**GOOD, "$": 1}, '"$"', "is not a parameter of this tool"),
        ({**GOOD, "note.x": 1}, '"note.x"', "is not a parameter of this tool"),
        ({**GOOD, " sku": 1}, '" sku"', "is not a parameter of this tool"),
        ({k: v for k, v in GOOD.items() if k != "note"}, "note",
         "is missing; send null to leave it out"),
    ],
)  # fmt: skip
def test_each_problem_names_its_field_in_plain_words(
    args: dict[str, Any], field: str, problem: str
) -> None:
    recorder = Recorder(Result("SKU-11", 2))
    out = invoke(tool(recorder), args, None)
    assert out["ok"] is False and out["error"] == "invalid_arguments"
    assert {"field": field, "problem": problem} in [
        {"field": p["field"], "problem": p["problem"]} for p in out["problems"]
    ]
    assert out["how_to_fix"].startswith("Nothing was done.")
    assert recorder.calls == []


def test_a_pattern_problem_shows_the_example() -> None:
    out = invoke(tool(Recorder()), {**GOOD, "sku": "x"}, None)
    assert out["problems"][0]["example"] == "SKU-11"


def test_invalid_json_is_blamed_on_the_whole_arguments() -> None:
    out = invoke_raw(tool(Recorder()), "{", None)
    assert out["problems"][0]["field"] == "$"
    assert out["problems"][0]["problem"].startswith("the arguments are not valid JSON")


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("[]", "must be a JSON object, got []"),
        ('"sku"', 'must be a JSON object, got "sku"'),
        (
            "",
            "the arguments are not valid JSON (EOF while parsing a value at line 1 column 0)",
        ),
    ],
)
def test_only_the_arguments_as_a_whole_are_called_dollar(
    raw: str, problem: str
) -> None:
    out = invoke_raw(tool(Recorder()), raw, None)
    assert [(p["field"], p["problem"]) for p in out["problems"]] == [("$", problem)]


def test_a_declared_error_carries_its_fix_and_details() -> None:
    out = invoke(
        tool(Recorder(error=ToolError("unknown_sku", known=["SKU-11"]))), GOOD, None
    )
    assert out == {
        "ok": False,
        "error": "unknown_sku",
        "how_to_fix": "Call read_stock first.",
        "retryable": False,
        "known": ["SKU-11"],
    }


def test_details_may_not_overwrite_the_envelope() -> None:
    with pytest.raises(ContractViolation, match="how_to_fix"):
        invoke(
            tool(Recorder(error=ToolError("unknown_sku", how_to_fix="x"))), GOOD, None
        )


def test_an_undeclared_code_is_raised() -> None:
    with pytest.raises(UndeclaredError, match="declared: unknown_sku"):
        invoke(tool(Recorder(error=ToolError("nope"))), GOOD, None)


def test_a_result_of_another_type_is_raised() -> None:
    with pytest.raises(ContractViolation, match="expected Result"):
        invoke(tool(Recorder({"sku": "SKU-11"})), GOOD, None)


def test_an_async_implementation_is_awaited() -> None:
    async def implementation(args: Args) -> Result:
        await asyncio.sleep(0)
        return Result(args.sku, args.quantity)

    assert invoke(tool(implementation), GOOD, None)["quantity"] == 2


def test_the_context_comes_from_the_run_and_must_be_the_right_object() -> None:
    recorder = Recorder(Result("SKU-11", 2))
    invoke(tool(recorder, context=True), GOOD, AppContext("ada"))
    assert recorder.calls[0].context == ToolCtx("ada")
    with pytest.raises(MissingContext, match="AppContext"):
        invoke(tool(recorder, context=True), GOOD, {"user": "mallory"})


def test_the_implementation_is_loaded_once_on_first_call() -> None:
    loads = []

    def load() -> Any:
        loads.append(1)
        return Recorder(Result("SKU-11", 2))

    invoker: Invoker[Args, None, Result] = Invoker(
        tool_name="t",
        args_model=Args,
        result_type=Result,
        errors={},
        load_implementation=load,
    )
    built = make_tool(name="t", description="d", parameters={}, invoker=invoker)
    assert loads == []
    invoke(built, GOOD, None)
    invoke(built, GOOD, None)
    assert loads == [1]


def test_any_other_exception_stops_the_run_unchanged() -> None:
    """What the generated tests no longer check per tool: an exception the implementation
    raises (a database that is down) is not turned into text for the model."""
    with pytest.raises(RuntimeError, match="database is down"):
        invoke(tool(Recorder(error=RuntimeError("database is down"))), GOOD, None)
