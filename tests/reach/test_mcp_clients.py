"""Every catalogue's exported MCP server, as the official MCP Python client sees it.

The catalogues: the example (spec/inventory, with its real implementations on the example
database), each golden catalogue (tests/golden/*/spec) and the edge cases of answers
(tests/reach/mcp_edges/spec: sensitive values of every type, cut texts, pages with and
without a total, URL guards whose hosts the deployment sets); the last ones are built into a
temporary project whose implementations answer the sample result of each tool's generated
tests. The module `toolgen export --to mcp` writes runs as its own process, with exactly the
settings its docstring lists, and `mcp.client.stdio.stdio_client` + `ClientSession` drive
it: one server per catalogue, `tools/list`, then every served tool with each example of its
contract, accepted and rejected (a tool without a rejected example gets one with an argument
it does not have). A confirmed tool is called with the token its prepare tool issues, a tool
idempotent by key twice (the repeat answers `duplicate`), a page's next page through its
cursor.

The client checks each successful `structuredContent` against the tool's `outputSchema`
itself (and raises when it does not validate, which fails the test); the test checks it
again with the formats asserted, as the TypeScript client does. A failed call must be
`isError` with no structured content, its text the envelope: `invalid_arguments` naming the
field of a rejected example, a declared error (or a token error) for an accepted one.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator, FormatChecker
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from toolgen_runtime.confirm import TOKEN_ERROR_CODES
from toolgen_runtime.output import REDACTED
from toolgen_runtime.search_tool import SEARCH_TOOL

from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop.export.mcpmodule import environment_variables
from toolgen.spec import snapshot
from toolgen.spec.ir import Catalogue, prepare_name

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
EDGES = Path(__file__).parent / "mcp_edges" / "spec"
UNKNOWN = "not_a_parameter"
FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _rfc3339(value: object) -> bool:
    """A date and time with its offset, as RFC 3339 (and ajv-formats) require."""
    if not isinstance(value, str):
        return True
    pattern = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)"
    if not re.fullmatch(pattern, value):
        return False
    datetime.datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    return True


@dataclass(frozen=True)
class Call:
    tool: str
    case: str  # which example, and how it was sent
    arguments: dict[str, Any]
    rejected_on: str | None
    result: types.CallToolResult | None = None
    refused: str | None = None  # what the client raised instead of returning a result


@dataclass
class Session:
    """What one server answered: its info, its listing and every call."""

    info: types.Implementation | None = None
    listed: dict[str, types.Tool] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)


@dataclass(frozen=True)
class Project:
    """A catalogue with its exported server, ready to run."""

    name: str
    root: Path
    catalogue: Catalogue
    server: Path
    env: dict[str, str]
    no_success: frozenset[str] = frozenset()  # tools no call can answer ok here
    shows: frozenset[str] = frozenset()  # keys some successful answer must carry
    redacted: frozenset[str] = frozenset()  # tools whose answer hides a sensitive value


def _checked(folder: Path, root: Path) -> Catalogue:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None, [d.format_text() for d in result.diagnostics]
    return result.catalogue


def _export(folder: Path, root: Path, out: Path) -> Path:
    argv = [
        "export",
        "--to",
        "mcp",
        "--root",
        str(root),
        str(folder),
        "--out",
        str(out),
    ]
    assert cli.main(argv) == 0
    return out


_CONTEXT_VALUES = {
    "integer": "1",
    "number": "1.5",
    "string": "mcp-test",
    "boolean": "true",
    "date": "2026-01-02",
    "datetime": "2026-01-02T03:04:05+00:00",
}


def _settings(
    catalogue: Catalogue, values: Mapping[str, str], context: Mapping[str, str]
) -> dict[str, str]:
    """Exactly the settings the exported module says it reads, no more."""
    env = {}
    for variable, _purpose in environment_variables(catalogue):
        if variable in values:
            env[variable] = values[variable]
        else:
            field_name = variable.removeprefix(catalogue.name.upper() + "_").lower()
            env[variable] = context[field_name]
    return env


def _sample_implementations(root: Path, catalogue: Catalogue) -> None:
    """Replace every stub by an implementation that answers the sample result of the
    tool's generated tests (what their recording fake answers)."""
    impl = root.joinpath(*catalogue.implementation.split("."))
    for tool in catalogue.tools:
        module = tool.py.module
        if tool.derived:  # a prepare tool: the runtime answers it
            continue
        (impl / f"{module}.py").write_text(
            f'"""{tool.name} for the MCP client test: the sample of its tests."""\n\n'
            "from toolgen_runtime.testing import ToolContract\n\n"
            f"from {catalogue.package}.tests import test_{module} as cases\n\n"
            "SAMPLE = next(\n"
            "    case.sample for case in vars(cases).values()\n"
            "    if isinstance(case, type) and issubclass(case, ToolContract)\n"
            "    and case is not ToolContract\n"
            ")\n\n\n"
            f"def {module}(*args: object) -> object:\n"
            "    return SAMPLE\n",
            encoding="utf-8",
        )


def _built(name: str, spec: Path, tmp: Path, values: Mapping[str, str]) -> Project:
    """A catalogue copied into a new project, built, given its sample implementations
    and exported; `values` are the settings other than the run context."""
    root = tmp / name
    shutil.copytree(spec, root / "spec")
    [folder] = sorted(p.parent for p in (root / "spec").glob("*/catalogue.yaml"))
    assert cli.main(["build", "--root", str(root), str(folder)]) == 0
    catalogue = _checked(folder, root)
    _sample_implementations(root, catalogue)
    context = {f.py_name: _CONTEXT_VALUES[f.type] for f in catalogue.context}
    return Project(
        name=name,
        root=root,
        catalogue=catalogue,
        server=_export(folder, root, tmp / f"{name}_mcp.py"),
        env=_settings(catalogue, values, context),
    )


def _golden(case: str, tmp: Path) -> Project:
    values: dict[str, str] = {}
    if case == "every_type":
        # read_visit_files reads the files its examples name, and may write under exports
        for root, names in (("visit_files", VISIT_FILES), ("exports", ())):
            (tmp / root).mkdir()
            for name in names:
                (tmp / root / name).parent.mkdir(parents=True, exist_ok=True)
                (tmp / root / name).write_text(f"The {name}.\n", encoding="utf-8")
            values[f"TOOLGEN_ROOT_{root.upper()}"] = str(tmp / root)
        # read_visit_page's URLs take their hosts from the deployment's list
        values["TOOLGEN_HOSTS_CLINIC_SITES"] = "vet.example.com,copies.example.net"
    return _built(case, GOLDEN / case / "spec", tmp, values)


# the files read_visit_files' accepted examples name
VISIT_FILES = ("day1.txt", "notes/day2.txt", "cover.txt")


def _edges(tmp: Path, services: Mapping[str, str]) -> Project:
    # TOOLGEN_HOSTS_MORE_RATE_HOSTS is left out: it only adds to fetch_rates' own hosts
    values = {**services, "TOOLGEN_HOSTS_STATEMENT_HOSTS": "statements.example.com"}
    project = _built("edges", EDGES, tmp, values)
    # a sensitive value of any type, in an array of objects, on a page's items
    return dataclasses.replace(
        project, redacted=frozenset({"read_account", "list_payments"})
    )


def _inventory(tmp: Path, services: Mapping[str, str]) -> Project:
    folder = ROOT / "spec" / "inventory"
    archive = tmp / "archive"
    (archive / "policies").mkdir(parents=True)
    # longer than the 2,000 characters the contract shows: the answer lists it truncated
    (archive / "note.md").write_text("A note. " * 400, encoding="utf-8")
    (archive / "policies" / "returns.md").write_text("30 days.", encoding="utf-8")
    catalogue = _checked(folder, ROOT)
    values = {**services, "TOOLGEN_ROOT_ARCHIVE": str(archive)}
    context = {"customer_id": "1", "run_id": "mcp-clients"}
    return Project(
        name="inventory",
        root=ROOT,
        catalogue=catalogue,
        server=_export(folder, ROOT, tmp / "inventory_mcp.py"),
        env=_settings(catalogue, values, context),
        # its host is not reachable from the tests (they run offline): portal_unreachable
        no_success=frozenset({"read_supplier_notice"}),
        # a repeat of send_order, a cut note.md, a page of search_orders with a next one
        shows=frozenset({"duplicate", "truncated", "next_cursor"}),
    )


# --- driving a server ----------------------------------------------------------------------


def _cases(tool: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    examples = tool["examples"]
    for number, example in enumerate(examples, 1):
        label = f"example {number}" + (
            f" ({example['note']})" if example["note"] else ""
        )
        yield label, dict(example["args"]), example["rejected_on"]
    if not any(e["rejected_on"] for e in examples):
        accepted = next(e["args"] for e in examples if e["rejected_on"] is None)
        yield "an argument it does not have", {**accepted, UNKNOWN: 1}, UNKNOWN


def _text(result: types.CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    return content.text


def _answer(result: types.CallToolResult) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(_text(result))
    return answer


async def _call(
    session: ClientSession, found: Session, call: Call
) -> types.CallToolResult | None:
    try:
        result = await session.call_tool(call.tool, call.arguments)
    # the client refused the result (RuntimeError), or the server failed (MCPError)
    except (RuntimeError, MCPError) as exc:
        refused = f"{type(exc).__name__}: {exc}"
        found.calls.append(dataclasses.replace(call, refused=refused))
        return None
    assert isinstance(result, types.CallToolResult)
    found.calls.append(dataclasses.replace(call, result=result))
    return result


async def _drive_tool(
    session: ClientSession, found: Session, tool: Mapping[str, Any]
) -> None:
    name = tool["name"]
    for case, arguments, rejected_on in _cases(tool):
        call = Call(name, case, arguments, rejected_on)
        if tool["confirmation"] == "token" and rejected_on is None:
            prepare = prepare_name(name)
            prepared = await _call(session, found, Call(prepare, case, arguments, None))
            token = None if prepared is None else _answer(prepared).get("token")
            call = Call(
                name,
                f"{case}, with {prepare}'s token",
                {**arguments, "token": token},
                None,
            )
        result = await _call(session, found, call)
        if result is None or rejected_on is not None:
            continue
        if tool["idempotency"]["kind"] == "key":
            await _call(
                session, found, Call(name, f"{case}, repeated", arguments, None)
            )
        cursor = _answer(result).get("next_cursor") if not result.is_error else None
        if cursor is not None:
            page = Call(
                name, f"{case}, next page", {**arguments, "cursor": cursor}, None
            )
            await _call(session, found, page)


async def _drive(
    project: Project, tools: list[Mapping[str, Any]], log: Path
) -> Session:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(project.server)],
        env={"PYTHONPATH": str(project.root), **project.env},
        cwd=project.root,
    )
    found = Session()
    with log.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            found.info = (await session.initialize()).server_info
            listed = (await session.list_tools()).tools
            if any(t.name == SEARCH_TOOL for t in listed):
                # a deferred tool is listed once search_tools finds it (by one of its asks)
                for tool in tools:
                    if tool["deferred"]:
                        query = {"query": tool["asks"][0], "limit": 1}
                        await session.call_tool(SEARCH_TOOL, query)
                listed = (await session.list_tools()).tools
            found.listed = {t.name: t for t in listed if t.name != SEARCH_TOOL}
            for tool in tools:
                if tool["name"] in found.listed:
                    await _drive_tool(session, found, tool)
    return found


# --- what each answer must be ----------------------------------------------------------------


def _problems_of(call: Call, tool: Mapping[str, Any], listed: types.Tool) -> list[str]:
    where = f"{call.tool}, {call.case}"
    if call.refused is not None:
        return [f"{where}: {call.refused}"]
    result = call.result
    assert result is not None
    answer = _answer(result)
    if not result.is_error:
        if call.rejected_on is not None:
            return [f"{where}: accepted, but must be rejected on {call.rejected_on}"]
        schema = listed.output_schema
        assert schema is not None
        validator = Draft202012Validator(schema, format_checker=FORMATS)
        wrong = [
            f"{where}: {e.message}"
            for e in validator.iter_errors(result.structured_content)
        ]
        if result.structured_content != answer:
            wrong.append(f"{where}: the structured content is not the text's answer")
        return wrong
    if result.structured_content is not None:
        return [f"{where}: a failed call carries structured content"]
    if call.rejected_on is not None:
        fields = [p["field"] for p in answer.get("problems", [])]
        if answer.get("error") != "invalid_arguments" or call.rejected_on not in fields:
            return [f"{where}: must be rejected on {call.rejected_on}, got {answer}"]
        return []
    # a confirmed tool may also refuse its token (toolgen_runtime.confirm)
    tokens = TOKEN_ERROR_CODES if tool["confirmation"] == "token" else ()
    allowed = {*tool["errors"], *tokens}
    if answer.get("ok") is not False or answer.get("error") not in allowed:
        return [
            f"{where}: an accepted example must answer ok or a declared error: {answer}"
        ]
    return []


def _contracts(catalogue: Catalogue) -> dict[str, Mapping[str, Any]]:
    return {t["name"]: t for t in snapshot.catalogue_snapshot(catalogue)["tools"]}


GOLDEN_CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "spec").is_dir())
# the store and the secret of this test session (the project's conftest.py sets them)
SERVICES = {k: os.environ[k] for k in ("TOOLGEN_STORE_URL", "TOOLGEN_SECRET")}


def _project(name: str, tmp: Path) -> Project:
    if name == "inventory":
        return _inventory(tmp, SERVICES)
    if name == "edges":
        return _edges(tmp, SERVICES)
    return _golden(name, tmp)


@pytest.mark.parametrize("name", ["inventory", "edges", *GOLDEN_CASES])
def test_the_official_client_accepts_every_answer(name: str, tmp_path: Path) -> None:
    project = _project(name, tmp_path)
    contracts = _contracts(project.catalogue)
    log = tmp_path / "server.log"
    found = anyio.run(_drive, project, list(contracts.values()), log)

    served = [n for n, c in contracts.items() if c["confirmation"] != "approval"]
    assert sorted(found.listed) == served
    for tool in found.listed.values():
        assert tool.output_schema is not None
        Draft202012Validator.check_schema(tool.output_schema)
    problems = [
        problem
        for call in found.calls
        for problem in _problems_of(call, contracts[call.tool], found.listed[call.tool])
    ]
    assert not problems, (
        "\n".join(problems) + "\nserver log:\n" + log.read_text()[-3000:]
    )
    # every tool was called with an accepted and a rejected example
    for kind in ("accepted", "rejected"):
        called = {
            c.tool
            for c in found.calls
            if (c.rejected_on is None) == (kind == "accepted")
        }
        assert called == set(served), (
            f"no {kind} call of {sorted(set(served) - called)}"
        )
    succeeded = [
        (c.tool, c.result.structured_content or {})
        for c in found.calls
        if c.result is not None and not c.result.is_error
    ]
    assert set(served) - {tool for tool, _ in succeeded} == project.no_success
    keys = {key for _, answer in succeeded for key in answer}
    assert project.shows <= keys
    hidden = {
        c.tool
        for c in found.calls
        if c.result is not None and f'"{REDACTED}"' in _text(c.result)
    }
    assert project.redacted <= hidden
    assert found.info is not None and found.info.version  # toolgen's version
