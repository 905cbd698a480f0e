"""The PostgreSQL store: one database shared by several agent workers, on any number of machines.

Needs the `postgres` extra (`pip install 'toolgen-runtime[postgres]'`, psycopg 3). The tables
are created on first use (under an advisory lock, so workers starting together do not race).
Times are the server's clock, so workers on machines whose clocks disagree still agree on
leases and retention.

A claim is one autocommitted statement that inserts the record if the key is free (the primary
key on `(scope, key)` decides which caller executes) and otherwise reads the record that is
there. Only a caller that may have to write (a lease or a retention that ran out) then locks
the row (`SELECT ... FOR UPDATE`) and decides again.

Each process keeps a few idle connections (`max_idle`); a connection that failed is closed, not
reused, and one idle for more than 5 s is checked first (`SELECT 1`), so a server restart
between two calls costs a reconnection, not a failed call. A server that is down or answers
too slowly (`connect_timeout` in the URL, default 5 s; statements time out after 10 s, on the
server: one that stops answering without closing the connection is waited for) is a
`StoreUnavailable`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

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
    StoreNotConfigured,
    StoreUnavailable,
    check_durations,
    decide,
    lost_message,
    new_token,
    what_ran,
)

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise StoreNotConfigured(
        "a postgresql:// store needs psycopg 3: install toolgen-runtime[postgres] "
        "(pip install 'toolgen-runtime[postgres]')"
    ) from exc

__all__ = ["PostgresStore", "redact"]

DEFAULT_CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 10_000
# a pooled connection idle for longer than this is checked before it is used again
IDLE_CHECK_S = 5.0
# pg_advisory_xact_lock key for creating the tables: any fixed number, "tgst" in ASCII
_SCHEMA_LOCK = 0x74677374

_NOW = "extract(epoch FROM clock_timestamp())::float8"

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS toolgen_idempotency (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        token text,
        attempt integer NOT NULL,
        lease_until double precision,
        expires_at double precision NOT NULL,
        outcome text,
        PRIMARY KEY (scope, key)
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS toolgen_idempotency_expiry
        ON toolgen_idempotency (expires_at)
    """,
    """
    CREATE TABLE IF NOT EXISTS toolgen_used_tokens (
        token_id text PRIMARY KEY,
        expires_at double precision NOT NULL
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS toolgen_used_tokens_expiry
        ON toolgen_used_tokens (expires_at)
    """,
)

# One round trip for every caller: insert the record if the key is free (the primary key
# decides), else read the record that is there. The read uses the statement's snapshot, so a
# record committed by another caller while this statement waited for it is not seen: no row
# comes back, and the claim simply runs again.
_CLAIM = (
    "WITH inserted AS ("
    " INSERT INTO toolgen_idempotency (scope, key, fingerprint, state, token, attempt,"
    " lease_until, expires_at, outcome)"
    " VALUES (%(scope)s, %(key)s, %(fingerprint)s, 'running', %(token)s, 1,"
    f" {_NOW} + %(lease)s, {_NOW} + %(lease)s + %(retention)s, NULL)"
    " ON CONFLICT (scope, key) DO NOTHING RETURNING attempt)"
    " SELECT true, NULL, NULL, NULL, NULL::float8, NULL::float8, NULL, NULL::float8"
    " FROM inserted"
    " UNION ALL"
    " SELECT false, fingerprint, state, attempt, lease_until, expires_at, outcome,"
    f" {_NOW} FROM toolgen_idempotency WHERE scope = %(scope)s AND key = %(key)s"
    " AND NOT EXISTS (SELECT 1 FROM inserted)"
)

_SELECT = (
    "SELECT fingerprint, state, attempt, lease_until, expires_at, outcome,"
    f" {_NOW} FROM toolgen_idempotency WHERE scope = %s AND key = %s"
)

_RESTART = (
    "UPDATE toolgen_idempotency SET fingerprint = %(fingerprint)s, state = 'running',"
    f" token = %(token)s, attempt = %(attempt)s, lease_until = {_NOW} + %(lease)s,"
    f" expires_at = {_NOW} + %(lease)s + %(retention)s, outcome = NULL"
    " WHERE scope = %(scope)s AND key = %(key)s"
)

_COMPLETE = (
    "UPDATE toolgen_idempotency SET state = 'done', outcome = %s, token = NULL,"
    f" lease_until = NULL, expires_at = {_NOW} + %s"
    " WHERE scope = %s AND key = %s AND token = %s AND state = 'running'"
)

_RELEASE = (
    "DELETE FROM toolgen_idempotency"
    " WHERE scope = %s AND key = %s AND token = %s AND state = 'running'"
)

_RENEW = (
    f"UPDATE toolgen_idempotency SET lease_until = {_NOW} + %(lease)s,"
    f" expires_at = {_NOW} + %(lease)s + %(retention)s"
    " WHERE scope = %(scope)s AND key = %(key)s AND token = %(token)s"
    " AND state = 'running'"
)

_USE_TOKEN = (
    "INSERT INTO toolgen_used_tokens (token_id, expires_at) VALUES (%s, %s)"
    " ON CONFLICT (token_id) DO NOTHING"
)

_PURGE_RECORDS = (
    "DELETE FROM toolgen_idempotency WHERE (scope, key) IN (SELECT scope, key FROM"
    f" toolgen_idempotency WHERE expires_at <= {_NOW} LIMIT %s FOR UPDATE SKIP LOCKED)"
)

_PURGE_TOKENS = (
    "DELETE FROM toolgen_used_tokens WHERE token_id IN (SELECT token_id FROM"
    f" toolgen_used_tokens WHERE expires_at <= {_NOW} LIMIT %s FOR UPDATE SKIP LOCKED)"
)

# a record released or purged between the insert and the read is claimed again from the top
_CLAIM_TRIES = 10

_T = TypeVar("_T")
Connection = psycopg.Connection[Any]


def redact(url: str) -> str:
    """The URL with its password masked, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


class PostgresStore(Store):
    """The store in a PostgreSQL database (see the module docstring)."""

    def __init__(self, url: str, *, max_idle: int = 8) -> None:
        self.url = redact(url)
        self._conninfo = url
        try:
            given = conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            raise StoreNotConfigured(
                f"{self.url} is not a PostgreSQL URL: {exc}"
            ) from exc
        self._options: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in given:
            self._options["connect_timeout"] = DEFAULT_CONNECT_TIMEOUT_S
        # ours first: a statement_timeout in the URL's own options comes later and wins
        self._options["options"] = (
            f"-c statement_timeout={STATEMENT_TIMEOUT_MS} {given.get('options', '')}"
        ).strip()
        self._max_idle = max_idle
        self._idle: list[tuple[Connection, float]] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._schema_ready = False
        self._claims = 0

    # --- connections ----------------------------------------------------------------------

    def _forget_after_fork(self) -> None:
        # a connection must not cross a fork: the child leaves the parent's sockets alone
        # (closing them would end the parent's sessions) and opens its own
        if self._pid != os.getpid():
            self._idle, self._pid, self._lock = [], os.getpid(), threading.Lock()

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        self._forget_after_fork()
        with self._lock:
            conn, idle_since = self._idle.pop() if self._idle else (None, 0.0)
        if conn is not None and time.monotonic() - idle_since > IDLE_CHECK_S:
            conn = self._still_alive(conn)
        if conn is None:
            conn = psycopg.connect(self._conninfo, **self._options)
            try:
                self._ensure_schema(conn)
            except BaseException:
                conn.close()
                raise
        try:
            yield conn
        except BaseException:
            conn.close()
            raise
        reusable = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self._lock:
            if reusable and len(self._idle) < self._max_idle:
                self._idle.append((conn, time.monotonic()))
                return
        conn.close()

    @staticmethod
    def _still_alive(conn: Connection) -> Connection | None:
        # a connection idle for a while may have been closed by a server restart or a
        # firewall; finding out with a SELECT 1 costs one round trip, while finding out
        # with a claim would stop the run although the server is back
        try:
            conn.execute("SELECT 1")
        except psycopg.Error:
            conn.close()
            return None
        return conn

    def _ensure_schema(self, conn: Connection) -> None:
        if self._schema_ready:
            return
        exists = conn.execute(
            "SELECT to_regclass('toolgen_idempotency') IS NOT NULL"
            " AND to_regclass('toolgen_used_tokens') IS NOT NULL"
        ).fetchone()
        if not (exists and exists[0]):
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in _SCHEMA:
                    conn.execute(statement)
        self._schema_ready = True

    def _run(
        self, body: Callable[[Connection], _T], *, after_effect: bool = False
    ) -> _T:
        try:
            with self._connection() as conn:
                return body(conn)
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"the idempotency store {self.url} cannot be used: "
                f"{type(exc).__name__}: {str(exc).strip()}. {what_ran(after_effect)} Check "
                "that the server is running and reachable, and that the URL's user may "
                "create and write the toolgen_* tables."
            ) from exc

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
        params = {
            "scope": scope,
            "key": key,
            "fingerprint": fingerprint,
            "lease": lease_s,
            "retention": retention_s,
        }

        def body(conn: Connection) -> ClaimState:
            for _ in range(_CLAIM_TRIES):
                token = new_token()
                found = conn.execute(_CLAIM, {**params, "token": token}).fetchone()
                if found is None:
                    continue
                if found[0]:
                    return Claimed(scope, key, token, 1, lease_s, retention_s)
                answer = decide(Record(*found[1:7]), fingerprint, found[7])
                if not isinstance(answer, str):
                    return answer
                with conn.transaction():
                    state = self._claim_locked(conn, params, token)
                if state is not None:
                    return state
            raise StoreUnavailable(
                f"{scope} key {key} in {self.url} kept changing while it was claimed "
                f"({_CLAIM_TRIES} tries): another process is releasing or purging it "
                "as fast as it is claimed"
            )

        state = self._run(body)
        self._claims += 1
        if self._claims % PURGE_EVERY == 0:
            self.purge_expired(PURGE_BATCH)
        return state

    def _claim_locked(
        self, conn: Connection, params: dict[str, Any], token: str
    ) -> ClaimState | None:
        """Decide again with the row locked; None when the row went away meanwhile."""
        found = conn.execute(_SELECT + " FOR UPDATE", (params["scope"], params["key"]))
        row = found.fetchone()
        if row is None:
            return None
        record = Record(*row[:6])
        answer = decide(record, params["fingerprint"], row[6])
        if answer == REPLACE:
            attempt = 1
        elif answer == TAKE_OVER:
            attempt = record.attempt + 1
        else:
            assert not isinstance(answer, str)
            return answer
        conn.execute(_RESTART, {**params, "token": token, "attempt": attempt})
        return Claimed(
            params["scope"],
            params["key"],
            token,
            attempt,
            params["lease"],
            params["retention"],
        )

    def complete(self, claim: Claimed, outcome: str) -> None:
        def body(conn: Connection) -> int:
            return conn.execute(
                _COMPLETE,
                (outcome, claim.retention_s, claim.scope, claim.key, claim.token),
            ).rowcount

        if self._run(body, after_effect=True) != 1:
            raise ClaimLost(lost_message(claim, self.url))

    def release(self, claim: Claimed) -> None:
        self._run(
            lambda conn: conn.execute(_RELEASE, (claim.scope, claim.key, claim.token))
        )

    def renew(self, claim: Claimed) -> bool:
        params = {
            "scope": claim.scope,
            "key": claim.key,
            "token": claim.token,
            "lease": claim.lease_s,
            "retention": claim.retention_s,
        }
        return self._run(lambda conn: conn.execute(_RENEW, params).rowcount) == 1

    def use_token(self, token_id: str, expires_at: float) -> bool:
        def body(conn: Connection) -> int:
            return conn.execute(_USE_TOKEN, (token_id, expires_at)).rowcount

        return self._run(body) == 1

    def purge_expired(self, limit: int = 1000) -> int:
        def body(conn: Connection) -> int:
            purged = conn.execute(_PURGE_RECORDS, (limit,)).rowcount
            return purged + conn.execute(_PURGE_TOKENS, (limit,)).rowcount

        return self._run(body)

    def close(self) -> None:
        self._forget_after_fork()
        with self._lock:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()
