"""What the fake implementation of a fuzz returns or raises: results of the tool's result
class (texts the output contract cuts often longer than their limit), pages of them for a
paginated tool, and its declared errors with details."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from hypothesis import Phase, find, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from toolgen_runtime.errors import DeclaredError, ToolError
from toolgen_runtime.fuzz.model import ToolModel
from toolgen_runtime.fuzz.values import values_for
from toolgen_runtime.pagination import Cursor, Offset, Page, Pagination

__all__ = ["Fake", "Outcomes", "PageDraw", "outcomes", "simplest"]

_ENVELOPE_KEYS = frozenset({"ok", "error", "how_to_fix", "retryable"})


@dataclasses.dataclass(frozen=True, slots=True)
class PageDraw:
    """A page the fake returns: its items, cut to the page size the call asked for, and how
    many rows come after them (0: the last page); `counted` says whether the total is."""

    items: tuple[object, ...]
    more: int
    counted: bool

    def page(self, pagination: Pagination, args: object) -> Page[object]:
        assert isinstance(args, BaseModel)
        items = self.items[: pagination.page_size(args)]
        cursor = getattr(args, pagination.cursor_field)
        before = cursor.shown_before if isinstance(cursor, Cursor) else 0
        # where this page starts: the cursor's offset (rows shown before, by keyset)
        start = before
        if isinstance(cursor, Cursor) and isinstance(cursor.position, Offset):
            start = cursor.position.value
        more = self.more if items else 0
        counted = pagination.total == "counted" or (
            self.counted and pagination.total == "expensive"
        )
        return Page(
            items=list(items),
            total=before + len(items) + more if counted else None,
            next=Offset(start + len(items)) if more else None,
        )


class Fake:
    """The implementation: records each call, then returns or raises what it was given (a
    page drawn for a paginated tool is cut to the call's page size: `returned`)."""

    def __init__(self, pagination: Pagination | None = None) -> None:
        self.pagination = pagination
        self.outcome: object = None
        self.returned: object = None
        self.calls: list[tuple[object, object]] = []

    def __call__(self, args: object, context: object = None) -> object:
        self.calls.append((args, context))
        if isinstance(self.outcome, ToolError):
            raise self.outcome
        returned = self.outcome
        if isinstance(returned, PageDraw):
            assert self.pagination is not None
            returned = returned.page(self.pagination, args)
        self.returned = returned
        return returned


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=6,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Outcomes:
    results: st.SearchStrategy[object]  # what the implementation returns
    raised: st.SearchStrategy[object] | None  # its declared errors (None: it has none)
    swept: list[object]  # the results the sweep returns in turn


def _long_texts(model: ToolModel) -> list[tuple[list[str], int]]:
    """The fields of a result (of a page's item) the output contract cuts, with limits."""
    if model.output is None:
        return []
    found = []
    for path, limit in sorted(model.output.max_chars.items()):
        parts = path.split(".")
        if model.pagination is not None:
            if parts[0] != "items" or len(parts) < 2:
                continue
            parts = parts[1:]
        found.append((parts, limit))
    return found


def _stretch(data: object, parts: list[str], text: str) -> None:
    """Put `text` in place of the string(s) at `parts` in the result's data."""
    if isinstance(data, list):
        for item in data:
            _stretch(item, parts, text)
        return
    if not isinstance(data, dict) or parts[0] not in data:
        return
    if len(parts) > 1:
        _stretch(data[parts[0]], parts[1:], text)
    elif isinstance(data[parts[0]], str):
        data[parts[0]] = text
    elif isinstance(data[parts[0]], list):
        data[parts[0]] = [text if isinstance(v, str) else v for v in data[parts[0]]]


def outcomes(
    result_type: type[object], errors: Mapping[str, DeclaredError], model: ToolModel
) -> Outcomes:
    """Results of the tool's result class (read back from JSON its schema allows; texts the
    output contract cuts often longer than their limit; for a paginated tool, pages of
    them), and its declared errors with details."""
    adapter: TypeAdapter[object] = TypeAdapter(result_type)
    # what the class is built from: its Python field names, which differ from the names the
    # model reads where a return field is a Python keyword or a reserved name
    schema = adapter.json_schema(mode="validation")
    long_texts = _long_texts(model)

    def build(drawn: tuple[object, bool, str, int]) -> object:
        data, long, seed, extra = drawn
        if long:
            data = copy.deepcopy(data)
            for parts, limit in long_texts:
                _stretch(
                    data, parts, (seed * (limit // len(seed) + 2))[: limit + extra]
                )
        try:
            return adapter.validate_json(json.dumps(data))
        except ValidationError:
            return None  # what JSON Schema cannot say (a naive datetime): drawn again

    def drawn(long: st.SearchStrategy[bool]) -> st.SearchStrategy[object]:
        return (
            st.tuples(
                values_for(schema),
                long,
                st.text(min_size=1, max_size=8),
                st.integers(1, 40),
            )
            .map(build)
            .filter(lambda r: r is not None)
        )

    results = drawn(st.booleans() if long_texts else st.just(False))
    swept = [simplest(results)]
    if long_texts:
        swept.append(simplest(drawn(st.just(True))))
    if model.pagination is not None:
        item = swept[0]
        swept = [PageDraw(tuple(swept), 1, True), PageDraw((), 0, True)]
        if len(swept) > 1:
            swept.append(PageDraw((item,), 0, False))
        results = st.builds(
            PageDraw,
            st.lists(results, max_size=4).map(tuple),
            st.sampled_from((0, 1, 37)),
            st.booleans(),
        )
    if not errors:
        return Outcomes(results, None, swept)
    details = st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda k: k not in _ENVELOPE_KEYS),
        _json_values(),
        max_size=3,
    )
    raised = st.builds(
        lambda code, more: ToolError(code, **more),
        st.sampled_from(sorted(errors)),
        details,
    )
    return Outcomes(results, raised, swept)


def simplest(values: st.SearchStrategy[Any]) -> Any:
    """The first value hypothesis makes, of its simplest choices, the same on every run.
    Not shrunk: shrinking a contract of twenty fields to its least value took seconds, for
    a base that is no better."""
    return find(
        values,
        lambda _: True,
        settings=settings(database=None, phases=(Phase.generate,), derandomize=True),
    )
