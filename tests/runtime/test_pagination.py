"""Pagination as a contract, on a real SQLite table of 1,000 rows with ties in the sort key.

Walks the whole result set page by page through a real FunctionTool, by keyset and by offset,
and checks that no row is lost or repeated; then every way a cursor can be misused, each
refused with its own code before the implementation runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from test_guard_harness import guarded_tool
from toolgen_runtime import ContractViolation, result_class
from toolgen_runtime.guards import CODES, Boundaries, BoundariesMissing
from toolgen_runtime.output import Sensitive
from toolgen_runtime.pagination import (
    Cursor,
    Keyset,
    Offset,
    Page,
    Pagination,
    after_key,
    start_offset,
)
from toolgen_runtime.signing import Signer
from toolgen_runtime.testing import invoke

SECRET = b"p" * 32
ROWS = 1000
CUSTOMER, OTHER_CUSTOMER = 1, 2

BY_KEYSET = Pagination(tool="search_orders", max_page_size=50, noun="order")
BY_OFFSET = Pagination(tool="list_orders", max_page_size=50, noun="order")


@result_class
class OrderRow:
    order_id: int
    score: int
    status: str


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    status: Literal["open", "shipped"] | None
    page_size: Annotated[int, Field(ge=1, le=50)] | None
    cursor: Annotated[Cursor | None, BY_KEYSET.cursor_argument()]
    _cursor_binding = BY_KEYSET.binding()


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    status: Literal["open", "shipped"] | None
    page_size: Annotated[int, Field(ge=1, le=50)] | None
    cursor: Annotated[Cursor | None, BY_OFFSET.cursor_argument()]
    _cursor_binding = BY_OFFSET.binding()


@dataclass(frozen=True, slots=True)
class Session:
    customer_id: int


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    # the implementations are plain functions: they run in worker threads
    connection = sqlite3.connect(tmp_path / "orders.db", check_same_thread=False)
    connection.execute(
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL,"
        " status TEXT NOT NULL, score INTEGER NOT NULL)"
    )
    # 37 distinct scores over 1,000 rows: every score is shared by 27 rows or so
    connection.executemany(
        "INSERT INTO orders VALUES (?, ?, ?, ?)",
        [
            (i, CUSTOMER, "open" if i % 3 else "shipped", (i * 7) % 37)
            for i in range(1, ROWS + 1)
        ]
        + [(ROWS + i, OTHER_CUSTOMER, "open", i) for i in range(1, 6)],
    )
    connection.commit()
    yield connection
    connection.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def boundaries(clock: Clock) -> Boundaries:
    return Boundaries(cursor_signer=Signer([SECRET], "cursor"), clock=clock)


class Calls:
    def __init__(self) -> None:
        self.count = 0


def _where(status: str | None) -> tuple[str, list[object]]:
    if status is None:
        return "customer_id = ?", []
    return "customer_id = ? AND status = ?", [status]


def keyset_tool(db: sqlite3.Connection, boundaries: Boundaries) -> tuple[Any, Calls]:
    calls = Calls()

    def search_orders(args: SearchArgs, session: Session) -> Page[OrderRow]:
        calls.count += 1
        size = BY_KEYSET.page_size(args)
        where, params = _where(args.status)
        after = after_key(args.cursor)
        if after is not None:
            # ORDER BY score DESC, order_id ASC: the next row has a lower score, or the
            # same score and a higher id
            where += " AND (score < ? OR (score = ? AND order_id > ?))"
            params += [after[0], after[0], after[1]]
        rows = db.execute(
            f"SELECT order_id, score, status FROM orders WHERE {where} "
            "ORDER BY score DESC, order_id ASC LIMIT ?",
            [session.customer_id, *params, size + 1],
        ).fetchall()
        where_all, params_all = _where(args.status)
        (total,) = db.execute(
            f"SELECT COUNT(*) FROM orders WHERE {where_all}",
            [session.customer_id, *params_all],
        ).fetchone()
        items = [OrderRow(*row) for row in rows[:size]]
        more = len(rows) > size
        last = items[-1] if items else None
        return Page(
            items=items,
            total=total,
            next=Keyset((last.score, last.order_id)) if more and last else None,
        )

    tool = guarded_tool(
        SearchArgs,
        search_orders,
        boundaries=boundaries,
        pagination=BY_KEYSET,
        identity=lambda run: {"customer_id": run.customer_id},
        catalogue_context=Session,
        build_context=lambda run: run,
    )
    return tool, calls


def offset_tool(db: sqlite3.Connection, boundaries: Boundaries) -> tuple[Any, Calls]:
    calls = Calls()

    def list_orders(args: ListArgs, session: Session) -> Page[OrderRow]:
        calls.count += 1
        size = BY_OFFSET.page_size(args)
        start = start_offset(args.cursor)
        where, params = _where(args.status)
        rows = db.execute(
            f"SELECT order_id, score, status FROM orders WHERE {where} "
            "ORDER BY score DESC, order_id ASC LIMIT ? OFFSET ?",
            [session.customer_id, *params, size + 1, start],
        ).fetchall()
        items = [OrderRow(*row) for row in rows[:size]]
        more = len(rows) > size
        # counting is declared too expensive here: the note says "more" without a number
        return Page(
            items=items, total=None, next=Offset(start + size) if more else None
        )

    tool = guarded_tool(
        ListArgs,
        list_orders,
        boundaries=boundaries,
        pagination=BY_OFFSET,
        identity=lambda run: {"customer_id": run.customer_id},
        catalogue_context=Session,
        build_context=lambda run: run,
    )
    return tool, calls


def expected_ids(db: sqlite3.Connection, status: str | None) -> list[int]:
    where, params = _where(status)
    return [
        row[0]
        for row in db.execute(
            f"SELECT order_id FROM orders WHERE {where} ORDER BY score DESC, order_id",
            [CUSTOMER, *params],
        )
    ]


def walk(
    tool: Any, status: str | None, sizes: list[int | None]
) -> tuple[list[int], list[dict[str, Any]]]:
    seen: list[int] = []
    pages: list[dict[str, Any]] = []
    cursor = None
    turn = 0
    while True:
        size = sizes[turn % len(sizes)]
        out = invoke(
            tool,
            {"status": status, "page_size": size, "cursor": cursor},
            Session(CUSTOMER),
        )
        assert out["ok"] is True, out
        pages.append(out)
        seen += [item["order_id"] for item in out["items"]]
        cursor = out["next_cursor"]
        turn += 1
        if cursor is None:
            return seen, pages
        assert turn < ROWS + 2, "the pages never end"


@pytest.mark.parametrize(
    "make_tool", [keyset_tool, offset_tool], ids=["keyset", "offset"]
)
@pytest.mark.parametrize(
    ("status", "sizes"),
    [(None, [50]), (None, [7, 50, 1, 13, None]), ("open", [9]), ("shipped", [50, 3])],
)
def test_every_row_once_in_order_whatever_the_page_sizes(
    db: sqlite3.Connection,
    boundaries: Boundaries,
    make_tool: Any,
    status: str | None,
    sizes: list[int | None],
) -> None:
    tool, _ = make_tool(db, boundaries)
    seen, pages = walk(tool, status, sizes)
    assert seen == expected_ids(db, status)  # none lost, none repeated, in order
    assert len(set(seen)) == len(seen)
    assert all(p["shown"] == len(p["items"]) for p in pages)
    assert sum(p["shown"] for p in pages) == len(seen)


def test_the_page_envelope_and_its_notes(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, _ = keyset_tool(db, boundaries)
    first = invoke(tool, {"status": None, "page_size": 10, "cursor": None}, Session(1))
    assert list(first) == [
        "ok", "items", "shown", "total_available", "next_cursor", "note",
    ]  # fmt: skip
    assert (first["shown"], first["total_available"]) == (10, ROWS)
    assert first["items"][0] == {"order_id": 21, "score": 36, "status": "shipped"}
    assert first["note"] == (
        "Showing orders 1-10 of 1000. To see more, call search_orders again with the same "
        "filters and cursor set to next_cursor. To find something specific, refine the "
        "filters instead."
    )
    second = invoke(
        tool,
        {"status": None, "page_size": 10, "cursor": first["next_cursor"]},
        Session(1),
    )
    assert second["note"].startswith("Showing orders 11-20 of 1000.")


def test_an_uncounted_total_is_declared_as_such(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, _ = offset_tool(db, boundaries)
    first = invoke(tool, {"status": None, "page_size": 10, "cursor": None}, Session(1))
    assert first["total_available"] is None
    assert first["note"].startswith(
        "Showing orders 1-10; there are more (the total is not counted). To see more,"
    )


@pytest.mark.parametrize(
    ("before", "shown", "total", "more", "note"),
    [
        (0, 0, 0, False, "No orders match these filters. To find some, broaden the filters."),
        (40, 0, 40, False, "No more orders: the previous page was the last one."),
        (0, 1, 1, False, "Showing the only order."),
        (0, 3, 3, False, "Showing all 3 orders."),
        (0, 3, None, False, "Showing all 3 orders."),
        (20, 8, 28, False, "Showing orders 21-28 of 28; this is the last page."),
        (20, 1, 21, False, "Showing order 21 of 21; this is the last page."),
        (20, 8, None, False, "Showing orders 21-28; this is the last page."),
        (0, 10, 428, True, "Showing orders 1-10 of 428. To see more, call search_orders "
         "again with the same filters and cursor set to next_cursor. To find something "
         "specific, refine the filters instead."),
    ],
)  # fmt: skip
def test_the_note_says_what_the_model_sees_and_what_to_do(
    before: int, shown: int, total: int | None, more: bool, note: str
) -> None:
    assert BY_KEYSET.note(before, shown, total, more=more) == note


# --- misused cursors ------------------------------------------------------------------------


def first_cursor(
    tool: Any, status: str | None = "open", customer: int = CUSTOMER
) -> str:
    out = invoke(
        tool, {"status": status, "page_size": 5, "cursor": None}, Session(customer)
    )
    cursor: str = out["next_cursor"]
    return cursor


def refused(
    tool: Any,
    calls: Calls,
    cursor: object,
    *,
    status: str | None = "open",
    customer: int = 1,
) -> str:
    before = calls.count
    out = invoke(
        tool, {"status": status, "page_size": 5, "cursor": cursor}, Session(customer)
    )
    assert out["ok"] is False and out["error"] == "invalid_arguments", out
    [problem] = out["problems"]
    assert problem["field"] == "cursor"
    assert calls.count == before, "the implementation ran"
    code: str = problem["code"]
    tool_name = tool.name
    assert problem["how_to_fix"] == CODES[code].how_to_fix.format(
        tool=tool_name, field="cursor"
    )
    return code


def test_an_altered_cursor_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    cursor = first_cursor(tool)
    body, mac = cursor.split(".")
    flipped = body[:10] + ("A" if body[10] != "A" else "B") + body[11:]
    for bad in (f"{flipped}.{mac}", cursor[:-2], cursor + "x", "made-up", ""):
        assert refused(tool, calls, bad) == "cursor_invalid"


def test_a_cursor_signed_for_another_purpose_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    token = Signer([SECRET], "confirm").sign({"v": 1, "t": "search_orders"})
    assert refused(tool, calls, token) == "cursor_invalid"


def test_a_signed_payload_that_is_no_cursor_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    signer = Signer([SECRET], "cursor")
    for payload in (
        {"v": 1, "t": "search_orders"},
        {"v": 2, "t": "search_orders", "p": ["o", 5], "n": 5, "f": "x", "i": "y"},
        {"v": 1, "t": "search_orders", "p": ["o", -5], "n": 5, "f": "x", "i": "y"},
        {"v": 1, "t": "search_orders", "p": ["k", []], "n": 5, "f": "x", "i": "y"},
        {"v": 1, "t": "search_orders", "p": ["o", 5], "n": True, "f": "x", "i": "y"},
    ):
        assert refused(tool, calls, signer.sign(payload)) == "cursor_invalid"


def test_a_cursor_reused_with_other_filters_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    cursor = first_cursor(tool, status="open")
    assert refused(tool, calls, cursor, status="shipped") == "cursor_other_filters"
    assert refused(tool, calls, cursor, status=None) == "cursor_other_filters"


def test_a_cursor_may_be_reused_with_another_page_size(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, _ = keyset_tool(db, boundaries)
    cursor = first_cursor(tool)
    out = invoke(tool, {"status": "open", "page_size": 2, "cursor": cursor}, Session(1))
    assert out["ok"] is True and out["note"].startswith("Showing orders 6-7 of")


def test_another_customers_cursor_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    cursor = first_cursor(tool, customer=CUSTOMER)
    code = refused(tool, calls, cursor, customer=OTHER_CUSTOMER)
    assert code == "cursor_other_identity"


def test_another_tools_cursor_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    keyset, _ = keyset_tool(db, boundaries)
    offset, calls = offset_tool(db, boundaries)
    assert refused(offset, calls, first_cursor(keyset)) == "cursor_other_tool"


def test_an_expired_cursor_is_refused(
    db: sqlite3.Connection, boundaries: Boundaries, clock: Clock
) -> None:
    tool, calls = keyset_tool(db, boundaries)
    cursor = first_cursor(tool)
    clock.now += 24 * 3600 - 1
    assert invoke(
        tool, {"status": "open", "page_size": 5, "cursor": cursor}, Session(1)
    )["ok"]
    clock.now += 2
    assert refused(tool, calls, cursor) == "cursor_expired"


def test_a_cursor_made_with_another_secret_is_refused(
    db: sqlite3.Connection, clock: Clock
) -> None:
    old = Boundaries(cursor_signer=Signer([b"o" * 32], "cursor"), clock=clock)
    new = Boundaries(cursor_signer=Signer([SECRET], "cursor"), clock=clock)
    cursor = first_cursor(keyset_tool(db, old)[0])
    tool, calls = keyset_tool(db, new)
    assert refused(tool, calls, cursor) == "cursor_invalid"
    # during a rotation the previous secret still verifies
    rotated = Boundaries(
        cursor_signer=Signer([SECRET, b"o" * 32], "cursor"), clock=clock
    )
    out = invoke(
        keyset_tool(db, rotated)[0],
        {"status": "open", "page_size": 5, "cursor": cursor},
        Session(1),
    )
    assert out["ok"] is True


def test_the_cursor_carries_digests_not_filter_values(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    tool, _ = keyset_tool(db, boundaries)
    payload = boundaries.signer().verify(first_cursor(tool, status="shipped"))
    assert payload is not None
    assert "shipped" not in str(payload) and "customer_id" not in str(payload)
    assert set(payload) == {"v", "t", "p", "n", "f", "i", "x"}


def test_a_cursor_needs_the_signer(db: sqlite3.Connection) -> None:
    tool, _ = keyset_tool(db, Boundaries())
    with pytest.raises(BoundariesMissing, match="cursor signer"):
        invoke(tool, {"status": None, "page_size": 5, "cursor": None}, Session(1))


# --- a page that breaks its contract is an infrastructure error ----------------------------


def broken_tool(boundaries: Boundaries, page: object, model: type[BaseModel]) -> Any:
    return guarded_tool(
        model,
        lambda args: page,
        boundaries=boundaries,
        pagination=BY_KEYSET,
        identity=lambda run: {"customer_id": run.customer_id},
    )


ROW = OrderRow(1, 1, "open")


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (Page(items=[ROW] * 6, total=6, next=None), "6 items for a page of 5"),
        ([ROW], "expected a Page"),
        (
            Page(items=[], total=9, next=Keyset((1, 1))),
            "empty page with a next position",
        ),
        (Page(items=[ROW], total=-1, next=None), "total of -1"),
    ],
)
def test_a_broken_page_stops_the_run(
    boundaries: Boundaries, page: object, message: str
) -> None:
    tool = broken_tool(boundaries, page, SearchArgs)
    with pytest.raises(ContractViolation, match=message):
        invoke(tool, {"status": None, "page_size": 5, "cursor": None}, Session(1))


def test_a_page_that_does_not_move_stops_the_run(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    cursor = first_cursor(keyset_tool(db, boundaries)[0])
    position = boundaries.signer().verify(cursor)
    assert position is not None
    stuck = Page(items=[ROW], total=9, next=Keyset(tuple(position["p"][1])))  # type: ignore[index]
    tool = broken_tool(boundaries, stuck, SearchArgs)
    with pytest.raises(ContractViolation, match="repeat this one"):
        invoke(tool, {"status": "open", "page_size": 5, "cursor": cursor}, Session(1))


class UnboundArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    status: Literal["open", "shipped"] | None
    page_size: Annotated[int, Field(ge=1, le=50)] | None
    cursor: Annotated[Cursor | None, BY_KEYSET.cursor_argument()]


def test_a_model_that_forgets_the_binding_stops_the_run(
    db: sqlite3.Connection, boundaries: Boundaries
) -> None:
    cursor = first_cursor(keyset_tool(db, boundaries)[0], status="open")
    tool = broken_tool(boundaries, Page(items=[ROW], total=1, next=None), UnboundArgs)
    with pytest.raises(ContractViolation, match="does not bind its cursor"):
        invoke(
            tool, {"status": "shipped", "page_size": 5, "cursor": cursor}, Session(1)
        )


def test_an_implementation_that_pages_the_other_way_stops_the_run() -> None:
    keyset = Cursor(Keyset((1,)), 5, "", "", "")
    with pytest.raises(ContractViolation, match="pages by offset"):
        start_offset(keyset)
    with pytest.raises(ContractViolation, match="pages by keyset"):
        after_key(Cursor(Offset(5), 5, "", "", ""))
    assert (start_offset(None), after_key(None)) == (0, None)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Offset(-1),
        lambda: Offset(True),
        lambda: Keyset(()),
        lambda: Keyset(([1],)),
    ],
)
def test_a_position_is_checked_when_made(make: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        make()


BY_CARD = Pagination(tool="card_payments", max_page_size=2, noun="payment")


class CardArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    card: Sensitive[str]
    page_size: Annotated[int, Field(ge=1, le=2)] | None
    cursor: Annotated[Cursor | None, BY_CARD.cursor_argument()]
    _cursor_binding = BY_CARD.binding()


def test_a_sensitive_filter_is_bound_without_entering_the_cursor(
    boundaries: Boundaries,
) -> None:
    calls = Calls()

    def payments(args: CardArgs) -> Page[OrderRow]:
        calls.count += 1
        start = start_offset(args.cursor)
        rows = [OrderRow(i, i, "open") for i in range(start, start + 2)]
        return Page(items=rows, total=10, next=Offset(start + 2))

    tool = guarded_tool(CardArgs, payments, boundaries=boundaries, pagination=BY_CARD)
    first = invoke(
        tool, {"card": "4111111111111111", "page_size": 2, "cursor": None}, None
    )
    cursor = first["next_cursor"]
    assert "4111111111111111" not in str(boundaries.signer().verify(cursor))
    again = {"card": "4111111111111111", "page_size": 2, "cursor": cursor}
    assert invoke(tool, again, None)["ok"] is True
    other = invoke(tool, {**again, "card": "5500000000000004"}, None)
    assert other["problems"][0]["code"] == "cursor_other_filters"
    assert calls.count == 2
