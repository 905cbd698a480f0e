"""Plain JSON tool definitions per model API, each with the notes of what that API cannot say.

Every definition is built from the catalogue snapshot (`toolgen.spec.snapshot`): the name, the
description and the parameter schema are exactly what the Agents SDK sends to the Responses
API, reshaped for each API's request format. What a contract says beyond that (effect,
idempotency, confirmation, the answer's schema, error codes) is no part of a function
definition in any of these APIs; the toolgen runtime keeps it when the application runs the
call through the generated tool (docs/howto-raw-apis.md), and each export says so in a note.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen.lint import targets
from toolgen.spec.toolschema import nullable

__all__ = ["APIS", "Api", "Definitions", "Note"]

RUNTIME_KEEPS = (
    "effect, idempotency, confirmation, the answer's schema and the error codes are no part "
    "of a function definition here: they hold when your code runs each call through the "
    "generated tool (toolgen_runtime), which validates the arguments and answers with the "
    "envelope"
)


@dataclass(frozen=True, slots=True)
class Note:
    """Something of the contract the API cannot express; `tool` is None for the catalogue."""

    tool: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Definitions:
    payload: dict[
        str, Any
    ]  # what goes into the request, as the API's documentation shows it
    notes: tuple[Note, ...]


@dataclass(frozen=True, slots=True)
class Api:
    key: str  # as `toolgen export --to` names it
    label: str
    target: targets.Target  # the lint target whose limits apply
    build: Callable[[Sequence[Mapping[str, Any]]], Definitions]
    source: str  # the request shape, and where it is documented


def _model(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    model: Mapping[str, Any] = tool["model"]
    return model


def _parameters(tool: Mapping[str, Any]) -> dict[str, Any]:
    # a copy: a caller that edits the payload must not edit the snapshot
    return copy.deepcopy(dict(_model(tool)["parameters"]))


def _responses(tools: Sequence[Mapping[str, Any]]) -> Definitions:
    payload = [copy.deepcopy(dict(_model(t))) for t in tools]
    return Definitions({"tools": payload}, (Note(None, RUNTIME_KEEPS),))


def _chat(tools: Sequence[Mapping[str, Any]]) -> Definitions:
    payload = [
        {
            "type": "function",
            "function": {
                "name": _model(t)["name"],
                "description": _model(t)["description"],
                "parameters": _parameters(t),
                "strict": True,
            },
        }
        for t in tools
    ]
    return Definitions({"tools": payload}, (Note(None, RUNTIME_KEEPS),))


def _properties(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every property schema, nested ones and array items' included."""
    found: list[Mapping[str, Any]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        props = node.get("properties")
        if isinstance(props, dict):
            found.extend(p for p in props.values() if isinstance(p, dict))
            stack.extend(p for p in props.values() if isinstance(p, dict))
        items = node.get("items")
        if isinstance(items, dict):
            stack.append(items)
    return found


def _strict_misfits(schema: Mapping[str, Any]) -> list[str]:
    limits = targets.ANTHROPIC_STRICT
    misfits = [
        f"{keyword} on {path}"
        for path, keyword in targets.keywords_outside(
            schema, frozenset(_ALL_KEYWORDS - limits.unsupported)
        )
    ]
    for prop in _properties(schema):
        fewest = prop.get("minItems")
        if isinstance(fewest, int) and fewest > limits.max_min_items:
            misfits.append(f"minItems {fewest}")
    return misfits


# every keyword a toolgen schema can hold; what Anthropic's strict mode refuses is taken out
_ALL_KEYWORDS = frozenset(
    {
        "type", "description", "enum", "pattern", "format", "minimum", "maximum",
        "minLength", "maxLength", "minItems", "maxItems", "items", "properties",
        "required", "additionalProperties", "anyOf",
    }
)  # fmt: skip


def _anthropic(tools: Sequence[Mapping[str, Any]]) -> Definitions:
    limits = targets.ANTHROPIC_STRICT
    notes = [Note(None, RUNTIME_KEEPS)]
    fits: dict[str, bool] = {}
    for tool in tools:
        name = _model(tool)["name"]
        misfits = _strict_misfits(_model(tool)["parameters"])
        fits[name] = not misfits
        if misfits:
            notes.append(
                Note(
                    name,
                    "sent without strict: true, because Anthropic's strict tool use "
                    f"does not accept {', '.join(misfits)}; the model reads the full "
                    "schema, and the runtime rejects arguments that break it",
                )
            )
    strict_tools = [t for t in tools if fits[_model(t)["name"]]]
    props = [p for t in strict_tools for p in _properties(_model(t)["parameters"])]
    optional = sum(1 for p in props if nullable(p))
    unions = sum(1 for p in props if isinstance(p.get("type"), list) or "anyOf" in p)
    over = []
    if len(strict_tools) > limits.max_strict_tools:
        over.append(
            f"{len(strict_tools)} strict tools (at most {limits.max_strict_tools})"
        )
    if optional > limits.max_optional:
        over.append(f"{optional} optional parameters (at most {limits.max_optional})")
    if unions > limits.max_unions:
        over.append(f"{unions} union-typed parameters (at most {limits.max_unions})")
    if over:
        fits = dict.fromkeys(fits, False)
        notes.append(
            Note(
                None,
                "every tool is sent without strict: true, because one request may hold at "
                f"most what Anthropic's strict tool use counts, and these hold {'; '.join(over)}",
            )
        )
    payload = []
    for tool in tools:
        model = _model(tool)
        definition: dict[str, Any] = {
            "name": model["name"],
            "description": model["description"],
            "input_schema": _parameters(tool),
        }
        if fits[model["name"]]:
            definition["strict"] = True
        payload.append(definition)
    return Definitions({"tools": payload}, tuple(notes))


# what the Gemini API's Schema documents for `format` (Firebase AI Logic's Schema reference:
# "must be either 'enum' or 'date-time'" on the Gemini Developer API)
_GEMINI_FORMATS = frozenset({"enum", "date-time"})


def _gemini(tools: Sequence[Mapping[str, Any]]) -> Definitions:
    allowed = targets.GEMINI.schema_keywords
    assert allowed is not None
    notes = [
        Note(None, RUNTIME_KEEPS),
        Note(
            None,
            "Gemini has no strict flag per function: the schema guides the model and the "
            "runtime rejects what breaks it; a request can ask for schema-valid calls with "
            "toolConfig.functionCallingConfig.mode VALIDATED",
        ),
    ]
    declarations = []
    for tool in tools:
        model = _model(tool)
        schema = _parameters(tool)
        outside = [f"{k} on {p}" for p, k in targets.keywords_outside(schema, allowed)]
        formats = sorted(
            {
                f"format {p['format']!r}"
                for p in _properties(schema)
                if isinstance(p.get("format"), str)
                and p["format"] not in _GEMINI_FORMATS
            }
        )
        if outside or formats:
            notes.append(
                Note(
                    model["name"],
                    f"{', '.join([*outside, *formats])} not in the Schema the Gemini API "
                    "documents: the API may ignore it, and the runtime still checks it",
                )
            )
        declarations.append(
            {
                "name": model["name"],
                "description": model["description"],
                "parametersJsonSchema": schema,
            }
        )
    return Definitions(
        {"tools": [{"functionDeclarations": declarations}]}, tuple(notes)
    )


APIS: Mapping[str, Api] = {
    api.key: api
    for api in (
        Api(
            "openai-responses",
            "OpenAI Responses API",
            targets.OPENAI,
            _responses,
            "tools: [{type: function, name, description, parameters, strict}] "
            "(OpenAI function calling guide)",
        ),
        Api(
            "openai-chat",
            "OpenAI Chat Completions API",
            targets.OPENAI,
            _chat,
            "tools: [{type: function, function: {name, description, parameters, strict}}] "
            "(OpenAI function calling guide)",
        ),
        Api(
            "anthropic",
            "Anthropic Messages API",
            targets.ANTHROPIC,
            _anthropic,
            "tools: [{name, description, input_schema, strict}] (Anthropic, Define tools; "
            "Strict tool use)",
        ),
        Api(
            "gemini",
            "Gemini API",
            targets.GEMINI,
            _gemini,
            "tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}] "
            "(Gemini API reference, FunctionDeclaration)",
        ),
    )
}
