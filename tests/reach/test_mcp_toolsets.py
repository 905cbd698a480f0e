"""An exported MCP server serves one toolset, and its deferred tools are found by search.

Driven by the official MCP Python client, over stdio, as tests/reach/test_mcp_clients.py
does: `tools/list` holds the toolset's up-front tools and `search_tools`; a deferred tool is
refused until `search_tools` finds it; the search sends `notifications/tools/list_changed`,
and the next `tools/list` holds the tool found, which the client then calls and which runs
(the example's real implementation, over a temporary archive).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from toolgen_runtime.search_tool import SEARCH_PARAMETERS, SEARCH_TOOL

from toolgen import cli
from toolgen.build import pipeline

from .test_mcp_clients import ROOT, SERVICES, Project, _inventory

CATALOGUE = ROOT / "spec" / "inventory"


def _toolset(name: str) -> tuple[set[str], set[str]]:
    """The served tools of toolset `name` of the example: (up front, deferred)."""
    result = pipeline.check_catalogue(CATALOGUE, ROOT, implementations=False)
    assert result.catalogue is not None
    [toolset] = [t for t in result.catalogue.toolsets if t.name == name]
    tools = [
        t
        for t in result.catalogue.tools
        if t.name in toolset.tools and t.confirmation != "approval"
    ]
    return {t.name for t in tools if not t.deferred}, {
        t.name for t in tools if t.deferred
    }


def _server(project: Project, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(project.server)],
        env={"PYTHONPATH": str(project.root), **project.env, **env},
        cwd=project.root,
    )


def _answer(result: types.CallToolResult) -> dict[str, Any]:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    answer: dict[str, Any] = json.loads(content.text)
    return answer


async def _names(session: ClientSession) -> list[str]:
    return [t.name for t in (await session.list_tools()).tools]


async def _search_then_call(server: StdioServerParameters, log: Path) -> dict[str, Any]:
    seen: list[object] = []

    async def notified(message: object) -> None:
        seen.append(message)

    steps: dict[str, Any] = {}
    with log.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=notified) as session,
        ):
            init = await session.initialize()
            tools = init.capabilities.tools
            steps["list_changed"] = tools is not None and tools.list_changed
            listed = {t.name: t for t in (await session.list_tools()).tools}
            steps["before"] = list(listed)
            steps["search"] = listed[SEARCH_TOOL]
            try:
                await session.call_tool("read_document", {"name": "note.md"})
            except MCPError as exc:
                steps["refused"] = str(exc)
            # an unknown name of a legal length is echoed whole, a longer one cut
            for size in (64, 100_000):
                try:
                    await session.call_tool("x" * size, {})
                except MCPError as exc:
                    steps[f"unknown {size}"] = str(exc)
            bad = await session.call_tool(SEARCH_TOOL, {"query": ""})
            steps["bad"] = (bad.is_error, _answer(bad))
            steps["seen_before"] = len(seen)
            query = {"query": "what does the returns policy say", "limit": 1}
            found = await session.call_tool(SEARCH_TOOL, query)
            steps["found"] = (found.is_error, _answer(found))
            # the notification rides beside the answer: wait for it (a fixed pause was
            # too short on a busy machine), up to a bound the assertion below reports
            with anyio.move_on_after(10):
                while len(seen) == steps["seen_before"]:
                    await anyio.sleep(0.01)
            steps["seen"] = list(seen)
            steps["after"] = await _names(session)
            read = await session.call_tool(
                "read_document", {"name": "policies/returns.md"}
            )
            steps["read"] = (read.is_error, read.structured_content)
    return steps


def test_search_tools_loads_a_deferred_tool_the_client_then_calls(
    tmp_path: Path,
) -> None:
    project = _inventory(tmp_path, SERVICES)
    out = tmp_path / "support_mcp.py"
    argv = ["export", "--to", "mcp", str(CATALOGUE), "--toolset", "support"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    support = Project("support", project.root, project.catalogue, out, project.env)
    log = tmp_path / "server.log"
    steps = anyio.run(_search_then_call, _server(support, {}), log)
    up_front, deferred = _toolset("support")
    assert deferred == {"read_document", "read_supplier_notice"}
    assert steps["list_changed"] is True
    assert set(steps["before"]) == up_front | {SEARCH_TOOL}
    search: types.Tool = steps["search"]
    assert search.input_schema == SEARCH_PARAMETERS
    assert "documents: Documents to read" in (search.description or "")
    assert search.annotations is not None and search.annotations.read_only_hint
    assert "read_document is not loaded: search_tools finds" in steps["refused"]
    assert steps["unknown 64"] == f'no tool named "{"x" * 64}"'
    unknown = steps["unknown 100000"]
    assert unknown.startswith('no tool named "xxxxxxxx') and unknown.endswith("...")
    assert len(unknown) < 100
    is_error, refused = steps["bad"]
    assert is_error and refused["error"] == "invalid_arguments"
    assert steps["seen_before"] == 0  # a refused search changes nothing
    is_error, found = steps["found"]
    assert not is_error
    assert [f["name"] for f in found["found"]] == ["read_document"]
    assert any(isinstance(m, types.ToolListChangedNotification) for m in steps["seen"])
    assert steps["after"] == [*steps["before"], "read_document"]
    is_error, answer = steps["read"]
    assert not is_error, log.read_text()[-2000:]
    assert answer["ok"] is True and answer["text"] == "30 days."


async def _listed(server: StdioServerParameters, log: Path) -> list[str]:
    with log.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await _names(session)


def test_the_setting_chooses_the_toolset_of_a_whole_catalogue_server(
    tmp_path: Path,
) -> None:
    project = _inventory(tmp_path, SERVICES)
    log = tmp_path / "server.log"
    listed = anyio.run(_listed, _server(project, {"TOOLGEN_TOOLSET": "warehouse"}), log)
    up_front, deferred = _toolset("warehouse")
    assert deferred == {"read_supplier_notice"}
    assert set(listed) == up_front | {SEARCH_TOOL}
    every = anyio.run(_listed, _server(project, {}), log)
    assert set(listed) < set(every)
    assert "read_document" not in every and SEARCH_TOOL in every


def test_a_toolset_the_server_does_not_hold_stops_it(tmp_path: Path) -> None:
    project = _inventory(tmp_path, SERVICES)
    log = tmp_path / "server.log"
    server = _server(project, {"TOOLGEN_TOOLSET": "sales"})
    with pytest.raises(Exception):  # noqa: B017  (the client sees the pipe close)
        anyio.run(_listed, server, log)
    text = log.read_text()
    assert "TOOLGEN_TOOLSET is 'sales', which is no toolset of this server" in text
    assert "its toolsets: support, warehouse" in text


def test_a_toolset_server_holds_and_needs_only_that_toolset(tmp_path: Path) -> None:
    out = tmp_path / "warehouse_mcp.py"
    argv = ["export", "--to", "mcp", str(CATALOGUE), "--toolset", "warehouse"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    source = out.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    start = source.index("CONTRACTS: Final")
    exec(  # the literals only: the module's data, read as the server reads it
        "from typing import Final\nfrom toolgen_runtime.mcp import Contract\n"
        + source[start : source.index("\n\n\n", start)],
        namespace,
    )
    up_front, deferred = _toolset("warehouse")
    assert set(namespace["CONTRACTS"]) == up_front | deferred
    # read_document (support's) needs the archive's root: this server does not
    assert "TOOLGEN_ROOT_ARCHIVE" not in source
    assert (
        "TOOLGEN_STORE_URL" in source
    )  # send_order, idempotent by key, is the toolset's
    assert "default='warehouse'" in source.replace('"', "'")
    assert "TOOLGEN_TOOLSET names when it is set" not in source
