"""Toolsets of the example catalogue through the real Runner with a scripted model (issue 36):
hosted search (OpenAI Responses: namespaces, deferred tools, ToolSearchTool) and client search
(`search_tools`, which loads what it finds into the running agent), timeouts, and the tools
`all_tools()` still gives."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, ToolSearchTool
from agents.exceptions import UserError
from agents.items import ToolCallOutputItem
from agents.models.chatcmpl_converter import Converter as ChatConverter
from agents.models.openai_responses import Converter
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool import get_function_tool_responses_only_features
from jsonschema import Draft202012Validator
from openai.types.responses import (
    ResponseToolSearchCall,
    ResponseToolSearchOutputItem,
)
from toolgen_runtime import Card, lazy_tool
from toolgen_runtime.guards import Boundaries, configure_boundaries
from toolgen_runtime.toolsets import make_toolset

from generated.inventory import (
    CARDS,
    NAMESPACES,
    TOOLSETS,
    InventoryContext,
    all_tools,
    read_supplier_notice,
    tools,
    toolset,
)

ROOT = Path(__file__).resolve().parents[2]
POLICY = "Returns are accepted within 30 days.\n"


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Path]:
    """The archive root of read_document, holding the returns policy."""
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "returns.md").write_text(POLICY, encoding="utf-8")
    configure_boundaries(Boundaries(roots={"archive": tmp_path}))
    yield tmp_path
    configure_boundaries(None)


def _outputs(result: Any) -> list[dict[str, Any]]:
    return [
        json.loads(item.output)
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]


def _run(agent: Agent[Any], request: str) -> Any:
    context = InventoryContext(customer_id=1, run_id="run-1")
    return asyncio.run(Runner.run(agent, request, context=context))


# --- hosted: OpenAI Responses tool search ------------------------------------------------


def test_hosted_search_finds_a_deferred_tool_that_then_runs(archive: Path) -> None:
    tools = toolset("support")
    first_payload = Converter.convert_tools(tools, []).tools
    documents = next(t for t in first_payload if t.get("name") == "documents")
    # what OpenAI's hosted search answers: the call, and the namespace's definitions loaded
    search_call = ResponseToolSearchCall(
        id="ts_1",
        arguments={"query": "returns policy"},
        execution="server",
        status="completed",
        type="tool_search_call",
    )
    loaded = ResponseToolSearchOutputItem.model_validate(
        {
            "id": "tso_1",
            "execution": "server",
            "status": "completed",
            "type": "tool_search_output",
            "tools": [documents],
        }
    )
    model = ScriptedModel(
        [
            [
                search_call,
                loaded,
                function_call(
                    "read_document",
                    {"name": "policies/returns.md"},
                    call_id="c1",
                    namespace="documents",
                ),
            ],
            [assistant_message("Returns are accepted within 30 days.")],
        ]
    )
    agent = Agent(name="support", model=model, tools=tools)
    result = _run(agent, "What does the returns policy say?")

    # the first call carried the namespaces: the deferred one with its name and
    # description, its functions marked defer_loading; and the hosted search tool
    sent = Converter.convert_tools(model.calls[0].tools, []).tools
    by_name = {t.get("name", t["type"]): t for t in sent}
    assert by_name["documents"]["type"] == "namespace"
    assert by_name["documents"]["description"] == NAMESPACES["documents"]
    assert [
        (f["name"], f.get("defer_loading")) for f in by_name["documents"]["tools"]
    ] == [("read_document", True), ("read_supplier_notice", True)]
    assert all(not f.get("defer_loading") for f in by_name["orders"]["tools"])
    assert by_name["tool_search"] == {"type": "tool_search"}
    assert by_name["find_customer"]["type"] == "function"  # in no namespace
    # each function says what its answer holds (output_schema)
    read = by_name["documents"]["tools"][0]
    assert read["output_schema"]["required"] == [
        "ok",
        "name",
        "text",
        "size_bytes",
        "truncated",
    ]
    assert read["output_schema"]["properties"]["truncated"]["type"] == ["array", "null"]
    # the deferred tool ran, with its real implementation
    assert _outputs(result) == [
        {
            "ok": True,
            "name": "policies/returns.md",
            "text": POLICY,
            "size_bytes": len(POLICY),
        }
    ]


def test_tool_search_comes_with_deferred_tools_only() -> None:
    tools = toolset("warehouse")  # read_supplier_notice is deferred, the rest are not
    assert sum(isinstance(t, ToolSearchTool) for t in tools) == 1
    function_tools = [t for t in tools if isinstance(t, FunctionTool)]
    assert [t.name for t in function_tools] == list(TOOLSETS["warehouse"])
    deferred = [t.name for t in function_tools if t.defer_loading]
    assert deferred == ["read_supplier_notice"]
    up_front = [(CARDS[n], n) for n in ("read_stock", "next_batch")]
    for search in ("hosted", "client"):
        made = make_toolset("generated.inventory", "x", up_front, NAMESPACES, search)
        assert [getattr(t, "name", "") for t in made] == ["read_stock", "next_batch"]


def test_hosted_tools_are_refused_by_a_chat_completions_model() -> None:
    with pytest.raises(UserError, match="only supported with OpenAI Responses"):
        for tool in toolset("support"):
            if isinstance(tool, FunctionTool):
                ChatConverter.tool_to_openai(tool)


# --- client: search_tools loads what it finds into the running agent ------------------------


def test_client_search_loads_the_found_tool_for_the_next_turn(archive: Path) -> None:
    model = ScriptedModel(
        [
            [
                function_call(
                    "search_tools",
                    {"query": "what does the returns policy say", "limit": None},
                    call_id="c1",
                )
            ],
            [
                function_call(
                    "read_document", {"name": "policies/returns.md"}, call_id="c2"
                )
            ],
            [assistant_message("Returns are accepted within 30 days.")],
        ]
    )
    agent = Agent(
        name="support", model=model, tools=toolset("support", search="client")
    )
    result = _run(agent, "What does the returns policy say?")

    turns = [[getattr(t, "name", "") for t in call.tools] for call in model.calls]
    up_front = [n for n in TOOLSETS["support"] if not CARDS[n].deferred]
    assert turns[0] == [*up_front, "search_tools"]
    assert "read_document" not in turns[0]
    assert "read_document" in turns[1]
    found, read = _outputs(result)
    assert found["ok"] is True
    assert found["found"][0]["name"] == "read_document"
    assert found["found"][0]["description"] == CARDS["read_document"].description
    assert read["text"] == POLICY
    # no Responses-only feature: any model takes these tools
    for tool in model.calls[1].tools:
        assert isinstance(tool, FunctionTool)
        assert get_function_tool_responses_only_features(tool) == ()
        ChatConverter.tool_to_openai(tool)


def test_search_tools_answers_bad_arguments_and_no_match_without_loading() -> None:
    model = ScriptedModel(
        [
            [function_call("search_tools", {"query": "", "limit": 0}, call_id="c1")],
            [
                function_call(
                    "search_tools", {"query": "zzzz", "limit": 2}, call_id="c2"
                )
            ],
            [assistant_message("Nothing found.")],
        ]
    )
    tools = toolset("support", search="client")
    agent = Agent(name="support", model=model, tools=tools)
    bad, none = _outputs(_run(agent, "?"))
    assert bad["error"] == "invalid_arguments"
    assert {p["field"] for p in bad["problems"]} == {"query", "limit"}
    # one character, and no example query (one of another catalogue's would mislead)
    [query] = [p for p in bad["problems"] if p["field"] == "query"]
    assert query == {
        "field": "query",
        "problem": 'must have at least 1 character, got ""',
    }
    assert none == {
        "ok": True,
        "found": [],
        "note": "No tool matches: search again with other words, or go on with the "
        "tools you have.",
    }
    assert [t.name for t in agent.tools] == [t.name for t in tools]


def test_runs_sharing_an_agent_are_refused_a_search_and_clones_are_not() -> None:
    """search_tools changes the agent's tools: the SDK refuses that while another run uses
    the same agent (both runs raise UserError); an agent per run is the way."""

    search = {"query": "returns policy", "limit": 1}

    def run(agent: Agent[Any]) -> Any:
        model = ScriptedModel(
            [
                [function_call("search_tools", search, call_id="c")],
                [assistant_message("ok")],
            ]
        )
        context = InventoryContext(customer_id=1, run_id="run-1")
        config = RunConfig(model=model, tracing_disabled=True)
        return Runner.run(agent, "?", context=context, run_config=config)

    async def both(first: Agent[Any], second: Agent[Any]) -> list[Any]:
        return await asyncio.gather(run(first), run(second), return_exceptions=True)

    shared = Agent(name="support", tools=toolset("support", search="client"))
    assert all(isinstance(r, UserError) for r in asyncio.run(both(shared, shared)))
    clones = [shared.clone(tools=toolset("support", search="client")) for _ in "ab"]
    results = asyncio.run(both(*clones))
    assert [r.final_output for r in results] == ["ok", "ok"]
    assert all("read_document" in [t.name for t in c.tools] for c in clones)


def test_an_unknown_toolset_or_search_is_refused() -> None:
    with pytest.raises(KeyError, match="its toolsets are support, warehouse"):
        toolset("billing")
    with pytest.raises(ValueError, match="search must be 'hosted' or 'client'"):
        toolset("support", search="local")  # type: ignore[arg-type]


def test_every_answer_schema_is_valid_and_already_strict() -> None:
    """The SDK makes output_json_schema strict (ensure_strict_json_schema): the cards'
    schemas are strict already, so what the SDK sends is what toolgen wrote."""
    for card in CARDS.values():
        assert card.output_schema is not None
        Draft202012Validator.check_schema(card.output_schema)
        tool = lazy_tool(card, "unused", responses=True)
        assert tool.output_json_schema == card.output_schema, card.name


def test_all_tools_and_tools_carry_no_responses_only_feature() -> None:
    for tool in all_tools():
        assert get_function_tool_responses_only_features(tool) == (), tool.name


# --- timeouts --------------------------------------------------------------------------------


def test_a_tool_with_a_timeout_has_it_from_its_card_and_its_module() -> None:
    card = CARDS["read_supplier_notice"]
    assert (card.timeout_s, card.timeout_fix.startswith("The supplier portal")) == (
        20.0,
        True,
    )
    hosted = [t for t in toolset("warehouse") if getattr(t, "name", "") == card.name]
    made = [read_supplier_notice.TOOL, *tools(card.name), *hosted]
    assert [t.timeout_seconds for t in made] == [20.0, 20.0, 20.0]
    answer = made[1].timeout_error_function
    assert answer is not None
    assert (
        json.loads(str(answer(None, TimeoutError())))["how_to_fix"] == card.timeout_fix
    )
    assert all(t.timeout_seconds is None for t in all_tools() if t.name != card.name)


SLOW_MODULE = """
import threading, time
from agents import FunctionTool
from toolgen_runtime.threads import run_in_worker

DONE = threading.Event()

def _effect():
    time.sleep(1.5)
    DONE.set()

async def on_invoke(ctx, raw):
    await run_in_worker(_effect)
    return '{"ok": true}'

TOOL = FunctionTool(name="slow_write", description="d", params_json_schema={},
                    on_invoke_tool=on_invoke)
"""


def test_a_timeout_answers_the_envelope_and_a_sync_effect_still_happens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_module.py").write_text(textwrap.dedent(SLOW_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    schema = {"type": "object", "properties": {}, "required": []}
    schema["additionalProperties"] = False
    fix = "Nothing may have been written yet; call read_stock before trying again."
    # a worker thread picks the effect up well within the timeout, even on a loaded machine:
    # a call that times out while its effect still waits in the pool's queue cancels it
    # (asyncio cancels a job no thread has begun), and then nothing happens at all
    card = Card("slow_write", "Write slowly.", schema, timeout_s=0.5, timeout_fix=fix)
    model = ScriptedModel(
        [[function_call("slow_write", {}, call_id="c1")], [assistant_message("ok")]]
    )
    agent = Agent(name="a", model=model, tools=[lazy_tool(card, "slow_module")])
    started = time.monotonic()
    result = asyncio.run(Runner.run(agent, "write"))
    assert time.monotonic() - started < 1.4
    assert _outputs(result) == [
        {"ok": False, "error": "timeout", "how_to_fix": fix, "retryable": True}
    ]
    done: threading.Event = sys.modules["slow_module"].DONE
    assert not done.is_set()  # the model was told before the effect happened
    assert done.wait(10)  # and the worker thread still did it


def test_importing_the_package_does_not_load_the_search() -> None:
    """The search and its tool are imported by the first `toolset()` only."""
    code = (
        "import sys, generated.inventory as p\n"
        "assert 'toolgen_runtime.toolsets' not in sys.modules\n"
        "assert 'toolgen_runtime.search' not in sys.modules\n"
        "p.toolset('support', search='client')\n"
        "assert 'toolgen_runtime.toolsets' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
