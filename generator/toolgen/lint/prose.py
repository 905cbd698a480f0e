"""The prose of a tool that the model reads, each piece with its place in the spec.

The model reads the intent, use_when and not_when (composed into the description), every
parameter description (in the schema) and, after a failed call, an error's how_to_fix. Return
field descriptions and an error's `when` are for reviewers and implementers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from toolgen.diagnostics import Span
from toolgen.spec.ir import Origin, Param, Tool, named


@dataclass(frozen=True, slots=True)
class Prose:
    where: str  # as a message names it: "intent", "description of parameter 'sku'"
    text: str
    origin: Origin
    key: str  # the key of the text under origin
    how_to_fix: bool = False

    @property
    def span(self) -> Span:
        return self.origin.span(self.key)


def tool_prose(tool: Tool) -> tuple[Prose, ...]:
    """Every piece of prose of a tool the model reads (LintContext caches it per tool)."""
    found: list[Prose] = []
    if tool.intent:
        found.append(Prose("intent", tool.intent, tool.origin, "intent"))
    if tool.use_when:
        found.append(Prose("use_when", tool.use_when, tool.origin, "use_when"))
    for index, item in enumerate(tool.not_when):
        found.append(Prose(f"not_when {index + 1}", item.when, item.origin, "when"))
    for dotted, param in named(tool.params):
        node: Param | None = param
        while node is not None:  # the parameter, then its array items
            if node.description:
                where = f"description of parameter {dotted!r}"
                found.append(Prose(where, node.description, node.origin, "description"))
            node = node.items
    for error in tool.errors:
        where = f"how_to_fix of error {error.code!r}"
        found.append(Prose(where, error.how_to_fix, error.origin, "how_to_fix", True))
    return tuple(found)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


class Scanner:
    """Case-insensitive phrases to look for, each behind a literal it cannot match without.

    Python's regular expressions try every alternative at every position: over the tens of
    thousands of strings of a large catalogue one big alternation costs seconds. A substring
    test of the lower-cased text is cheap, so each pattern only runs where its keyword is,
    and is compiled the first time its keyword is found: a rebuild that lints one tool
    compiles a few of the scanners' 77 patterns, not all of them (a tenth of its lint).
    """

    def __init__(self, *alternatives: tuple[str, str]) -> None:
        self.alternatives = tuple(
            (keyword.lower(), pattern) for keyword, pattern in alternatives
        )

    def first(self, text: str) -> str | None:
        """The first phrase found (whitespace collapsed), or None."""
        found = next(self.finditer(text), None)
        return None if found is None else " ".join(found.group(0).split())

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        low = text.lower()
        for keyword, pattern in self.alternatives:
            if keyword in low:
                yield from _compiled(pattern).finditer(text)
