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

from toolgen_runtime.search_tool import (
    SEARCH_PARAMETERS,
    SEARCH_TOOL,
    search_description,
)

from toolgen.interop.export.selection import Selection
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
    # what goes into the request, as the API's documentation shows it
    payload: dict[str, Any]
    notes: tuple[Note, ...]


@dataclass(frozen=True, slots=True)
class Api:
    target: targets.Target  # the lint target whose limits apply
    build: Callable[[Selection], Definitions]


def _parameters(tool: Mapping[str, Any]) -> dict[str, Any]:
    # a copy: a caller that edits the payload must not edit the snapshot
    return copy.deepcopy(dict(tool["model"]["parameters"]))


def _deferrable(tool: Mapping[str, Any], definition: dict[str, Any]) -> dict[str, Any]:
    """`definition` with `defer_loading: true` when the tool loads only when searched for
    (the key of both hosted searches, OpenAI's and Anthropic's)."""
    if tool["deferred"]:
        definition["defer_loading"] = True
    return definition


def _responses(selection: Selection) -> Definitions:
    """Each namespace as one namespace tool holding its functions, the functions of no
    namespace beside them (in the order of their first tool's name), and OpenAI's hosted
    tool search when a tool is deferred."""
    payload: list[dict[str, Any]] = []
    groups: dict[str, list[dict[str, Any]]] = {}
    for tool in selection.tools:
        definition = _deferrable(tool, copy.deepcopy(dict(tool["model"])))
        namespace = tool["namespace"]
        if namespace is None:
            payload.append(definition)
            continue
        if namespace not in groups:
            groups[namespace] = []
            payload.append(
                {
                    "type": "namespace",
                    "name": namespace,
                    "description": selection.namespaces[namespace],
                    "tools": groups[namespace],
                }
            )
        groups[namespace].append(definition)
    if selection.deferred:
        payload.append({"type": "tool_search"})
    return Definitions({"tools": payload}, (Note(None, RUNTIME_KEEPS),))


def _client_search(
    selection: Selection,
    definition: Callable[[str, str, dict[str, Any]], dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any], list[Note]]:
    """For an API without hosted search: the definitions loaded up front (with
    `search_tools` when a tool is deferred), the keys that carry the deferred tools (their
    definitions and the search index), and the note that says so."""

    def of(tool: Mapping[str, Any]) -> dict[str, Any]:
        model = tool["model"]
        return definition(model["name"], model["description"], _parameters(tool))

    loaded = [of(t) for t in selection.up_front]
    index = selection.client_index()
    if index is None:
        return loaded, {}, []
    described = search_description(selection.deferred_namespaces())
    loaded.append(definition(SEARCH_TOOL, described, copy.deepcopy(SEARCH_PARAMETERS)))
    more = {
        "deferred_tools": {t["name"]: of(t) for t in selection.deferred},
        "search_index": copy.deepcopy(dict(index)),
    }
    names = ", ".join(t["name"] for t in selection.deferred)
    one = len(selection.deferred) == 1
    note = Note(
        None,
        f"{names} load{'s' * one} only when {SEARCH_TOOL} finds {'it' if one else 'them'}: "
        f"{'its definition is' if one else 'their definitions are'} under deferred_tools "
        f"and {'its' if one else 'their'} search under search_index, which are no part of "
        "a request; toolgen_runtime.ToolSearch runs the search and gives the tools of the "
        "next request",
    )
    return loaded, more, [note]


def _chat_function(
    name: str, description: str, schema: dict[str, Any]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": schema,
            "strict": True,
        },
    }


def _chat(selection: Selection) -> Definitions:
    loaded, more, notes = _client_search(selection, _chat_function)
    return Definitions({"tools": loaded, **more}, (Note(None, RUNTIME_KEEPS), *notes))


def _subschemas(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The schema and every schema inside it (`targets.subschemas`)."""
    return [node for _, node in targets.subschemas(schema)]


def _properties(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every property schema, nested ones (in array items and optional objects) included."""
    return [
        prop
        for node in _subschemas(schema)
        if isinstance(node.get("properties"), dict)
        for prop in node["properties"].values()
        if isinstance(prop, dict)
    ]


def _strict_misfits(schema: Mapping[str, Any]) -> list[str]:
    limits = targets.ANTHROPIC_STRICT
    misfits = [
        f"{keyword} on {path}"
        for path, keyword in targets.keywords_outside(
            schema, frozenset(_ALL_KEYWORDS - limits.unsupported)
        )
    ]
    for node in _subschemas(schema):
        fewest = node.get("minItems")
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


def _anthropic_strict(
    tools: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, bool], list[Note]]:
    """Which tools go with `strict: true`, and the notes on those that cannot."""
    limits = targets.ANTHROPIC_STRICT
    misfits = {t["name"]: _strict_misfits(t["model"]["parameters"]) for t in tools}
    fits = {name: not found for name, found in misfits.items()}
    notes = [
        Note(
            name,
            "sent without strict: true, because Anthropic's strict tool use does not "
            f"accept {', '.join(found)}; the model reads the full schema, and the runtime "
            "rejects arguments that break it",
        )
        for name, found in misfits.items()
        if found
    ]
    strict_tools = [t for t in tools if fits[t["name"]]]
    props = [p for t in strict_tools for p in _properties(t["model"]["parameters"])]
    optional = sum(1 for p in props if nullable(p))
    unions = sum(1 for p in props if isinstance(p.get("type"), list) or "anyOf" in p)
    counts = (
        (len(strict_tools), limits.max_strict_tools, "strict tools"),
        (optional, limits.max_optional, "optional parameters"),
        (unions, limits.max_unions, "union-typed parameters"),
    )
    over = [f"{n} {what} (at most {most})" for n, most, what in counts if n > most]
    if over:
        fits = dict.fromkeys(fits, False)
        notes.append(
            Note(
                None,
                "every tool is sent without strict: true, because one request may hold at "
                f"most what Anthropic's strict tool use counts, and these hold {'; '.join(over)}",
            )
        )
    return fits, notes


# Anthropic's server-side tool search over tool names, descriptions and parameters, BM25
# (anthropic SDK: ToolSearchToolBm25_20251119Param; the Messages API's Tool search tool)
ANTHROPIC_SEARCH = {
    "type": "tool_search_tool_bm25_20251119",
    "name": "tool_search_tool_bm25",
}


def _anthropic(selection: Selection) -> Definitions:
    """Every tool, the deferred ones with `defer_loading: true`, and Anthropic's BM25 tool
    search when a tool is deferred. Anthropic has no namespaces: its search finds a
    deferred tool by the tool's own words."""
    fits, notes = _anthropic_strict(selection.tools)
    payload = []
    for tool in selection.tools:
        model = tool["model"]
        definition: dict[str, Any] = {
            "name": model["name"],
            "description": model["description"],
            "input_schema": _parameters(tool),
        }
        if fits[model["name"]]:
            definition["strict"] = True
        payload.append(_deferrable(tool, definition))
    if selection.deferred:
        payload.append(dict(ANTHROPIC_SEARCH))
        notes.append(
            Note(
                None,
                "Anthropic's tool definitions have no namespace: its tool search finds "
                "a deferred tool by the tool's own name, description and parameters, "
                "without its namespace's description",
            )
        )
    return Definitions({"tools": payload}, (Note(None, RUNTIME_KEEPS), *notes))


# what the Gemini API's Schema documents for `format` (Firebase AI Logic's Schema reference:
# "must be either 'enum' or 'date-time'" on the Gemini Developer API)
_GEMINI_FORMATS = frozenset({"enum", "date-time"})


def _gemini_note(name: str, schema: Mapping[str, Any]) -> Note | None:
    """What of `schema` the Gemini API's Schema does not document, if anything."""
    allowed = targets.GEMINI.schema_keywords
    assert allowed is not None
    outside = [f"{k} on {p}" for p, k in targets.keywords_outside(schema, allowed)]
    formats = sorted(
        {
            f"format {p['format']!r}"
            for p in _subschemas(schema)
            if isinstance(p.get("format"), str) and p["format"] not in _GEMINI_FORMATS
        }
    )
    if not (outside or formats):
        return None
    return Note(
        name,
        f"{', '.join([*outside, *formats])} not in the Schema the Gemini API "
        "documents: the API may ignore it, and the runtime still checks it",
    )


def _gemini_declaration(
    name: str, description: str, schema: dict[str, Any]
) -> dict[str, Any]:
    return {"name": name, "description": description, "parametersJsonSchema": schema}


def _gemini(selection: Selection) -> Definitions:
    notes = [
        Note(None, RUNTIME_KEEPS),
        Note(
            None,
            "Gemini has no strict flag per function: the schema guides the model and the "
            "runtime rejects what breaks it; a request can ask for schema-valid calls with "
            "toolConfig.functionCallingConfig.mode VALIDATED",
        ),
    ]
    found = [_gemini_note(t["name"], t["model"]["parameters"]) for t in selection.tools]
    loaded, more, searched = _client_search(selection, _gemini_declaration)
    payload = {"tools": [{"functionDeclarations": loaded}], **more}
    return Definitions(payload, (*notes, *filter(None, found), *searched))


# each API as `toolgen export --to` names it, with the request shape it is given and where
# that shape is documented
APIS: Mapping[str, Api] = {
    # OpenAI Responses API: tools: [{type: function, name, description, parameters, strict}]
    # (OpenAI function calling guide)
    "openai-responses": Api(targets.OPENAI, _responses),
    # OpenAI Chat Completions API: tools: [{type: function, function: {name, description,
    # parameters, strict}}] (OpenAI function calling guide)
    "openai-chat": Api(targets.OPENAI, _chat),
    # Anthropic Messages API: tools: [{name, description, input_schema, strict}] (Anthropic,
    # Define tools; Strict tool use)
    "anthropic": Api(targets.ANTHROPIC, _anthropic),
    # Gemini API: tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}]
    # (Gemini API reference, FunctionDeclaration)
    "gemini": Api(targets.GEMINI, _gemini),
}
