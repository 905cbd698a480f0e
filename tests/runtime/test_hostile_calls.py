"""Hostile calls, generated (issue 33): whatever a model sends, a tool call answers with one JSON
object with a boolean `ok`, or stops the run only with a documented infrastructure error.

The tools are the example catalogue's, generated, with their real implementations on a real
SQLite database and a real store: argument texts of every kind (keys given twice, NaN,
Infinity and numbers too large for a float, integers too long to print, lone surrogates,
nesting past the parser's limit, cut and wrapped texts), cursors and confirmation tokens made
up, altered or made for another call, and approval through the Runner. The database, the store
and the run context are sound here, so no infrastructure error may occur at all: any exception
is a failure. (The path and URL guards have their own property tests; read_document and
read_supplier_notice are left to them.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agents import Agent, RunConfig, ToolExecutionConfig
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from toolgen_runtime.envelope import MAX_ANSWER_BYTES
from toolgen_runtime.guards import configure_boundaries
from toolgen_runtime.testing import Recorder, boundaries_for_tests
from toolgen_runtime.testing.helpers import run_agent

from generated.inventory import InventoryContext, cancel_order, tools
from impl.inventory.db import close_database, use_database

CONTEXT = InventoryContext(customer_id=1, run_id="run-hostile")
OTHER = InventoryContext(customer_id=2, run_id="run-hostile")
# a good call of each tool, which the strategies then break
GOOD: dict[str, dict[str, Any]] = {
    "cancel_order": {"order_number": "ORD-1012"},
    "create_reorder": {"sku": "SKU-11", "quantity": 5, "urgency": None},
    "find_customer": {"name": "Brambilla SRL"},
    "next_batch": {"batch": 1},
    "prepare_order": {"sku": "SKU-12", "quantity": 2},
    "read_stock": {"sku": "SKU-11"},
    "search_orders": {"status": None, "since": None, "cursor": None, "page_size": 2},
    "search_returns": {"since": None, "max_results": 5},
    "send_order": {"order_ref": "R-1", "sku": "SKU-11", "quantity": 20},
}
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module", autouse=True)
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    use_database(tmp_path_factory.mktemp("inventory") / "inventory.db")
    configure_boundaries(boundaries_for_tests({"archive": ("note.md",)}))
    yield
    configure_boundaries(None)
    close_database()


def call(tool: Any, raw: str, context: object = CONTEXT) -> dict[str, Any]:
    """One call as the SDK makes it; the answer must be a JSON object with a boolean `ok`
    in text UTF-8 can carry, and an invalid-arguments answer within its bound."""
    ctx = ToolContext(
        context=context, tool_name=tool.name, tool_call_id="c1", tool_arguments=raw
    )
    text = asyncio.run(tool.on_invoke_tool(ctx, raw))
    assert isinstance(text, str)
    size = len(text.encode("utf-8"))  # a lone surrogate in an answer would raise here
    out = json.loads(text)
    assert isinstance(out, dict) and type(out.get("ok")) is bool, text[:300]
    if out.get("error") == "invalid_arguments":
        assert size <= MAX_ANSWER_BYTES
        assert all(isinstance(p["field"], str) for p in out["problems"])
    return out


# --- argument texts ---------------------------------------------------------------------


class Raw(str):
    """Text written as it is in place of a value: what JSON has no value for."""


@dataclass(frozen=True)
class Obj:
    """An object as its key-value pairs, so a key may be given twice."""

    pairs: tuple[tuple[str, object], ...]


def render(value: object) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Obj):
        return (
            "{" + ",".join(f"{json.dumps(k)}:{render(v)}" for k, v in value.pairs) + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    return json.dumps(value)


def nested(depth: int) -> Raw:
    return Raw("[" * depth + "]" * depth)


NOT_JSON_VALUES = [
    Raw("NaN"),
    Raw("Infinity"),
    Raw("-Infinity"),
    Raw("1e999"),
    Raw("-1E400"),
    Raw("9" * 5000),  # more digits than Python prints
    Raw("-0"),
    Raw("1.0e2"),
    Raw('"\\ud800"'),  # a lone surrogate, escaped
    Raw('"x\\udfff"'),
    Raw('"\ud800"'),  # and as it is
    nested(201),
    nested(202),
    nested(450),
]
# what the Agents SDK itself cannot take (see the last test): kept for direct calls only
SDK_BREAKERS = {Raw('"\ud800"'), nested(450)}
WORDS = [
    "SKU-11",
    "ORD-1012",
    "R-1",
    "2026-10-09",
    "open",
    "standard",
    "",
    "a.b",
    "\u200b",
]


def keys_for(tool: str) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [*GOOD[tool], "run_id", "customer_id", "", "token"]
    ) | st.text(max_size=6)


def values(
    keys: st.SearchStrategy[str], *, runner: bool = False
) -> st.SearchStrategy[object]:
    odd = [v for v in NOT_JSON_VALUES if not (runner and v in SDK_BREAKERS)]
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12).filter(lambda t: not runner or t.isascii()),
        st.sampled_from(WORDS),
        st.sampled_from(odd),
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.lists(st.tuples(keys, inner), max_size=3).map(lambda p: Obj(tuple(p)))
        ),
        max_leaves=8,
    )


@st.composite
def argument_texts(draw: st.DrawFn, tool: str, runner: bool = False) -> str:
    """A good call of `tool`, broken in a few places, then perhaps damaged as text;
    `runner`: only texts the Agents SDK can take to the tool (see the last test)."""
    keys = keys_for(tool).filter(lambda k: not runner or k.isascii())
    pairs = list(GOOD[tool].items())
    for _ in range(draw(st.integers(0, 3))):
        edit = draw(st.sampled_from(["value", "twice", "drop", "extra"]))
        if edit == "value" and pairs:
            index = draw(st.integers(0, len(pairs) - 1))
            pairs[index] = (pairs[index][0], draw(values(keys, runner=runner)))
        elif edit == "twice" and pairs:
            key = draw(st.sampled_from([k for k, _ in pairs]))
            pairs.insert(
                draw(st.integers(0, len(pairs))),
                (key, draw(values(keys, runner=runner))),
            )
        elif edit == "drop" and pairs:
            pairs.pop(draw(st.integers(0, len(pairs) - 1)))
        else:
            pairs.append((draw(keys), draw(values(keys, runner=runner))))
    text = render(Obj(tuple(pairs)))
    damage = draw(st.sampled_from(["none", "none", "cut", "tail", "fence", "quoted"]))
    if damage == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == "tail":
        tails = [",", "}", " // note", "\x00"] + ([] if runner else ["\ud800"])
        text += draw(st.sampled_from(tails))
    elif damage == "fence":
        text = f"```json\n{text}\n```"
    elif damage == "quoted":
        text = json.dumps(text)
    # a lone surrogate can also arrive escaped (\\ud800) from any string above
    assume(not (runner and _escapes_a_lone_surrogate(text)))
    return text


def _escapes_a_lone_surrogate(text: str) -> bool:
    """Whether `text` is JSON whose value holds a lone surrogate: what the SDK cannot
    take as UTF-8 (see the last test), though the text itself is plain ASCII."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@pytest.mark.parametrize("name", sorted(GOOD))
def test_any_argument_text_is_answered(name: str) -> None:
    [tool] = tools(name)

    @SETTINGS
    @given(raw=argument_texts(name))
    def check(raw: str) -> None:
        call(tool, raw)

    check()


# --- cursors --------------------------------------------------------------------------------


def first_cursor(context: object = CONTEXT, **filters: Any) -> str:
    [tool] = tools("search_orders")
    args = {**GOOD["search_orders"], "page_size": 1, **filters}
    cursor = call(tool, json.dumps(args), context)["next_cursor"]
    assert isinstance(cursor, str)
    return cursor


@st.composite
def cursor_texts(draw: st.DrawFn) -> tuple[str, bool]:
    """A cursor and whether it is the untouched one for these filters and this customer."""
    real = first_cursor()
    kind = draw(
        st.sampled_from(
            [
                "real",
                "flip",
                "cut",
                "insert",
                "swap",
                "text",
                "filters",
                "customer",
                "long",
            ]
        )
    )
    if kind == "real":
        return real, True
    if kind == "flip":
        index = draw(st.integers(0, len(real) - 1))
        char = draw(st.characters().filter(lambda c: c != real[index]))
        return real[:index] + char + real[index + 1 :], False
    if kind == "cut":
        return real[: draw(st.integers(0, len(real) - 1))], False
    if kind == "insert":
        index = draw(st.integers(0, len(real)))
        return real[:index] + draw(st.text(min_size=1, max_size=3)) + real[
            index:
        ], False
    if kind == "swap":
        body, _, mac = real.partition(".")
        return f"{mac}.{body}", False
    if kind == "filters":
        return first_cursor(status="open"), False
    if kind == "customer":
        return first_cursor(OTHER), False
    if kind == "long":
        return real + "A" * draw(st.integers(1, 3000)), False
    return draw(st.text(max_size=40)), False


@SETTINGS
@given(cursor=cursor_texts())
def test_any_cursor_is_answered(cursor: tuple[str, bool]) -> None:
    [tool] = tools("search_orders")
    text, genuine = cursor
    out = call(tool, json.dumps({**GOOD["search_orders"], "cursor": text}))
    if genuine:
        assert out["ok"] is True, out
    else:
        assert out["error"] == "invalid_arguments", out
        assert [p["field"] for p in out["problems"]] == ["cursor"]


# --- confirmation tokens ------------------------------------------------------------------


def prepared(args: dict[str, Any], context: object = CONTEXT) -> str:
    [prepare] = tools("prepare_order")
    token = call(prepare, json.dumps(args), context)["token"]
    assert isinstance(token, str)
    return token


@st.composite
def token_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any], bool]:
    args = {"sku": "SKU-12", "quantity": draw(st.integers(1, 3))}
    real = prepared(args)
    kind = draw(
        st.sampled_from(["real", "flip", "cut", "args", "customer", "cursor", "text"])
    )
    if kind == "real":
        return real, args, True
    if kind == "flip":
        index = draw(st.integers(0, len(real) - 1))
        char = draw(st.characters().filter(lambda c: c != real[index]))
        return real[:index] + char + real[index + 1 :], args, False
    if kind == "cut":
        return real[: draw(st.integers(0, len(real) - 1))], args, False
    if kind == "args":
        return real, {**args, "quantity": args["quantity"] + 1}, False
    if kind == "customer":
        return prepared(args, OTHER), args, False
    if kind == "cursor":
        return first_cursor(), args, False
    return draw(st.text(max_size=40)), args, False


@SETTINGS
@given(attempt=token_calls())
def test_any_token_is_answered_and_only_its_own_call_runs(
    attempt: tuple[str, dict[str, Any], bool],
) -> None:
    [confirm] = tools("confirm_order")
    token, args, genuine = attempt
    out = call(confirm, json.dumps({**args, "token": token}))
    if genuine:
        # placed, or a declared error of the order itself (stock runs out)
        assert out["ok"] is True or not out["error"].startswith("token_"), out
    else:
        assert out["ok"] is False, out
        assert out["error"] == "invalid_arguments" or out["error"].startswith("token_")


# --- approval, through the Runner ---------------------------------------------------------

VALIDATE_FIRST = RunConfig(
    tracing_disabled=True,
    tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True),
)
PLAIN = RunConfig(tracing_disabled=True)
CANCELLED = cancel_order.CancelOrderResult(order_number="ORD-1012", cancelled_now=True)


def asked(tool: Any, raw: str, config: RunConfig) -> bool:
    model = ScriptedModel(
        [[function_call(tool.name, raw, call_id="c1")], [assistant_message("done")]]
    )
    agent: Agent[Any] = Agent(name="orders", instructions="", tools=[tool], model=model)
    result = run_agent(agent, "go", context=CONTEXT, run_config=config)
    return bool(result.interruptions)


@settings(SETTINGS, max_examples=40)
@given(raw=argument_texts("cancel_order", runner=True))
def test_a_person_is_asked_about_every_call_that_runs_and_no_other(raw: str) -> None:
    """With the guardrail before approval: asked exactly when the tool would run the text.
    With the policy alone: never a call that runs without being asked."""
    runs = call(cancel_order.build_tool(Recorder(CANCELLED)), raw)["ok"]
    recorder = Recorder(CANCELLED)
    tool = cancel_order.build_tool(recorder)
    assert asked(tool, raw, VALIDATE_FIRST) is runs
    if not asked(tool, raw, PLAIN):
        assert not runs
    assert recorder.calls == []


@pytest.mark.parametrize(
    ("raw", "raised"),
    [
        ('{"sku": ' + nested(5000) + "}", RecursionError),
        ('{"sku": "SKU-11\ud800"}', UnicodeEncodeError),
        ('{"sku": "SKU-11\\ud800"}', UnicodeEncodeError),
    ],
    ids=[
        "nested 5,000 deep",
        "a lone surrogate character",
        "a lone surrogate, escaped",
    ],
)
def test_texts_the_agents_sdk_stops_the_run_on(raw: str, raised: type) -> None:
    """Limits that remain (docs/runtime.md): openai-agents 0.24.0 reads every call's text
    before any tool code sees it, with json.loads (about 500 levels of nesting exhaust
    Python's recursion limit there, openai/openai-agents-python#4772) and as UTF-8 (a lone
    surrogate character, which the API's JSON can carry as an escape, cannot be encoded).
    The tool itself answers both; the SDK's exception is not toolgen's to catch. Should
    this test fail, the SDK has fixed them: say so in docs/runtime.md."""
    [tool] = tools("read_stock")
    assert call(tool, raw)["error"] == "invalid_arguments"  # the tool, called directly
    with pytest.raises(raised):
        asked(tool, raw, PLAIN)
