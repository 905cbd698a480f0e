"""A hand-made catalogue snapshot for the diff rule fixtures.

It holds what the example catalogue does not yet have (idempotency keys, approval and token
confirmation, path and URL guards, pagination, output contracts), in the shape the snapshot
will carry them (see toolgen.review.elements), so every rule has a case before the fields
land in the IR.
"""

from __future__ import annotations

import copy
from typing import Any


def _nullable(kind: str, **more: Any) -> dict[str, Any]:
    return {"type": [kind, "null"], **more}


def _tool(name: str, **fields: Any) -> dict[str, Any]:
    params = fields.pop("params")
    base: dict[str, Any] = {
        "name": name,
        "file": f"spec/shop/tools/{name}.yaml",
        "model": {
            "type": "function",
            "name": name,
            "description": f"The {name} tool.",
            "parameters": {
                "type": "object",
                "properties": params,
                "required": list(params),
                "additionalProperties": False,
            },
            "strict": True,
        },
        "digest": f"digest-{name}",
        "description_keys": {"intent": f"The {name} tool.", "use_when": "", "not_when": [],
                             "requires": [], "effect": fields.get("effect", "read"),
                             "idempotency": {"kind": "none", "key": []},
                             "confirmation": "none"},
        "effect": "read",
        "open_world": False,
        "idempotency": {"kind": "none"},
        "confirmation": "none",
        "context": [],
        "returns": {"type": "object", "properties": {}, "required": [],
                    "additionalProperties": False},
        "errors": {},
        "guards": {},
        "tokens": 100,
        "examples": [],
        "source": f"source-{name}",
    }  # fmt: skip
    base.update(fields)
    return base


def _returns(**props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def base() -> dict[str, Any]:
    """Three tools: a search with nested parameters, an idempotent write behind approval
    with a URL guard, a paginated read with a path guard and an output contract."""
    search = _tool(
        "search_orders",
        params={
            "status": _nullable("string", enum=["open", "shipped", None],
                                description="Only orders in this status."),
            "max_results": {"type": "integer", "minimum": 1, "maximum": 50,
                            "description": "Most orders to return."},
            "since": _nullable("string", format="date", description="From this day."),
            "sku": {"type": "string", "pattern": "^SKU-\\d+$", "description": "A product."},
            "filter": {
                "type": "object",
                "description": "More filters.",
                "properties": {
                    "city": {"type": "string", "description": "Delivery city."},
                    "tags": {"type": "array", "maxItems": 3,
                             "items": {"type": "string", "enum": ["gift", "bulk"]}},
                },
                "required": ["city", "tags"],
                "additionalProperties": False,
            },
        },
        context=["customer_id"],
        returns=_returns(
            orders={"type": "array", "items": {"type": "object", "properties": {
                "order_id": {"type": "string", "description": "The order."},
                "status": {"type": "string", "enum": ["open", "shipped"]},
            }, "required": ["order_id", "status"], "additionalProperties": False}},
            total_eur={"type": "number", "description": "Sum of the orders."},
            note=_nullable("string", description="A remark."),
        ),
        errors={
            "unknown_status": {"how_to_fix": "Use open or shipped.", "retryable": False},
            "busy": {"how_to_fix": "Call again in a minute.", "retryable": True},
        },
    )  # fmt: skip
    send = _tool(
        "send_order",
        params={
            "order_ref": {"type": "string", "description": "The order's reference."},
            "callback": {"type": "string", "description": "Where to report delivery."},
        },
        effect="write",
        idempotency={"kind": "key", "arguments": ["order_ref"], "context": ["run_id"],
                     "retention_s": 86400},
        confirmation="approval",
        context=["run_id", "customer_id"],
        guards={"callback": {"kind": "url", "hosts": ["hooks.example.com"],
                             "schemes": ["https"], "ports": [], "hosts_from": None}},
        returns=_returns(sent={"type": "boolean", "description": "True once sent."}),
        errors={"out_of_stock": {"how_to_fix": "Order fewer pieces.", "retryable": False}},
    )  # fmt: skip
    read = _tool(
        "read_document",
        params={
            "name": {"type": "string", "description": "The file, such as notes.md."},
            "cursor": _nullable("string", description="From the last page; null first."),
        },
        guards={"name": {"kind": "path", "root": "documents", "suffixes": [".md", ".txt"],
                         "must_exist": True}},
        pagination={"max_page_size": 20, "cursor_field": "cursor", "size_field": None,
                    "ttl_seconds": 3600},
        output={"max_chars": {"text": 4000}, "sensitive": ["owner_email"]},
        returns=_returns(
            text={"type": "string", "description": "The page of text."},
            owner_email={"type": "string", "description": "Who owns it."},
        ),
    )  # fmt: skip
    tools = [read, search, send]
    return {
        "snapshot_format": 1,
        "catalogue": "shop",
        "folder": "spec/shop",
        "description": "A shop.",
        "package": "generated.shop",
        "context": {"customer_id": {"type": "integer", "description": "Who."},
                    "run_id": {"type": "string", "description": "The run."}},
        "budget": {"tokens": 2500, "tool_tokens": None},
        "targets": ["openai"],
        "tokens": sum(t["tokens"] for t in tools),
        "tools": tools,
    }  # fmt: skip


def tool(shot: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in shot["tools"] if t["name"] == name)


def param(shot: dict[str, Any], name: str, *path: str) -> dict[str, Any]:
    node = tool(shot, name)["model"]["parameters"]["properties"]
    found: dict[str, Any] = node[path[0]]
    for part in path[1:]:
        found = found["items"] if part == "items" else found["properties"][part]
    return found


def returned(shot: dict[str, Any], name: str, *path: str) -> dict[str, Any]:
    node = tool(shot, name)["returns"]["properties"]
    found: dict[str, Any] = node[path[0]]
    for part in path[1:]:
        found = found["items"] if part == "items" else found["properties"][part]
    return found


def copied(shot: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(shot)
