"""What every importer reads a source into: tools as their source states them.

A reader (one module per source format) turns a file into `SourceTool`s and keeps the
source's words: the name, the description, the JSON Schema of the arguments and of the
result, and what the source says about the effect. What the source leaves unsaid stays
None; nothing here guesses. Every source (OpenAI definitions, MCP tools/list, OpenAPI
operations, a Python module of `@function_tool` functions) produces the same `SourceTool`s, so
the conversion to a contract is written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from toolgen.text import clipped

Effect = Literal["read", "write", "destructive"]
T = TypeVar("T")


# the most a source may hold (GitHub's OpenAPI description, the largest met, is 13 MB), and
# the definitions a Python module's subprocess lists
MAX_SOURCE_BYTES = 64 * 1024 * 1024


def if_type(value: object, kind: type[T]) -> T | None:
    """`value` when it is a `kind`, else None: a key of another type says nothing."""
    return value if isinstance(value, kind) else None


class SourceError(Exception):
    """The file is not in the format its reader expects (the import stops, nothing is
    written)."""


@dataclass(frozen=True, slots=True)
class Loss:
    """Something the source states that the contract format cannot express."""

    where: str  # "parameter 'coordinates'", "the tool", "return field 'items'"
    what: str  # the source feature: "format 'uri'", "title 'Create Issue'"
    reason: str  # why it is not carried

    def __post_init__(self) -> None:
        # both quote the source, whose words can be long (a title of a megabyte)
        for name in ("where", "what"):
            object.__setattr__(self, name, clipped(getattr(self, name)))


class Losses(list[Loss]):
    """What a reader found the contract cannot carry, in the order found."""

    def add(self, where: str, what: str, reason: str) -> None:
        self.append(Loss(where, what, reason))


@dataclass(frozen=True, slots=True)
class SourceTool:
    name: str
    description: str | None  # None: the source has none
    input_schema: Mapping[str, object] | None
    output_schema: Mapping[str, object] | None = None
    effect: Effect | None = None  # None: the source does not say
    # how the effect follows from the source, for the file's header
    effect_basis: str = ""
    idempotent: bool | None = None
    open_world: bool | None = None
    # required by the source where input_schema cannot say so (an OpenAPI body's, when the
    # body may be left out): a draft that cannot carry one says so (draft.py)
    needed: tuple[str, ...] = ()
    losses: tuple[Loss, ...] = ()  # tool-level features not carried


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One source file read: its tools, and what it said that applies to none of them."""

    tools: tuple[SourceTool, ...]
    # what the source holds but cannot become a tool: (how the source names it, why)
    skipped: tuple[tuple[str, str], ...] = ()
