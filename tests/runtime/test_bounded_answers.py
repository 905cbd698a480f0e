"""Invalid arguments built to make the answer big: every answer stays small, nothing runs.

Each case goes through `on_invoke_tool` of a real generated tool (`create_reorder`) or of a
hand-made one with nested objects, with a recording fake as the implementation. The answer is
the raw text the model would receive; it must be an invalid-arguments envelope of at most
`MAX_ANSWER_BYTES` bytes, list at most `MAX_PROBLEMS` problems with their names and texts cut
to the documented lengths, count the rest in `more_problems`, and the fake must not be called.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pytest
from agents import FunctionTool
from agents.tool_context import ToolContext
from pydantic import BaseModel, ConfigDict, Field
from recording import recording_tool
from toolgen_runtime import FieldHint, null_means, result_class
from toolgen_runtime.arguments import MAX_ARGUMENT_CHARS, Issue, Rejected
from toolgen_runtime.envelope import (
    CUT,
    MAX_ANSWER_BYTES,
    MAX_FIELD_CHARS,
    MAX_NAME_CHARS,
    MAX_PROBLEM_CHARS,
    MAX_PROBLEMS,
    MAX_VALUE_CHARS,
    invalid_arguments,
)
from toolgen_runtime.testing import Recorder

from generated.inventory import InventoryContext, create_reorder

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
GOOD = '"sku":"SKU-11","quantity":5,"urgency":null'


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    sku: Annotated[str, Field(pattern="^SKU-[0-9]{2,6}$")]
    quantity: Annotated[int, Field(ge=1)]


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    lines: list[Line]
    note: Annotated[str, null_means("")]


@result_class
class Done:
    lines: int


def nested_tool(recorder: Recorder) -> FunctionTool:
    hint = FieldHint(example="SKU-11", pattern="^SKU-[0-9]{2,6}$")
    return recording_tool(
        "place_order", Order, Done, recorder, hints={"lines.sku": hint}
    )


def answer(tool: FunctionTool, raw: str) -> str:
    ctx = ToolContext(
        context=CONTEXT, tool_name=tool.name, tool_call_id="c1", tool_arguments=raw
    )

    async def call() -> str:
        return str(await tool.on_invoke_tool(ctx, raw))

    return asyncio.run(call())


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def key_name(number: int) -> str:
    """A short key that no tool here has as a parameter: x0, x1, ... xZZZ."""
    digits = ""
    while True:
        number, digit = divmod(number, len(_DIGITS))
        digits = _DIGITS[digit] + digits
        if not number:
            return "x" + digits


def keys(count: int) -> str:
    """`count` distinct extra keys with the value 0 (100,000 of them: about 900 KB)."""
    return ",".join(f'"{key_name(i)}":0' for i in range(count))


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


# (label, raw arguments, tool: "reorder" or "order", problems in all or None if unchecked)
CASES: list[tuple[str, str, str, int | None]] = [
    ("a 10 MB key", '{"' + "k" * 10_000_000 + '":1,' + GOOD + "}", "reorder", 1),
    ("a 10 MB value", '{"sku":"' + "S" * 10_000_000 + '","quantity":5}', "reorder", 1),
    ("a 900 KB key", '{"' + "k" * 900_000 + '":1,' + GOOD + "}", "reorder", 1),
    ("a 900 KB value", '{"sku":"' + "S" * 900_000 + '","quantity":5,"urgency":null}',
     "reorder", 1),
    ("100,000 extra keys", "{" + GOOD + "," + keys(100_000) + "}", "reorder", 100_000),
    ("900 extra keys of 1,000 characters",
     "{" + GOOD + "," + ",".join(f'"{i:01000d}":0' for i in range(900)) + "}",
     "reorder", 900),
    ("extra keys of control characters",
     "{" + GOOD + "," + ",".join(json.dumps(chr(1) * 63 + chr(2 + i)) + ":0"
                                 for i in range(20)) + "}",
     "reorder", 20),
    ("extra keys of emoji",
     "{" + GOOD + "," + ",".join(f'"{chr(0x1F600 + i) * 200}":0' for i in range(50)) + "}",
     "reorder", 50),
    ("60,000 repeats of one key", "{" + ",".join(['"sku":"SKU-11"'] * 60_000)
     + ',"quantity":5,"urgency":null}', "reorder", 1),
    ("nesting deeper than the parser goes", '{"sku":' + deep(100_000) + "}", "reorder", 1),
    ("nesting 150 deep", '{"sku":' + deep(150) + ',"quantity":5,"urgency":null}',
     "reorder", 1),
    ("an array of 200,000 numbers", '{"sku":[' + ",".join(["0"] * 200_000)
     + '],"quantity":5,"urgency":null}', "reorder", 1),
    ("an object of 50,000 keys as a value", '{"sku":{' + keys(50_000)
     + '},"quantity":5,"urgency":null}', "reorder", 1),
    ("an integer of 4,000 digits", '{"sku":"SKU-11","quantity":' + "9" * 4_000
     + ',"urgency":null}', "reorder", 1),
    ("an integer of 5,000 digits", '{"sku":"SKU-11","quantity":' + "9" * 5_000
     + ',"urgency":null}', "reorder", 1),
    ("arguments longer than the limit", " " * (MAX_ARGUMENT_CHARS + 1), "reorder", 1),
    ("100,000 bad items", '{"lines":[' + ",".join(['"x"'] * 100_000) + '],"note":null}',
     "order", 100_000),
    ("30,000 items with two bad fields", '{"lines":['
     + ",".join(['{"sku":"sku-1","quantity":0}'] * 30_000) + '],"note":null}',
     "order", 60_000),
    ("100,000 extra keys in one item", '{"lines":[{"sku":"SKU-11","quantity":1,'
     + keys(100_000) + '}],"note":null}', "order", 100_000),
    ("repeated keys in 10,000 items", '{"lines":['
     + ",".join(['{"sku":"SKU-11","sku":"SKU-12","quantity":1}'] * 10_000)
     + '],"note":null}', "order", 10_000),
]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "which", "total"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_every_invalid_answer_is_small_and_nothing_runs(
    raw: str, which: str, total: int | None
) -> None:
    recorder = Recorder()
    tool = (
        create_reorder.build_tool(recorder)
        if which == "reorder"
        else nested_tool(recorder)
    )
    text = answer(tool, raw)
    assert len(text.encode("utf-8")) <= MAX_ANSWER_BYTES
    out = json.loads(text)
    assert out["ok"] is False
    assert out["error"] == "invalid_arguments"
    assert recorder.calls == []
    problems: list[dict[str, Any]] = out["problems"]
    assert 1 <= len(problems) <= MAX_PROBLEMS
    for problem in problems:
        assert len(problem["field"]) <= MAX_FIELD_CHARS + len(CUT)
        assert len(problem["problem"]) <= MAX_PROBLEM_CHARS + len(CUT)
    if total is not None:
        assert len(problems) + out.get("more_problems", 0) == total
    if "more_problems" in out:
        assert out["more_problems"] > 0
        assert "more_problems" in out["how_to_fix"]


def test_a_long_key_is_cut_to_its_first_characters() -> None:
    out = json.loads(
        answer(create_reorder.build_tool(Recorder()), '{"' + "k" * 900_000 + '":1}')
    )
    fields = [p["field"] for p in out["problems"]]
    assert '"' + "k" * MAX_NAME_CHARS + '"' + CUT in fields


def test_a_long_value_is_echoed_cut() -> None:
    raw = '{"sku":"' + "S" * 900_000 + '","quantity":5,"urgency":null}'
    out = json.loads(answer(create_reorder.build_tool(Recorder()), raw))
    (problem,) = out["problems"]
    assert problem["field"] == "sku"
    got = problem["problem"].split(", got ", 1)[1]
    assert got == ('"' + "S" * MAX_VALUE_CHARS)[:MAX_VALUE_CHARS] + CUT


def test_many_problems_list_the_first_and_count_the_rest() -> None:
    raw = '{"quantity":"5",' + keys(100_000) + "}"
    out = json.loads(answer(create_reorder.build_tool(Recorder()), raw))
    # the declared fields come first, then the extra keys in the order they were sent
    assert [p["field"] for p in out["problems"][:3]] == ["sku", "quantity", "urgency"]
    assert [p["field"] for p in out["problems"][3:]] == [key_name(i) for i in range(7)]
    assert out["more_problems"] == 100_003 - MAX_PROBLEMS


def test_arguments_longer_than_the_limit_are_refused_unread() -> None:
    recorder = Recorder()
    raw = '{"sku":"SKU-11","quantity":5,"urgency":null}'.ljust(MAX_ARGUMENT_CHARS + 1)
    out = json.loads(answer(create_reorder.build_tool(recorder), raw))
    assert out["problems"] == [
        {
            "field": "$",
            "problem": f"the arguments are {MAX_ARGUMENT_CHARS + 1:,} characters long, "
            f"more than the {MAX_ARGUMENT_CHARS:,} this tool accepts",
        }
    ]
    assert recorder.calls == []
    # at the limit itself they are read
    result = create_reorder.CreateReorderResult(
        proposal_id="RP-1",
        sku="SKU-11",
        quantity_units=5,
        urgency="standard",
        created=True,
    )
    accepting = Recorder(result)
    out = json.loads(
        answer(create_reorder.build_tool(accepting), raw[:MAX_ARGUMENT_CHARS])
    )
    assert out["ok"] is True
    assert len(accepting.calls) == 1


def test_the_byte_bound_holds_for_the_worst_texts_the_envelope_can_meet() -> None:
    """Issues made by hand, beyond what a parser gives: every text at its longest, and made
    of characters that JSON escapes to six bytes each."""
    worst = chr(1) * 10_000
    hint = FieldHint(example=worst[:40], pattern=worst, one_of=(worst, worst))
    issues = tuple(
        Issue(
            kind,
            (worst, index, worst),
            input=worst,
            ctx={"error": worst},
            message=worst,
        )
        for index, kind in enumerate(
            ["string_pattern_mismatch", "literal_error", "json_invalid", "value_error"]
            * 5
        )
    )
    hints = {f"{worst}.{worst}": hint}  # by path without the index, as generated
    text = invalid_arguments(worst, Rejected(issues, 10**12), hints)
    out = json.loads(text)
    assert len(text.encode("utf-8")) <= MAX_ANSWER_BYTES
    assert 1 <= len(out["problems"]) < MAX_PROBLEMS  # some were dropped to fit
    assert max(len(p["problem"]) for p in out["problems"]) == MAX_PROBLEM_CHARS + len(
        CUT
    )
    assert len(out["problems"]) + out["more_problems"] == 10**12
