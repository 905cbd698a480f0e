"""Per-tool pieces of the catalogue-wide outputs, kept across builds with each tool's IR.

Some outputs are made of every tool: the cards module (`_cards.py`), the lockfile, the token
counts the budget rules and the lockfile read. Each is assembled from one piece per tool that
is a function of that tool's IR alone (its card's literals, its lockfile entry, its token
count). A tool's IR is a function of its file, catalogue.yaml and toolgen's code, which is what
the front cache's key and digests vouch for (frontcache.py); so the front cache keeps each
tool's pieces beside its IR, and a rebuild after one tool changed makes that tool's pieces only.

`ToolPieces.get(tool, kind, make, fits)` gives the kept piece of an unchanged tool when it is of
the expected shape (`fits`), or makes it; without a front cache (`check`, `build --check`,
every other caller) nothing is kept and everything is made, so the two always agree. A derived
tool (prepare_<x>) is made again from its contract every build, and so are its pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar, cast

from toolgen.ir import Tool

T = TypeVar("T")


class ToolPieces:
    def __init__(self, kept: Mapping[str, Mapping[str, object]] | None = None) -> None:
        # tool file -> kind -> piece, for the tools the front cache vouches are unchanged
        self._kept = kept or {}
        # what this build used, by tool file (the front cache keeps it for the next)
        self.made: dict[str, dict[str, object]] = {}

    def get(
        self,
        tool: Tool,
        kind: str,
        make: Callable[[Tool], T],
        fits: Callable[[object], bool],
    ) -> T:
        if tool.derived:
            return make(tool)
        held = self.made.setdefault(tool.file, {})
        if kind in held:
            return cast(T, held[kind])
        kept = self._kept.get(tool.file, {}).get(kind)
        value: object = kept if kept is not None and fits(kept) else make(tool)
        held[kind] = value
        return cast(T, value)

    def to_keep(self, file: str) -> dict[str, object]:
        """The pieces to keep for `file`: those of this build, and those kept before that
        this build did not ask for (the render cache may have reused their output)."""
        return {**self._kept.get(file, {}), **self.made.get(file, {})}
