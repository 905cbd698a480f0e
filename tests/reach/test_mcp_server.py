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
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from toolgen_runtime.mcp import (
    CatalogueServer,
    Contract,
    MisconfiguredServer,
    Settings,
    context_from_environment,
)
from toolgen_runtime.search_tool import SEARCH_PARAMETERS, SEARCH_TOOL
from toolgen_runtime.testing import invoke

import toolgen
from generated.inventory import InventoryContext, all_tools
from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop.export.mcpmodule import environment_variables
from toolgen.spec import snapshot

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "spec" / "inventory"
ENV = {"INVENTORY_CUSTOMER_ID": "1", "INVENTORY_RUN_ID": "mcp-test"}
# the store and secret the write tools need (toolgen-runtime's pytest plugin sets them)
SERVICES = {k: os.environ[k] for k in ("TOOLGEN_STORE_URL", "TOOLGEN_SECRET")}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The run context, and the folder of read_document's root: the server's settings
    besides the store and the secret."""
    folder = tmp_path_factory.mktemp("archive")
    (folder / "note.md").write_text("hello", encoding="utf-8")
    return {**ENV, "TOOLGEN_ROOT_ARCHIVE": str(folder)}


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
            # the deferred tools (the documents namespace) are listed once found
            query = {"query": "read a document or a supplier notice", "limit": 10}
            await session.call_tool(SEARCH_TOOL, query)
            yield session


def _run(coroutine: Any) -> Any:
    async def main() -> Any:
        return await coroutine

    return anyio.run(main)


def test_listed_tools_are_the_contracts(
    server_module: Path,
    contracts: dict[str, dict[str, Any]],
    settings: dict[str, str],
) -> None:
    async def listed() -> tuple[Any, list[dict[str, Any]]]:
        async with _session(server_module, **settings) as session:
            found = await session.list_tools()
            info = session.server_info
        return info, [
            t.model_dump(by_alias=True, exclude_none=True) for t in found.tools
        ]

    info, tools = _run(listed())
    assert (info.name, info.version) == ("inventory", toolgen.__version__)
    # a tool a person approves is left out (test_approval_tools_are_left_out_and_named)
    served = [n for n, c in contracts.items() if c["confirmation"] != "approval"]
    # search_tools, then the deferred tools it found, after those loaded up front
    search = next(t for t in tools if t["name"] == SEARCH_TOOL)
    assert search["inputSchema"] == SEARCH_PARAMETERS
    tools.remove(search)
    assert sorted(t["name"] for t in tools) == served
    for tool in tools:
        module = importlib.import_module(f"generated.inventory.{tool['name']}")
        contract = contracts[tool["name"]]
        assert tool["description"] == module.DESCRIPTION
        assert tool["inputSchema"] == module.PARAMETERS
        # every success answer: the declared fields, or a page of them
        output = tool["outputSchema"]
        fields = contract["returns"]
        assert output["properties"]["ok"] == {"type": "boolean", "const": True}
        if "pagination" in contract:
            assert output["properties"]["items"]["items"] == fields
            page = ["items", "shown", "total_available", "next_cursor", "note"]
            assert output["required"] == ["ok", *page]
        else:
            answer = {k: output["properties"][k] for k in fields["properties"]}
            assert answer == fields["properties"]
            assert output["required"] == ["ok", *fields["required"]]
        # what the runtime may add: a repeat's mark, the texts it cut
        assert ("duplicate" in output["properties"]) is (
            contract["idempotency"]["kind"] == "key"
        )
        assert ("truncated" in output["properties"]) is ("output" in contract)
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


def test_calls_answer_with_the_envelopes(
    server_module: Path, settings: dict[str, str]
) -> None:
    async def calls() -> list[Any]:
        async with _session(server_module, **settings) as session:
            return [
                await session.call_tool("read_stock", {"sku": "SKU-11"}),
                await session.call_tool("read_stock", {"sku": "sku-11"}),
                await session.call_tool("read_stock", {"sku": "SKU-999"}),
                await session.call_tool("read_document", {"name": "../outside.md"}),
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

    valid, invalid, declared, outside, smuggled = _run(calls())
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
    # a path outside the root is the model's to correct, not a failure of the server
    answer = json.loads(outside.content[0].text)
    assert outside.is_error is True and outside.structured_content is None
    assert answer["error"] == "invalid_arguments"
    assert [(p["field"], p["code"]) for p in answer["problems"]] == [
        ("name", "path_traversal")
    ]
    # the context comes from the server's configuration: an argument cannot set it
    problems = json.loads(smuggled.content[0].text)["problems"]
    assert smuggled.is_error and [p["field"] for p in problems] == ["customer_id"]


def test_an_infrastructure_failure_is_a_protocol_error(
    server_module: Path, tmp_path: Path, settings: dict[str, str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    unreachable = (
        blocker / "inventory.db"
    )  # its folder cannot be made: the store is down

    async def call() -> MCPError:
        async with _session(
            server_module, **settings, INVENTORY_DB=str(unreachable)
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
    with pytest.raises(MisconfiguredServer) as refused:
        context_from_environment(
            InventoryContext,
            "INVENTORY_",
            {"INVENTORY_CUSTOMER_ID": "seven", "INVENTORY_RUN_ID": "r"},
        )
    # in the words of the setting, not Python's ("invalid literal for int() with base 10")
    assert str(refused.value) == (
        "- INVENTORY_CUSTOMER_ID: expected an integer, as 42, got 'seven'"
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


def test_a_token_pair_works_over_mcp(
    server_module: Path, settings: dict[str, str]
) -> None:
    """confirm_order needs the token prepare_order issued for the same arguments and the
    same customer (the server's run context); the token is an ordinary argument."""
    order = {"sku": "SKU-12", "quantity": 1}

    async def calls() -> list[Any]:
        async with _session(server_module, **settings) as session:
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


def test_the_client_refuses_an_answer_its_schema_does_not_describe() -> None:
    """What tests/reach/test_mcp_clients.py relies on: the official client checks a
    successful result against the tool's outputSchema, and raises when it does not
    validate (here, a schema of the answer of another tool)."""
    tool = {t.name: t for t in all_tools()}["read_stock"]
    other = {
        "type": "object",
        "properties": {"ok": {"const": True}, "order_number": {"type": "string"}},
        "required": ["ok", "order_number"],
    }
    server = CatalogueServer(
        "inventory",
        [tool],
        {"read_stock": Contract("read", False, False, "none", other)},
        lambda: InventoryContext(customer_id=1, run_id="mcp-test"),
    )

    async def call() -> str:
        async with Client(server.server, mode="legacy") as client:
            try:
                await client.call_tool("read_stock", {"sku": "SKU-11"})
            except RuntimeError as refused:
                return str(refused)
        return "accepted"

    refused = anyio.run(call)
    assert refused.startswith("Invalid structured content returned by tool read_stock")
    assert "'order_number' is a required property" in refused


def _only(env: dict[str, str]) -> dict[str, str]:
    """A server process's environment: `env`, and what finds Python and the project."""
    return {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), **env}


def _start(module: Path, env: dict[str, str], *args: str) -> Any:
    """The server run as a process with only `env`, its input closed at once."""
    return subprocess.run(
        [sys.executable, str(module), *args],
        env=_only(env),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_line_that_is_no_message_is_answered_and_the_server_goes_on(
    server_module: Path, settings: dict[str, str]
) -> None:
    """JSON-RPC 2.0 answers what it cannot read with an error whose id is null: a parse
    error (-32700) for text that is not JSON, an invalid request (-32600) for JSON that is
    no message. The SDK's server dropped both without a word; the next request is served."""
    sent = [
        "not json",
        '{"jsonrpc": "2.0"}',
        '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
    ]
    server = subprocess.Popen(
        [sys.executable, str(server_module)],
        env=_only({**SERVICES, **settings}),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    # a server that leaves a line unanswered is stopped, so the read ends (and fails)
    watchdog = threading.Timer(60, server.kill)
    watchdog.start()
    try:
        server.stdin.write("".join(line + "\n" for line in sent))
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline() or "null") for _ in sent]
    finally:
        watchdog.cancel()
        server.stdin.close()
        server.wait(timeout=60)
    assert None not in answers, answers
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (None, -32700),
        (None, -32600),
        (1, None),
    ]
    assert answers[2]["result"] == {}


@pytest.fixture(scope="module")
def variables() -> list[str]:
    """The settings the exported server says it reads."""
    result = pipeline.check_catalogue(CATALOGUE, ROOT, implementations=False)
    assert result.catalogue is not None
    return [name for name, _purpose in environment_variables(result.catalogue)]


def test_the_server_does_not_start_without_a_setting_its_tools_need(
    server_module: Path, settings: dict[str, str], variables: list[str]
) -> None:
    everything = {**SERVICES, **settings}
    assert sorted(everything) == sorted(variables)
    # without the root of read_document: before, it started, and the first call of
    # read_document failed with -32603, even for a path the model must correct
    without_root = _start(
        server_module,
        {k: v for k, v in everything.items() if k != "TOOLGEN_ROOT_ARCHIVE"},
    )
    assert without_root.returncode == 1
    lines = without_root.stderr.splitlines()
    assert lines[0] == "inventory: the MCP server does not start:"
    assert [line.split(" ")[1] for line in lines[1:]] == ["TOOLGEN_ROOT_ARCHIVE"]
    assert "read_document" in lines[1]
    assert without_root.stderr in (ROOT / "docs" / "howto-mcp.md").read_text("utf-8")
    # without anything: every setting is named at once, and no traceback is shown
    bare = _start(server_module, {})
    assert bare.returncode == 1 and "Traceback" not in bare.stderr
    named = {line.split(" ")[1].rstrip(":") for line in bare.stderr.splitlines()[1:]}
    assert named == set(variables)
    # a root that is not a folder stops the start too, not the first call
    missing = _start(server_module, {**everything, "TOOLGEN_ROOT_ARCHIVE": "/nowhere"})
    assert missing.returncode == 1 and missing.stderr.splitlines()[1:] == [
        "- root 'archive' (/nowhere) cannot be resolved (no such file or directory): set "
        "TOOLGEN_ROOT_ARCHIVE (or Boundaries(roots=...)) to a folder"
    ]


def test_help_lists_every_setting(server_module: Path, variables: list[str]) -> None:
    shown = _start(server_module, {}, "--help")
    assert shown.returncode == 0
    listed = [
        line.split(":")[0].removeprefix("- ")
        for line in shown.stdout.splitlines()
        if line.startswith("- ")
    ]
    assert listed == variables
    assert "Left out: cancel_order" in shown.stdout


def test_settings_name_every_missing_one(tmp_path: Path) -> None:
    settings = Settings(
        store=("send_order",),
        secret=("search_orders",),
        roots={"archive": ("read_document",), "inbox": ("read_mail",)},
        hosts={"partners": ("fetch_offer",)},
    )
    with pytest.raises(MisconfiguredServer) as caught:
        settings.check(
            {"TOOLGEN_ROOT_INBOX": str(tmp_path), "TOOLGEN_HOSTS_PARTNERS": " , "}
        )
    named = [line.split(" ")[1] for line in str(caught.value).splitlines()]
    assert named == [
        "TOOLGEN_STORE_URL",
        "TOOLGEN_SECRET",
        "TOOLGEN_ROOT_ARCHIVE",
        "TOOLGEN_HOSTS_PARTNERS",
    ]
    assert "fetch_offer" in str(caught.value)
    boundaries = settings.check(
        {
            **SERVICES,
            "TOOLGEN_ROOT_ARCHIVE": str(tmp_path),
            "TOOLGEN_ROOT_INBOX": str(tmp_path),
            "TOOLGEN_HOSTS_PARTNERS": "a.example.com, b.example.com",
        }
    )
    assert boundaries.roots == {"archive": tmp_path, "inbox": tmp_path}
    assert boundaries.hosts == {"partners": ("a.example.com", "b.example.com")}
    assert boundaries.cursor_signer is not None  # pages are signed with the secret
    # nothing needed: nothing read
    assert Settings().check({}).roots == {}
