"""Serving generated tools over MCP, with the same validation, envelopes and implementations.

A `CatalogueServer` lists each generated `FunctionTool` as an MCP tool and answers a call by
running the tool's own `on_invoke_tool` (the `Invoker` of the generated module), so an MCP
client gets exactly what an agent of the Agents SDK gets:

- the name, description and input schema the model sees (`inputSchema` is `PARAMETERS`);
- every annotation written out, from the contract (`Contract`): clients read an absent
  `readOnlyHint` as false, `destructiveHint` and `openWorldHint` as true;
- `outputSchema`: the success answer, `{"ok": true, ...the declared return fields}`, also
  returned as `structuredContent`;
- invalid arguments and declared data errors: the envelope as the tool result, with
  `isError: true`, so the model reads it and corrects itself;
- an infrastructure failure (a `ToolgenError`, or any other exception): a JSON-RPC error, never
  a result the model could read as an answer; the details go to the server's log only;
- the run context: built by the server from its own configuration or authentication (the
  `context` callable), never from the client's arguments, which hold only the parameters.

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
import json
import logging
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio
import mcp_types as types
from agents import FunctionTool
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from toolgen_runtime.calls import run_call
from toolgen_runtime.errors import ToolgenError

__all__ = [
    "CatalogueServer",
    "Contract",
    "MisconfiguredServer",
    "context_from_environment",
    "serve_stdio",
]

_log = logging.getLogger(__name__)

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
    returns: Mapping[str, Any]  # the JSON Schema of a successful answer's fields

    def annotations(self) -> types.ToolAnnotations:
        # all four written: a client reads a missing hint as its most dangerous value
        return types.ToolAnnotations(
            read_only_hint=self.effect == "read",
            destructive_hint=self.effect == "destructive",
            idempotent_hint=self.effect == "read" or self.idempotent,
            open_world_hint=self.open_world,
        )

    def output_schema(self) -> dict[str, Any]:
        """The success answer: `ok` and exactly the declared return fields."""
        properties = dict(self.returns.get("properties", {}))
        required = list(self.returns.get("required", []))
        return {
            "type": "object",
            "properties": {"ok": {"type": "boolean", "const": True}, **properties},
            "required": ["ok", *required],
            "additionalProperties": False,
        }


def _convert(kind: object, text: str) -> object:
    if kind is str:
        return text
    if kind is int:
        return int(text)
    if kind is float:
        return float(text)
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    if kind is datetime.date:
        return datetime.date.fromisoformat(text)
    if kind is datetime.datetime:
        return datetime.datetime.fromisoformat(text)
    raise ValueError(f"a field of type {kind!r} cannot be read from the environment")


def context_from_environment(
    context_class: type[ContextT],
    prefix: str,
    environ: Mapping[str, str] | None = None,
) -> ContextT:
    """The catalogue's run context from environment variables, one per field:
    `InventoryContext` with prefix `INVENTORY_` reads INVENTORY_CUSTOMER_ID and
    INVENTORY_RUN_ID. A missing or malformed variable stops the server."""
    source = os.environ if environ is None else environ
    if not dataclasses.is_dataclass(context_class):
        raise MisconfiguredServer(f"{context_class.__qualname__} is not a dataclass")
    hints = typing.get_type_hints(context_class)
    values: dict[str, object] = {}
    for field in dataclasses.fields(context_class):
        variable = prefix + field.name.upper()
        if variable not in source:
            raise MisconfiguredServer(
                f"the run context needs {variable} ({field.name} of "
                f"{context_class.__qualname__}): set it in the server's environment"
            )
        try:
            values[field.name] = _convert(hints[field.name], source[variable])
        except ValueError as exc:
            raise MisconfiguredServer(f"{variable}: {exc}") from exc
    return context_class(**values)


class CatalogueServer:
    """An MCP server for generated tools; `context` builds the run context of each call."""

    def __init__(
        self,
        name: str,
        tools: Sequence[FunctionTool],
        contracts: Mapping[str, Contract],
        context: Callable[[], object],
        *,
        version: str = "",
    ) -> None:
        self.name = name
        self._tools = {tool.name: tool for tool in tools}
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
        self._listed = [self._listing(tool) for tool in tools]
        self.server: Server[Any] = Server(
            name,
            version=version,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    def _listing(self, tool: FunctionTool) -> types.Tool:
        contract = self._contracts[tool.name]
        return types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.params_json_schema,
            output_schema=contract.output_schema(),
            annotations=contract.annotations(),
        )

    async def _list_tools(
        self,
        ctx: ServerRequestContext[Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(self._listed))

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = self._tools.get(params.name)
        if tool is None:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"no tool named {params.name!r}"
            )
        arguments = params.arguments if params.arguments is not None else {}
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
        async with stdio_server() as (read, write):
            await self.server.run(
                read, write, self.server.create_initialization_options()
            )


def serve_stdio(
    name: str,
    tools: Sequence[FunctionTool],
    contracts: Mapping[str, Contract],
    context: Callable[[], object],
) -> None:
    """Serve the tools over stdio until the client closes the connection. The context is
    built once before serving, so a server without its configuration does not start."""
    context()
    logging.basicConfig(level=logging.WARNING)  # stderr: stdout is the protocol's
    anyio.run(CatalogueServer(name, tools, contracts, context).run_stdio)
