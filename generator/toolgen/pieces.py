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

Some pieces are made ahead of the stage that asks for them, where the work runs in two
processes, by the same functions: the tools a first build makes ahead (ahead.py) come with
the pieces that are functions of their IR alone, and render makes the implementation check of
each stub it creates with the stub (`offer`). They are given as kept ones are, and kept for the
next build once asked for, as made ones are, so the cache a build leaves does not depend on
whether the work was done ahead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar, cast

from toolgen.ir import Tool

T = TypeVar("T")

# the kinds of piece: a tool's formatted entry of the cards module, its lockfile entry, its
# token count, and its implementation check with the implementation file's digest
CARD = "card"
LOCK = "lock"
TOKENS = "tokens"
IMPLEMENTATION = "implementation"


class ToolPieces:
    def __init__(
        self,
        kept: Mapping[str, Mapping[str, object]] | None = None,
        ahead: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        # tool file -> kind -> piece, for the tools the front cache vouches are unchanged
        self._kept = kept or {}
        # the same, made this build ahead of the stage that asks for them: with the IR of
        # the tools made ahead, and with the stubs render creates (`offer`)
        self._ahead: dict[str, Mapping[str, object]] = dict(ahead or {})
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
        value = self._kept_piece(tool, kind, fits)
        if value is None:
            value = self.made[tool.file][kind] = make(tool)
        return cast(T, value)

    def get_all(
        self,
        tools: list[Tool],
        kind: str,
        make: Callable[[list[Tool]], list[T]],
        fits: Callable[[object], bool],
    ) -> list[T]:
        """`get` of many tools, the pieces missing made by one call of `make` (over the
        tools without one, in order): for a piece made best in a batch (one formatter run)."""
        found: list[object] = []
        missing: list[int] = []
        for index, tool in enumerate(tools):
            value = None if tool.derived else self._kept_piece(tool, kind, fits)
            if value is None:
                missing.append(index)
            found.append(value)
        if missing:
            made = make([tools[index] for index in missing])
            for index, value in zip(missing, made, strict=True):
                found[index] = value
                if not tools[index].derived:
                    self.made.setdefault(tools[index].file, {})[kind] = value
        return cast(list[T], found)

    def offer(self, kind: str, made: Mapping[str, object]) -> None:
        """Pieces of `kind` made ahead (by tool file), given as kept ones are when asked
        for and kept for the next build only then."""
        for file, value in made.items():
            self._ahead[file] = {**self._ahead.get(file, {}), kind: value}

    def kept(
        self, tool: Tool, kind: str, fits: Callable[[object], bool]
    ) -> object | None:
        """The kept piece of an unchanged tool when it fits, else None (nothing is made)."""
        return None if tool.derived else self._kept_piece(tool, kind, fits)

    def _kept_piece(
        self, tool: Tool, kind: str, fits: Callable[[object], bool]
    ) -> object | None:
        held = self.made.setdefault(tool.file, {})
        if kind in held:
            return held[kind]
        kept = self._kept.get(tool.file, {}).get(kind)
        if kept is None:
            kept = self._ahead.get(tool.file, {}).get(kind)
        if kept is None or not fits(kept):
            return None
        held[kind] = kept
        return kept

    def to_keep(self, file: str) -> dict[str, object]:
        """The pieces to keep for `file`: those of this build, and those kept before that
        this build did not ask for (the render cache may have reused their output)."""
        return {**self._kept.get(file, {}), **self.made.get(file, {})}
