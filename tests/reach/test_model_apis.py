"""The model APIs through their official SDKs, as docs/howto-raw-apis.md uses them: each SDK
(openai, anthropic, google-genai) talks to a model API on 127.0.0.1 (tests/reach/model_api.py)
with the definitions `toolgen export` wrote; the calls the model makes are taken from the
SDK's own response objects, run with `run_call`, and their answers sent back in that API's
shape. Then what a hostile model can send through an SDK: every call is answered, none stops
the run."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types
from toolgen_runtime import ToolSearch, run_call
from toolgen_runtime.guards import configure_boundaries

from generated.inventory import InventoryContext, all_tools
from impl.inventory import orders
from impl.inventory.db import close_database, use_database
from tests.reach import model_api
from tests.reach.model_api import ModelAPI
from toolgen import cli

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {tool.name: tool for tool in all_tools()}
CONTEXT = InventoryContext(customer_id=7, run_id="run-apis")
RETURNS_POLICY = "# Returns policy\nThirty days.\n"


@pytest.fixture(scope="module", autouse=True)
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """An archive holding the returns policy, configured as a deployment would: in the
    environment, which the generated tools read at their first call."""
    folder = tmp_path_factory.mktemp("archive")
    (folder / "returns.md").write_text(RETURNS_POLICY, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLGEN_ROOT_ARCHIVE", str(folder))
        configure_boundaries(None)  # read again from this environment
        yield
    configure_boundaries(None)


@pytest.fixture(autouse=True)
def database(tmp_path: Path) -> Iterator[None]:
    use_database(tmp_path / "inventory.db")
    yield
    close_database()


def _definitions(api: str, tmp_path: Path) -> dict[str, Any]:
    """What `toolgen export --to <api> spec/inventory --out` writes."""
    out = tmp_path / f"{api}.json"
    with contextlib.redirect_stderr(io.StringIO()):
        argv = ["export", "--to", api, str(ROOT / "spec/inventory"), "--out", str(out)]
        assert cli.main(argv) == 0
    loaded: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return loaded


def _run(
    name: str, arguments: Any, call_id: str, search: ToolSearch | None = None
) -> str:
    tool = (
        search.tool if search is not None and name == search.tool.name else TOOLS[name]
    )
    return asyncio.run(run_call(tool, arguments, CONTEXT, call_id=call_id))


def _ok(answer: str) -> bool:
    return bool(json.loads(answer)["ok"])


def test_responses_runs_each_call_and_sends_its_output_back(tmp_path: Path) -> None:
    definitions = _definitions("openai-responses", tmp_path)
    with ModelAPI() as api:
        api.push(
            "responses",
            model_api.responses(
                ("call_a", "read_stock", '{"sku": "SKU-11"}'),
                ("call_b", "read_stock", '{"sku": "SKU-1"}'),
            ),
            model_api.responses(text="done"),
        )
        client = openai.OpenAI(base_url=f"{api.origin}/v1", api_key="-", max_retries=0)
        items: list[Any] = [{"role": "user", "content": "How many SKU-11 are left?"}]
        first = client.responses.create(model="fake", input=items, **definitions)
        calls = [item for item in first.output if item.type == "function_call"]
        answers = {c.call_id: _run(c.name, c.arguments, c.call_id) for c in calls}
        items += [item.model_dump(exclude_none=True) for item in first.output]
        items += [
            {"type": "function_call_output", "call_id": call_id, "output": answer}
            for call_id, answer in answers.items()
        ]
        second = client.responses.create(model="fake", input=items, **definitions)
    assert second.output_text == "done"
    sent = api.bodies("responses")
    assert sent[0]["tools"] == sent[1]["tools"] == definitions["tools"]
    assert _ok(answers["call_a"])
    assert json.loads(answers["call_b"])["problems"][0]["field"] == "sku"
    outputs = [i for i in sent[1]["input"] if i.get("type") == "function_call_output"]
    assert {o["call_id"]: o["output"] for o in outputs} == answers


def test_chat_finds_a_deferred_tool_with_search_tools_then_runs_it(
    tmp_path: Path,
) -> None:
    definitions = _definitions("openai-chat", tmp_path)
    search = ToolSearch(definitions)
    query = '{"query": "what does the returns policy say", "limit": 1}'
    with ModelAPI() as api:
        api.push(
            "chat",
            model_api.chat(("call_1", "search_tools", query)),
            model_api.chat(("call_2", "read_document", '{"name": "returns.md"}')),
            model_api.chat(text="Thirty days."),
        )
        client = openai.OpenAI(base_url=f"{api.origin}/v1", api_key="-", max_retries=0)
        messages: list[Any] = [
            {"role": "user", "content": "What is the returns policy?"}
        ]
        while True:
            response = client.chat.completions.create(
                model="fake", messages=messages, tools=search.tools()
            )
            message = response.choices[0].message
            if not message.tool_calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                answer = _run(
                    call.function.name, call.function.arguments, call.id, search
                )
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": answer}
                )
    assert message.content == "Thirty days."
    sent = api.bodies("chat")
    assert sent[0]["tools"] == definitions["tools"]
    assert sent[1]["tools"] == [
        *definitions["tools"],
        definitions["deferred_tools"]["read_document"],
    ]
    read = json.loads(sent[2]["messages"][-1]["content"])
    assert read["ok"] and RETURNS_POLICY.strip() in read["text"]


def test_anthropic_runs_a_write_once_and_sends_the_results_back(tmp_path: Path) -> None:
    definitions = _definitions("anthropic", tmp_path)
    before = orders.count_purchase_orders()
    order = {"order_ref": "API-1", "sku": "SKU-11", "quantity": 5}
    with ModelAPI() as api:
        api.push(
            "anthropic",
            # the same write twice in one answer, as parallel tool calls may be
            model_api.anthropic(
                ("toolu_1", "send_order", order), ("toolu_2", "send_order", order)
            ),
            model_api.anthropic(text="Ordered."),
        )
        client = anthropic.Anthropic(base_url=api.origin, api_key="-", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Order 5 of SKU-11."}]
        first = client.messages.create(
            model="fake", max_tokens=100, messages=messages, **definitions
        )
        results = [
            {
                "type": "tool_result",
                "tool_use_id": block.id,
                "content": _run(block.name, block.input, block.id),
            }
            for block in first.content
            if block.type == "tool_use"
        ]
        messages += [
            {"role": "assistant", "content": [b.model_dump() for b in first.content]},
            {"role": "user", "content": results},
        ]
        client.messages.create(
            model="fake", max_tokens=100, messages=messages, **definitions
        )
    sent = api.bodies("anthropic")
    assert sent[0]["tools"] == definitions["tools"]
    assert sent[1]["messages"][-1]["content"] == results
    answers = [json.loads(result["content"]) for result in results]
    assert [a["ok"] for a in answers] == [True, True]
    assert answers[0]["purchase_order_number"] == answers[1]["purchase_order_number"]
    assert orders.count_purchase_orders() == before + 1


def test_gemini_runs_a_call_without_args_and_a_deferred_tool(tmp_path: Path) -> None:
    definitions = _definitions("gemini", tmp_path)
    search = ToolSearch(definitions)
    query = {"query": "what does the returns policy say", "limit": 1}
    with ModelAPI() as api:
        api.push(
            "gemini",
            # Gemini leaves `args` out of a call without arguments
            model_api.gemini(
                {"name": "search_tools", "args": query}, {"name": "read_stock"}
            ),
            model_api.gemini({"name": "read_document", "args": {"name": "returns.md"}}),
            model_api.gemini(text="Thirty days."),
        )
        options = types.HttpOptions(base_url=api.origin)
        client = genai.Client(api_key="-", http_options=options)
        contents: list[Any] = [types.UserContent(parts=[types.Part(text="Returns?")])]
        answers = []
        while True:
            config = types.GenerateContentConfig(tools=search.tools())
            response = client.models.generate_content(
                model="fake", contents=contents, config=config
            )
            if not response.function_calls:
                break
            assert response.candidates and response.candidates[0].content
            contents.append(response.candidates[0].content)
            parts = []
            for call in response.function_calls:
                assert call.name is not None
                answer = _run(call.name, call.args, call.id or call.name, search)
                answers.append(json.loads(answer))
                reply = types.FunctionResponse(name=call.name, response=answers[-1])
                parts.append(types.Part(function_response=reply))
            contents.append(types.UserContent(parts=parts))
    assert response.text == "Thirty days."
    assert answers[1]["problems"][0] == {"field": "sku", "problem": "is missing"}
    assert answers[2].get("ok"), answers[2]
    assert RETURNS_POLICY.strip() in answers[2]["text"]
    # the SDK writes each declaration's keys in snake_case; what they hold is the export's
    sent = api.bodies("gemini")[1]["tools"][0]["functionDeclarations"]
    deferred = definitions["deferred_tools"]["read_document"]
    assert sent[-1]["parameters_json_schema"] == deferred["parametersJsonSchema"]


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _at_depth(frames: int, call: Any) -> Any:
    return call() if frames == 0 else _at_depth(frames - 1, call)


@pytest.mark.parametrize("depth", [300, 5_000])
def test_an_object_nested_deeper_than_the_tool_reads_is_answered(depth: int) -> None:
    """Anthropic's and Gemini's SDKs hand over arguments they parsed: one nested deeper than
    Python encodes from where the application runs it is answered as its text would be."""
    arguments = {"sku": _nested(depth)}
    answer = _at_depth(
        sys.getrecursionlimit() // 2, lambda: _run("read_stock", arguments, "deep")
    )
    problem = json.loads(answer)["problems"][0]
    assert problem["field"] == "$"
    assert "more than 201 levels deep" in problem["problem"]


def test_a_lone_surrogate_in_an_object_is_named_as_in_text() -> None:
    as_object = json.loads(_run("read_stock", {"sku": "\ud800"}, "surrogate"))
    as_text = json.loads(_run("read_stock", '{"sku": "\ud800"}', "surrogate"))
    assert as_object == as_text
    assert "lone surrogate" in as_object["problems"][0]["problem"]
