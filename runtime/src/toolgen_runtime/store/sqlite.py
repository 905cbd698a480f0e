"""The SQLite store: one file, shared by every process on one machine.

The file (and its folder) is created on first use. It is in WAL mode, so readers never wait
for the writer, and every write transaction begins with `BEGIN IMMEDIATE`, waiting up to the
busy timeout (`?timeout=` seconds in the URL, default 10) for another process's write to end.
`synchronous=FULL`: a claim is on disk before the effect it guards runs, so not even a power
cut can make a claimed operation run twice.

A claim reads first, without a lock: a duplicate (done, running, other arguments) is answered
by that read alone, however many processes are polling. Only a caller that may have to write
(no record, or a record past its lease or retention) takes the write lock, and decides again
under it: the primary key on `(scope, key)` is what lets exactly one of them insert.

Times are this machine's clock (`time.time()`): every process using the file shares it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from toolgen_runtime.store.base import (
    PURGE_BATCH,
    PURGE_EVERY,
    REPLACE,
    TAKE_OVER,
    Claimed,
    ClaimLost,
    ClaimState,
    Record,
    Store,
    StoreUnavailable,
    check_durations,
    decide,
    lost_message,
    new_token,
    what_ran,
)

__all__ = ["SQLiteStore"]

DEFAULT_BUSY_TIMEOUT_S = 10.0

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS toolgen_idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'done')),
        token TEXT,
        attempt INTEGER NOT NULL,
        lease_until REAL,
        expires_at REAL NOT NULL,
        outcome TEXT,
        PRIMARY KEY (scope, key)
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS toolgen_idempotency_expiry
        ON toolgen_idempotency (expires_at)
    """,
    """
    CREATE TABLE IF NOT EXISTS toolgen_used_tokens (
        token_id TEXT PRIMARY KEY,
        expires_at REAL NOT NULL
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS toolgen_used_tokens_expiry
        ON toolgen_used_tokens (expires_at)
    """,
)

_SELECT = (
    "SELECT fingerprint, state, attempt, lease_until, expires_at, outcome"
    " FROM toolgen_idempotency WHERE scope = ? AND key = ?"
)

_T = TypeVar("_T")


class SQLiteStore(Store):
    """The store in one SQLite file (see the module docstring)."""

    def __init__(
        self, path: str | Path, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S
    ) -> None:
        # absolute now: a later chdir must not move the store of a running process
        self.path = Path(path).absolute()
        self.url = f"sqlite:///{self.path}"
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._claims = 0

    # --- connection -----------------------------------------------------------------------

    def _forget_after_fork(self) -> None:
        # a connection must not cross a fork: the child drops the parent's (without closing
        # it, which would release the parent's locks) and opens its own; the lock is new too,
        # since a thread of the parent may have held it at the fork
        if self._pid != os.getpid():
            self._conn, self._pid, self._lock = None, os.getpid(), threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are begun and ended explicitly
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout_s,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            self._set_wal(conn)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return conn

    def _set_wal(self, conn: sqlite3.Connection) -> None:
        # WAL is a property of the file: set once, by whichever process gets there first.
        # Switching needs a moment alone with the file, and the pragma does not always wait
        # for the busy timeout, so processes opening a new file together retry it.
        deadline = time.monotonic() + self.busy_timeout_s
        while conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _run(
        self, body: Callable[[sqlite3.Connection], _T], *, after_effect: bool = False
    ) -> _T:
        """Run `body` with this process's connection, every failure as StoreUnavailable
        (`after_effect`: `body` records what an effect did)."""
        self._forget_after_fork()
        try:
            with self._lock:
                return body(self._connection())
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(
                f"the idempotency store {self.url} cannot be used: {exc}. "
                f"{what_ran(after_effect)} Check that the file's folder exists and is "
                "writable by this process, that the file is a SQLite database, and that no "
                f"other process holds its write lock for longer than {self.busy_timeout_s:g} s."
            ) from exc

    @staticmethod
    @contextmanager
    def _writing(conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # --- the Store interface ------------------------------------------------------------------

    def claim(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        *,
        lease_s: float,
        retention_s: float,
    ) -> ClaimState:
        check_durations(lease_s, retention_s)

        def body(conn: sqlite3.Connection) -> ClaimState:
            found = _read(conn, scope, key)
            if found is not None:
                answer = decide(found, fingerprint, time.time())
                if not isinstance(answer, str):
                    return answer
            with self._writing(conn):
                return self._claim_locked(
                    conn, scope, key, fingerprint, lease_s, retention_s
                )

        state = self._run(body)
        self._claims += 1
        if self._claims % PURGE_EVERY == 0:
            self.purge_expired(PURGE_BATCH)
        return state

    def _claim_locked(
        self,
        conn: sqlite3.Connection,
        scope: str,
        key: str,
        fingerprint: str,
        lease_s: float,
        retention_s: float,
    ) -> ClaimState:
        now = time.time()
        token = new_token()
        lease_until = now + lease_s
        # a running record outlives its lease by the retention, so it is never purged
        # while a takeover could still be decided on it
        expires_at = lease_until + retention_s
        found = _read(conn, scope, key)
        answer = REPLACE if found is None else decide(found, fingerprint, now)
        if answer == REPLACE:
            conn.execute(
                "INSERT INTO toolgen_idempotency (scope, key, fingerprint, state, token,"
                " attempt, lease_until, expires_at, outcome)"
                " VALUES (?, ?, ?, 'running', ?, 1, ?, ?, NULL)"
                " ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint,"
                " state = 'running', token = excluded.token, attempt = 1,"
                " lease_until = excluded.lease_until, expires_at = excluded.expires_at,"
                " outcome = NULL",
                (scope, key, fingerprint, token, lease_until, expires_at),
            )
            attempt = 1
        elif answer == TAKE_OVER:
            assert found is not None
            attempt = found.attempt + 1
            conn.execute(
                "UPDATE toolgen_idempotency SET token = ?, attempt = ?, lease_until = ?,"
                " expires_at = ? WHERE scope = ? AND key = ?",
                (token, attempt, lease_until, expires_at, scope, key),
            )
        else:
            assert not isinstance(answer, str)
            return answer
        return Claimed(scope, key, token, attempt, lease_s, retention_s)

    def complete(self, claim: Claimed, outcome: str) -> None:
        def body(conn: sqlite3.Connection) -> int:
            with self._writing(conn):
                return conn.execute(
                    "UPDATE toolgen_idempotency SET state = 'done', outcome = ?,"
                    " token = NULL, lease_until = NULL, expires_at = ?"
                    " WHERE scope = ? AND key = ? AND token = ? AND state = 'running'",
                    (
                        outcome,
                        time.time() + claim.retention_s,
                        claim.scope,
                        claim.key,
                        claim.token,
                    ),
                ).rowcount

        if self._run(body, after_effect=True) != 1:
            raise ClaimLost(lost_message(claim, self.url))

    def release(self, claim: Claimed) -> None:
        def body(conn: sqlite3.Connection) -> None:
            with self._writing(conn):
                conn.execute(
                    "DELETE FROM toolgen_idempotency"
                    " WHERE scope = ? AND key = ? AND token = ? AND state = 'running'",
                    (claim.scope, claim.key, claim.token),
                )

        self._run(body)

    def renew(self, claim: Claimed) -> bool:
        def body(conn: sqlite3.Connection) -> int:
            lease_until = time.time() + claim.lease_s
            with self._writing(conn):
                return conn.execute(
                    "UPDATE toolgen_idempotency SET lease_until = ?, expires_at = ?"
                    " WHERE scope = ? AND key = ? AND token = ? AND state = 'running'",
                    (
                        lease_until,
                        lease_until + claim.retention_s,
                        claim.scope,
                        claim.key,
                        claim.token,
                    ),
                ).rowcount

        return self._run(body) == 1

    def use_token(self, token_id: str, expires_at: float) -> bool:
        def body(conn: sqlite3.Connection) -> int:
            with self._writing(conn):
                return conn.execute(
                    "INSERT INTO toolgen_used_tokens (token_id, expires_at) VALUES (?, ?)"
                    " ON CONFLICT (token_id) DO NOTHING",
                    (token_id, expires_at),
                ).rowcount

        return self._run(body) == 1

    def purge_expired(self, limit: int = 1000) -> int:
        def body(conn: sqlite3.Connection) -> int:
            now = time.time()
            with self._writing(conn):
                purged = conn.execute(
                    "DELETE FROM toolgen_idempotency WHERE rowid IN (SELECT rowid FROM"
                    " toolgen_idempotency WHERE expires_at <= ? LIMIT ?)",
                    (now, limit),
                ).rowcount
                purged += conn.execute(
                    "DELETE FROM toolgen_used_tokens WHERE rowid IN (SELECT rowid FROM"
                    " toolgen_used_tokens WHERE expires_at <= ? LIMIT ?)",
                    (now, limit),
                ).rowcount
            return purged

        return self._run(body)

    def close(self) -> None:
        self._forget_after_fork()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
            self._conn = None


# a record's columns as toolgen writes them (SQLite keeps any type in any column)
_TYPES: tuple[type | tuple[type, ...], ...] = (
    str,
    str,
    int,
    (int, float, type(None)),
    (int, float),
    (str, type(None)),
)


def _read(conn: sqlite3.Connection, scope: str, key: str) -> Record | None:
    row = conn.execute(_SELECT, (scope, key)).fetchone()
    if row is None:
        return None
    record = Record(*row)
    typed = all(isinstance(v, t) for v, t in zip(row, _TYPES, strict=True))
    if (
        not typed
        or record.state not in ("running", "done")
        or (record.state == "done" and record.outcome is None)
    ):  # a table of another program's, or edited by hand: no record toolgen can read
        raise sqlite3.DatabaseError(f"the record of {scope} {key!r} is not toolgen's")
    return record
