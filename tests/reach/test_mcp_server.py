"""The exported MCP server, started over stdio and driven by the `mcp` client library.

The module `toolgen export --to mcp` writes for spec/inventory runs as its own process with
the run context in its environment; the client lists the tools and compares them with the
generated modules and the contracts, reads the annotations, and makes valid, invalid and
failing calls.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from toolgen_runtime.mcp import (
    CatalogueServer,
    Contract,
    MisconfiguredServer,
    context_from_environment,
)
from toolgen_runtime.testing import invoke

from generated.inventory import InventoryContext, all_tools
from toolgen import cli, pipeline, snapshot

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "spec" / "inventory"
ENV = {"INVENTORY_CUSTOMER_ID": "1", "INVENTORY_RUN_ID": "mcp-test"}
# the store and secret the write tools need (toolgen-runtime's pytest plugin sets them)
SERVICES = {k: os.environ[k] for k in ("TOOLGEN_STORE_URL", "TOOLGEN_SECRET")}


@pytest.fixture(scope="module")
def server_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcp") / "inventory_mcp.py"
    assert cli.main(["export", "--to", "mcp", str(CATALOGUE), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def contracts() -> dict[str, dict[str, Any]]:
    result = pipeline.check_catalogue(CATALOGUE, ROOT, implementations=False)
    assert result.catalogue is not None
    data = snapshot.catalogue_snapshot(result.catalogue)
    return {t["name"]: t for t in data["tools"]}


@asynccontextmanager
async def _session(module: Path, **env: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(module)],
        env={"PYTHONPATH": str(ROOT), **SERVICES, **env},
        cwd=ROOT,
    )
    with open(os.devnull, "w") as quiet:  # the server's log of the failing call
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _run(coroutine: Any) -> Any:
    async def main() -> Any:
        return await coroutine

    return anyio.run(main)


def test_listed_tools_are_the_contracts(
    server_module: Path, contracts: dict[str, dict[str, Any]]
) -> None:
    async def listed() -> list[dict[str, Any]]:
        async with _session(server_module, **ENV) as session:
            found = await session.list_tools()
        return [t.model_dump(by_alias=True, exclude_none=True) for t in found.tools]

    tools = _run(listed())
    # a tool a person approves is left out (test_approval_tools_are_left_out_and_named)
    served = [n for n, c in contracts.items() if c["confirmation"] != "approval"]
    assert [t["name"] for t in tools] == served
    for tool in tools:
        module = importlib.import_module(f"generated.inventory.{tool['name']}")
        contract = contracts[tool["name"]]
        assert tool["description"] == module.DESCRIPTION
        assert tool["inputSchema"] == module.PARAMETERS
        output = tool["outputSchema"]
        assert output["properties"]["ok"] == {"type": "boolean", "const": True}
        assert {k: v for k, v in output["properties"].items() if k != "ok"} == (
            contract["returns"]["properties"]
        )
        assert output["required"] == ["ok", *contract["returns"]["required"]]
        hints = tool["annotations"]
        # every hint written: silence reads as destructive and open-world
        assert set(hints) == {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }
        assert hints["readOnlyHint"] is (contract["effect"] == "read")
        assert hints["destructiveHint"] is (contract["effect"] == "destructive")
        assert hints["openWorldHint"] is contract["open_world"]
    by_name = {t["name"]: t["annotations"] for t in tools}
    assert by_name["create_reorder"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert by_name["read_stock"]["idempotentHint"] is True


def test_calls_answer_with_the_envelopes(server_module: Path) -> None:
    async def calls() -> list[Any]:
        async with _session(server_module, **ENV) as session:
            return [
                await session.call_tool("read_stock", {"sku": "SKU-11"}),
                await session.call_tool("read_stock", {"sku": "sku-11"}),
                await session.call_tool("read_stock", {"sku": "SKU-999"}),
                await session.call_tool(
                    "search_orders",
                    {
                        "status": None,
                        "since": None,
                        "cursor": None,
                        "page_size": 5,
                        "customer_id": 2,
                    },
                ),
            ]

    valid, invalid, declared, smuggled = _run(calls())
    expected = invoke(
        {t.name: t for t in all_tools()}["read_stock"],
        {"sku": "SKU-11"},
        InventoryContext(customer_id=1, run_id="mcp-test"),
    )
    assert valid.is_error is False
    assert valid.structured_content == expected
    assert json.loads(valid.content[0].text) == expected
    assert invalid.is_error is True and invalid.structured_content is None
    answer = json.loads(invalid.content[0].text)
    assert answer["error"] == "invalid_arguments"
    assert [p["field"] for p in answer["problems"]] == ["sku"]
    assert declared.is_error is True
    assert json.loads(declared.content[0].text)["error"] == "unknown_sku"
    # the context comes from the server's configuration: an argument cannot set it
    problems = json.loads(smuggled.content[0].text)["problems"]
    assert smuggled.is_error and [p["field"] for p in problems] == ["customer_id"]


def test_an_infrastructure_failure_is_a_protocol_error(
    server_module: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    unreachable = (
        blocker / "inventory.db"
    )  # its folder cannot be made: the store is down

    async def call() -> MCPError:
        async with _session(
            server_module, **ENV, INVENTORY_DB=str(unreachable)
        ) as session:
            with pytest.raises(MCPError) as caught:
                await session.call_tool("read_stock", {"sku": "SKU-11"})
            return caught.value

    error = _run(call())
    assert error.code == -32603
    assert "read_stock failed" in error.message
    assert str(unreachable) not in error.message  # details stay in the server's log


def test_the_context_is_read_from_the_environment() -> None:
    assert context_from_environment(InventoryContext, "INVENTORY_", ENV) == (
        InventoryContext(customer_id=1, run_id="mcp-test")
    )
    with pytest.raises(MisconfiguredServer, match="INVENTORY_RUN_ID"):
        context_from_environment(
            InventoryContext, "INVENTORY_", {"INVENTORY_CUSTOMER_ID": "1"}
        )
    with pytest.raises(MisconfiguredServer, match="INVENTORY_CUSTOMER_ID"):
        context_from_environment(
            InventoryContext,
            "INVENTORY_",
            {"INVENTORY_CUSTOMER_ID": "seven", "INVENTORY_RUN_ID": "r"},
        )


def test_approval_cannot_be_served_unguarded() -> None:
    tool = {t.name: t for t in all_tools()}["next_batch"]
    contract = Contract("read", False, False, "approval", {"properties": {}})
    with pytest.raises(MisconfiguredServer, match="approval"):
        CatalogueServer("inventory", [tool], {"next_batch": contract}, lambda: None)
    with pytest.raises(MisconfiguredServer, match="no contract for next_batch"):
        CatalogueServer("inventory", [tool], {}, lambda: None)


def test_approval_tools_are_left_out_and_named(
    server_module: Path,
    contracts: dict[str, dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    approval = [n for n, c in contracts.items() if c["confirmation"] == "approval"]
    assert approval == ["cancel_order"]
    source = server_module.read_text(encoding="utf-8")
    assert "'cancel_order'" not in source and '"cancel_order"' not in source
    assert "Left out: cancel_order, since a person approves" in " ".join(source.split())
    out = tmp_path / "server.py"
    assert cli.main(["export", "--to", "mcp", str(CATALOGUE), "--out", str(out)]) == 0
    assert "note: cancel_order: left out of the MCP server" in capsys.readouterr().err


def test_a_token_pair_works_over_mcp(server_module: Path) -> None:
    """confirm_order needs the token prepare_order issued for the same arguments and the
    same customer (the server's run context); the token is an ordinary argument."""
    order = {"sku": "SKU-12", "quantity": 1}

    async def calls() -> list[Any]:
        async with _session(server_module, **ENV) as session:
            without = await session.call_tool("confirm_order", {**order, "token": "x"})
            prepared = await session.call_tool("prepare_order", order)
            token = json.loads(prepared.content[0].text)["token"]
            placed = await session.call_tool("confirm_order", {**order, "token": token})
            again = await session.call_tool("confirm_order", {**order, "token": token})
            return [without, prepared, placed, again]

    without, prepared, placed, again = _run(calls())
    assert without.is_error is True
    assert json.loads(without.content[0].text)["error"] == "token_invalid"
    assert prepared.is_error is False
    assert placed.is_error is False
    assert placed.structured_content["order_number"]
    assert again.is_error is True  # a token acts once
    assert json.loads(again.content[0].text)["error"] == "token_used"


@pytest.mark.parametrize(
    ("missing", "error"),
    [("TOOLGEN_SECRET", "MissingSecret"), ("TOOLGEN_STORE_URL", "StoreNotConfigured")],
)
def test_the_server_does_not_start_without_the_store_or_the_secret(
    server_module: Path, missing: str, error: str
) -> None:
    """Importing the tools needs neither; the server's main() checks them first."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), **ENV, **SERVICES}
    del env[missing]
    done = subprocess.run(
        [sys.executable, str(server_module)],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"{error}: {missing} is not set" in done.stderr
