"""Pagination as a contract: the implementation returns a typed `Page`, the runtime builds the
rest (the signed cursor, the counts, the note that tells the model what to do next).

A tool declares one `Pagination` (its page-size cap, its cursor argument). Its argument model
carries the cursor as `Annotated[Cursor | None, PAGINATION.cursor_argument()]` and binds it with
`_cursor_binding = PAGINATION.binding()`; the invoker validates with the call's validation
context (`Boundaries.for_call(identity)`), so a cursor that is made up, altered, made by another
tool, expired, reused with other filters or by another identity is refused in the
invalid-arguments envelope with its own code, naming the cursor field, and the implementation
never runs. The implementation reads where to start from `args.cursor` (`start_offset`,
`after_key`) and returns `Page(items=..., total=..., next=Offset(...) | Keyset(...) | None)`;
`PAGINATION.envelope(page, args, context)` turns it into what the model reads:

    {"ok": true, "items": [...], "shown": 10, "total_available": 428,
     "next_cursor": "...", "note": "Showing results 1-10 of 428. ..."}

A cursor is signed, not encrypted (`toolgen_runtime.signing`): the model can read its payload.
It holds the position (an offset, or the sort key of the last row shown), how many rows came
before, the tool, an expiry, and digests of the filters and of the identity, never their values.

A tool never hands out a cursor it would refuse: the signer refuses texts over
`MAX_SIGNED_LENGTH` characters, so a sort key is at most `MAX_SORT_KEY_BYTES` bytes as JSON
(a page whose next key is longer is a broken contract, raised before any cursor is made), and a
tool's name at most `MAX_TOOL_NAME_CHARS`; with both, every cursor fits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, GetCoreSchemaHandler, ValidationError, model_validator
from pydantic_core import (
    CoreSchema,
    InitErrorDetails,
    PydanticKnownError,
    core_schema,
    to_jsonable_python,
)

from toolgen_runtime.errors import ContractViolation
from toolgen_runtime.guards.codes import GuardFailure, as_pydantic_error
from toolgen_runtime.guards.scope import CallScope, scope_of
from toolgen_runtime.output import REVEAL_FOR_DIGEST
from toolgen_runtime.signing import canonical, digest

__all__ = [
    "MAX_SORT_KEY_BYTES",
    "MAX_TOOL_NAME_CHARS",
    "Cursor",
    "Keyset",
    "Offset",
    "Page",
    "Pagination",
    "after_key",
    "start_offset",
]

ItemT = TypeVar("ItemT")
KeyValue = str | int | float | bool | None

CURSOR_VERSION = 1
TOTALS = ("counted", "unknown", "expensive")

# The sort key a cursor carries, as canonical JSON in UTF-8, and the tool's name (the spec's
# limit): with the rest of the payload at its largest, base64 and the signature, a cursor is
# then at most about 1,700 characters, within the 2,048 the signer accepts back
# (tests/runtime/test_contract_edges.py makes the largest one and reads it back).
MAX_SORT_KEY_BYTES = 1024
MAX_TOOL_NAME_CHARS = 64


@dataclass(frozen=True, slots=True)
class Offset:
    """The next page starts after `value` rows (LIMIT ... OFFSET value)."""

    value: int

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise TypeError(f"an offset is an int, got {type(self.value).__name__}")
        if self.value < 0:
            raise ValueError(f"an offset is 0 or more, got {self.value}")


@dataclass(frozen=True, slots=True)
class Keyset:
    """The next page starts after the row whose sort key is `after` (WHERE (k1, k2) > (?, ?)).
    The key travels in the cursor, readable: use columns the model may see (an id, a date)."""

    after: tuple[KeyValue, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.after, tuple) or not self.after:
            raise TypeError(
                "a keyset position is a non-empty tuple of the sort key's values"
            )
        for value in self.after:
            if value is not None and not isinstance(value, (str, int, float, bool)):
                raise TypeError(
                    f"a sort key value must be a JSON scalar, got {type(value).__name__}"
                )


Position = Offset | Keyset


@dataclass(frozen=True, slots=True)
class Page(Generic[ItemT]):
    """What a paginated implementation returns.

    `total` is how many rows match the filters, or None when it is not counted (unknown, or
    too expensive to count): the note then says there are more without a number. `next` is
    where the next page starts, None on the last page.
    """

    items: Sequence[ItemT]
    total: int | None
    next: Position | None


@dataclass(frozen=True, slots=True)
class Cursor:
    """A verified cursor, as the implementation receives it: where this page starts."""

    position: Position
    shown_before: int  # rows of the earlier pages, for the note's numbering
    text: str = field(repr=False)  # the cursor as the model sent it
    filters: str = field(repr=False)  # digest of the filters it was made for
    identity: str = field(repr=False)  # digest of the identity it was made for


def start_offset(cursor: Cursor | None) -> int:
    """The offset to start at: 0 on the first page."""
    if cursor is None:
        return 0
    if not isinstance(cursor.position, Offset):
        raise ContractViolation(
            "this cursor holds a keyset position, but the implementation pages by offset"
        )
    return cursor.position.value


def after_key(cursor: Cursor | None) -> tuple[KeyValue, ...] | None:
    """The sort key to start after: None on the first page."""
    if cursor is None:
        return None
    if not isinstance(cursor.position, Keyset):
        raise ContractViolation(
            "this cursor holds an offset, but the implementation pages by keyset"
        )
    return cursor.position.after


def _position_payload(position: Position) -> list[object]:
    if isinstance(position, Offset):
        return ["o", position.value]
    return ["k", list(position.after)]


def _position_from(payload: object) -> Position | None:
    if not isinstance(payload, list) or len(payload) != 2:
        return None
    kind, value = payload
    try:
        if kind == "o":
            return Offset(value)
        if kind == "k" and isinstance(value, list):
            return Keyset(tuple(value))
    except (TypeError, ValueError):
        return None
    return None


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


@dataclass(frozen=True, slots=True)
class Pagination:
    """The pagination contract of one tool.

    - `tool`: the tool's name; a cursor is valid for this tool only.
    - `max_page_size`: the cap; a page larger than the size asked for, or than this, is a
      broken contract (`ContractViolation`).
    - `cursor_field`: the argument that carries the cursor (nullable: null is the first page).
    - `size_field`: the argument that sets the page size (null means the cap), or None when
      the tool always returns up to the cap.
    - `unbound`: other arguments a cursor may be reused with (besides the cursor and the page
      size): every other argument is a filter, and a cursor is bound to all of them.
    - `ttl_seconds`: how long a cursor stays valid (None: it does not expire).
    - `noun`, `plural`: what the note calls the items.
    - `total`: `expensive`, the default (counted when it is cheap, such as on a short last
      page: `Page.total` is an int or None), `counted` (every page says how many rows
      match: an int) or `unknown` (never counted: None). A page that breaks it is a broken
      contract.
    """

    tool: str
    max_page_size: int
    cursor_field: str = "cursor"
    size_field: str | None = "page_size"
    unbound: tuple[str, ...] = ()
    ttl_seconds: int | None = 24 * 3600
    noun: str = "result"
    plural: str = ""
    item_type: type[object] | None = None
    total: str = "expensive"

    def __post_init__(self) -> None:
        if self.max_page_size < 1:
            raise ValueError("max_page_size must be at least 1")
        if not 0 < len(self.tool) <= MAX_TOOL_NAME_CHARS:
            raise ValueError(
                f"a tool name is 1 to {MAX_TOOL_NAME_CHARS} characters, got {len(self.tool)}"
            )
        if self.total not in TOTALS:
            raise ValueError(
                f"total must be one of {', '.join(TOTALS)}, got {self.total!r}"
            )
        if not self.plural:
            object.__setattr__(self, "plural", self.noun + "s")

    # --- validation: the cursor argument and its binding ----------------------------------

    def cursor_argument(self) -> CursorArgument:
        """Metadata of the cursor argument: `Annotated[Cursor | None,
        PAGINATION.cursor_argument()]`."""
        return CursorArgument(self)

    def binding(self) -> Any:
        """A model validator for the argument model: binds the cursor to the filters and the
        identity (it runs after every field is valid, so it sees all of them)."""
        pagination = self

        def bind_cursor(
            model: BaseModel, info: core_schema.ValidationInfo
        ) -> BaseModel:
            cursor = getattr(model, pagination.cursor_field)
            if cursor is None:
                return model
            scope = scope_of(info.context, f"the cursor of {pagination.tool}")
            failure = pagination._binding_failure(cursor, model, scope)
            if failure is not None:
                raise ValidationError.from_exception_data(
                    type(model).__name__,
                    [
                        InitErrorDetails(
                            type=as_pydantic_error(failure),
                            loc=(pagination.cursor_field,),
                            input=cursor.text,
                        )
                    ],
                )
            return model

        return model_validator(mode="after")(bind_cursor)

    def filters_of(self, args: BaseModel) -> dict[str, Any]:
        skip = {self.cursor_field, *self.unbound}
        if self.size_field is not None:
            skip.add(self.size_field)
        # a sensitive filter is bound too: its value only enters the digest
        dumped: dict[str, Any] = args.model_dump(
            mode="json", exclude=skip, context={REVEAL_FOR_DIGEST: True}
        )
        return dumped

    def _binding_failure(
        self, cursor: Cursor, args: BaseModel, scope: CallScope
    ) -> GuardFailure | None:
        if cursor.identity != digest(scope.identity):
            return self._failure(
                "cursor_other_identity", "was made for another user or customer"
            )
        if cursor.filters != digest(self.filters_of(args)):
            return self._failure(
                "cursor_other_filters", "was made for a call with other filter values"
            )
        return None

    def _failure(self, code: str, problem: str) -> GuardFailure:
        return GuardFailure(code, problem, tool=self.tool, field=self.cursor_field)

    def decode(self, text: object, scope: CallScope) -> Cursor:
        """Verify a cursor's signature, tool and age (its binding is checked by `binding`);
        raise `GuardFailure`."""
        if not isinstance(text, str):
            raise PydanticKnownError("string_type")
        payload = scope.boundaries.signer().verify(text)
        if payload is None:
            raise self._failure(
                "cursor_invalid", "was not made by this tool, or was changed"
            )
        position = _position_from(payload.get("p"))
        shown_before = _count(payload.get("n"))
        filters, identity = payload.get("f"), payload.get("i")
        expires = payload.get("x")
        if (
            payload.get("v") != CURSOR_VERSION
            or position is None
            or shown_before is None
            or not isinstance(filters, str)
            or not isinstance(identity, str)
            or not (expires is None or _count(expires) is not None)
        ):
            raise self._failure("cursor_invalid", "is not a cursor of this tool")
        if payload.get("t") != self.tool:
            raise self._failure("cursor_other_tool", "was made by another tool")
        if isinstance(expires, int) and scope.boundaries.clock() > expires:
            raise self._failure("cursor_expired", "has expired")
        return Cursor(position, shown_before, text, filters, identity)

    # --- the envelope ------------------------------------------------------------------------

    def page_size(self, args: BaseModel) -> int:
        if self.size_field is None:
            return self.max_page_size
        asked = getattr(args, self.size_field)
        return (
            self.max_page_size if asked is None else min(int(asked), self.max_page_size)
        )

    def encode(
        self, position: Position, shown: int, args: BaseModel, scope: CallScope
    ) -> str:
        payload: dict[str, object] = {
            "v": CURSOR_VERSION,
            "t": self.tool,
            "p": _position_payload(position),
            "n": shown,
            "f": digest(self.filters_of(args)),
            "i": digest(scope.identity),
        }
        if self.ttl_seconds is not None:
            payload["x"] = int(scope.boundaries.clock()) + self.ttl_seconds
        return scope.boundaries.signer().sign(payload)

    def envelope(
        self, page: object, args: BaseModel, context: Mapping[str, object]
    ) -> dict[str, object]:
        """What the model reads for a page the implementation returned."""
        if not isinstance(page, Page):
            raise ContractViolation(
                f"{self.tool} returned {type(page).__name__}, expected a Page"
            )
        scope = scope_of(context, f"the page of {self.tool}")
        cursor = getattr(args, self.cursor_field)
        self._check_page(page, args, cursor, scope)
        before = 0 if cursor is None else cursor.shown_before
        shown = len(page.items)
        next_cursor = (
            None
            if page.next is None
            else self.encode(page.next, before + shown, args, scope)
        )
        return {
            "ok": True,
            "items": [to_jsonable_python(item) for item in page.items],
            "shown": shown,
            "total_available": page.total,
            "next_cursor": next_cursor,
            "note": self.note(before, shown, page.total, more=page.next is not None),
        }

    def _check_page(
        self, page: Page[Any], args: BaseModel, cursor: Cursor | None, scope: CallScope
    ) -> None:
        size = self.page_size(args)
        if len(page.items) > size:
            raise ContractViolation(
                f"{self.tool} returned {len(page.items)} items for a page of {size}"
            )
        if self.item_type is not None:
            for item in page.items:
                if type(item) is not self.item_type:
                    raise ContractViolation(
                        f"{self.tool} returned a {type(item).__name__} item, expected "
                        f"{self.item_type.__name__}"
                    )
        if isinstance(page.next, Keyset):
            self._check_key(page.next)
        if page.next is not None and not page.items:
            raise ContractViolation(
                f"{self.tool} returned an empty page with a next position: the model would "
                "call again forever"
            )
        if cursor is not None and page.next == cursor.position:
            raise ContractViolation(
                f"{self.tool} returned the position it started from: the next page would "
                "repeat this one"
            )
        if page.total is not None and (
            isinstance(page.total, bool)
            or not isinstance(page.total, int)
            or page.total < 0
        ):
            raise ContractViolation(f"{self.tool} returned a total of {page.total!r}")
        if self.total == "counted" and page.total is None:
            raise ContractViolation(
                f"{self.tool} declares a counted total but returned total=None"
            )
        if self.total == "unknown" and page.total is not None:
            raise ContractViolation(
                f"{self.tool} declares its total unknown but returned total={page.total}"
            )
        # a model without the binding would let a cursor pass with other filters
        if (
            cursor is not None
            and self._binding_failure(cursor, args, scope) is not None
        ):
            raise ContractViolation(
                f"the argument model of {self.tool} does not bind its cursor: add "
                "`_cursor_binding = PAGINATION.binding()` to it"
            )

    def _check_key(self, position: Keyset) -> None:
        """A next position's sort key must fit in a cursor the tool accepts back."""
        try:
            size = len(canonical(list(position.after)))
        except ValueError:  # an integer too long for Python to write as text
            size = None
        if size is None or size > MAX_SORT_KEY_BYTES:
            written = "too long to write" if size is None else f"{size:,} bytes as JSON"
            raise ContractViolation(
                f"{self.tool} returned a next position whose sort key is {written}, over "
                f"the {MAX_SORT_KEY_BYTES:,} a cursor carries: its cursor would be refused "
                "when the model sends it back. Page by a shorter key (an id, a date, a "
                "number) or by offset"
            )

    def note(self, before: int, shown: int, total: int | None, *, more: bool) -> str:
        """The sentence that tells the model what it is seeing and what to do next."""
        if shown == 0:
            if before == 0:
                return f"No {self.plural} match these filters. To find some, broaden the filters."
            return f"No more {self.plural}: the previous page was the last one."
        first, last = before + 1, before + shown
        span = f"{self.plural} {first}-{last}" if shown > 1 else f"{self.noun} {first}"
        if more:
            where = (
                f"Showing {span} of {total}."
                if total is not None
                else (f"Showing {span}; there are more (the total is not counted).")
            )
            return (
                f"{where} To see more, call {self.tool} again with the same filters and "
                f"{self.cursor_field} set to next_cursor. To find something specific, refine "
                "the filters instead."
            )
        if before == 0:
            return (
                f"Showing the only {self.noun}."
                if shown == 1
                else f"Showing all {shown} {self.plural}."
            )
        of_total = f" of {total}" if total is not None else ""
        return f"Showing {span}{of_total}; this is the last page."


@dataclass(frozen=True, slots=True)
class CursorArgument:
    """Pydantic metadata of the cursor argument: null, or a cursor this tool made."""

    pagination: Pagination

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        pagination = self.pagination

        def validate(value: object, info: core_schema.ValidationInfo) -> Cursor | None:
            if value is None:
                return None
            scope = scope_of(info.context, f"the cursor of {pagination.tool}")
            try:
                return pagination.decode(value, scope)
            except GuardFailure as failure:
                raise as_pydantic_error(failure) from None

        return core_schema.with_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda cursor: None if cursor is None else cursor.text
            ),
        )
