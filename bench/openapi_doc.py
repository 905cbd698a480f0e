"""A benchmark catalogue (bench/realistic.py or bench/catalogue.py) as one OpenAPI 3.0
document: the input of openapi-python-client.

One tool-shaped operation per tool file, built from the same dictionaries the YAML files hold:
`POST /<tool>`, the request body is the parameters (every field required and nullable where
the tool's is optional, no other field allowed: toolgen's strict shape), the 200 response the
returns, the 400 response the error codes, and the context fields are header parameters (what
the application injects, as toolgen's context fields are). Every constraint is carried over:
enum, pattern, bounds, lengths, item counts, descriptions, examples, defaults. What OpenAPI
has no word for becomes the nearest it has:

- a `path` parameter is a string with a pattern: relative, no `..` step, one of the suffixes;
- a `url` parameter is a string of format `uri` with a pattern naming the scheme and hosts
  (the hosts a deployment adds, `hosts_from`, have no counterpart);
- pagination is what toolgen adds for it: `cursor` and `page_size` in the request, and a page
  in the response (`items`, each the tool's returns, `next_cursor`, `total_available`);
- idempotency, confirmation (and the prepare tool a token adds) and approval have none: they
  are left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


_SCALARS = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "path": {"type": "string"},
    "url": {"type": "string", "format": "uri"},
}


def _guard_pattern(param: dict[str, Any]) -> str | None:
    """The pattern that stands for a path's root and suffixes, or a URL's hosts."""
    if param["type"] == "path":
        suffixes = "|".join(re.escape(s.lstrip(".")) for s in param.get("suffixes", ()))
        ending = rf"\.(?:{suffixes})" if suffixes else ""
        return rf"^(?!/)(?!(?:.*/)?\.\.(?:/|$))[^\x00]+{ending}$"
    if param["type"] == "url":
        schemes = "|".join(param.get("schemes", ["https"]))
        hosts = "|".join(re.escape(h) for h in param.get("hosts", ()))
        return rf"^(?:{schemes})://(?:{hosts})(?:/|$)"
    return None


def openapi_schema(param: dict[str, Any]) -> dict[str, Any]:
    """One toolgen parameter (or return field) as an OpenAPI 3.0 schema, constraint for
    constraint."""
    kind = param["type"]
    if kind == "array":
        schema: dict[str, Any] = {
            "type": "array",
            "items": openapi_schema(param["items"]),
        }
    elif kind == "object":
        schema = object_schema(param["properties"])
    else:
        schema = dict(_SCALARS[kind])
        guard = _guard_pattern(param)
        if guard is not None:
            schema["pattern"] = guard
    renames = {
        "enum": "enum",
        "pattern": "pattern",
        "min": "minimum",
        "max": "maximum",
        "min_length": "minLength",
        "max_length": "maxLength",
        "min_items": "minItems",
        "max_items": "maxItems",
        "description": "description",
        "example": "example",
        "default": "default",
    }
    for key, name in renames.items():
        if key in param:
            schema[name] = param[key]
    if param.get("optional") or "default" in param:
        schema["nullable"] = True
    return schema


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    # every field sent, none other: toolgen's strict shape
    return {
        "type": "object",
        "properties": {name: openapi_schema(spec) for name, spec in properties.items()},
        "required": list(properties),
        "additionalProperties": False,
    }


def _paged(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request and response schemas of a tool: with pagination, what toolgen adds."""
    request, response = object_schema(spec["params"]), object_schema(spec["returns"])
    pages = spec.get("pagination")
    if pages is None:
        return request, response
    noun = pages.get("noun", "result")
    added = {
        "cursor": {
            "type": "string",
            "nullable": True,
            "description": "Null for the first page, then next_cursor as given.",
        },
        "page_size": {
            "type": "integer",
            "minimum": 1,
            "maximum": pages["max_page_size"],
            "nullable": True,
            "description": f"How many {noun}s one page shows; null for the default.",
        },
    }
    request["properties"].update(added)
    request["required"] += list(added)
    page = {
        "items": {"type": "array", "items": response, "description": f"The {noun}s."},
        "next_cursor": {
            "type": "string",
            "nullable": True,
            "description": "The cursor of the next page; null on the last one.",
        },
        "total_available": {
            "type": "integer",
            "nullable": True,
            "description": f"How many {noun}s match in all; null when not counted.",
        },
    }
    return request, {
        "type": "object",
        "properties": page,
        "required": list(page),
        "additionalProperties": False,
    }


def _json(base: str, kind: str, description: str) -> dict[str, Any]:
    schema = {"$ref": f"#/components/schemas/{base}{kind}"}
    return {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }


def openapi_operation(
    spec: dict[str, Any], schemas: dict[str, Any], context: dict[str, Any]
) -> dict[str, Any]:
    name = spec["name"]
    base = pascal(name)
    schemas[f"{base}Request"], schemas[f"{base}Response"] = _paged(spec)
    responses = {"200": _json(base, "Response", "Done.")}
    if spec.get("errors"):
        schemas[f"{base}Error"] = {
            "type": "object",
            "properties": {
                "error": {"type": "string", "enum": list(spec["errors"])},
                "how_to_fix": {"type": "string"},
                "retryable": {"type": "boolean"},
            },
            "required": ["error", "how_to_fix", "retryable"],
            "additionalProperties": False,
        }
        responses["400"] = _json(base, "Error", "A declared data error.")
    request = _json(base, "Request", "The arguments.")
    return {
        "operationId": name,
        "summary": spec["intent"],
        "description": f"{spec['intent']}\nUse when: {spec['use_when']}",
        "parameters": [
            {
                "name": "X-" + pascal(field).replace("Id", "-Id"),
                "in": "header",
                "required": True,
                "description": context[field]["description"],
                "schema": {"type": context[field]["type"]},
            }
            for field in spec.get("context", ())
        ],
        "requestBody": {"required": True, "content": request["content"]},
        "responses": responses,
    }


def openapi_document(catalogue: ModuleType, count: int) -> dict[str, Any]:
    """The first `count` tools of `catalogue` (a module of bench/: realistic or catalogue)."""
    schemas: dict[str, Any] = {}
    paths = {
        f"/{spec['name']}": {
            "post": openapi_operation(spec, schemas, catalogue.CONTEXT)
        }
        for spec in catalogue.tool_specs(count)
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": catalogue.CATALOGUE_NAME, "version": "1.0.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def write_openapi(path: Path, catalogue: ModuleType, count: int) -> Path:
    # JSON, which openapi-python-client parses with the standard library: the fastest input
    # it takes, so the baseline is never slowed by its YAML parser
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(openapi_document(catalogue, count), indent=1), encoding="utf-8"
    )
    return path
