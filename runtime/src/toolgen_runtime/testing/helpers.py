"""The helpers of the suites, which hand-written tests use as well: a recording fake
implementation, direct invocation of a tool, boundary cases as changed arguments, and the
services (store, signer, boundaries) a tool is built with in tests."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import importlib
import json
import secrets
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn, Protocol

from agents import Agent, FunctionTool, RunConfig, Runner, RunResult, RunState
from agents.tool_context import ToolContext

from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import Store, open_store

# the folders and stores of the tests of this process, deleted when it exits
_SCRATCH = tempfile.TemporaryDirectory(prefix="toolgen-contract-")
# the stores `services_for` opened, until the test that asked for them ends
_OPENED: list[Store] = []


@dataclass(frozen=True, slots=True)
class Call:
    args: Any
    context: Any


class Recorder:
    """A fake implementation: records each call, then returns `result` or raises `error`."""

    def __init__(
        self, result: object = None, *, error: BaseException | None = None
    ) -> None:
        self.result = result
        self.error = error
        self.calls: list[Call] = []

    def __call__(self, args: Any, context: Any = None) -> Any:
        self.calls.append(Call(args, context))
        if self.error is not None:
            raise self.error
        return self.result


def run_agent(
    agent: Agent[Any],
    given: str | RunState[Any],
    context: object = None,
    run_config: RunConfig | None = None,
) -> RunResult:
    """One run of the real Runner (untraced unless `run_config` says otherwise), on an
    event loop of its own that it closes (`Runner.run_sync` leaves the thread a loop
    nobody closes, a ResourceWarning later)."""
    config = RunConfig(tracing_disabled=True) if run_config is None else run_config
    return asyncio.run(Runner.run(agent, given, context=context, run_config=config))


def invoke_raw(tool: FunctionTool, raw_json: str, context: object) -> Any:
    """Call a tool the way the SDK does, with raw argument text; returns the parsed output."""
    ctx = ToolContext(
        context=context,
        tool_name=tool.name,
        tool_call_id="call-test",
        tool_arguments=raw_json,
    )

    async def call() -> Any:
        return await tool.on_invoke_tool(ctx, raw_json)

    return json.loads(asyncio.run(call()))


def invoke(tool: FunctionTool, args: object, context: object) -> Any:
    return invoke_raw(tool, json.dumps(args), context)


def problem_fields(output: dict[str, Any]) -> list[str]:
    return [str(problem["field"]) for problem in output.get("problems", [])]


def schema_keywords(schema: object) -> set[str]:
    """Every keyword used anywhere in a JSON Schema (property names are not keywords)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.add(key)
                if key == "properties" and isinstance(value, dict):
                    stack.extend(value.values())
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found


class FixtureRequest(Protocol):
    """The part of pytest's FixtureRequest the suites use."""

    def getfixturevalue(self, argname: str) -> Any: ...


class Metafunc(Protocol):
    """The part of pytest's Metafunc the suites use."""

    @property
    def fixturenames(self) -> list[str]: ...
    @property
    def cls(self) -> type | None: ...
    def parametrize(
        self, argnames: str, argvalues: Sequence[object], *, ids: Sequence[str]
    ) -> None: ...


Case = tuple[
    str, dict[str, Any], str
]  # label, arguments, the field that must be blamed
ErrorCase = tuple[str, str, bool]  # code, how_to_fix, retryable
# label, the dotted path of the one field changed in the first accepted example, its value
Boundary = tuple[str, str, object]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A boundary case's value for a field left out of the arguments."""


def changed(base: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A deep copy of `base` with the field at the dotted `path` set to `value` (or left
    out, for `MISSING`); a number in the path is an index into an array (`lines.0.sku`), and
    the index one past its end adds an item (`tags.0` of an empty `tags`)."""
    result = copy.deepcopy(base)
    node: Any = result
    *parents, last = path.split(".")
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is MISSING:
        node.pop(last, None)
    elif isinstance(node, list):
        index = int(last)
        # one past the end of an (empty) array adds the item
        node[index : index + 1] = [value]
    else:
        node[last] = value
    return result


# what a page answers besides its items' fields (pagination.Pagination.envelope)
PAGE_KEYS = frozenset(
    {"ok", "items", "shown", "total_available", "next_cursor", "note"}
)


def boundaries_for_tests(
    files: Mapping[str, Sequence[str]],
    hosts: Mapping[str, Sequence[str]] | None = None,
) -> Boundaries:
    """Boundaries for tests: a new folder per root holding the named files (each a line of
    text), the `hosts` of each list (a URL guard's `hosts_from`), and a cursor signer with a
    random secret of this process."""
    roots: dict[str, Path] = {}
    for root, names in files.items():
        folder = Path(tempfile.mkdtemp(prefix=f"{root}-", dir=_SCRATCH.name))
        for name in names:
            target = folder.joinpath(*name.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"sample {name}\n", encoding="utf-8")
        roots[root] = folder
    signer = Signer([secrets.token_bytes(32)], "cursor")
    listed = {name: tuple(names) for name, names in (hosts or {}).items()}
    return Boundaries(roots=roots, hosts=listed, cursor_signer=signer)


# --- writes: the services a write tool is built with in tests (issue 9) --------------------


def services_for(module: ModuleType) -> dict[str, Any]:
    """A fresh store (an empty SQLite file) and a signer with a random secret, for a tool
    idempotent by key or confirmed by token; nothing for any other tool."""
    if not (hasattr(module, "IDEMPOTENCY") or hasattr(module, "CONFIRMATION")):
        return {}
    url = f"sqlite:///{Path(_SCRATCH.name) / uuid.uuid4().hex}.db"
    _OPENED.append(open_store(url))
    return {
        "store": _OPENED[-1],
        "signer": Signer([secrets.token_bytes(32)], "confirm"),
    }


def close_services() -> None:
    """Close the stores `services_for` opened: the contract tests do when each test ends,
    since a connection left to the garbage collector is a ResourceWarning (Python 3.13),
    an error where a project turns warnings into errors."""
    while _OPENED:
        _OPENED.pop().close()


def build(
    module: ModuleType, implementation: object, services: dict[str, Any]
) -> FunctionTool:
    """A tool of `module` with a fake implementation (none for a prepare tool)."""
    confirmation = getattr(module, "CONFIRMATION", None)
    if confirmation is not None and confirmation.role == "prepare":
        tool: FunctionTool = module.build_tool(**services)
    else:
        tool = module.build_tool(implementation, **services)
    return tool


def prepare_module(module: ModuleType) -> ModuleType:
    """The prepare tool's module of a confirm tool's module (a sibling in its package)."""
    name = module.CONFIRMATION.prepare_tool
    return importlib.import_module(f"{module.__package__}.{name}")


def with_token(
    module: ModuleType, args: dict[str, Any], context: object, services: dict[str, Any]
) -> dict[str, Any]:
    """`args` of a confirm tool with the token its prepare tool returns for them, through
    the prepare tool itself (same store and signer); other tools' args unchanged."""
    confirmation = getattr(module, "CONFIRMATION", None)
    if confirmation is None or confirmation.role != "confirm":
        return args
    prepared = invoke(prepare_module(module).build_tool(**services), args, context)
    assert prepared["ok"] is True, prepared
    return {**args, "token": prepared["token"]}


def other_identity(context: object, fields: Sequence[tuple[str, str]]) -> object:
    """The run context with its first identity field changed: another user or session."""
    _, attribute = fields[0]
    value = getattr(context, attribute)
    other = value + 1 if isinstance(value, int) else f"{value}-other"
    return dataclasses.replace(context, **{attribute: other})  # type: ignore[type-var]


def skip(reason: str) -> NoReturn:
    """Skip the running test, saying what the contract lacks (pytest is imported only here:
    this module does not need it otherwise)."""
    import pytest

    pytest.skip(reason)


def services_for_needed(module: ModuleType) -> bool:
    return hasattr(module, "IDEMPOTENCY") or hasattr(module, "CONFIRMATION")


def is_prepare(module: ModuleType) -> bool:
    confirmation = getattr(module, "CONFIRMATION", None)
    return confirmation is not None and confirmation.role == "prepare"
