"""`search_tools`: the tool that finds a toolset's deferred tools where nothing else does.

The OpenAI Responses API and the Anthropic Messages API search deferred tools themselves
(hosted tool search). Everywhere else (Chat Completions, Gemini, an MCP client, a local
model, the Agents SDK with `toolset(..., search="client")`) the model gets the tools loaded
up front plus one function, `search_tools(query, limit)`: it searches the deferred tools
with toolgen's search (`toolgen_runtime.search`) and answers with the tools it found,
which the caller then loads (adds to the next request, to `tools/list`, or to the agent).

This module holds what every one of those callers shares: the definition the model reads
(`SEARCH_TOOL`, `search_description`, `SEARCH_PARAMETERS`), the check of its arguments, and
the answer (`DeferredTools.answer`). Like `search`, it imports neither the Agents SDK nor
anything that does: `toolgen export` writes the definition from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from toolgen_runtime.arguments import (
    ArgumentParser,
    Rejected,
    StrictArgs,
    hints_from_schema,
    null_means,
)
from toolgen_runtime.envelope import MAX_PROBLEMS, dumps, invalid_arguments
from toolgen_runtime.search import DEFAULT_LIMIT, MAX_QUERY_CHARS, ToolIndex

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_FOUND",
    "SEARCH_DESCRIPTION",
    "SEARCH_PARAMETERS",
    "SEARCH_TOOL",
    "DeferredTools",
    "Searched",
    "search_description",
]

SEARCH_TOOL = "search_tools"
MAX_FOUND = 10
SEARCH_DESCRIPTION = (
    "Find and load tools that are not loaded yet: describe what the user wants in a few "
    "words. The tools found can be called from the next step on."
)
SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What the user wants done, in a few words.",
        },
        "limit": {
            "type": ["integer", "null"],
            "minimum": 1,
            "maximum": MAX_FOUND,
            "description": f"How many tools to load at most; null for {DEFAULT_LIMIT}.",
        },
    },
    "required": ["query", "limit"],
    "additionalProperties": False,
}
# no example query: one of another catalogue's would mislead the model
_EXAMPLE = {"limit": None}


def search_description(namespaces: Mapping[str, str]) -> str:
    """What the model reads of `search_tools`: `SEARCH_DESCRIPTION`, then each namespace
    whose tools it finds, with the namespace's description (in the order given), so the
    model knows when to search; the hosted searches show the same."""
    if not namespaces:
        return SEARCH_DESCRIPTION
    listed = " ".join(f"{name}: {text}" for name, text in namespaces.items())
    return f"{SEARCH_DESCRIPTION} It finds the tools of these namespaces. {listed}"


class SearchArgs(StrictArgs):
    query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
    limit: Annotated[int, Field(ge=1, le=MAX_FOUND), null_means(DEFAULT_LIMIT)]


@dataclass(frozen=True, slots=True)
class Searched:
    """One answer of `search_tools`: its text, which goes back to the model, and the tools
    it found, best first, which the caller loads (none when the arguments were refused)."""

    text: str
    found: tuple[str, ...]


class DeferredTools:
    """The deferred tools of one toolset, as `search_tools` finds them: the search index
    over their contracts, the description of each (what the answer tells the model), and
    the description of each of their namespaces (what `search_tools` says it finds)."""

    def __init__(
        self,
        index: ToolIndex,
        descriptions: Mapping[str, str],
        namespaces: Mapping[str, str] | None = None,
    ) -> None:
        missing = sorted(set(index.names) - set(descriptions))
        if missing:
            raise ValueError(f"no description for {', '.join(missing)}")
        self.index = index
        self.descriptions = dict(descriptions)
        self.description = search_description(namespaces or {})
        self._parse = ArgumentParser(SearchArgs, keep=MAX_PROBLEMS).parse

    @property
    def names(self) -> tuple[str, ...]:
        return self.index.names

    def answer(self, arguments: str) -> Searched:
        """The answer to one call of `search_tools` with `arguments` (JSON text): the
        invalid-arguments envelope when they are wrong, else the tools found and a note
        saying that they can now be called."""
        args = self._parse(arguments)
        if type(args) is Rejected:
            hints = hints_from_schema(SEARCH_PARAMETERS, _EXAMPLE)
            return Searched(invalid_arguments(SEARCH_TOOL, args, hints), ())
        assert isinstance(args, SearchArgs)
        hits = self.index.search(args.query, args.limit)
        found = [
            {"name": h.name, "description": self.descriptions[h.name]} for h in hits
        ]
        note = (
            "These tools are loaded: call the one that fits."
            if found
            else "No tool matches: search again with other words, or go on with the "
            "tools you have."
        )
        text = dumps({"ok": True, "found": found, "note": note})
        return Searched(text, tuple(h.name for h in hits))
