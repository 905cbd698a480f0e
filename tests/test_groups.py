"""Namespaces, deferral, toolsets, asks and timeouts (issue 36) in the IR: what the model stage
reads and resolves, what a tool's summary keeps for the catalogue-wide stages, and that a
build resolves toolsets over the summaries as `check` does over the whole IR."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from test_model import build

from toolgen.build import cache, pipeline, recovery
from toolgen.spec.groups import search_document, with_toolsets
from toolgen.spec.ir import Timeout, Tool
from toolgen.spec.snapshot import catalogue_snapshot
from toolgen.spec.summary import ToolSummary, summary

ROOT = Path(__file__).resolve().parents[1]

CATALOGUE = """\
format: 1
name: shop
description: A shop.
context:
  customer_id:
    type: integer
    description: The signed-in customer.
namespaces:
  orders:
    description: The customer's orders.
  archive:
    description: Documents of the archive.
    deferred: true
toolsets:
  support:
    description: The support agent.
    tools: [orders, find_customer]
    budget: 900
  archivist:
    tools: [archive, confirm_order]
"""


def tool(name: str, extra: str = "") -> str:
    return (
        f"name: {name}\nintent: Do what {name} says.\neffect: read\n{extra}"
        "examples:\n  - args: {}\n"
    )


CONFIRM = """\
name: confirm_order
intent: Place an order.
effect: write
confirmation: token
context: [customer_id]
namespace: orders
asks: [Buy two chairs.]
timeout: {seconds: 2.5, how_to_fix: Nothing may have been ordered; call search_orders.}
params:
  quantity: {type: integer, min: 1, max: 9, example: 2, description: Pieces to buy.}
examples:
  - args: {quantity: 2}
"""

TOOLS = (
    tool("find_customer", "asks:\n  - '  Who is Ada?  '\n  - Find Grace.\n"),
    tool("search_orders", "namespace: orders\n"),
    tool("read_document", "namespace: archive\n"),
    tool("read_policy", "namespace: archive\ndeferred: false\n"),
    tool("list_faq", "namespace: orders\ndeferred: true\n"),
    CONFIRM,
)


def _tools(tmp_path: Path) -> dict[str, Tool]:
    result = build(tmp_path, *TOOLS, catalogue=CATALOGUE)
    assert result.diagnostics == ()
    assert result.catalogue is not None
    return {t.name: t for t in result.catalogue.tools}


def test_deferral_is_the_tools_own_else_its_namespaces_else_false(
    tmp_path: Path,
) -> None:
    tools = _tools(tmp_path)
    assert {name: (t.namespace, t.deferred) for name, t in tools.items()} == {
        "find_customer": (None, False),
        "search_orders": ("orders", False),
        "read_document": ("archive", True),
        "read_policy": ("archive", False),
        "list_faq": ("orders", True),
        "confirm_order": ("orders", False),
        "prepare_order": ("orders", False),
    }
    assert tools["find_customer"].asks == ("Who is Ada?", "Find Grace.")
    assert tools["search_orders"].asks == () and tools["search_orders"].timeout is None


def test_the_prepare_tool_has_its_contracts_grouping_asks_and_timeout(
    tmp_path: Path,
) -> None:
    tools = _tools(tmp_path)
    timeout = Timeout(2.5, "Nothing may have been ordered; call search_orders.")
    for name in ("confirm_order", "prepare_order"):
        made = tools[name]
        assert (made.namespace, made.asks, made.timeout) == (
            "orders",
            ("Buy two chairs.",),
            timeout,
        ), name


def test_toolsets_resolve_namespaces_and_token_pairs_in_name_order(
    tmp_path: Path,
) -> None:
    result = build(tmp_path, *TOOLS, catalogue=CATALOGUE)
    assert result.catalogue is not None
    toolsets = {t.name: t for t in result.catalogue.toolsets}
    assert sorted(toolsets) == ["archivist", "support"]
    support = toolsets["support"]
    assert support.members == ("orders", "find_customer")
    assert support.tools == (
        "confirm_order",
        "find_customer",
        "list_faq",
        "prepare_order",
        "search_orders",
    )
    assert (support.description, support.budget) == ("The support agent.", 900)
    assert toolsets["archivist"].tools == (
        "confirm_order",
        "prepare_order",
        "read_document",
        "read_policy",
    )
    assert toolsets["archivist"].budget is None
    assert support.origin.span("tools", 1).line == 17
    # resolving again changes nothing
    again = with_toolsets(
        result.catalogue, [summary(t) for t in result.catalogue.tools]
    )
    assert again.toolsets == result.catalogue.toolsets


def test_without_toolsets_one_toolset_all_holds_every_tool(tmp_path: Path) -> None:
    plain = CATALOGUE.split("toolsets:")[0]
    result = build(tmp_path, *TOOLS, catalogue=plain)
    assert result.catalogue is not None
    (every,) = result.catalogue.toolsets
    assert every.name == "all" and every.implicit and every.budget is None
    assert every.tools == tuple(sorted(t.name for t in result.catalogue.tools))


def test_namespaces_are_read_in_name_order_with_their_places(tmp_path: Path) -> None:
    result = build(tmp_path, *TOOLS, catalogue=CATALOGUE)
    assert result.catalogue is not None
    namespaces = result.catalogue.namespaces
    assert [(n.name, n.deferred) for n in namespaces] == [
        ("archive", True),
        ("orders", False),
    ]
    assert namespaces[1].description == "The customer's orders."
    assert namespaces[1].origin.key_span.line == 9


def test_a_summary_keeps_what_search_reads_and_the_cache_keeps_every_field(
    tmp_path: Path,
) -> None:
    tools = _tools(tmp_path)
    confirm = summary(tools["confirm_order"])
    result = build(tmp_path / "again", *TOOLS, catalogue=CATALOGUE)
    assert result.catalogue is not None
    document = search_document(confirm, result.catalogue)
    assert document.asks == ("Buy two chairs.",)
    assert document.parameters == (("quantity", "Pieces to buy."),)
    assert (document.namespace, document.namespace_description) == (
        "orders",
        "The customer's orders.",
    )
    # a summary whose every field differs from its default, so a field the cache
    # forgets (or reads back as its default) fails here
    full = dataclasses.replace(confirm, deferred=True)
    for spec in dataclasses.fields(ToolSummary):
        if spec.default is not dataclasses.MISSING:
            assert getattr(full, spec.name) != spec.default, spec.name
    unit = cache.ToolUnit("f.yaml", "front", "key", None, (full,), ())
    assert cache.decoded(cache.ToolUnit, json.loads(cache.unit_line(unit))) == unit


def test_a_build_resolves_toolsets_as_check_does(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    shutil.copytree(ROOT / "spec" / "inventory", tmp_path / "spec" / "inventory")
    folder = tmp_path / "spec" / "inventory"
    checked = pipeline.check_catalogue(folder, tmp_path, implementations=False)
    with recovery.build_lock(tmp_path):
        built = pipeline.build_catalogue(folder, tmp_path)
    assert checked.catalogue is not None and built.check.catalogue is not None
    assert built.check.catalogue.toolsets == checked.catalogue.toolsets
    assert {t.name for t in checked.catalogue.toolsets} == {"support", "warehouse"}


def test_the_snapshot_says_namespaces_toolsets_and_each_tools_grouping(
    tmp_path: Path,
) -> None:
    result = build(tmp_path, *TOOLS, catalogue=CATALOGUE)
    assert result.catalogue is not None
    shot = catalogue_snapshot(result.catalogue)
    assert shot["namespaces"]["archive"] == {
        "description": "Documents of the archive.",
        "deferred": True,
    }
    assert shot["toolsets"]["support"]["members"] == ["orders", "find_customer"]
    assert shot["toolsets"]["support"]["budget"] == 900
    by_name = {t["name"]: t for t in shot["tools"]}
    assert by_name["read_document"]["namespace"] == "archive"
    assert by_name["read_document"]["deferred"] is True
    assert by_name["confirm_order"]["asks"] == ["Buy two chairs."]
    assert by_name["confirm_order"]["timeout"] == {
        "seconds": 2.5,
        "how_to_fix": "Nothing may have been ordered; call search_orders.",
    }
    assert by_name["find_customer"]["timeout"] is None
