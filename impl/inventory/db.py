"""The inventory database: SQLite, created and seeded on first use.

Which database the process uses, in order:

1. the one chosen with ``use_database(path)`` (tests and applications);
2. otherwise the file named by the ``INVENTORY_DB`` environment variable, read on
   first use;
3. otherwise an in-memory database private to this process, shared by all its
   threads and lost when the process ends. Several worker processes would each
   see their own copy, so give them ``INVENTORY_DB``.

The schema is created and the demo rows inserted the first time a database is
opened; both steps are idempotent, so several processes may open the same file,
even a new one at the same moment (the switch of a file to WAL, which SQLite may
refuse at once to one of two processes doing it together, is retried).
Every statement uses ``?`` parameters: no value is ever spliced into SQL text.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "ENV_VAR",
    "MEMORY",
    "Database",
    "close_database",
    "get_database",
    "use_database",
]

ENV_VAR = "INVENTORY_DB"
MEMORY = ":memory:"

# How long a connection waits for another process's write lock, in seconds.
_BUSY_TIMEOUT_S = 10.0

_SCHEMA: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS customers (
        customer_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS orders (
        order_number TEXT PRIMARY KEY,
        customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
        status TEXT NOT NULL CHECK (status IN ('open', 'shipped', 'cancelled')),
        placed_on TEXT NOT NULL CHECK (date(placed_on) = placed_on),
        total_cents INTEGER NOT NULL CHECK (total_cents >= 0)
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS orders_by_customer
        ON orders (customer_id, placed_on)
    """,
    """
    CREATE TABLE IF NOT EXISTS returns (
        return_number TEXT PRIMARY KEY,
        order_number TEXT NOT NULL REFERENCES orders (order_number),
        reason TEXT NOT NULL CHECK (reason IN (
            'damaged', 'wrong_item', 'not_as_described', 'no_longer_needed',
            'refused_delivery'
        )),
        requested_on TEXT NOT NULL CHECK (date(requested_on) = requested_on),
        status TEXT NOT NULL CHECK (status IN (
            'requested', 'approved', 'received', 'refunded', 'rejected'
        ))
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS returns_by_order ON returns (order_number)
    """,
    """
    CREATE TABLE IF NOT EXISTS stock (
        sku TEXT PRIMARY KEY,
        on_hand_units INTEGER NOT NULL CHECK (on_hand_units >= 0),
        reorder_threshold_units INTEGER NOT NULL
            CHECK (reorder_threshold_units >= 0)
    )
    """,
    # The unique constraint is what makes create_reorder idempotent: the same
    # proposal in the same run is stored once, however often it is asked for.
    """
    CREATE TABLE IF NOT EXISTS reorder_proposals (
        proposal_number INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL,
        sku TEXT NOT NULL REFERENCES stock (sku),
        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
        urgency TEXT NOT NULL CHECK (urgency IN ('standard', 'urgent')),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (run_id, sku, quantity, urgency)
    )
    """,
    # Tools that write (send_order, confirm_order, cancel_order). No unique constraint
    # here keeps send_order from sending twice: its idempotency key does, in the runtime.
    """
    CREATE TABLE IF NOT EXISTS purchase_orders (
        purchase_order_id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        order_ref TEXT NOT NULL,
        sku TEXT NOT NULL REFERENCES stock (sku),
        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
        sent_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS prices (
        sku TEXT PRIMARY KEY,
        unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS order_lines (
        order_number TEXT PRIMARY KEY REFERENCES orders (order_number),
        sku TEXT NOT NULL REFERENCES stock (sku),
        quantity INTEGER NOT NULL CHECK (quantity >= 1)
    )
    """,
)

SEED_CUSTOMERS: tuple[tuple[int, str], ...] = (
    (1, "ACME"),
    (2, "Brambilla SRL"),
    (3, "Colombo Forniture"),
    (4, "Delta Logistica"),
    (5, "Esposito & Figli"),
    (6, "Fontana Ottica"),
    (7, "Greco Alimentari"),
)

# (order_number, customer_id, status, placed_on, total_cents)
SEED_ORDERS: tuple[tuple[str, int, str, str, int], ...] = (
    ("ORD-1001", 1, "shipped", "2026-01-12", 125000),
    ("ORD-1002", 1, "shipped", "2026-02-03", 8990),
    ("ORD-1003", 1, "cancelled", "2026-02-27", 43000),
    ("ORD-1004", 1, "shipped", "2026-03-15", 219999),
    ("ORD-1005", 1, "shipped", "2026-04-08", 7550),
    ("ORD-1006", 1, "shipped", "2026-05-19", 64000),
    ("ORD-1007", 1, "cancelled", "2026-06-02", 12000),
    ("ORD-1008", 1, "shipped", "2026-07-21", 98040),
    ("ORD-1009", 1, "shipped", "2026-08-14", 31000),
    ("ORD-1010", 1, "shipped", "2026-09-05", 157525),
    ("ORD-1011", 1, "shipped", "2026-09-30", 4999),
    ("ORD-1012", 1, "open", "2026-10-09", 72000),
    ("ORD-1013", 1, "open", "2026-10-28", 26480),
    ("ORD-1014", 1, "open", "2026-11-16", 189000),
    ("ORD-2001", 2, "shipped", "2026-06-11", 340000),
    ("ORD-2002", 2, "shipped", "2026-09-22", 81560),
    ("ORD-2003", 2, "open", "2026-11-03", 129900),
    ("ORD-3001", 3, "shipped", "2026-03-03", 5800),
    ("ORD-3002", 3, "cancelled", "2026-10-15", 21200),
    ("ORD-4001", 4, "open", "2026-11-20", 9900),
)

# (return_number, order_number, reason, requested_on, status)
SEED_RETURNS: tuple[tuple[str, str, str, str, str], ...] = (
    ("RET-501", "ORD-1004", "damaged", "2026-03-20", "refunded"),
    ("RET-502", "ORD-1006", "refused_delivery", "2026-05-25", "rejected"),
    ("RET-503", "ORD-1008", "wrong_item", "2026-07-28", "received"),
    ("RET-504", "ORD-1010", "not_as_described", "2026-09-12", "approved"),
    ("RET-505", "ORD-1011", "no_longer_needed", "2026-10-12", "requested"),
    ("RET-601", "ORD-2002", "damaged", "2026-10-01", "requested"),
)

# (sku, on_hand_units, reorder_threshold_units)
SEED_STOCK: tuple[tuple[str, int, int], ...] = (
    ("SKU-11", 4, 10),
    ("SKU-12", 40, 15),
    ("SKU-77", 10, 10),
    ("SKU-205", 0, 5),
    ("SKU-3141", 120, 50),
    ("SKU-90210", 8, 25),
)

# (sku, unit_price_cents)
SEED_PRICES: tuple[tuple[str, int], ...] = (
    ("SKU-11", 1250),
    ("SKU-12", 899),
    ("SKU-77", 4500),
    ("SKU-205", 12000),
    ("SKU-3141", 350),
    ("SKU-90210", 9999),
)

_SEED: tuple[tuple[str, tuple[tuple[object, ...], ...]], ...] = (
    (
        "INSERT OR IGNORE INTO customers (customer_id, name) VALUES (?, ?)",
        SEED_CUSTOMERS,
    ),
    (
        (
            "INSERT OR IGNORE INTO orders"
            " (order_number, customer_id, status, placed_on, total_cents)"
            " VALUES (?, ?, ?, ?, ?)"
        ),
        SEED_ORDERS,
    ),
    (
        (
            "INSERT OR IGNORE INTO returns"
            " (return_number, order_number, reason, requested_on, status)"
            " VALUES (?, ?, ?, ?, ?)"
        ),
        SEED_RETURNS,
    ),
    (
        (
            "INSERT OR IGNORE INTO stock (sku, on_hand_units, reorder_threshold_units)"
            " VALUES (?, ?, ?)"
        ),
        SEED_STOCK,
    ),
    (
        "INSERT OR IGNORE INTO prices (sku, unit_price_cents) VALUES (?, ?)",
        SEED_PRICES,
    ),
)


def _casefold(value: object) -> str | None:
    return value.casefold() if isinstance(value, str) else None


class Database:
    """One SQLite database: a file, or the process's in-memory one (``":memory:"``).

    A single connection per process, serialised by a lock, so the object is safe
    to share between threads; other processes on the same file are kept apart by
    SQLite's own locking. The connection opens, and the schema and seed are
    applied, on first use.
    """

    def __init__(self, path: str | Path) -> None:
        self._path = str(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    @property
    def path(self) -> str:
        return self._path

    @property
    def in_memory(self) -> bool:
        return self._path == MEMORY

    def __repr__(self) -> str:
        return f"Database({self._path!r})"

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """Run the body in one transaction: committed on success, rolled back on error.

        ``write=True`` takes the write lock up front (BEGIN IMMEDIATE), so a
        read-then-write body never fails halfway on another process's write.
        """
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = self._open()
            try:
                _create_and_seed(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if not self.in_memory:
            Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are begun and ended explicitly above.
        conn = sqlite3.connect(
            self._path,
            timeout=_BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        if not self.in_memory:
            try:
                _use_wal(conn)
            except BaseException:
                conn.close()
                raise
        # SQLite's lower() only folds ASCII; names like "Città" need Python's.
        conn.create_function("casefold", 1, _casefold, deterministic=True)
        return conn


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    # "database is locked" is SQLITE_BUSY; the extended codes (BUSY_RECOVERY, ...) share its
    # low byte
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_BUSY


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch the file to WAL, once per file, however many processes open it at once.

    The switch needs the file's exclusive lock. When two connections try it at the same
    moment, each holds the shared lock the other must wait for, so SQLite refuses one of
    them at once with "database is locked" instead of waiting for the busy timeout. The
    refused one lets go of its lock when the statement ends: it retries, and by then it
    usually finds the file already in WAL. It gives up after the busy timeout, as any other
    statement would.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    pause = 0.001
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _create_and_seed(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            conn.execute(statement)
        for insert, rows in _SEED:
            conn.executemany(insert, rows)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


_current: Database | None = None
_current_lock = threading.Lock()


def use_database(path: str | Path) -> Database:
    """Make ``path`` (a file, or ``":memory:"``) the process's database.

    The previous database is closed. The new one is opened, created and seeded
    on first use.
    """
    global _current
    database = Database(path)
    with _current_lock:
        previous, _current = _current, database
    if previous is not None:
        previous.close()
    return database


def get_database() -> Database:
    """The process's database, chosen on first call if ``use_database`` was not."""
    global _current
    with _current_lock:
        if _current is None:
            _current = Database(os.environ.get(ENV_VAR) or MEMORY)
        return _current


def close_database() -> None:
    """Close the process's database; the next use chooses one again."""
    global _current
    with _current_lock:
        previous, _current = _current, None
    if previous is not None:
        previous.close()
