"""Human approval is asked only about a call that can run, judged on the exact text the tool
will run on (issue 33), through the real Runner with a scripted model.

The SDK asks the approval policy with its own parse of the arguments (`json.loads`: of two
equal keys the last wins), so the tool's input guardrail checks the text itself; with
`ToolExecutionConfig(pre_approval_tool_input_guardrails=True)` it runs before the run is
interrupted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents import Agent, RunConfig, ToolExecutionConfig
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from recording import recording_tool
from toolgen_runtime import StrictArgs, result_class
from toolgen_runtime.arguments import MAX_ARGUMENT_CHARS
from toolgen_runtime.testing import Recorder
from toolgen_runtime.testing.helpers import run_agent

from generated.inventory import InventoryContext, cancel_order, tools

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
VALIDATE_FIRST = RunConfig(
    tracing_disabled=True,
    tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True),
)
CANCELLED = cancel_order.CancelOrderResult(order_number="ORD-1012", cancelled_now=True)


def run(tool: Any, raw: str, config: RunConfig = VALIDATE_FIRST) -> Any:
    model = ScriptedModel(
        [[function_call(tool.name, raw, call_id="c1")], [assistant_message("done")]]
    )
    agent: Agent[Any] = Agent(name="orders", instructions="", tools=[tool], model=model)
    return run_agent(agent, "go", context=CONTEXT, run_config=config)


def outputs(result: Any) -> list[Any]:
    return [
        json.loads(str(item.output))
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]


UNRUNNABLE = {
    # the case: a person would see two orders, the SDK's parse only the last
    "a key given twice": '{"order_number": "ORD-1012", "order_number": "ORD-1013"}',
    "the same key twice, same value": '{"order_number": "ORD-1012", "order_number": "ORD-1012"}',
    # texts the SDK does not parse, so it asks without calling the policy at all
    "NaN": '{"order_number": NaN}',
    "not an object": '["ORD-1012"]',
    "not JSON": '{"order_number": "ORD-1012"',
}


@pytest.mark.parametrize("raw", UNRUNNABLE.values(), ids=list(UNRUNNABLE))
def test_a_call_that_cannot_run_is_answered_before_anyone_is_asked(raw: str) -> None:
    recorder = Recorder(CANCELLED)
    result = run(cancel_order.build_tool(recorder), raw)
    assert result.interruptions == []
    [out] = outputs(result)
    assert out["error"] == "invalid_arguments", out
    assert recorder.calls == []


def test_the_answer_is_the_tools_own_envelope() -> None:
    result = run(
        cancel_order.build_tool(Recorder(CANCELLED)), UNRUNNABLE["a key given twice"]
    )
    [out] = outputs(result)
    assert out["problems"] == [
        {
            "field": "order_number",
            "problem": "is given more than once in the same object; give each key once",
        }
    ]
    assert out["how_to_fix"].startswith("Nothing was done.")


def test_a_lazy_tool_checks_the_text_too() -> None:
    [lazy] = tools("cancel_order")
    result = run(lazy, UNRUNNABLE["a key given twice"])
    assert result.interruptions == []
    assert outputs(result)[0]["error"] == "invalid_arguments"


def test_a_valid_call_is_still_asked_about_and_runs_once_approved() -> None:
    recorder = Recorder(CANCELLED)
    tool = cancel_order.build_tool(recorder)
    first = run(tool, '{"order_number": "ORD-1012"}')
    [pending] = first.interruptions
    assert pending.arguments == '{"order_number": "ORD-1012"}'
    assert recorder.calls == []
    state = first.to_state()
    state.approve(pending)
    result = run_agent(first.last_agent, state, run_config=VALIDATE_FIRST)
    assert outputs(result) == [
        {"ok": True, "order_number": "ORD-1012", "cancelled_now": True}
    ]
    assert len(recorder.calls) == 1


# --- the policy never lets a call that runs skip the person ---------------------------------


class Readings(StrictArgs):
    values: list[float]


@result_class
class Stored:
    count: int


def readings_tool(recorder: Recorder) -> Any:
    return recording_tool("store_readings", Readings, Stored, recorder, approval=True)


@pytest.mark.parametrize(
    "config",
    [VALIDATE_FIRST, RunConfig(tracing_disabled=True)],
    ids=["guardrail before approval", "policy alone"],
)
def test_a_call_that_runs_is_asked_about_however_its_numbers_are_written(
    config: RunConfig,
) -> None:
    """Within the argument limit as the model wrote it ("1e9"), over it as the SDK's parse
    writes it back ("1000000000.0"). Before, the policy judged the rewritten text, found it
    too long, and the call ran without anyone being asked."""
    raw = '{"values": [' + ",".join(["1e9"] * 240_000) + "]}"
    assert len(raw) <= MAX_ARGUMENT_CHARS
    assert len(json.dumps(json.loads(raw), separators=(",", ":"))) > MAX_ARGUMENT_CHARS
    recorder = Recorder(Stored(count=240_000))
    result = run(readings_tool(recorder), raw, config)
    assert [item.tool_name for item in result.interruptions] == ["store_readings"]
    assert recorder.calls == []
