"""Queries of the inventory database, as plain typed functions.

Each function takes plain values and returns plain values (frozen dataclasses of
str, int, float, bool and ``datetime.date``), so it can be tested without the
generated tool modules. Each runs in one transaction on ``db``, the process's
database unless given. Authorisation is the caller's job: the customer id passed
here must come from the run context, never from the model.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Generic, Literal, TypeVar

from impl.inventory.db import Database, get_database

__all__ = [
    "MAX_RESULTS",
    "ORDER_STATUSES",
    "RETURN_REASONS",
    "RETURN_STATUSES",
    "URGENCIES",
    "Customer",
    "Order",
    "OrderStatus",
    "Page",
    "ReorderOutcome",
    "ReorderProposal",
    "ReturnReason",
    "ReturnRequest",
    "ReturnStatus",
    "Stock",
    "Urgency",
    "create_reorder_proposal",
    "get_customer_by_name",
    "get_stock",
    "known_skus",
    "query_orders",
    "query_returns",
    "returns_note",
    "suggest_customer_names",
]

OrderStatus = Literal["open", "shipped", "cancelled"]
ReturnReason = Literal[
    "damaged", "wrong_item", "not_as_described", "no_longer_needed", "refused_delivery"
]
ReturnStatus = Literal["requested", "approved", "received", "refunded", "rejected"]
Urgency = Literal["standard", "urgent"]

ORDER_STATUSES: tuple[OrderStatus, ...] = ("open", "shipped", "cancelled")
RETURN_REASONS: tuple[ReturnReason, ...] = (
    "damaged",
    "wrong_item",
    "not_as_described",
    "no_longer_needed",
    "refused_delivery",
)
RETURN_STATUSES: tuple[ReturnStatus, ...] = (
    "requested",
    "approved",
    "received",
    "refunded",
    "rejected",
)
URGENCIES: tuple[Urgency, ...] = ("standard", "urgent")

# The largest max_results the search tools accept (spec/inventory/tools/search_*.yaml);
# the notes only suggest raising max_results below it.
MAX_RESULTS = 50

_T = TypeVar("_T")
_S = TypeVar("_S", bound=str)


@dataclass(frozen=True, slots=True)
class Customer:
    customer_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Order:
    order_number: str
    status: OrderStatus
    placed_on: date
    total_eur: float


@dataclass(frozen=True, slots=True)
class ReturnRequest:
    return_number: str
    order_number: str
    reason: ReturnReason
    requested_on: date
    status: ReturnStatus


@dataclass(frozen=True, slots=True)
class Page(Generic[_T]):
    """The first rows of a result, newest first, and how many matched in all."""

    items: tuple[_T, ...]
    total_available: int

    @property
    def shown(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True)
class Stock:
    sku: str
    on_hand_units: int
    reorder_threshold_units: int

    @property
    def below_threshold(self) -> bool:
        return self.on_hand_units < self.reorder_threshold_units


@dataclass(frozen=True, slots=True)
class ReorderProposal:
    proposal_id: str
    run_id: str
    sku: str
    quantity_units: int
    urgency: Urgency


@dataclass(frozen=True, slots=True)
class ReorderOutcome:
    proposal: ReorderProposal
    created: bool  # False: the same proposal already existed in this run


# --- customers ---------------------------------------------------------------


def get_customer_by_name(name: str, *, db: Database | None = None) -> Customer | None:
    """The customer whose name is exactly ``name`` (case and spaces count)."""
    with _db(db).transaction() as conn:
        row = conn.execute(
            "SELECT customer_id, name FROM customers WHERE name = ?", (name,)
        ).fetchone()
    return None if row is None else _customer(row)


def suggest_customer_names(
    name: str, *, limit: int = 5, db: Database | None = None
) -> list[str]:
    """Names close to ``name``, alphabetically, at most ``limit`` of them.

    Close means: the name contains ``name`` or is contained in it, ignoring case.
    When no name is close, the first ``limit`` names alphabetically.
    """
    _check_limit(limit)
    order = " ORDER BY casefold(name), name LIMIT :limit"
    with _db(db).transaction() as conn:
        rows = conn.execute(
            "SELECT name FROM customers"
            " WHERE instr(casefold(name), casefold(:query)) > 0"
            " OR instr(casefold(:query), casefold(name)) > 0" + order,
            {"query": name, "limit": limit},
        ).fetchall()
        if not rows:
            rows = conn.execute(
                "SELECT name FROM customers" + order, {"limit": limit}
            ).fetchall()
    return [str(row["name"]) for row in rows]


# --- orders and returns --------------------------------------------------------

_ORDERS_WHERE = (
    " FROM orders WHERE customer_id = :customer_id"
    " AND (:status IS NULL OR status = :status)"
    " AND (:since IS NULL OR placed_on >= :since)"
)


def query_orders(
    customer_id: int,
    *,
    status: OrderStatus | None = None,
    since: date | None = None,
    limit: int = 10,
    after: tuple[str, str] | None = None,
    db: Database | None = None,
) -> Page[Order]:
    """The customer's orders, newest first, optionally one status and from a day on.

    `after` is the sort key (placed_on, order_number) of the last order of the previous
    page: the page starts after it, so an order placed meanwhile shifts nothing (keyset
    pagination). `total_available` counts every matching order, not only those after."""
    _check_limit(limit)
    params: dict[str, object] = {
        "customer_id": customer_id,
        "status": status,
        "since": None if since is None else since.isoformat(),
        "limit": limit,
        "after_day": None if after is None else after[0],
        "after_number": None if after is None else after[1],
    }
    with _db(db).transaction() as conn:
        total = _count(conn, "SELECT count(*)" + _ORDERS_WHERE, params)
        rows = conn.execute(
            "SELECT order_number, status, placed_on, total_cents"
            + _ORDERS_WHERE
            + " AND (:after_day IS NULL OR (placed_on, order_number)"
            " < (:after_day, :after_number))"
            " ORDER BY placed_on DESC, order_number DESC LIMIT :limit",
            params,
        ).fetchall()
    orders = tuple(
        Order(
            order_number=str(row["order_number"]),
            status=_one_of(row["status"], ORDER_STATUSES),
            placed_on=date.fromisoformat(str(row["placed_on"])),
            total_eur=int(row["total_cents"]) / 100,
        )
        for row in rows
    )
    return Page(items=orders, total_available=total)


_RETURNS_WHERE = (
    " FROM returns JOIN orders USING (order_number)"
    " WHERE orders.customer_id = :customer_id AND returns.requested_on >= :since"
)


def query_returns(
    customer_id: int,
    *,
    since: date,
    limit: int = 10,
    db: Database | None = None,
) -> Page[ReturnRequest]:
    """The customer's return requests made on or after ``since``, newest first."""
    _check_limit(limit)
    params: dict[str, object] = {
        "customer_id": customer_id,
        "since": since.isoformat(),
        "limit": limit,
    }
    with _db(db).transaction() as conn:
        total = _count(conn, "SELECT count(*)" + _RETURNS_WHERE, params)
        rows = conn.execute(
            "SELECT returns.return_number, returns.order_number, returns.reason,"
            " returns.requested_on, returns.status"
            + _RETURNS_WHERE
            + " ORDER BY returns.requested_on DESC, returns.return_number DESC"
            " LIMIT :limit",
            params,
        ).fetchall()
    requests = tuple(
        ReturnRequest(
            return_number=str(row["return_number"]),
            order_number=str(row["order_number"]),
            reason=_one_of(row["reason"], RETURN_REASONS),
            requested_on=date.fromisoformat(str(row["requested_on"])),
            status=_one_of(row["status"], RETURN_STATUSES),
        )
        for row in rows
    )
    return Page(items=requests, total_available=total)


def returns_note(*, shown: int, total: int, max_results: int) -> str:
    """The sentence that tells the model what a page of return requests holds."""
    ways = []
    if max_results < MAX_RESULTS:
        ways.append(f"raise max_results (up to {MAX_RESULTS})")
    return _page_note(
        shown, total, "return request", "return requests", ways, filtered=True
    )


def _page_note(
    shown: int,
    total: int,
    singular: str,
    plural: str,
    ways: Sequence[str],
    *,
    filtered: bool,
) -> str:
    if total == 0:
        return f"No {plural} match these filters." if filtered else f"No {plural}."
    if shown >= total:
        if total == 1:
            return f"Showing the only {singular} found."
        return f"Showing all {total} {plural}."
    head = f"Showing the newest {shown} of {total} {plural}."
    if not ways:
        return f"{head} Older ones cannot be listed with these filters."
    return f"{head} To see the rest, {' or '.join(ways)}."


# --- stock and reorders --------------------------------------------------------


def get_stock(sku: str, *, db: Database | None = None) -> Stock | None:
    """The stock row of ``sku``, or None when no product has that code."""
    with _db(db).transaction() as conn:
        row = conn.execute(
            "SELECT sku, on_hand_units, reorder_threshold_units"
            " FROM stock WHERE sku = ?",
            (sku,),
        ).fetchone()
    if row is None:
        return None
    return Stock(
        sku=str(row["sku"]),
        on_hand_units=int(row["on_hand_units"]),
        reorder_threshold_units=int(row["reorder_threshold_units"]),
    )


def known_skus(*, db: Database | None = None) -> list[str]:
    """Every product code, sorted."""
    with _db(db).transaction() as conn:
        rows = conn.execute("SELECT sku FROM stock ORDER BY sku").fetchall()
    return [str(row["sku"]) for row in rows]


def create_reorder_proposal(
    run_id: str,
    sku: str,
    quantity: int,
    urgency: Urgency,
    *,
    db: Database | None = None,
) -> ReorderOutcome | None:
    """Record a reorder proposal once per (run_id, sku, quantity, urgency).

    Returns None when no product has the code ``sku``. Asking again for the same
    proposal in the same run returns the stored one with ``created=False``; the
    unique constraint decides, so concurrent callers cannot both create it.
    """
    key = {"run_id": run_id, "sku": sku, "quantity": quantity, "urgency": urgency}
    with _db(db).transaction(write=True) as conn:
        if conn.execute("SELECT 1 FROM stock WHERE sku = ?", (sku,)).fetchone() is None:
            return None
        inserted = conn.execute(
            "INSERT INTO reorder_proposals (run_id, sku, quantity, urgency)"
            " VALUES (:run_id, :sku, :quantity, :urgency)"
            " ON CONFLICT (run_id, sku, quantity, urgency) DO NOTHING",
            key,
        )
        created = inserted.rowcount == 1
        row = conn.execute(
            "SELECT proposal_number, run_id, sku, quantity, urgency"
            " FROM reorder_proposals WHERE run_id = :run_id AND sku = :sku"
            " AND quantity = :quantity AND urgency = :urgency",
            key,
        ).fetchone()
    if row is None:  # pragma: no cover - the row was inserted or already there
        raise RuntimeError(f"reorder proposal {key} vanished inside its transaction")
    proposal = ReorderProposal(
        proposal_id=_proposal_id(int(row["proposal_number"])),
        run_id=str(row["run_id"]),
        sku=str(row["sku"]),
        quantity_units=int(row["quantity"]),
        urgency=_one_of(row["urgency"], URGENCIES),
    )
    return ReorderOutcome(proposal=proposal, created=created)


# --- helpers -------------------------------------------------------------------


def _db(db: Database | None) -> Database:
    return get_database() if db is None else db


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")


def _count(conn: sqlite3.Connection, sql: str, params: dict[str, object]) -> int:
    row = conn.execute(sql, params).fetchone()
    return int(row[0])


def _customer(row: sqlite3.Row) -> Customer:
    return Customer(customer_id=int(row["customer_id"]), name=str(row["name"]))


def _proposal_id(number: int) -> str:
    return f"RP-{number:06d}"


def _one_of(value: object, allowed: tuple[_S, ...]) -> _S:
    """``value`` as one of ``allowed``: anything else means a broken database."""
    for candidate in allowed:
        if value == candidate:
            return candidate
    raise ValueError(f"unexpected value {value!r} in the database; expected {allowed}")
