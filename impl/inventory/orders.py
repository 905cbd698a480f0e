"""The writes of the inventory database: purchase orders to suppliers, customer orders placed
and cancelled. Plain typed functions, each one transaction that takes the write lock up front
(BEGIN IMMEDIATE), so a read-then-write never races another process.

None of them deduplicates: the tools do, with the runtime (send_order by its idempotency key,
confirm_order by its single-use token, cancel_order by being naturally idempotent).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from impl.inventory.db import Database, get_database

__all__ = [
    "CancelOutcome",
    "PlacedOrder",
    "PurchaseOrder",
    "cancel_order",
    "place_order",
    "send_purchase_order",
]

# new customer orders are numbered after the seeded ones
_FIRST_NEW_ORDER = 9001


@dataclass(frozen=True, slots=True)
class PurchaseOrder:
    purchase_order_number: str
    sku: str
    quantity_units: int


@dataclass(frozen=True, slots=True)
class PlacedOrder:
    order_number: str
    total_cents: int


@dataclass(frozen=True, slots=True)
class CancelOutcome:
    order_number: str
    cancelled_now: bool


def _db(db: Database | None) -> Database:
    return db if db is not None else get_database()


def send_purchase_order(
    run_id: str, order_ref: str, sku: str, quantity: int, *, db: Database | None = None
) -> PurchaseOrder | None:
    """Record a purchase order sent to the supplier; None if the SKU is unknown."""
    with _db(db).transaction(write=True) as conn:
        if conn.execute("SELECT 1 FROM stock WHERE sku = ?", (sku,)).fetchone() is None:
            return None
        cursor = conn.execute(
            "INSERT INTO purchase_orders (run_id, order_ref, sku, quantity)"
            " VALUES (?, ?, ?, ?)",
            (run_id, order_ref, sku, quantity),
        )
        number = cursor.lastrowid
    return PurchaseOrder(f"PO-{number}", sku, quantity)


def count_purchase_orders(*, db: Database | None = None) -> int:
    with _db(db).transaction() as conn:
        return int(conn.execute("SELECT count(*) FROM purchase_orders").fetchone()[0])


def place_order(
    customer_id: int, sku: str, quantity: int, *, db: Database | None = None
) -> PlacedOrder | Literal["unknown_sku"] | tuple[Literal["not_enough_stock"], int]:
    """Place an open order for the customer, taking its pieces from stock."""
    with _db(db).transaction(write=True) as conn:
        row = conn.execute(
            "SELECT s.on_hand_units, p.unit_price_cents FROM stock s"
            " JOIN prices p ON p.sku = s.sku WHERE s.sku = ?",
            (sku,),
        ).fetchone()
        if row is None:
            return "unknown_sku"
        on_hand, unit_price = int(row[0]), int(row[1])
        if on_hand < quantity:
            return ("not_enough_stock", on_hand)
        last = conn.execute(
            "SELECT max(CAST(substr(order_number, 5) AS INTEGER)) FROM orders"
        ).fetchone()[0]
        number = f"ORD-{max(_FIRST_NEW_ORDER, int(last or 0) + 1)}"
        total = unit_price * quantity
        conn.execute(
            "INSERT INTO orders (order_number, customer_id, status, placed_on, total_cents)"
            " VALUES (?, ?, 'open', ?, ?)",
            (number, customer_id, date.today().isoformat(), total),
        )
        conn.execute(
            "INSERT INTO order_lines (order_number, sku, quantity) VALUES (?, ?, ?)",
            (number, sku, quantity),
        )
        conn.execute(
            "UPDATE stock SET on_hand_units = on_hand_units - ? WHERE sku = ?",
            (quantity, sku),
        )
    return PlacedOrder(number, total)


def cancel_order(
    customer_id: int, order_number: str, *, db: Database | None = None
) -> CancelOutcome | Literal["order_not_found", "order_shipped"]:
    """Cancel the customer's open order and put its pieces back; cancelling a cancelled
    order changes nothing (cancelled_now is False)."""
    with _db(db).transaction(write=True) as conn:
        row = conn.execute(
            "SELECT status FROM orders WHERE order_number = ? AND customer_id = ?",
            (order_number, customer_id),
        ).fetchone()
        if row is None:
            return "order_not_found"
        status = str(row[0])
        if status == "shipped":
            return "order_shipped"
        if status == "cancelled":
            return CancelOutcome(order_number, cancelled_now=False)
        conn.execute(
            "UPDATE orders SET status = 'cancelled' WHERE order_number = ?",
            (order_number,),
        )
        line = conn.execute(
            "SELECT sku, quantity FROM order_lines WHERE order_number = ?",
            (order_number,),
        ).fetchone()
        if line is not None:
            conn.execute(
                "UPDATE stock SET on_hand_units = on_hand_units + ? WHERE sku = ?",
                (int(line[1]), str(line[0])),
            )
    return CancelOutcome(order_number, cancelled_now=True)
