"""The JSON Schema of every successful answer of a tool: what MCP's `outputSchema` declares.

It must describe every answer the runtime writes on success, or an MCP client refuses the
result: docs/howto-mcp.md ("What a client sees") says what that is beyond the contract's
`returns` (written by toolgen_runtime.pagination, .store and .output) and why a failed call
needs none. tests/reach/test_mcp_clients.py runs every kind of answer through the official
Python client.

Built from the catalogue snapshot of the tool (`returns`, `pagination`, `output`,
`idempotency`); the compiler cannot import the runtime (it loads the Agents SDK), so the
runtime's key names are written here again and the client test above holds them equal.

The same schema is the tool's `output_json_schema` for the Agents SDK (`output_schema`, a
Responses API feature: its card's, `output_schema`), where `ok` may also be false: a failed
call answers with the error envelope instead, which no strict schema can describe (its keys
vary), so the schema says so in words; and every key is required in a strict schema, so one
an answer may leave out is nullable there.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolgen.spec.ir import Tool
from toolgen.spec.snapshot import boundaries_snapshot
from toolgen.spec.toolschema import nullable, returns_schema, strict_object

REDACTED = "[redacted]"  # toolgen_runtime.output.REDACTED


def answer_schema(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The success answer of one tool of the catalogue snapshot, as a JSON Schema."""
    fields: dict[str, Any] = copy.deepcopy(tool["returns"])
    output = tool.get("output", {})
    for path in output.get("sensitive", ()):
        _redact(fields, path.split("."), "items." if "pagination" in tool else "")
    properties: dict[str, Any] = {"ok": {"type": "boolean", "const": True}}
    required = ["ok"]
    page = tool.get("pagination")
    if page is None:
        properties.update(fields["properties"])
        required += fields["required"]
    else:
        properties.update(_page(fields, page))
        required += ["items", "shown", "total_available", "next_cursor", "note"]
    if tool["idempotency"]["kind"] == "key":
        properties["duplicate"] = {
            "type": "boolean",
            "const": True,
            "description": "Present on a repeat: the first call's answer, given again.",
        }
    if output.get("max_chars"):
        properties["truncated"] = {
            "type": "array",
            "items": {"type": "string"},
            "description": "The fields whose text was cut, when one was.",
        }
    return strict_object(properties, required)


def output_schema(tool: Tool) -> dict[str, Any]:
    """What a call of `tool` answers, for the SDK's output_json_schema."""
    shot = {
        "returns": returns_schema(tool.returns),
        "idempotency": {"kind": tool.idempotency.kind},
        **boundaries_snapshot(tool),
    }
    schema = answer_schema(shot)
    # strict, as the SDK makes it, every key is required: one an answer may leave out
    # (`duplicate`, `truncated`) is nullable instead
    for name in set(schema["properties"]) - set(schema["required"]):
        optional = schema["properties"][name]
        optional.pop("const", None)
        optional["type"] = [optional["type"], "null"]
    schema["required"] = list(schema["properties"])
    schema["properties"]["ok"] = {
        "type": "boolean",
        "description": "True. A call that fails answers toolgen's error envelope instead: "
        "ok false, with error and how_to_fix.",
    }
    return schema


_TOTALS: dict[str, dict[str, Any]] = {
    "counted": {"type": "integer", "minimum": 0},
    "unknown": {"type": "null"},
    "expensive": {"type": ["integer", "null"], "minimum": 0},
}


def _page(item: dict[str, Any], page: Mapping[str, Any]) -> dict[str, Any]:
    noun = page["noun"]
    return {
        "items": {
            "type": "array",
            "items": item,
            "description": f"The {noun}s of this page.",
        },
        "shown": {
            "type": "integer",
            "minimum": 0,
            "description": f"How many {noun}s this page shows.",
        },
        "total_available": {
            **_TOTALS[page["total"]],
            "description": f"How many {noun}s match in all, when counted.",
        },
        "next_cursor": {
            "type": ["string", "null"],
            "description": "The cursor of the next page; null on the last one.",
        },
        "note": {"type": "string", "description": "What the page shows, in words."},
    }


def _redact(schema: dict[str, Any], path: list[str], prefix: str) -> None:
    """Replace the field at `path` (dotted, through arrays, as the output contract names it;
    without the page's `items.`) by what the model reads of a sensitive value."""
    parts = path[1:] if prefix and path[0] == "items" else path
    node = schema
    for part in parts[:-1]:
        node = node["properties"][part]
        # on through the object's schema, or its array's items'
        while "items" in node and "properties" not in node:
            node = node["items"]
    leaf = node["properties"][parts[-1]]
    takes_null = nullable(leaf)
    redacted: dict[str, Any] = {
        "type": ["string", "null"] if takes_null else "string",
        "enum": [REDACTED, None] if takes_null else [REDACTED],
    }
    if "description" in leaf:
        redacted["description"] = leaf["description"]
    node["properties"][parts[-1]] = redacted
