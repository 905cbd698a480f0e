"""The prose of a tool that the model reads, each piece with its place in the spec.

The model reads the intent, use_when and not_when (composed into the description), every
parameter description (in the schema) and, after a failed call, an error's how_to_fix. Return
field descriptions and an error's `when` are for reviewers and implementers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from toolgen.diagnostics import Span
from toolgen.model import Param, Tool


@dataclass(frozen=True, slots=True)
class Prose:
    where: str  # as a message names it: "intent", "description of parameter 'sku'"
    text: str
    span: Span


def _param_prose(params: tuple[Param, ...], prefix: str) -> Iterator[Prose]:
    for param in params:
        dotted = prefix + param.name
        node = param
        while True:
            if node.description:
                yield Prose(
                    f"description of parameter {dotted!r}",
                    node.description,
                    node.origin.span("description"),
                )
            if node.items is None:
                break
            node = node.items
        yield from _param_prose(node.properties, dotted + ".")


def model_prose(tool: Tool, *, how_to_fix: bool = True) -> Iterator[Prose]:
    if tool.intent:
        yield Prose("intent", tool.intent, tool.origin.span("intent"))
    if tool.use_when:
        yield Prose("use_when", tool.use_when, tool.origin.span("use_when"))
    for index, item in enumerate(tool.not_when):
        yield Prose(f"not_when {index + 1}", item.when, item.origin.span("when"))
    yield from _param_prose(tool.params, "")
    if how_to_fix:
        for error in tool.errors:
            yield Prose(
                f"how_to_fix of error {error.code!r}",
                error.how_to_fix,
                error.origin.span("how_to_fix"),
            )


def first_match(patterns: re.Pattern[str], text: str) -> str | None:
    found = patterns.search(text)
    return " ".join(found.group(0).split()) if found else None


def any_of(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern from several alternatives."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
