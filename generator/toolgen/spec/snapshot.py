"""A catalogue as plain, stable data: what each tool's contract says, and what the model sees.

One view of a built catalogue serves every consumer that must not depend on the IR's Python
shape: the lockfile a build commits (what the model reads, with digests), the review page, the
breaking-change check (`toolgen diff`, which compares two snapshots), and `toolgen export`. Its
keys are part of toolgen's interface: adding a key is fine, renaming one is a breaking change of
format `SNAPSHOT_FORMAT`.

Per tool:

- `model`: exactly what the Responses API receives (`type`, `name`, `description`,
  `parameters`, `strict`), and `digest`, a digest of that;
- `description_keys`: what each key of the contract gives the description
  (`toolgen.spec.describe.description_keys`), so a changed description names its cause;
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
  `source` is a change that came from toolgen, not from the spec;
- `namespace` (or null), `deferred` (resolved), `asks`, and `timeout` (`{"seconds",
  "how_to_fix"}` or null).

Per catalogue, besides its settings: `namespaces` (`{name: {"description", "deferred"}}`) and
`toolsets` (`{name: {"description", "members", "tools", "budget"}}`, `all` when none is
declared).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from toolgen.spec import describe, tokens
from toolgen.spec.ir import (
    CURSOR_PARAM,
    PAGE_SIZE_PARAM,
    Catalogue,
    Tool,
    innermost,
    named,
)
from toolgen.spec.toolschema import returns_schema

SNAPSHOT_FORMAT = 1


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:32]


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


# --- boundaries: guards, pagination, output contracts (shape: toolgen/review/elements.py) ---


def guards_snapshot(tool: Tool) -> dict[str, Any]:
    """The guard of each `path` and `url` parameter, by dotted parameter path (an array's
    for its items: `reports` for `reports: {type: array, items: {type: path}}`)."""
    found: dict[str, Any] = {}
    for path, named_param in named(tool.params):
        param = innermost(named_param)
        if param.path is not None:
            found[path] = {
                "kind": "path",
                "root": param.path.root,
                "suffixes": list(param.path.suffixes),
                "must_exist": param.path.must_exist,
            }
        elif param.url is not None:
            found[path] = {
                "kind": "url",
                "hosts": list(param.url.hosts),
                "schemes": list(param.url.schemes),
                "ports": list(param.url.ports),
                "hosts_from": param.url.hosts_from,
            }
    return found


def boundaries_snapshot(tool: Tool) -> dict[str, Any]:
    """`pagination` and `output`, when the contract declares them."""
    found: dict[str, Any] = {}
    page = tool.pagination
    if page is not None:
        found["pagination"] = {
            "max_page_size": page.max_page_size,
            "default_page_size": page.default_page_size,
            "cursor_field": CURSOR_PARAM,
            "size_field": PAGE_SIZE_PARAM,
            "ttl_seconds": page.ttl_s,
            "total": page.total,
            "noun": page.noun,
            "identity": list(page.identity),
        }
    fields = list(named(tool.returns, "items." if page is not None else ""))
    limits = {p: f.max_length for p, f in fields if f.max_length is not None}
    hidden = [p for p, f in fields if f.sensitive]
    if limits or hidden:
        found["output"] = {"max_chars": limits, "sensitive": sorted(hidden)}
    return found


def tool_snapshot(tool: Tool) -> dict[str, Any]:
    model = tokens.tool_payload(tool)
    return {
        "name": tool.name,
        "file": tool.file,
        "model": model,
        "digest": digest(model),
        "description_keys": describe.description_keys(tool),
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
        "guards": guards_snapshot(tool),
        **boundaries_snapshot(tool),
        "tokens": tokens.count(tokens.payload_text(model)),
        "examples": [
            {"args": dict(e.args), "rejected_on": e.rejected_on, "note": e.note}
            for e in tool.examples
        ],
        "source": tool.digest,
        "namespace": tool.namespace,
        "deferred": tool.deferred,
        "asks": list(tool.asks),
        "timeout": None
        if tool.timeout is None
        else {"seconds": tool.timeout.seconds, "how_to_fix": tool.timeout.how_to_fix},
    }


def catalogue_snapshot(catalogue: Catalogue) -> dict[str, Any]:
    tools = [tool_snapshot(t) for t in catalogue.tools]
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
        "namespaces": {
            n.name: {"description": n.description, "deferred": n.deferred}
            for n in catalogue.namespaces
        },
        "toolsets": {
            t.name: {
                "description": t.description,
                "members": list(t.members),
                "tools": list(t.tools),
                "budget": t.budget,
            }
            for t in catalogue.toolsets
        },
        "tokens": sum(t["tokens"] for t in tools),
        "tools": tools,
    }
