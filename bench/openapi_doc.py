"""The synthetic catalogue as one OpenAPI 3.0 document: the input of openapi-python-client.

One tool-shaped operation per tool, built from the same dictionaries the YAML files hold:
`POST /<tool>`, the request body is the parameters (every field required and nullable where
the tool's is optional, no other field allowed: toolgen's strict shape), the 200 response the
returns, the 400 response the error codes, and the context fields are header parameters (what
the application injects, as toolgen's context fields are). Every constraint is carried over:
enum, pattern, bounds, lengths, item counts, descriptions, examples, defaults.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from catalogue import CONTEXT, tool_specs


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


_SCALARS = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
}


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


def openapi_operation(spec: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    name = spec["name"]
    base = pascal(name)
    schemas[f"{base}Request"] = object_schema(spec["params"])
    schemas[f"{base}Response"] = object_schema(spec["returns"])
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
    description = f"{spec['intent']}\nUse when: {spec['use_when']}"
    return {
        "operationId": name,
        "summary": spec["intent"],
        "description": description,
        "parameters": [
            {
                "name": "X-" + pascal(field).replace("Id", "-Id"),
                "in": "header",
                "required": True,
                "description": CONTEXT[field]["description"],
                "schema": {"type": CONTEXT[field]["type"]},
            }
            for field in spec["context"]
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{base}Request"}
                }
            },
        },
        "responses": {
            "200": {
                "description": "Done.",
                "content": {
                    "application/json": {
                        "schema": {"$ref": f"#/components/schemas/{base}Response"}
                    }
                },
            },
            "400": {
                "description": "A declared data error.",
                "content": {
                    "application/json": {
                        "schema": {"$ref": f"#/components/schemas/{base}Error"}
                    }
                },
            },
        },
    }


def openapi_document(count: int) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    paths = {
        f"/{spec['name']}": {"post": openapi_operation(spec, schemas)}
        for spec in tool_specs(count)
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "bench", "version": "1.0.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def write_openapi(path: Path, count: int) -> Path:
    # JSON, which openapi-python-client parses with the standard library: the fastest input
    # it takes, so the baseline is never slowed by its YAML parser
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(openapi_document(count), indent=1), encoding="utf-8")
    return path
