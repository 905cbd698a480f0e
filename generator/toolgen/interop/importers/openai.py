"""OpenAI function definitions: the JSON an application sends as `tools` (or `functions`).

Accepted shapes, alone or in a list (also under a top-level "tools" or "functions" key):

- Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`
- Responses API: `{"type": "function", "name", "description", "parameters", "strict"}`
- the legacy `functions` entry: `{"name", "description", "parameters"}`

A function definition says nothing about what a call does to the world, so the effect of
every imported tool is left for a person to decide.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgen.interop.importers.source import Loss, SourceError, SourceFile, SourceTool
from toolgen.text import clipped

KIND = "openai"
_KNOWN = frozenset({"type", "function", "name", "description", "parameters", "strict"})


def _entries(data: object) -> list[object]:
    if isinstance(data, dict):
        for key in ("tools", "functions"):
            listed = data.get(key)
            if isinstance(listed, list):
                return list(listed)
        return [data]
    if isinstance(data, list):
        return list(data)
    raise SourceError(
        "expected a function definition, a list of them, or {tools: [...]}"
    )


def _tool(entry: object, index: int) -> SourceTool:
    if not isinstance(entry, dict):
        raise SourceError(f"entry {index} is not an object")
    if entry.get("type", "function") != "function":
        raise SourceError(
            f"entry {index} is a {clipped(repr(entry.get('type')))} tool; only function "
            "tools can be imported"
        )
    inner = entry.get("function")
    spec: Mapping[str, object] = inner if isinstance(inner, dict) else entry
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise SourceError(f"entry {index} has no name")
    description = spec.get("description")
    parameters = spec.get("parameters")
    unknown = sorted(set(spec) - _KNOWN)
    if inner is not None:
        unknown += sorted(set(entry) - {"type", "function"})
    losses = [
        Loss("the tool", f"key {k!r}", "the format has no such key") for k in unknown
    ]
    if parameters is not None and not isinstance(parameters, dict):
        raise SourceError(f"parameters of {clipped(repr(name))} is not an object")
    return SourceTool(
        name=name,
        description=description if isinstance(description, str) else None,
        input_schema=parameters,
        losses=tuple(losses),
    )


def read(data: object) -> SourceFile:
    entries = _entries(data)
    if not entries:
        raise SourceError("the file lists no function")
    return SourceFile(tuple(_tool(e, i) for i, e in enumerate(entries)))
