"""A catalogue as plain, stable data: what each tool's contract says, and what the model sees.

One view of a built catalogue serves every consumer that must not depend on the IR's Python
shape: the lockfile a build commits (what the model reads, with digests), the review page, the
breaking-change check (`toolgen diff`, which compares two snapshots), and `toolgen export`. Its
keys are part of toolgen's interface: adding a key is fine, renaming one is a breaking change of
format `SNAPSHOT_FORMAT`.

Per tool:

- `model`: exactly what the Responses API receives (`type`, `name`, `description`,
  `parameters`, `strict`), and `digest`, a digest of that;
- `effect`, `open_world`, `idempotency` (`{"kind": "none" | "natural" | "key", ...}`),
  `confirmation` (`"none" | "approval" | "token"`);
- `context`: the run-context fields the tool reads (never in its schema);
- `returns`: the JSON Schema of a successful answer's fields; `errors`: each declared code with
  its how-to-fix and whether it is retryable;
- `guards`: per parameter path, what guards it (`{"kind": "path" | "url", ...}`); `pagination`
  and `output` (text limits and sensitive fields) when the contract declares them;
- `tokens`: what the tool costs the model on every turn (o200k_base);
- `examples`: the contract's examples of arguments (`args`, `rejected_on`: the field a
  rejected one is refused on, or null, `note`), as the review page shows them;
- `source`: a digest of the contract file's content, so a change of `digest` with the same
  `source` is a change that came from toolgen, not from the spec.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from toolgen import tokens
from toolgen.ir import Catalogue, ReturnField, Tool

SNAPSHOT_FORMAT = 1

_JSON_TYPE = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "date": "string",
    "datetime": "string",
    "array": "array",
    "object": "object",
}
_FORMAT = {"date": "date", "datetime": "date-time"}


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:32]


def _return_schema(field: ReturnField) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _JSON_TYPE[field.type]}
    if field.description:
        schema["description"] = field.description
    if field.type in _FORMAT:
        schema["format"] = _FORMAT[field.type]
    if field.enum is not None:
        schema["enum"] = list(field.enum)
    if field.type == "array" and field.items is not None:
        schema["items"] = _return_schema(field.items)
    if field.type == "object":
        schema.update(returns_schema(field.properties))
    if field.optional:
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    return schema


def returns_schema(fields: tuple[ReturnField, ...]) -> dict[str, Any]:
    """The JSON Schema of an object of return fields, by the names the model reads."""
    return {
        "type": "object",
        "properties": {f.name: _return_schema(f) for f in fields},
        "required": [f.name for f in fields],
        "additionalProperties": False,
    }


def _idempotency(tool: Tool) -> dict[str, Any]:
    declared = tool.idempotency
    if declared.kind != "key":
        return {"kind": declared.kind}
    return {
        "kind": "key",
        "arguments": list(declared.arguments),
        "context": list(declared.context),
        "retention_s": declared.retention_s,
    }


def tool_snapshot(tool: Tool, cost: int | None = None) -> dict[str, Any]:
    model = tokens.tool_payload(tool)
    return {
        "name": tool.name,
        "file": tool.file,
        "model": model,
        "digest": digest(model),
        "effect": tool.effect,
        "open_world": tool.open_world,
        "idempotency": _idempotency(tool),
        "confirmation": tool.confirmation,
        "context": [f.name for f in tool.context],
        "returns": returns_schema(tool.returns),
        "errors": {
            e.code: {"how_to_fix": e.how_to_fix, "retryable": e.retryable}
            for e in tool.errors
        },
        "guards": {},
        "tokens": cost
        if cost is not None
        else tokens.count(tokens.payload_text(model)),
        "examples": [
            {"args": dict(e.args), "rejected_on": e.rejected_on, "note": e.note}
            for e in tool.examples
        ],
        "source": tool.digest,
    }


def catalogue_snapshot(catalogue: Catalogue) -> dict[str, Any]:
    measured: Mapping[str, int] = tokens.measure(catalogue).by_name()
    tools = [tool_snapshot(t, measured.get(t.name)) for t in catalogue.tools]
    return {
        "snapshot_format": SNAPSHOT_FORMAT,
        "catalogue": catalogue.name,
        "folder": catalogue.folder,
        "description": catalogue.description,
        "package": catalogue.package,
        "context": {
            f.name: {"type": f.type, "description": f.description}
            for f in catalogue.context
        },
        "budget": {
            "tokens": catalogue.budget.tokens,
            "tool_tokens": catalogue.budget.tool_tokens,
        },
        "targets": list(catalogue.targets),
        "tokens": sum(t["tokens"] for t in tools),
        "tools": tools,
    }
