"""Serving generated tools over MCP, with the same validation, envelopes and implementations.

A `CatalogueServer` lists each generated `FunctionTool` as an MCP tool and answers a call by
running the tool's own `on_invoke_tool` (the `Invoker` of the generated module), so an MCP
client gets exactly what an agent of the Agents SDK gets:

- the name, description and input schema the model sees (`inputSchema` is `PARAMETERS`);
- every annotation written out, from the contract (`Contract`): clients read an absent
  `readOnlyHint` as false, `destructiveHint` and `openWorldHint` as true;
- `outputSchema`: every success answer, `{"ok": true, ...the declared return fields}` or a
  page of them (written by `toolgen export --to mcp` into the `Contract`); the answer is
  also returned as `structuredContent`, which clients check against that schema;
- invalid arguments and declared data errors: the envelope as the tool result's text, with
  `isError: true` and no `structuredContent` (clients check structured content on success
  only, or whenever it is present), so the model reads it and corrects itself;
- an infrastructure failure (a `ToolgenError`, or any other exception): a JSON-RPC error, never
  a result the model could read as an answer; the details go to the server's log only;
- a line that is no JSON-RPC message: an error whose id is null, -32700 for text that is
  not JSON and -32600 for JSON that is no message (JSON-RPC 2.0), and the server goes on;
- the run context: built by the server from its own configuration or authentication (the
  `context` callable), never from the client's arguments, which hold only the parameters;
- `serverInfo.version`: toolgen's version (`RUNTIME_VERSION`) unless given another.

Deferred tools (issue 36): a server serves one toolset (`Toolsets`: the one given at export,
or the setting TOOLGEN_TOOLSET). Its tools that load only when searched for are not in
`tools/list`: it lists the others and `search_tools` (`toolgen_runtime.search_tool`), whose
call adds the tools it finds to `tools/list` and sends
`notifications/tools/list_changed` (the handshake protocol versions; the 2026-07-28 protocol
delivers change notifications only on `subscriptions/listen` streams, which this server does
not serve). A deferred tool is called once found; before, the call is refused. What was
found is the server's: one `CatalogueServer` per client (`serve_stdio` serves one client per
process), since the SDK's per-request session is no handle on the client.

`serve_stdio` starts a server only when everything its tools need is configured: the run
context, and the store, the signing secret, the roots of path parameters and the host lists
of URL guards (`Settings`); otherwise it exits naming each missing setting, rather than fail
the first call that needs one.

Confirmation: `token` (a prepare and a confirm tool) needs nothing of MCP, since the token is
an ordinary argument bound to the server's run context. `approval` (a person approves each
call in the application) has no counterpart a server can require of an MCP client: the
specification leaves confirming a call to the client (hosts SHOULD ask), and elicitation is a
question a client may not support. A tool whose contract asks for approval is therefore
refused when the server is built, rather than served without its approval.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib.metadata
import json
import logging
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio
import mcp_types as types
import pydantic
from agents import FunctionTool
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from toolgen_runtime.calls import run_call
from toolgen_runtime.envelope import MAX_NAME_CHARS, preview
from toolgen_runtime.errors import ToolgenError
from toolgen_runtime.guards.scope import (
    HOSTS_ENV_PREFIX,
    ROOT_ENV_PREFIX,
    Boundaries,
    configure_boundaries,
)
from toolgen_runtime.search import SearchDocument, ToolIndex
from toolgen_runtime.search_tool import SEARCH_PARAMETERS, SEARCH_TOOL, DeferredTools
from toolgen_runtime.signing import secret_from_environment
from toolgen_runtime.store import store_from_environment

__all__ = [
    "RUNTIME_VERSION",
    "CatalogueServer",
    "Contract",
    "MisconfiguredServer",
    "Settings",
    "Toolsets",
    "context_from_environment",
    "serve_stdio",
]

_log = logging.getLogger(__name__)

# a server's serverInfo.version unless it is given one: toolgen's version, which the
# runtime shares with the compiler (one release makes both)
RUNTIME_VERSION = importlib.metadata.version("toolgen-runtime")

ContextT = TypeVar("ContextT")


class MisconfiguredServer(ToolgenError):
    """The server cannot serve the catalogue as its contracts say: it does not start."""


@dataclass(frozen=True, slots=True)
class Contract:
    """What MCP needs of one tool beyond its FunctionTool: from the catalogue's contract
    (`toolgen export --to mcp` writes one per tool from the catalogue snapshot)."""

    effect: Literal["read", "write", "destructive"]
    open_world: bool
    idempotent: bool  # repeating a call with the same arguments repeats no effect
    confirmation: Literal["none", "approval", "token"]
    # the JSON Schema every successful answer validates against: `ok` and the declared
    # fields, or a page of them, with `duplicate` and `truncated` when the tool may add them
    output: Mapping[str, Any]

    def annotations(self) -> types.ToolAnnotations:
        # all four written: a client reads a missing hint as its most dangerous value
        return types.ToolAnnotations(
            read_only_hint=self.effect == "read",
            destructive_hint=self.effect == "destructive",
            idempotent_hint=self.effect == "read" or self.idempotent,
            open_world_hint=self.open_world,
        )


# what a context field of each type is read with, and what its variable must hold
_READERS: dict[object, tuple[Callable[[str], object], str]] = {
    str: (str, "a text"),
    int: (int, "an integer, as 42"),
    float: (float, "a number, as 2.5"),
    datetime.date: (datetime.date.fromisoformat, "a date, as 2026-12-31"),
    datetime.datetime: (
        datetime.datetime.fromisoformat,
        "a date and time, as 2026-12-31T09:30:00+01:00",
    ),
}


def _convert(kind: object, text: str) -> object:
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    if kind not in _READERS:
        raise ValueError(
            f"a field of type {kind!r} cannot be read from the environment"
        )
    read, expected = _READERS[kind]
    try:
        return read(text)
    except ValueError:  # Python's own words ("invalid literal for int()") name no fix
        raise ValueError(f"expected {expected}, got {text!r}") from None


def context_from_environment(
    context_class: type[ContextT],
    prefix: str,
    environ: Mapping[str, str] | None = None,
) -> ContextT:
    """The catalogue's run context from environment variables, one per field:
    `InventoryContext` with prefix `INVENTORY_` reads INVENTORY_CUSTOMER_ID and
    INVENTORY_RUN_ID. A missing or malformed variable stops the server; every one is
    named at once."""
    source = os.environ if environ is None else environ
    if not dataclasses.is_dataclass(context_class):
        raise MisconfiguredServer(f"{context_class.__qualname__} is not a dataclass")
    hints = typing.get_type_hints(context_class)
    values: dict[str, object] = {}
    problems: list[str] = []
    for field in dataclasses.fields(context_class):
        variable = prefix + field.name.upper()
        if variable not in source:
            problems.append(
                f"{variable} is not set: the run context's {field.name} "
                f"({context_class.__qualname__}) comes from it"
            )
            continue
        try:
            values[field.name] = _convert(hints[field.name], source[variable])
        except ValueError as exc:
            problems.append(f"{variable}: {exc}")
    if problems:
        raise MisconfiguredServer(_listed(problems))
    return context_class(**values)


def _listed(problems: Sequence[str]) -> str:
    return "\n".join(f"- {problem}" for problem in problems)


@dataclass(frozen=True, slots=True)
class Settings:
    """What the served tools need of the server's environment besides the run context,
    each with the tools that need it; `check` reads them all before the server answers
    anything, so a server that lacks one does not start.

    - `store`: tools that keep state (a key, a token): TOOLGEN_STORE_URL;
    - `secret`: tools that sign what the model carries (tokens, cursors): TOOLGEN_SECRET;
    - `roots`: per root of a `path` parameter, its tools: TOOLGEN_ROOT_<ROOT>, a folder;
    - `hosts`: per `hosts_from` list a URL guard takes all its hosts from, its tools:
      TOOLGEN_HOSTS_<NAME>, not empty. (A list that only adds to a contract's own hosts
      may be left out.)
    """

    store: tuple[str, ...] = ()
    secret: tuple[str, ...] = ()
    roots: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    hosts: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def check(self, environ: Mapping[str, str] | None = None) -> Boundaries:
        """The boundaries the served tools validate with, from the environment; raises
        `MisconfiguredServer` naming every setting that is missing or wrong."""
        env = os.environ if environ is None else environ
        problems: list[str] = []
        if self.store:
            try:
                store_from_environment(env).close()
            except ToolgenError as exc:
                problems.append(f"{exc} (needed by {', '.join(self.store)})")
        signs = False
        if self.secret:
            try:
                signs = bool(secret_from_environment(env))
            except ToolgenError as exc:
                problems.append(f"{exc} (needed by {', '.join(self.secret)})")
        for root, tools in self.roots.items():
            variable = ROOT_ENV_PREFIX + root.upper()
            if not env.get(variable):
                problems.append(
                    f"{variable} is not set: the paths of {', '.join(tools)} are "
                    f"relative to the folder of root {root!r}; set it to that folder"
                )
        for name, tools in self.hosts.items():
            variable = HOSTS_ENV_PREFIX + name.upper()
            if not env.get(variable, "").strip(" ,"):
                problems.append(
                    f"{variable} is not set: the URLs of {', '.join(tools)} may name "
                    f"only the hosts of the list {name!r}; set it to them, as "
                    "a.example.com,b.example.com"
                )
        boundaries = None
        try:
            # resolves every root now: a folder that does not exist stops the start-up
            boundaries = Boundaries.from_environment(env, cursors=signs)
        except ToolgenError as exc:
            problems.append(str(exc))
        if boundaries is None or problems:
            raise MisconfiguredServer(_listed(problems))
        return boundaries


TOOLSET_ENV = "TOOLGEN_TOOLSET"


@dataclass(frozen=True, slots=True)
class Toolsets:
    """The toolsets a server module can serve, by name (the tools of each), the search
    document of each tool that loads only when searched for, and the toolset served when
    TOOLGEN_TOOLSET is not set (None: every tool of the module)."""

    tools: Mapping[str, tuple[str, ...]]
    deferred: tuple[SearchDocument, ...] = ()
    default: str | None = None

    def chosen(self, environ: Mapping[str, str] | None = None) -> frozenset[str] | None:
        """The tools of the toolset to serve (None: every tool); raises
        `MisconfiguredServer` when TOOLGEN_TOOLSET names no toolset of the module."""
        name = (os.environ if environ is None else environ).get(TOOLSET_ENV)
        name = name or self.default
        if name is None:
            return None
        if name not in self.tools:
            raise MisconfiguredServer(
                f"{TOOLSET_ENV} is {name!r}, which is no toolset of this server; its "
                f"toolsets: {', '.join(self.tools) or 'none'}"
            )
        return frozenset(self.tools[name])


class CatalogueServer:
    """An MCP server for generated tools; `context` builds the run context of each call.
    `deferred`: the search documents of those of `tools` that load only when searched for
    (the others are ignored)."""

    def __init__(
        self,
        name: str,
        tools: Sequence[FunctionTool],
        contracts: Mapping[str, Contract],
        context: Callable[[], object],
        *,
        version: str | None = None,
        deferred: Sequence[SearchDocument] = (),
    ) -> None:
        self.name = name
        self._tools = {tool.name: tool for tool in tools}
        self._search = self._deferred_tools(deferred)
        # the deferred tools its client found, in the order found
        self._found: list[str] = []
        missing = sorted(set(self._tools) - set(contracts))
        if missing:
            raise MisconfiguredServer(
                f"no contract for {', '.join(missing)}: export the server again "
                "(toolgen export --to mcp)"
            )
        approval = sorted(
            n for n in self._tools if contracts[n].confirmation == "approval"
        )
        if approval:
            raise MisconfiguredServer(
                f"{', '.join(approval)} need approval of each call, which an MCP server "
                "cannot require of its client; serve them from an Agents SDK application "
                "(needs_approval), or use confirmation: token"
            )
        self._contracts = contracts
        self._context = context
        self._listed = {tool.name: self._listing(tool) for tool in tools}
        self._up_front = [
            listed
            for name, listed in self._listed.items()
            if self._search is None or name not in self._search.names
        ]
        if self._search is not None:
            self._up_front.append(
                types.Tool(
                    name=SEARCH_TOOL,
                    description=self._search.description,
                    input_schema=SEARCH_PARAMETERS,
                    annotations=types.ToolAnnotations(
                        read_only_hint=True,
                        destructive_hint=False,
                        idempotent_hint=True,
                        open_world_hint=False,
                    ),
                )
            )
        self.server: Server[Any] = Server(
            name,
            version=RUNTIME_VERSION if version is None else version,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    def _deferred_tools(
        self, documents: Sequence[SearchDocument]
    ) -> DeferredTools | None:
        chosen = [d for d in documents if d.name in self._tools]
        if not chosen:
            return None
        if SEARCH_TOOL in self._tools:
            raise MisconfiguredServer(
                f"tool {SEARCH_TOOL!r} has the name of the tool that finds the deferred "
                "tools: rename it, or load every tool up front"
            )
        descriptions = {d.name: self._tools[d.name].description for d in chosen}
        namespaces = {
            d.namespace: d.namespace_description for d in chosen if d.namespace
        }
        return DeferredTools(
            ToolIndex.build(chosen), descriptions, dict(sorted(namespaces.items()))
        )

    def _listing(self, tool: FunctionTool) -> types.Tool:
        contract = self._contracts[tool.name]
        return types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.params_json_schema,
            output_schema=dict(contract.output),
            annotations=contract.annotations(),
        )

    async def _list_tools(
        self,
        ctx: ServerRequestContext[Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[*self._up_front, *(self._listed[n] for n in self._found)]
        )

    async def _searched(
        self, ctx: ServerRequestContext[Any], search: DeferredTools, arguments: object
    ) -> types.CallToolResult:
        """A call of `search_tools`: the tools it finds join `tools/list`, and the client
        is told the list changed."""
        searched = search.answer(json.dumps(arguments))
        new = [name for name in searched.found if name not in self._found]
        self._found += new
        if new:
            await ctx.session.send_tool_list_changed()
        ok = json.loads(searched.text).get("ok") is True
        text = types.TextContent(text=searched.text)
        return types.CallToolResult(content=[text], is_error=not ok)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments if params.arguments is not None else {}
        search = self._search
        if search is not None and params.name == SEARCH_TOOL:
            return await self._searched(ctx, search, arguments)
        tool = self._tools.get(params.name)
        if tool is None:
            # the client's text, echoed cut as the envelopes echo values; a legal name (at
            # most 64 characters) in full, with its quotes
            shown = preview(params.name, MAX_NAME_CHARS + 2)
            raise MCPError(code=types.INVALID_PARAMS, message=f"no tool named {shown}")
        if (
            search is not None
            and tool.name in search.names
            and tool.name not in self._found
        ):
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"{tool.name} is not loaded: {SEARCH_TOOL} finds and loads it",
            )
        try:
            text = await run_call(
                tool, arguments, self._context(), call_id=str(ctx.request_id)
            )
        except Exception as exc:
            # the log holds the details; the client learns that the call failed and where
            _log.exception("%s failed", tool.name)
            kind = "infrastructure failure" if isinstance(exc, ToolgenError) else "bug"
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"{tool.name} failed ({kind}: {type(exc).__name__}); nothing "
                "was answered, see the server's log",
            ) from exc
        answer = json.loads(text)
        content: list[types.ContentBlock] = [types.TextContent(text=text)]
        if answer.get("ok") is True:
            return types.CallToolResult(content=content, structured_content=answer)
        return types.CallToolResult(content=content, is_error=True)

    async def run_stdio(self) -> None:
        async with stdio_server() as (read, write), anyio.create_task_group() as tasks:
            forward, read_on = anyio.create_memory_object_stream[
                SessionMessage | Exception
            ](0)
            tasks.start_soon(_answer_unreadable, read, forward, write)
            changes = NotificationOptions(tools_changed=self._search is not None)
            await self.server.run(
                read_on, write, self.server.create_initialization_options(changes)
            )


async def _answer_unreadable(
    read: ObjectReceiveStream[SessionMessage | Exception],
    forward: ObjectSendStream[SessionMessage | Exception],
    write: ObjectSendStream[SessionMessage],
) -> None:
    """Hand the client's messages on to the server, and answer a line that is none with a
    JSON-RPC error whose id is null, as JSON-RPC 2.0 asks: -32700 for text that is not
    JSON, -32600 for JSON that is no message (the SDK's server drops such a line without a
    word, which leaves the client's author guessing)."""
    async with forward:
        async for item in read:
            if not isinstance(item, Exception):
                await forward.send(item)
                continue
            errors = item.errors() if isinstance(item, pydantic.ValidationError) else []
            unparsed = any(e["type"] == "json_invalid" for e in errors)
            code, what = (
                (types.PARSE_ERROR, "Parse error: the line is not JSON")
                if unparsed
                else (types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
            )
            error = types.ErrorData(code=code, message=what)
            await write.send(
                SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))
            )


def serve_stdio(
    name: str,
    tools: Callable[[], Sequence[FunctionTool]],
    contracts: Mapping[str, Contract],
    context: Callable[[], object],
    *,
    settings: Settings | None = None,
    version: str | None = None,
    toolsets: Toolsets | None = None,
) -> None:
    """Serve the tools over stdio until the client closes the connection: those of one
    of `toolsets` when given (`Toolsets.chosen`), else every tool.

    Before anything is served, the settings the tools need (`Settings.check`) and the run
    context are read: a server without one of them does not start, and exits naming every
    one that is missing. Only then are the tools made (`tools()`) and the process's
    boundaries set to those read (`configure_boundaries`)."""
    logging.basicConfig(level=logging.WARNING)  # stderr: stdout is the protocol's
    try:
        server = _started(
            name, tools, contracts, context, settings or Settings(), version, toolsets
        )
    except ToolgenError as exc:
        raise SystemExit(f"{name}: the MCP server does not start:\n{exc}") from None
    anyio.run(server.run_stdio)


def _started(
    name: str,
    tools: Callable[[], Sequence[FunctionTool]],
    contracts: Mapping[str, Contract],
    context: Callable[[], object],
    settings: Settings,
    version: str | None,
    toolsets: Toolsets | None,
) -> CatalogueServer:
    problems: list[str] = []
    boundaries = None
    chosen = None
    try:
        chosen = None if toolsets is None else toolsets.chosen()
    except MisconfiguredServer as exc:
        problems.append(str(exc))
    try:
        boundaries = settings.check()
    except MisconfiguredServer as exc:
        problems.append(str(exc))
    try:
        context()
    except MisconfiguredServer as exc:
        problems.append(str(exc))
    if boundaries is None or problems:
        raise MisconfiguredServer("\n".join(problems))
    configure_boundaries(boundaries)
    served = [t for t in tools() if chosen is None or t.name in chosen]
    deferred = () if toolsets is None else toolsets.deferred
    return CatalogueServer(
        name, served, contracts, context, version=version, deferred=deferred
    )
