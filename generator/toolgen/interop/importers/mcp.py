"""An MCP server's `tools/list` output.

Accepted shapes: the JSON-RPC response (`{"result": {"tools": [...]}}`), its result
(`{"tools": [...]}`), a bare list of tools, or one tool (`{"name", "inputSchema", ...}`).

The annotations map to the effect as the MCP specification defines them: `readOnlyHint`
(default false) true is `read`; otherwise `destructiveHint` (default true) decides between
`destructive` and `write`, and `openWorldHint` (default true) is `open_world`. A tool with
neither readOnlyHint nor destructiveHint leaves its effect to a person: the defaults
describe what a client must assume of a tool that says nothing, not what the tool does.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgen.interop.importers.source import (
    Effect,
    Losses,
    SourceError,
    SourceFile,
    SourceTool,
    if_type,
)

KIND = "mcp"
_CARRIED = frozenset(
    {"name", "description", "inputSchema", "outputSchema", "annotations"}
)
_HINTS = frozenset(
    {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
)


def _tools(data: object) -> list[object]:
    if isinstance(data, dict):
        result = data.get("result")
        holder = result if isinstance(result, dict) else data
        listed = holder.get("tools")
        if isinstance(listed, list):
            return list(listed)
        if "inputSchema" in data or "name" in data:
            return [data]
    if isinstance(data, list):
        return list(data)
    raise SourceError(
        "expected tools/list output: {tools: [...]}, its JSON-RPC response or a list"
    )


def _effect(annotations: Mapping[str, object]) -> tuple[Effect | None, str]:
    read_only = if_type(annotations.get("readOnlyHint"), bool)
    destructive = if_type(annotations.get("destructiveHint"), bool)
    if read_only is None and destructive is None:
        return None, ""
    if read_only:
        return "read", "readOnlyHint: true"
    said = (
        "readOnlyHint: false" if read_only is False else "readOnlyHint absent (false)"
    )
    if destructive is False:
        return "write", f"{said}, destructiveHint: false"
    if destructive is None:
        return "destructive", f"{said}, destructiveHint absent (MCP's default is true)"
    return "destructive", f"{said}, destructiveHint: true"


def _tool(entry: object, index: int) -> SourceTool:
    if not isinstance(entry, dict):
        raise SourceError(f"tool {index} is not an object")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise SourceError(f"tool {index} has no name")
    annotations: Mapping[str, object] = if_type(entry.get("annotations"), dict) or {}
    losses = Losses()
    titles = [entry.get("title"), annotations.get("title")]
    for title in dict.fromkeys(t for t in titles if isinstance(t, str) and t):
        losses.add("the tool", f"title {title!r}", "the format has no display title")
    for key in sorted(set(entry) - _CARRIED - {"title"}):
        losses.add("the tool", f"key {key!r}", "the format has no such key")
    for key in sorted(set(annotations) - _HINTS):
        losses.add(
            "the tool", f"annotation {key!r}", "the format has no such annotation"
        )
    effect, basis = _effect(annotations)
    open_world = if_type(annotations.get("openWorldHint"), bool)
    if open_world is None and effect is not None:
        open_world = True  # MCP's default, for a tool that states its hints
        basis += "; openWorldHint absent (MCP's default is true)"
    idempotent = if_type(annotations.get("idempotentHint"), bool)
    if idempotent and effect == "read":
        # a read repeats nothing: the hint adds nothing to the contract
        idempotent = None
    return SourceTool(
        name=name,
        description=if_type(entry.get("description"), str),
        input_schema=if_type(entry.get("inputSchema"), dict),
        output_schema=if_type(entry.get("outputSchema"), dict),
        effect=effect,
        effect_basis=basis,
        idempotent=idempotent,
        open_world=open_world,
        losses=tuple(losses),
    )


def read(data: object) -> SourceFile:
    entries = _tools(data)
    if not entries:
        raise SourceError("the file lists no tool")
    return SourceFile(tuple(_tool(e, i) for i, e in enumerate(entries)))
