"""Targets: the runtimes a catalogue is compiled for, and the limits each one enforces.

A catalogue names its targets in catalogue.yaml (`targets: [openai, mcp]`, OpenAI by default);
every limit of every declared target applies. The numbers are the providers' published limits:
a catalogue over one of them is rejected by the API, so the rules that check them are errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StrictLimits:
    """What a strict-mode JSON schema may hold (OpenAI structured outputs)."""

    max_properties: int = 5000  # object properties in the whole schema
    max_depth: int = (
        10  # levels of objects and arrays, the argument object being the first
    )
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
    description_chars: int | None  # most characters in a tool description
    tools_recommended: int | None  # more tools than this and the model chooses worse
    tools_max: int | None  # more tools than this and the API refuses the request
    strict: StrictLimits | None  # None: the target has no strict schema mode
    source: str


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
    description_chars=None,
    tools_recommended=None,
    tools_max=None,
    strict=None,
    source="Model Context Protocol specification, server/tools: tool names",
)
TARGETS: Mapping[str, Target] = {t.key: t for t in (OPENAI, MCP)}


def declared(keys: tuple[str, ...]) -> tuple[Target, ...]:
    """The targets of a catalogue; unknown keys were already reported by the format check."""
    found = tuple(TARGETS[k] for k in dict.fromkeys(keys) if k in TARGETS)
    return found or (OPENAI,)


# --- measuring an exposed schema -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchemaSize:
    properties: int
    depth: int
    enum_values: int
    chars: int  # property names and string enum values, as OpenAI counts them
    largest_enum: tuple[int, int]  # (values, characters) of the biggest string enum


def _children(
    schema: Mapping[str, object],
) -> Iterator[tuple[Mapping[str, object], bool]]:
    """Sub-schemas, with whether each one is a level deeper (anyOf branches are not)."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for sub in properties.values():
            if isinstance(sub, dict):
                yield sub, True
    items = schema.get("items")
    if isinstance(items, dict):
        yield items, True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for sub in branches:
                if isinstance(sub, dict):
                    yield sub, False


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
            if texts and (len(texts), size) > largest:
                largest = (len(texts), size)
        for sub, deeper in _children(node):
            stack.append((sub, level + 1 if deeper and is_container else level))
    return SchemaSize(properties, depth, enum_values, chars, largest)
