"""What a document declares, counted by walking the written file: the two inputs of the
build figures (toolgen YAML, OpenAPI JSON) are shown to be the same size this way, each
counted from its own file, not from the dictionaries both were made from.

Where the two formats say one thing in different words (bench/openapi_doc.py), each side
counts it its own way: a `path`'s suffixes or a `url`'s hosts are one constraint, as the
pattern that stands for them is; `pagination` is the two parameters and three page fields it
adds (two constraints: the page size's bounds), as the OpenAPI side spells them out."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from openapi_doc import pascal


@dataclass(frozen=True, slots=True)
class Size:
    """What a document declares, counted by walking the written file."""

    operations: int
    fields: int  # parameters and their nested fields, return fields, context fields
    error_codes: int
    enum_values: int
    constraints: int  # pattern, bounds, lengths, item counts
    input_bytes: int


# the same constraints under each format's names
_CONSTRAINTS_TOOLGEN = [
    "pattern",
    "min",
    "max",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
]
_CONSTRAINTS_OPENAPI = [
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
]


# a guarded type's own constraint (its pattern in OpenAPI)
_GUARDS = {"path": "suffixes", "url": "hosts"}
# what pagination adds: (fields, constraints)
_PAGINATION = (2 + 3, 2)


def _walk_toolgen(spec: dict[str, Any]) -> tuple[int, int, int]:
    """(fields, enum values, constraints) of one parameter or return field, nested included."""
    fields, enums = 1, len(spec.get("enum", ()))
    constraints = sum(1 for key in _CONSTRAINTS_TOOLGEN if key in spec)
    constraints += int(_GUARDS.get(spec.get("type", "")) in spec)
    children = list(spec.get("properties", {}).values())
    if "items" in spec:
        item = spec["items"]
        # the items are part of their array, not a field of their own: count what they hold
        enums += len(item.get("enum", ()))
        constraints += sum(1 for key in _CONSTRAINTS_TOOLGEN if key in item)
        children += list(item.get("properties", {}).values())
    for child in children:
        f, e, c = _walk_toolgen(child)
        fields, enums, constraints = fields + f, enums + e, constraints + c
    return fields, enums, constraints


def toolgen_size(folder: Path) -> Size:
    operations = fields = codes = enums = constraints = size = 0
    size = (folder / "catalogue.yaml").stat().st_size
    for path in sorted((folder / "tools").glob("*.yaml")):
        size += path.stat().st_size
        spec = yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
        operations += 1
        fields += len(spec.get("context", ()))
        codes += len(spec.get("errors", {}))
        if "pagination" in spec:
            fields += _PAGINATION[0]
            constraints += _PAGINATION[1]
        for param in [
            *spec.get("params", {}).values(),
            *spec.get("returns", {}).values(),
        ]:
            f, e, c = _walk_toolgen(param)
            fields, enums, constraints = fields + f, enums + e, constraints + c
    return Size(operations, fields, codes, enums, constraints, size)


def _walk_openapi(schema: dict[str, Any]) -> tuple[int, int, int]:
    fields, enums = 1, len(schema.get("enum", ()))
    constraints = sum(1 for key in _CONSTRAINTS_OPENAPI if key in schema)
    children = list(schema.get("properties", {}).values())
    if "items" in schema:
        item = schema["items"]
        enums += len(item.get("enum", ()))
        constraints += sum(1 for key in _CONSTRAINTS_OPENAPI if key in item)
        children += list(item.get("properties", {}).values())
    for child in children:
        f, e, c = _walk_openapi(child)
        fields, enums, constraints = fields + f, enums + e, constraints + c
    return fields, enums, constraints


def openapi_size(path: Path) -> Size:
    document = json.loads(path.read_text(encoding="utf-8"))
    schemas = document["components"]["schemas"]
    operations = fields = codes = enums = constraints = 0
    for item in document["paths"].values():
        operation = item["post"]
        operations += 1
        fields += len(operation.get("parameters", ()))
        base = pascal(operation["operationId"])
        for kind in ("Request", "Response"):
            for prop in schemas[f"{base}{kind}"]["properties"].values():
                f, e, c = _walk_openapi(prop)
                fields, enums, constraints = fields + f, enums + e, constraints + c
        if f"{base}Error" in schemas:
            codes += len(schemas[f"{base}Error"]["properties"]["error"]["enum"])
    return Size(operations, fields, codes, enums, constraints, path.stat().st_size)
