"""An OpenAPI 3 document: each operation is a tool.

What the document states is carried: the `operationId` is the name (an operation without one
is not imported: the document does not name it, and a name made up from the path would be
invented); the summary and description are the intent; the path, query, header and cookie
parameters and the JSON request body's properties are the parameters, with their schemas,
descriptions, examples and whether they are required; the JSON schema of the first success
response is the result. References into the document (`#/components/...`) are inlined;
OpenAPI 3.0's `nullable: true` and boolean `exclusiveMinimum`/`exclusiveMaximum` are read as
their JSON Schema equivalents (a null type; a numeric bound).

The effect each HTTP method states (RFC 9110, `_effect`), and what a contract does not hold
and is reported per tool instead (the HTTP call, security, error responses...):
docs/howto-import-openapi.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolgen.interop.importers.source import (
    Effect,
    Loss,
    Losses,
    SourceError,
    SourceFile,
    SourceTool,
)
from toolgen.text import clipped

KIND = "openapi"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SAFE = frozenset({"get", "head", "options", "trace"})
_MAX_DEPTH = 32
# values written out by inlining, over the whole document: a document the size of GitHub's
# writes out about 200,000; $refs (or YAML aliases) that each point twice at the next write
# out 2**32 from a few lines. One operation past its own bound is left out (no model reads
# a tool of a million values), so one such operation costs about 2 s and 100 MB, not the
# whole document's bound (18 s and 1 GB)
_MAX_INLINED = 10_000_000
_MAX_INLINED_PER_OPERATION = 1_000_000
_PARAMETER_KEYS = frozenset(
    {"name", "in", "description", "required", "schema", "example", "examples"}
)
# how a value is written into the request: the implementation's business, not the model's
_BINDING_KEYS = frozenset({"style", "explode", "allowReserved", "allowEmptyValue"})
_OPERATION_CARRIED = frozenset(
    {"operationId", "summary", "description", "parameters", "requestBody", "responses"}
)
# the model cannot tell a retry from a new request; the runtime can (docs/writes.md)
_IDEMPOTENCY_KEY = (
    "a key per operation is the implementation's to send, not a value the model makes "
    "up; declare idempotency in the draft (by key, the runtime runs a repeated call once)"
)
_JSON = re.compile(r"^application/(.+\+)?json(;.*)?$")


class _TooLarge(Exception):
    """One operation's schemas write out more values than an operation may."""


class _Document:
    """Resolves `#/...` references of one document, inlining them (cycles stay as $ref,
    which the schema conversion reports)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.version = str(data.get("openapi", ""))
        self._inlined = 0
        self._started = 0  # what was inlined before the current operation

    def start_operation(self) -> None:
        """Count the values the next operation writes out (`_MAX_INLINED_PER_OPERATION`)."""
        self._started = self._inlined

    def pointer(self, ref: str) -> object:
        node: object = self.data
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def resolve(self, node: object) -> object:
        """The node its own `$ref` points to (with the keys beside it), inlining nothing
        below: a path item, an operation, a parameter, a body or a response is read once
        this way, and only the schemas in it are inlined, each once (inlining whole path
        items, then their operations, then their parts, took 3 s over GitHub's document)."""
        seen: tuple[str, ...] = ()
        while isinstance(node, dict) and len(seen) <= _MAX_DEPTH:
            ref = node.get("$ref")
            if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen:
                break
            target = self.pointer(ref)
            if not isinstance(target, dict):
                break
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            seen = (*seen, ref)
        return node

    def inline(self, node: object, seen: tuple[str, ...] = ()) -> object:
        self._inlined += 1
        if self._inlined > _MAX_INLINED:
            raise SourceError(
                f"its $refs and aliases write out more than {_MAX_INLINED:,} values"
            )
        if self._inlined - self._started > _MAX_INLINED_PER_OPERATION:
            raise _TooLarge
        if len(seen) > _MAX_DEPTH:
            return node
        if isinstance(node, list):
            return [self.inline(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            target = self.pointer(ref)
            if isinstance(target, dict):
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return self.inline({**target, **rest}, (*seen, ref))
        return {key: self.inline(value, seen) for key, value in node.items()}

    def schema(self, node: object) -> dict[str, Any]:
        """A schema inlined, with OpenAPI 3.0's dialect read as JSON Schema."""
        inlined = self.inline(node)
        if not isinstance(inlined, dict):
            return {}
        return _as_json_schema(inlined) if self.version.startswith("3.0") else inlined


def _as_json_schema(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {
                k: _as_json_schema(v) if isinstance(v, dict) else v
                for k, v in value.items()
            }
        elif key in ("items", "not", "additionalProperties") and isinstance(
            value, dict
        ):
            out[key] = _as_json_schema(value)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            out[key] = [_as_json_schema(v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    if out.pop("nullable", False) is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif "anyOf" in out or "oneOf" in out or "allOf" in out:
            out = {"anyOf": [out, {"type": "null"}]}
    for flag, bound in (
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ):
        if isinstance(out.get(flag), bool) and out.pop(flag) and bound in out:
            out[flag] = out.pop(bound)
    return out


def _merged_parameters(
    doc: _Document, shared: object, own: object
) -> list[dict[str, Any]]:
    """Path-level parameters, overridden by the operation's own of the same name and place."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for group in (shared, own):
        for raw in group if isinstance(group, list) else []:
            param = doc.resolve(raw)
            if isinstance(param, dict):
                name = param.get("name")  # one without a name is kept, and reported
                key = str(name) if isinstance(name, str) else f"#{len(found)}"
                found[(key, str(param.get("in")))] = param
    return list(found.values())


def _parameter_schema(
    doc: _Document, param: Mapping[str, Any], where: str, losses: Losses
) -> dict[str, Any] | None:
    if "schema" not in param:
        what = "content" if "content" in param else "no schema"
        losses.add(where, what, "only a parameter with a schema can be read")
        return None
    schema = doc.schema(param["schema"])
    if "description" in param:
        schema["description"] = param["description"]
    if "example" in param:
        schema["example"] = param["example"]
    examples = param.get("examples")
    if isinstance(examples, dict):
        found = [doc.resolve(e) for e in examples.values()]
        values = [e.get("value") for e in found if isinstance(e, dict)]
        schema["examples"] = [*schema.get("examples", []), *values]
    for key in sorted(set(param) - _PARAMETER_KEYS - _BINDING_KEYS):
        if key == "deprecated" and param[key] is True:
            losses.add(where, "deprecated: true", "the format has no such key")
        elif key != "deprecated":
            losses.add(where, f"key {key!r}", "the format has no such key")
    return schema


def _json_schema(content: object) -> object | None:
    if not isinstance(content, dict):
        return None
    for media, entry in content.items():
        if _JSON.match(str(media)) and isinstance(entry, dict) and "schema" in entry:
            schema: object = entry["schema"]
            return schema
    return None


def _body(
    doc: _Document,
    operation: Mapping[str, Any],
    properties: dict[str, Any],
    required: list[str],
    losses: Losses,
) -> tuple[str, ...]:
    """Adds the body's parameters; returns those it requires when it may be left out."""
    body = doc.resolve(operation.get("requestBody"))
    if not isinstance(body, dict):
        return ()
    content = body.get("content")
    raw = _json_schema(content)
    if raw is None:
        media = (
            ", ".join(sorted(map(str, content))) if isinstance(content, dict) else ""
        )
        losses.add(
            "the request body", f"content {media or 'none'}", "only a JSON body is read"
        )
        return ()
    schema = doc.schema(raw)
    body_required = body.get("required") is True
    props = schema.get("properties")
    if schema.get("type", "object") == "object" and isinstance(props, dict):
        listed = schema.get("required")
        needed = set(listed) if isinstance(listed, list) and body_required else set()
        if isinstance(listed, list) and listed and not body_required:
            losses.add(
                "the request body",
                f"required {', '.join(map(str, listed))}",
                "requestBody.required is not true (OpenAPI's default is false), so "
                "the body may be left out and none of its properties is required; "
                "if the body is needed, set requestBody.required and import again, or "
                "drop optional from those parameters",
            )
        for name, sub in props.items():
            if name in properties:
                losses.add(
                    f"body property {name!r}",
                    "the property",
                    "a parameter has this name too; one name, one argument",
                )
                continue
            properties[name] = sub
            if name in needed:
                required.append(name)
        for key in sorted(set(schema) - {"type", "properties", "required"}):
            if key == "additionalProperties" and schema[key] is False:
                continue
            losses.add(
                "the request body", f"key {key!r}", "the format cannot express it"
            )
        return () if body_required or not isinstance(listed, list) else tuple(listed)
    properties["body"] = schema
    if body_required:
        required.append("body")
    return ()


def _result(doc: _Document, operation: Mapping[str, Any], losses: Losses) -> object:
    responses = doc.resolve(operation.get("responses"))
    if not isinstance(responses, dict):
        return None
    # YAML: 200 or "200"
    by_code = {str(code): entry for code, entry in responses.items()}
    codes = sorted(by_code)
    success = [c for c in codes if c.startswith("2")]
    errors = [c for c in codes if not c.startswith("2")]
    if errors:
        losses.add(
            "the tool",
            f"responses {', '.join(errors)}",
            "HTTP error responses are not the contract's error codes: declare under "
            "errors the ones the model can fix, with how to fix them",
        )
    for code in success:
        entry = doc.resolve(by_code[code])
        raw = _json_schema(entry.get("content")) if isinstance(entry, dict) else None
        if raw is not None:
            return doc.schema(raw)
    return None


def _effect(method: str) -> tuple[Effect | None, str, bool | None]:
    if method in _SAFE:
        return "read", f"{method.upper()} is safe (RFC 9110, 9.2.1)", None
    if method == "delete":
        return (
            "destructive",
            "DELETE removes what it names and is idempotent (RFC 9110, 9.3.5)",
            True,
        )
    if method == "put":  # idempotent (RFC 9110, 9.2.2); whether it destroys is open
        return None, "", True
    return None, "", None


def _tool(
    doc: _Document, path: str, method: str, item: Mapping[str, Any]
) -> SourceTool:
    operation = doc.resolve(item[method])
    assert isinstance(operation, dict)
    losses = Losses()
    properties: dict[str, Any] = {}
    required: list[str] = []
    places: dict[str, list[str]] = {}
    for param in _merged_parameters(
        doc, item.get("parameters"), operation.get("parameters")
    ):
        if not isinstance(param.get("name"), str):
            ref = param.get("$ref")
            losses.add(
                "a parameter" + (f" ($ref {clipped(repr(ref))})" if ref else ""),
                "no name",
                "a parameter without a name, or a $ref that leads nowhere in the "
                "document, cannot be read",
            )
            continue
        name, place = str(param.get("name")), str(param.get("in"))
        where = f"parameter {name!r}"
        if place == "header" and name.lower() == "idempotency-key":
            losses.add(where, "the header", _IDEMPOTENCY_KEY)
            continue
        if name in properties:
            losses.add(where, f"in {place}", "another parameter has this name")
            continue
        schema = _parameter_schema(doc, param, where, losses)
        if schema is None:
            continue
        properties[name] = schema
        places.setdefault(place, []).append(name)
        if param.get("required") is True or place == "path":
            required.append(name)
    needed = _body(doc, operation, properties, required, losses)
    binding = "; ".join(
        f"{place}: {', '.join(names)}" for place, names in places.items()
    )
    losses.insert(
        0,
        Loss(
            "the tool",
            f"the HTTP call {method.upper()} {path}"
            + (f" ({binding})" if binding else ""),
            "a contract says what the model sends; the implementation makes the call",
        ),
    )
    security = operation.get("security", doc.data.get("security"))
    if security:
        listed = security if isinstance(security, list) else [security]
        schemes = sorted({str(k) for s in listed if isinstance(s, dict) for k in s})
        losses.add(
            "the tool",
            f"security {', '.join(schemes)}",
            "credentials are the implementation's, read from its environment, never "
            "arguments the model fills in",
        )
    for key in sorted(set(operation) - _OPERATION_CARRIED - {"security"}):
        losses.add("the tool", f"key {key!r}", "the format has no such key")
    parts = [
        str(operation[k]).strip()
        for k in ("summary", "description")
        if isinstance(operation.get(k), str) and str(operation[k]).strip()
    ]
    effect, basis, idempotent = _effect(method)
    result = _result(doc, operation, losses)
    return SourceTool(
        name=str(operation["operationId"]),
        description="\n\n".join(parts) or None,
        input_schema={"type": "object", "properties": properties, "required": required},
        output_schema=result if isinstance(result, dict) and result else None,
        effect=effect,
        effect_basis=basis,
        idempotent=idempotent,
        needed=needed,
        losses=tuple(losses),
    )


def read(data: object) -> SourceFile:
    if not isinstance(data, dict) or not str(data.get("openapi", "")).startswith("3."):
        raise SourceError("expected an OpenAPI 3 document (a top-level openapi: 3.x)")
    doc = _Document(data)
    paths = data.get("paths")
    if not isinstance(paths, dict):
        raise SourceError("the document has no paths")
    tools: list[SourceTool] = []
    skipped: list[tuple[str, str]] = []
    for path, raw_item in paths.items():
        item = doc.resolve(raw_item)
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            if not isinstance(item.get(method), dict):
                continue
            label = f"{method.upper()} {path}"
            operation_id = item[method].get("operationId")
            if not isinstance(operation_id, str) or not operation_id:
                skipped.append(
                    (label, "it has no operationId, so the document does not name it")
                )
                continue
            doc.start_operation()
            try:
                tools.append(_tool(doc, str(path), method, item))
            except _TooLarge:
                skipped.append(
                    (
                        operation_id,
                        "its $refs and aliases write out more than "
                        f"{_MAX_INLINED_PER_OPERATION:,} values",
                    )
                )
    if not tools and not skipped:
        raise SourceError("the document has no operations")
    return SourceFile(tuple(tools), tuple(skipped))
