"""The format check: every spec document against the published JSON Schema of format 1.

The schemas in `toolgen/schemas/` are the single definition of what keys exist; `toolgen schema`
prints them and the YAML files reference them so editors autocomplete. Each jsonschema error is
mapped back to `file:line:col` with a message in plain words, and an unknown key gets a "did you
mean". Documents with format errors go no further down the pipeline; the others are returned.
"""

from __future__ import annotations

import difflib
import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, cast

import jsonschema

from toolgen.diagnostics import Diagnostic, error
from toolgen.load import Document, LoadedCatalogue, PathKey

SchemaKind = Literal["tool", "catalogue"]


@functools.cache
def schema_text(kind: SchemaKind) -> str:
    return (resources.files("toolgen.schemas") / f"{kind}.v1.json").read_text("utf-8")


@functools.cache
def _validator(kind: SchemaKind) -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_text(kind))
    return jsonschema.Draft202012Validator(schema)


@dataclass(frozen=True, slots=True)
class ValidationResult:
    catalogue: Document | None  # None when missing or broken
    tools: tuple[Document, ...]  # the tool documents that passed
    tool_names: tuple[str, ...]  # the names of every tool document, passed or not
    diagnostics: tuple[Diagnostic, ...]


def validate(loaded: LoadedCatalogue) -> ValidationResult:
    diagnostics: list[Diagnostic] = []
    catalogue = None
    if loaded.catalogue is not None:
        found = check_document(loaded.catalogue, "catalogue")
        diagnostics.extend(found)
        catalogue = None if found else loaded.catalogue
    tools = []
    names = []
    for document in loaded.tools:
        found = check_document(document, "tool")
        diagnostics.extend(found)
        if not found:
            tools.append(document)
        if isinstance(document.data, dict) and isinstance(
            document.data.get("name"), str
        ):
            names.append(document.data["name"])
    return ValidationResult(catalogue, tuple(tools), tuple(names), tuple(diagnostics))


def check_document(document: Document, kind: SchemaKind) -> list[Diagnostic]:
    validator = _validator(kind)
    found: list[Diagnostic] = []
    for err in validator.iter_errors(document.data):
        found.extend(_diagnose(document, err, kind))
    return sorted(found, key=lambda d: d.sort_key)


def _where(path: PathKey, kind: SchemaKind) -> str:
    """A reader's name for the place a path points to."""
    labels = {
        "params": "parameter",
        "properties": "property",
        "returns": "return field",
        "errors": "error",
        "context": "context field",
    }
    where = "the catalogue" if kind == "catalogue" else "the tool"
    index = 0
    while index < len(path):
        part = path[index]
        nxt = path[index + 1] if index + 1 < len(path) else None
        if isinstance(part, str) and part in labels and isinstance(nxt, str):
            where = f"{labels[part]} {nxt!r}"
            index += 2
            continue
        if part in ("examples", "not_when", "suppress") and isinstance(nxt, int):
            where = f"{part} entry {nxt + 1}"
            index += 2
            continue
        if part == "items":
            where = f"the items of {where}"
        index += 1
    return where


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def _diagnose(
    document: Document, err: jsonschema.ValidationError, kind: SchemaKind
) -> list[Diagnostic]:
    path: PathKey = tuple(err.absolute_path)
    span = document.span
    schema: dict[str, Any] = err.schema if isinstance(err.schema, dict) else {}
    where = _where(path, kind)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = sorted(schema.get("properties", {}))
        return [
            error(
                "TG101",
                f"unknown key {key!r} in {where}",
                span((*path, key), key=True),
                _did_you_mean(key, known).capitalize()
                + f"Known keys: {', '.join(known)}.",
            )
            for key in err.instance
            if key not in schema.get("properties", {})
        ]
    if err.validator == "required" and isinstance(err.instance, dict):
        return [
            error(
                "TG102",
                f"{where} has no {name!r}",
                span(path, key=True),
                _required_hint(name, schema),
            )
            for name in cast(list[str], err.validator_value)
            if name not in err.instance
        ]
    value = json.dumps(err.instance, ensure_ascii=False)
    if err.validator in ("enum", "const"):
        choices = cast(
            list[object],
            err.validator_value if err.validator == "enum" else [err.validator_value],
        )
        words = [str(c) for c in choices]
        said = _did_you_mean(str(err.instance), words).capitalize()
        return [
            error(
                "TG103",
                f"{_key_name(path)} of {where} is {value}, expected one of {', '.join(words)}",
                span(path),
                said + f"Use one of: {', '.join(words)}.",
            )
        ]
    if err.validator == "type":
        expected = err.validator_value
        expected = (
            " or ".join(expected) if isinstance(expected, list) else str(expected)
        )
        return [
            error(
                "TG103",
                f"{_key_name(path)} of {where} is {value}, expected {_article(expected)}",
                span(path),
                "Quote text values in YAML ('...') when they look like numbers or booleans."
                if expected == "string"
                else f"Write {_article(expected)} here.",
            )
        ]
    if err.validator == "anyOf":
        return [
            error(
                "TG103",
                f"{_key_name(path)} of {where} is {value}, which is not allowed here",
                span(path),
                schema.get("description", "See toolgen schema."),
            )
        ]
    return [
        error(
            "TG104",
            f"{_key_name(path)} of {where}: {err.message}",
            span(path),
            schema.get("description", "See toolgen schema for the format."),
        )
    ]


def _key_name(path: PathKey) -> str:
    for part in reversed(path):
        if isinstance(part, str):
            return f"{part!r}"
    return "the document"


def _article(word: str) -> str:
    names = {"object": "a mapping", "array": "a list", "integer": "an integer"}
    if word in names:
        return names[word]
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _required_hint(name: str, schema: dict[str, Any]) -> str:
    prop = schema.get("properties", {}).get(name, {})
    description = prop.get("description", "") if isinstance(prop, dict) else ""
    return f"Add {name}: ... ({description})" if description else f"Add {name}."
