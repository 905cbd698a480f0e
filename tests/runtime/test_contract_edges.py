"""The contract holds at its edges (issue 33): numbers JSON cannot hold, a keyset cursor too
long to come back, a date-time without its offset, and a write tool's answer."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field
from toolgen_runtime import Invoker, StrictArgs, make_tool, result_class
from toolgen_runtime.testing import Recorder, invoke_raw

# --- numbers: NaN, Infinity and 1e999 are not JSON numbers ----------------------------------


class Reading(StrictArgs):
    celsius: float
    weights_kg: list[float]


class Measure(StrictArgs):
    value: float
    bounded: Annotated[float | None, Field(ge=0, le=100)]
    reading: Reading
    readings: list[Reading]


@result_class
class Measured:
    done: bool


def measure_tool(recorder: Recorder) -> Any:
    invoker: Invoker[Any, Any, Any] = Invoker(
        tool_name="measure",
        args_model=Measure,
        result_type=Measured,
        errors={},
        load_implementation=lambda: recorder,
    )
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    return make_tool(
        name="measure", description="Measure.", parameters=schema, invoker=invoker
    )


def measure_text(**replaced: str) -> str:
    fields = {
        "value": "1.5",
        "bounded": "null",
        "reading": '{"celsius": 20.0, "weights_kg": [1.0]}',
        "readings": '[{"celsius": 20.0, "weights_kg": [1.0, 2.0]}]',
        **replaced,
    }
    return "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"


NOT_FINITE = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400"]
PLACES = {
    "value": lambda bad: {"value": bad},
    "bounded": lambda bad: {"bounded": bad},
    "reading.celsius": lambda bad: {
        "reading": f'{{"celsius": {bad}, "weights_kg": [1.0]}}'
    },
    "reading.weights_kg.0": lambda bad: {
        "reading": f'{{"celsius": 1.0, "weights_kg": [{bad}]}}'
    },
    "readings.0.weights_kg.1": lambda bad: {
        "readings": f'[{{"celsius": 1.0, "weights_kg": [1.0, {bad}]}}]'
    },
}


def test_finite_numbers_are_accepted() -> None:
    recorder = Recorder(Measured(done=True))
    out = invoke_raw(measure_tool(recorder), measure_text(value="1e308"), None)
    assert out == {"ok": True, "done": True}
    assert recorder.calls[0].args.value == 1e308


@pytest.mark.parametrize("bad", NOT_FINITE)
@pytest.mark.parametrize("field", list(PLACES))
def test_a_number_json_cannot_hold_is_refused_on_its_field(bad: str, field: str) -> None:
    recorder = Recorder(Measured(done=True))
    out = invoke_raw(measure_tool(recorder), measure_text(**PLACES[field](bad)), None)
    assert out["error"] == "invalid_arguments", out
    assert [p["field"] for p in out["problems"]] == [field]
    assert out["problems"][0]["problem"].startswith(
        "must be a finite JSON number (JSON has no NaN or Infinity), got "
    )
    assert recorder.calls == []
