"""First open of the inventory database under concurrency: real processes on one fresh file.

Several worker processes that open one new file at the same moment all try to switch it to
WAL; SQLite refuses one of two such switches at once ("database is locked") instead of
waiting. Each round here gives 4 processes, released together by a barrier, a file that does
not exist yet; every one of them must open it, find it seeded, and see it in WAL.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
import traceback
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from impl.inventory import db as inventory_db
from impl.inventory.db import Database

PROCESSES = 4
ROUNDS = 200


def open_fresh_files(barrier: Barrier, paths: Any, outcomes: Any) -> None:
    """A worker process: for each path it is sent, wait for the others, then open it."""
    while True:
        path = paths.get()
        if path is None:
            return
        barrier.wait()
        try:
            database = Database(path)
            try:
                with database.transaction() as conn:
                    customers = conn.execute("SELECT count(*) FROM customers")
                    count = int(customers.fetchone()[0])
                    mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
            finally:
                database.close()
            outcomes.put(("opened", count, mode))
        except Exception:
            outcomes.put(("failed", 0, traceback.format_exc()))


def test_processes_opening_one_fresh_file_never_fail(tmp_path: Path) -> None:
    # spawn: each worker starts as a new interpreter, with nothing copied from this one
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(PROCESSES)
    inboxes = [spawn.Queue() for _ in range(PROCESSES)]
    outcomes = spawn.Queue()
    workers = [
        spawn.Process(target=open_fresh_files, args=(barrier, inbox, outcomes))
        for inbox in inboxes
    ]
    for worker in workers:
        worker.start()
    failures: list[str] = []
    try:
        for round_number in range(ROUNDS):
            path = tmp_path / f"round-{round_number}.db"
            for inbox in inboxes:
                inbox.put(str(path))
            for _ in workers:
                status, customers, detail = outcomes.get(timeout=60)
                if status != "opened":
                    failures.append(f"round {round_number}: {detail}")
                elif (customers, detail) != (len(inventory_db.SEED_CUSTOMERS), "wal"):
                    failures.append(
                        f"round {round_number}: {customers} customers, {detail}"
                    )
    finally:
        for inbox in inboxes:
            inbox.put(None)
        for worker in workers:
            worker.join(timeout=60)
    assert failures == [], (
        f"{len(failures)} of {ROUNDS * PROCESSES} opens failed:\n"
        + ("\n".join(failures[:3]))
    )
    assert all(worker.exitcode == 0 for worker in workers)


def test_the_switch_to_wal_outlasts_a_deadlock_sqlite_refuses_at_once(
    tmp_path: Path,
) -> None:
    """The mechanism behind the failures, made to happen every time in one process.

    A writer holds the file's reserved lock; the opener takes the shared lock and waits in
    its busy handler for the exclusive one the WAL switch needs. When the writer commits, it
    needs the opener's shared lock gone: SQLite sees the deadlock and refuses the opener at
    once, whatever its busy timeout.
    """
    path = tmp_path / "inv.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE earlier (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO earlier VALUES (1)")
    outcome: list[str] = []

    def open_database() -> None:
        database = Database(path)
        try:
            with database.transaction() as conn:
                row = conn.execute("SELECT count(*) FROM customers").fetchone()
                mode = conn.execute("PRAGMA journal_mode").fetchone()
            outcome.append(f"{row[0]} customers, {mode[0]}")
        except sqlite3.OperationalError as exc:
            outcome.append(f"failed: {exc}")
        finally:
            database.close()

    opener = threading.Thread(target=open_database)
    opener.start()
    time.sleep(0.3)  # the opener is waiting for the writer by now
    writer.execute("COMMIT")
    writer.close()
    opener.join(timeout=30)
    assert outcome == [f"{len(inventory_db.SEED_CUSTOMERS)} customers, wal"]


def _busy() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("database is locked")
    exc.sqlite_errorcode = sqlite3.SQLITE_BUSY
    return exc


class _Connection:
    """Stands in for a connection whose first statements meet a busy file."""

    def __init__(self, failures: list[BaseException], mode: str = "delete") -> None:
        self.failures = failures
        self.mode = mode
        self.statements: list[str] = []

    def execute(self, sql: str) -> _Connection:
        self.statements.append(sql)
        if self.failures:
            raise self.failures.pop(0)
        if sql == "PRAGMA journal_mode = WAL":
            self.mode = "wal"
        return self

    def fetchone(self) -> tuple[str]:
        return (self.mode,)


def test_the_switch_retries_only_busy_and_only_until_the_busy_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conn = _Connection([_busy(), _busy()])
    inventory_db._use_wal(conn)  # type: ignore[arg-type]
    assert conn.mode == "wal"
    assert conn.statements[-2:] == ["PRAGMA journal_mode", "PRAGMA journal_mode = WAL"]

    already = _Connection([], mode="wal")
    inventory_db._use_wal(already)  # type: ignore[arg-type]
    assert already.statements == ["PRAGMA journal_mode"]

    other = sqlite3.OperationalError("disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        inventory_db._use_wal(_Connection([other]))  # type: ignore[arg-type]

    monkeypatch.setattr(inventory_db, "_BUSY_TIMEOUT_S", 0.05)
    forever = _Connection([_busy() for _ in range(10_000)])
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        inventory_db._use_wal(forever)  # type: ignore[arg-type]
    assert time.monotonic() - started < 1.0
