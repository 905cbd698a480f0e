"""What fuzzing found in the runtime, each pinned by the smallest call that shows it.

Each test is the shrunk case `toolgen_runtime.fuzz` reported, sent through a real generated
tool (or its result class), with the promise it broke:

- argument text holding a lone surrogate (a UTF-16 half, as a raw character) raised
  `TypeError` from the duplicate-key check instead of answering invalid_arguments;
- a result with a NaN or infinite float reached the model as `null` in a field declared a
  number, not nullable: the result class took it, the JSON writer turned it into null;
- valid JSON nested deeper than the parser reads was answered "not valid JSON";
- an integer enum took a float (`3.0` for the choice `3`), which the strict rules refuse: the
  compiler now gives integer enums `json_integer`.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError
from toolgen_runtime.arguments import MAX_NESTING, json_integer
from toolgen_runtime.testing import Recorder, invoke_raw, problem_fields

from generated.inventory import InventoryContext, find_customer, search_orders

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
KITCHEN_EXPECTED = (
    Path(__file__).resolve().parents[1] / "golden" / "kitchen_sink" / "expected"
)
FOUND = find_customer.FindCustomerResult(customer_id=7, name="Brambilla SRL")


@pytest.mark.parametrize(
    "raw",
    [
        '{"name": "Brambilla\ud800"}',  # a high half alone, as the character itself
        '{"name": "\udc00"}',  # a low half alone
        '{"name": 5, "extra": "\ud83d"}',  # beside another problem
    ],
    ids=["high", "low", "beside-another-problem"],
)
def test_a_raw_lone_surrogate_is_invalid_arguments_not_an_exception(raw: str) -> None:
    recorder = Recorder(FOUND)
    out = invoke_raw(find_customer.build_tool(recorder), raw, CONTEXT)
    assert out["error"] == "invalid_arguments"
    assert problem_fields(out) == ["$"]
    assert "surrogate" in out["problems"][0]["problem"]
    assert recorder.calls == []


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_result_float_that_json_cannot_hold_fails_in_the_implementation(
    value: float,
) -> None:
    # JSON has no NaN or Infinity: pydantic would write null, which the model would read
    # as a field declared a number and not nullable having no value.
    with pytest.raises(ValidationError) as raised:
        search_orders.SearchOrdersOrder(
            order_number="ORD-1",
            status="open",
            placed_on=datetime.date(2026, 10, 9),
            total_eur=value,
        )
    assert [error["loc"] for error in raised.value.errors()] == [("total_eur",)]


def _nested(depth: int) -> str:
    # the arguments object is one level; `name` holds arrays for the rest
    inner = depth - 1
    return '{"name": ' + "[" * inner + "]" * inner + "}"


def test_nesting_the_parser_reads_is_judged_field_by_field() -> None:
    out = invoke_raw(
        find_customer.build_tool(Recorder(FOUND)), _nested(MAX_NESTING), CONTEXT
    )
    assert problem_fields(out) == ["name"]


def test_deeper_nesting_is_refused_as_too_deep_not_as_broken_json() -> None:
    raw = _nested(MAX_NESTING + 1)
    json.loads(raw)  # it is valid JSON
    out = invoke_raw(find_customer.build_tool(Recorder(FOUND)), raw, CONTEXT)
    assert problem_fields(out) == ["$"]
    problem = out["problems"][0]["problem"]
    assert "not valid JSON" not in problem
    assert f"more than {MAX_NESTING} levels" in problem


@pytest.mark.parametrize("raw_value", ["1.0", "3.0", "2e0"])
def test_json_integer_refuses_floats_and_booleans(raw_value: str) -> None:
    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)

        priority: Annotated[Literal[1, 2, 3], json_integer]

    with pytest.raises(ValidationError) as raised:
        Args.model_validate_json('{"priority": ' + raw_value + "}")
    assert raised.value.errors()[0]["type"] == "int_type"
    for bad in ("true", "false"):
        with pytest.raises(ValidationError):
            Args.model_validate_json('{"priority": ' + bad + "}")
    assert Args.model_validate_json('{"priority": 3}').priority == 3


@pytest.mark.parametrize("raw_value", ["1.0", "3.0", "2e0"])
def test_a_float_is_not_a_choice_of_an_integer_enum(
    raw_value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `priority` is `enum: [1, 2, 3]`: 3.0 == 3 in Python, so the Literal took a float
    monkeypatch.syspath_prepend(str(KITCHEN_EXPECTED))
    from ks_generated.kitchen import plan_shipment
    from ks_generated.kitchen.context import KitchenContext

    raw = (
        '{"from": "WH-01", "to": "WH-02", "ship_on": null, "deliver_by": null, '
        '"parcels": [{"weight_kg": 1, "fragile": null}], "priority": '
        + raw_value
        + ", "
        '"reference": null, "labels": null, "options": null}'
    )
    recorder = Recorder()
    context = KitchenContext(tenant_id=1, requested_on=datetime.date(2026, 10, 9))
    out = invoke_raw(plan_shipment.build_tool(recorder), raw, context)
    assert out["error"] == "invalid_arguments"
    assert problem_fields(out) == ["priority"]
    assert recorder.calls == []
