"""Targets: the runtimes a catalogue is compiled for, and the limits each one enforces.

A catalogue names its targets in catalogue.yaml (`targets: [openai, mcp]`, OpenAI by default);
every limit of every declared target applies. The numbers are the providers' published limits:
a catalogue over one of them is rejected by the API, so the rules that check them are errors.
`toolgen export --to API` checks the catalogue against that API's target whatever the catalogue
declares, and also against the schema keywords the API documents (`schema_keywords`).

Each target's `source` names the page its figures come from and when it was read: providers
change these limits, so a figure without its page cannot be checked again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StrictLimits:
    """What a strict-mode JSON schema may hold (OpenAI structured outputs)."""

    max_properties: int = 5000  # object properties in the whole schema
    # levels of objects and arrays, the argument object being the first
    max_depth: int = 10
    max_enum_values: int = 1000  # enum values across the whole schema
    max_schema_chars: int = 120_000  # characters of every property name and enum value
    large_enum_values: int = 250  # a string enum with more values than this ...
    large_enum_chars: int = 15_000  # ... may hold at most this many characters


@dataclass(frozen=True, slots=True)
class Target:
    key: str  # as written in catalogue.yaml
    label: str  # as a message names it
    tool_name: re.Pattern[str]
    tool_name_words: str  # the pattern in words, for the fix hint
    source: str
    # None: the target documents no such limit. The most characters in a tool description;
    # more tools than `tools_recommended` and the model chooses worse, than `tools_max` and
    # the API refuses the request
    description_chars: int | None = None
    tools_recommended: int | None = None
    tools_max: int | None = None
    strict: StrictLimits | None = None  # None: the target has no strict schema mode
    # the JSON Schema keywords the API documents for tool parameters; None: any keyword
    schema_keywords: frozenset[str] | None = None


OPENAI = Target(
    key="openai",
    label="OpenAI",
    tool_name=re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    tool_name_words="1 to 64 letters, digits, '_' or '-'",
    description_chars=1024,
    tools_recommended=20,
    tools_max=128,
    strict=StrictLimits(),
    source=(
        "OpenAI function calling guide (name pattern, fewer than 20 tools for accuracy, "
        "128 tools per request) and structured outputs guide (supported schemas and limits)"
    ),
)
MCP = Target(
    key="mcp",
    label="MCP",
    tool_name=re.compile(r"^[A-Za-z0-9_.-]{1,128}$"),
    tool_name_words="1 to 128 letters, digits, '_', '-' or '.'",
    source="Model Context Protocol specification, server/tools: tool names",
)
ANTHROPIC = Target(
    key="anthropic",
    label="Anthropic",
    tool_name=re.compile(r"^[a-zA-Z0-9_-]{1,128}$"),
    tool_name_words="1 to 128 letters, digits, '_' or '-'",
    # no description limit is documented; strict tool use has its own subset and counts
    # (AnthropicStrict below), not OpenAI's
    source=(
        "Anthropic, Define tools (platform.claude.com/docs/en/agents-and-tools/tool-use/"
        "define-tools, read 2026-12-01): name must match ^[a-zA-Z0-9_-]{1,128}$; "
        "input_schema is a JSON Schema object"
    ),
)
# The fields of the Gemini API's Schema object, plus additionalProperties, which its
# parametersJsonSchema example uses.
_GEMINI_SCHEMA = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "default",
        "example", "items", "minItems", "maxItems", "properties", "required",
        "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
        "minimum", "maximum", "anyOf", "propertyOrdering", "additionalProperties",
    }
)  # fmt: skip
GEMINI = Target(
    key="gemini",
    label="Gemini",
    # The Gemini API allows a-z, A-Z, 0-9, '_', '.', ':' and '-', at most 64 characters;
    # Vertex AI's reference adds "must start with a letter or an underscore": both hold here.
    tool_name=re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"),
    tool_name_words=(
        "1 to 64 letters, digits, '_', '.', ':' or '-', starting with a letter or '_'"
    ),
    # no strict flag per function declaration (see toolgen.interop.export.apis)
    source=(
        "Gemini API reference, FunctionDeclaration (name: a-z, A-Z, 0-9, underscores, "
        "colons, dots and dashes, at most 64; parametersJsonSchema, exclusive with "
        "parameters) and Schema (its fields), generativelanguage v1beta; Vertex AI "
        "FunctionDeclaration (must start with a letter or an underscore); read 2026-12-01"
    ),
    schema_keywords=_GEMINI_SCHEMA,
)
TARGETS: Mapping[str, Target] = {t.key: t for t in (OPENAI, MCP, ANTHROPIC, GEMINI)}


@dataclass(frozen=True, slots=True)
class AnthropicStrict:
    """What Anthropic's strict tool use (`strict: true`) accepts: a subset of JSON Schema and
    counts across every strict tool of one request."""

    unsupported: frozenset[str] = frozenset(
        {
            "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
            "minLength", "maxLength", "maxItems", "uniqueItems", "minProperties",
            "maxProperties",
        }
    )  # fmt: skip
    max_min_items: int = 1  # minItems may be 0 or 1
    max_strict_tools: int = 20
    max_optional: int = 24  # nullable parameters, across every strict schema
    max_unions: int = 16  # parameters with anyOf or a list of types, across them all
    source: str = (
        "Anthropic, Structured outputs, JSON Schema limitations (platform.claude.com/docs/"
        "en/build-with-claude/structured-outputs, read 2026-12-01): no numerical, string "
        "length or maxItems constraints, minItems 0 or 1; at most 20 strict tools, 24 "
        "optional parameters and 16 union-typed parameters per request"
    )


ANTHROPIC_STRICT = AnthropicStrict()


def declared(keys: tuple[str, ...]) -> tuple[Target, ...]:
    """The targets of a catalogue; unknown keys were already reported by the format check."""
    return tuple(TARGETS[k] for k in dict.fromkeys(keys) if k in TARGETS) or (OPENAI,)


# --- measuring an exposed schema -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchemaSize:
    properties: int
    depth: int
    enum_values: int
    chars: int  # property names and string enum values, as OpenAI counts them
    largest_enum: tuple[int, int]  # (values, characters) of the biggest string enum


def _children(
    schema: Mapping[str, object], branches: tuple[str, ...] = ("anyOf", "oneOf")
) -> Iterator[tuple[str | None, Mapping[str, object]]]:
    """Sub-schemas, each with the step that names it: a property's name, "items", or None
    for a branch of one of `branches` (a branch is at its parent's level)."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            if isinstance(sub, dict):
                yield str(name), sub
    items = schema.get("items")
    if isinstance(items, dict):
        yield "items", items
    for key in branches:
        subs = schema.get(key)
        if isinstance(subs, list):
            yield from ((None, sub) for sub in subs if isinstance(sub, dict))


def measure_schema(schema: Mapping[str, object]) -> SchemaSize:
    properties = depth = enum_values = chars = 0
    largest = (0, 0)
    stack: list[tuple[Mapping[str, object], int]] = [(schema, 1)]
    while stack:
        node, level = stack.pop()
        names = node.get("properties")
        if isinstance(names, dict):
            properties += len(names)
            chars += sum(len(str(name)) for name in names)
        is_container = isinstance(names, dict) or "items" in node
        if is_container:
            depth = max(depth, level)
        enum = node.get("enum")
        if isinstance(enum, list):
            enum_values += len(enum)
            texts = [v for v in enum if isinstance(v, str)]
            size = sum(len(v) for v in texts)
            chars += size
            largest = max(largest, (len(texts), size))
        for step, sub in _children(node):
            deeper = step is not None and is_container  # a branch is no level deeper
            stack.append((sub, level + 1 if deeper else level))
    return SchemaSize(properties, depth, enum_values, chars, largest)


def subschemas(
    schema: Mapping[str, object],
) -> Iterator[tuple[str, Mapping[str, object]]]:
    """Every schema in `schema`, itself included, with the path that names its parameter
    (`sku`, `lines.items.quantity`): properties, array items and the branches of anyOf,
    oneOf and allOf (an optional array or object is `anyOf: [{...}, {type: null}]`; a
    branch has its parent's path)."""
    stack: list[tuple[str, Mapping[str, object]]] = [("", schema)]
    while stack:
        path, node = stack.pop()
        yield path, node
        for step, sub in _children(node, ("anyOf", "oneOf", "allOf")):
            named = path if step is None else (f"{path}.{step}" if path else step)
            stack.append((named, sub))


def keywords_outside(
    schema: Mapping[str, object], allowed: frozenset[str]
) -> list[tuple[str, str]]:
    """(path, keyword) of every keyword of `schema` that `allowed` does not hold; property
    names are not keywords. Paths name the parameter (`sku`, `lines.items.quantity`)."""
    return sorted(
        {
            (path or "$", key)
            for path, node in subschemas(schema)
            for key in node
            if key not in allowed
        }
    )
