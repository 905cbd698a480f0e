"""The example catalogue end to end: the real Agents SDK Runner, a scripted model, the real
implementations on a real SQLite database. What the model receives is read back from the run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from toolgen_runtime import (
    MissingContext,
    NotImplementedYet,
    ToolError,
    UndeclaredError,
)
from toolgen_runtime.guards import configure_boundaries
from toolgen_runtime.testing import boundaries_for_tests
from toolgen_runtime.testing.helpers import run_agent

from generated.inventory import InventoryContext, all_tools
from generated.inventory import read_stock as read_stock_module
from impl.inventory.db import close_database, use_database

CONTEXT = InventoryContext(customer_id=1, run_id="run-e2e")


@pytest.fixture(autouse=True)
def database(tmp_path: Path) -> Iterator[None]:
    use_database(tmp_path / "inventory.db")
    # the archive root and the cursor signer the deployment would configure
    configure_boundaries(boundaries_for_tests({"archive": ("note.md",)}))
    yield
    configure_boundaries(None)
    close_database()


def run(
    calls: list[tuple[str, dict[str, Any]]], context: object = CONTEXT
) -> list[Any]:
    """Run one turn of scripted tool calls; return what the model received, in order."""
    script = [
        function_call(name, args, call_id=f"c{i}")
        for i, (name, args) in enumerate(calls)
    ]
    agent = Agent[Any](
        name="inventory",
        instructions="Help with the warehouse.",
        tools=list(all_tools()),
        model=ScriptedModel([script, [assistant_message("done")]]),
    )
    result = run_agent(agent, "go", context=context)
    return [
        json.loads(str(item.output))
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]


def test_a_near_miss_returns_suggestions_and_how_to_fix() -> None:
    [out] = run([("find_customer", {"name": "Brambilla"})])
    assert out["ok"] is False
    assert out["error"] == "customer_not_found"
    assert out["suggestions"] == ["Brambilla SRL"]
    assert "name" in out["how_to_fix"]


def test_the_customer_comes_from_the_context_only() -> None:
    [mine] = run(
        [
            (
                "search_orders",
                {"status": None, "since": None, "cursor": None, "page_size": 50},
            )
        ]
    )
    [theirs] = run(
        [
            (
                "search_orders",
                {"status": None, "since": None, "cursor": None, "page_size": 50},
            )
        ],
        InventoryContext(customer_id=2, run_id="run-e2e"),
    )
    assert mine["ok"] and theirs["ok"]
    assert {o["order_number"][:5] for o in mine["items"]} == {"ORD-1"}
    assert {o["order_number"][:5] for o in theirs["items"]} == {"ORD-2"}
    [forged] = run(
        [
            (
                "search_orders",
                {
                    "status": None,
                    "since": None,
                    "cursor": None,
                    "page_size": 5,
                    "customer_id": 2,
                },
            )
        ]
    )
    assert forged["error"] == "invalid_arguments"
    assert [p["field"] for p in forged["problems"]] == ["customer_id"]


def test_a_page_says_how_much_it_shows() -> None:
    [out] = run(
        [
            (
                "search_orders",
                {"status": None, "since": None, "cursor": None, "page_size": None},
            )
        ]
    )
    assert out["shown"] == 10 and out["total_available"] == 14
    assert out["note"].startswith("Showing orders 1-10 of 14.")
    assert out["next_cursor"]


def test_a_repeated_reorder_is_the_same_proposal() -> None:
    args = {"sku": "SKU-11", "quantity": 5, "urgency": None}
    first, second = run([("create_reorder", args), ("create_reorder", args)])
    # the Runner runs the calls of one turn at once: one of them makes the proposal, which
    # one is up to the scheduler (on Python 3.13, once a run has warmed the threads, the
    # second call is often first)
    assert sorted([first["created"], second["created"]]) == [False, True]
    assert first["proposal_id"] == second["proposal_id"]
    assert first["urgency"] == "standard"  # null means the default


def test_bad_arguments_name_the_field_and_never_reach_the_implementation() -> None:
    outs = run(
        [
            ("create_reorder", {"sku": "sku-11", "quantity": 0, "urgency": "asap"}),
            ("next_batch", {"batch": True}),
            ("next_batch", {"batch": "4"}),
            ("next_batch", {"batch": 4.0}),
        ]
    )
    assert all(o["error"] == "invalid_arguments" for o in outs)
    assert [p["field"] for p in outs[0]["problems"]] == ["sku", "quantity", "urgency"]
    assert outs[0]["problems"][0]["example"] == "SKU-11"
    assert "must match the pattern" in outs[0]["problems"][0]["problem"]
    assert all(o["problems"][0]["field"] == "batch" for o in outs[1:])
    # nothing was written: the reorder table is still empty for this run
    [again] = run(
        [("create_reorder", {"sku": "SKU-11", "quantity": 1, "urgency": None})]
    )
    assert again["created"] is True and again["proposal_id"].endswith("1")


def test_unknown_sku_lists_the_known_ones() -> None:
    [out] = run([("read_stock", {"sku": "SKU-999"})])
    assert out["error"] == "unknown_sku"
    assert "SKU-11" in out["known_skus"]
    assert out["retryable"] is False


def test_a_missing_run_context_stops_the_run() -> None:
    with pytest.raises(MissingContext, match="InventoryContext"):
        run(
            [("search_orders", {"status": None, "since": None, "max_results": 5})], None
        )


def _run_one_tool(tool: Any, args: dict[str, Any]) -> None:
    agent = Agent[Any](
        name="one",
        instructions="",
        tools=[tool],
        model=ScriptedModel(
            [[function_call(tool.name, args, call_id="c")], [assistant_message("x")]]
        ),
    )
    run_agent(agent, "go", context=CONTEXT)


def test_a_stub_stops_the_run_naming_the_file_to_edit() -> None:
    def stub(args: Any) -> Any:
        raise NotImplementedYet("read_stock", "impl/inventory/read_stock.py")

    with pytest.raises(NotImplementedYet, match=r"impl/inventory/read_stock\.py"):
        _run_one_tool(read_stock_module.build_tool(stub), {"sku": "SKU-11"})


def test_an_undeclared_error_code_stops_the_run() -> None:
    def broken(args: Any) -> Any:
        raise ToolError("warehouse_on_fire")

    with pytest.raises(UndeclaredError, match="warehouse_on_fire"):
        _run_one_tool(read_stock_module.build_tool(broken), {"sku": "SKU-11"})


@pytest.mark.parametrize("sku", ["SKU-11\n", "SKU-\u0661\u0661", "xSKU-11"])
def test_patterns_mean_what_the_schema_says(sku: str) -> None:
    # JSON Schema patterns are ECMA-262: $ is the end of the text and \d is ASCII
    [out] = run([("read_stock", {"sku": sku})])
    assert out["error"] == "invalid_arguments"
    assert out["problems"][0]["problem"].startswith(
        "must match the pattern ^SKU-\\d{2,6}$"
    )


def test_examples_and_choices_keep_their_json_types() -> None:
    [out] = run(
        [("create_reorder", {"sku": "SKU-11", "quantity": 0, "urgency": "asap"})]
    )
    quantity, urgency = out["problems"]
    assert quantity["example"] == 5
    assert urgency["problem"] == 'must be one of "standard" or "urgent", got "asap"'
