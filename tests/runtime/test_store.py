"""The idempotency store on real databases: an operation runs once per key, whoever calls.

Every test that takes `store` or `store_url` runs on SQLite (a file in a temporary folder) and
on PostgreSQL (a schema of its own on the server TOOLGEN_TEST_POSTGRES_URL names; skipped with
instructions when it is not set). Concurrency is real: threads sharing one store object, and
processes that each open the store themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from agents.exceptions import AgentsException
from postgres_server import postgres_server_url
from store_workers import (
    CONTEXT,
    SCOPE,
    call_once,
    effects_of,
    hang_in_execute,
    hold_write_lock,
    record,
    run_together,
)
from toolgen_runtime.store import (
    IDEMPOTENCY_CONFLICT,
    OPERATION_IN_PROGRESS,
    Claimed,
    ClaimLost,
    Completed,
    Conflict,
    InProgress,
    Once,
    Outcome,
    Store,
    StoreUnavailable,
    fingerprint,
    idempotency_key,
    open_store,
    run_once,
)
from toolgen_runtime.store.base import PURGE_EVERY

SERVER_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "postgres-server.sh"
ARGS = {"sku": "SKU-11", "quantity": 5}
KEY = idempotency_key(SCOPE, {"sku": "SKU-11"}, {"run_id": "run-1"})
PRINT = fingerprint(ARGS)
SENT = '{"ok":true,"order_number":"ORD-1"}'


async def never(claim: Claimed) -> str:
    raise AssertionError("the operation must not be executed")


class Effects:
    """Executions, counted in this process."""

    def __init__(self, text: str = SENT, *, delay_s: float = 0.0) -> None:
        self.claims: list[Claimed] = []
        self.text = text
        self.delay_s = delay_s
        # set once an execution holds the claim: a duplicate started after it is certainly
        # second (a fixed sleep was not, on a busy machine, where the first claim came late)
        self.started = asyncio.Event()

    async def __call__(self, claim: Claimed) -> str:
        self.claims.append(claim)
        self.started.set()
        await asyncio.sleep(self.delay_s)
        return self.text


def call(
    store: Store,
    execute: Callable[[Claimed], Awaitable[str | Outcome]],
    *,
    key: str = KEY,
    print_: str = PRINT,
    **options: float,
) -> Once:
    return asyncio.run(
        run_once(
            store,
            scope=SCOPE,
            key=key,
            fingerprint=print_,
            execute=execute,
            **options,  # type: ignore[arg-type]
        )
    )


def error_of(once: Once) -> str:
    envelope = json.loads(once.text)
    assert envelope["ok"] is False, envelope
    return str(envelope["error"])


def count_records(url: str) -> int:
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///") :]) as conn:
            return int(
                conn.execute("SELECT count(*) FROM toolgen_idempotency").fetchone()[0]
            )
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM toolgen_idempotency").fetchone()
        assert row is not None
        return int(row[0])


# --- the protocol -------------------------------------------------------------------------


def test_the_first_call_executes_and_a_repeat_gets_its_outcome(store: Store) -> None:
    effects = Effects()
    first = call(store, effects)
    again = call(store, effects)
    assert first == Once(SENT, duplicate=False)
    assert again == Once(SENT, duplicate=True)
    assert len(effects.claims) == 1 and effects.claims[0].attempt == 1
    assert json.loads(again.model_text) == {
        "ok": True,
        "duplicate": True,
        "order_number": "ORD-1",
    }
    assert first.model_text == SENT


def test_fifty_concurrent_calls_from_threads_execute_once(store: Store) -> None:
    effects = Effects(delay_s=0.2)
    barrier = threading.Barrier(50)
    answers: list[Once] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait()
        once = call(store, effects, wait_s=60)
        with lock:
            answers.append(once)

    threads = [threading.Thread(target=worker) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 50
    assert len(effects.claims) == 1
    assert {once.text for once in answers} == {SENT}
    assert sorted(once.duplicate for once in answers) == [False] + [True] * 49


@pytest.mark.parametrize("start", ["warm", "cold"])
def test_fifty_concurrent_calls_from_processes_execute_once(
    store_url: str, tmp_path: Path, start: str
) -> None:
    effects = tmp_path / "effects.log"
    answers = run_together(
        call_once,
        [(store_url, KEY, PRINT, str(effects), 0.3, 30.0, start == "cold")] * 50,
    )
    assert len(answers) == 50
    lines = effects_of(effects)
    assert len([line for line in lines if line.startswith("start")]) == 1, lines
    assert len({text for text, _ in answers}) == 1
    assert sorted(duplicate for _, duplicate in answers) == [False] + [True] * 49
    executed_by = json.loads(answers[0][0])["executed_by"]
    assert lines == [f"start {executed_by} attempt=1", f"done {executed_by}"]


def test_same_key_with_other_arguments_is_a_conflict_not_a_replay(
    store: Store,
) -> None:
    call(store, Effects())
    other = call(store, never, print_=fingerprint({**ARGS, "quantity": 50}))
    assert other.duplicate is False
    envelope = json.loads(other.text)
    assert envelope["error"] == IDEMPOTENCY_CONFLICT
    assert envelope["retryable"] is False
    assert "other arguments" in envelope["how_to_fix"]


def test_a_conflict_is_found_while_the_first_call_still_runs(store: Store) -> None:
    claim = store.claim(SCOPE, KEY, PRINT, lease_s=30, retention_s=60)
    assert isinstance(claim, Claimed)
    assert store.claim(SCOPE, KEY, "other", lease_s=30, retention_s=60) == Conflict()


def test_the_conflict_fix_names_the_key_fields(store: Store) -> None:
    call(store, Effects())
    other = asyncio.run(
        run_once(
            store,
            scope=SCOPE,
            key=KEY,
            fingerprint="other",
            execute=never,
            key_fields=["sku"],
        )
    )
    assert "the same sku and other arguments" in json.loads(other.text)["how_to_fix"]


def test_a_duplicate_waits_for_the_running_call_and_returns_its_outcome(
    store: Store,
) -> None:
    effects = Effects(delay_s=0.5)

    async def both() -> list[Once]:
        first = asyncio.create_task(
            run_once(store, scope=SCOPE, key=KEY, fingerprint=PRINT, execute=effects)
        )
        await asyncio.wait_for(effects.started.wait(), 30)
        second = await run_once(
            store, scope=SCOPE, key=KEY, fingerprint=PRINT, execute=never, wait_s=10
        )
        return [await first, second]

    first, second = asyncio.run(both())
    assert first == Once(SENT, False) and second == Once(SENT, True)


def test_a_duplicate_that_waits_too_long_is_told_it_is_in_progress(
    store: Store,
) -> None:
    claim = store.claim(SCOPE, KEY, PRINT, lease_s=30, retention_s=60)
    assert isinstance(claim, Claimed)
    started = time.monotonic()
    busy = call(store, never, wait_s=0.3)
    assert 0.3 <= time.monotonic() - started < 5
    assert error_of(busy) == OPERATION_IN_PROGRESS
    assert json.loads(busy.text)["retryable"] is True


def test_a_declared_error_is_recorded_and_a_retryable_one_is_not(
    store: Store,
) -> None:
    unknown = '{"ok":false,"error":"unknown_sku","how_to_fix":"...","retryable":false}'
    first = Effects(unknown)
    assert call(store, first) == Once(unknown, False)
    assert call(store, first) == Once(unknown, True)
    assert len(first.claims) == 1

    busy = '{"ok":false,"error":"supplier_busy","how_to_fix":"...","retryable":true}'
    retried: list[Claimed] = []

    async def supplier_busy(claim: Claimed) -> Outcome:
        retried.append(claim)
        return Outcome(busy, record=False)

    other_key = idempotency_key(SCOPE, {"sku": "SKU-12"}, {"run_id": "run-1"})
    assert call(store, supplier_busy, key=other_key) == Once(busy, False)
    assert call(store, supplier_busy, key=other_key) == Once(busy, False)
    assert [claim.attempt for claim in retried] == [1, 1]
    assert call(store, Effects(), key=other_key) == Once(SENT, False)


def test_an_infrastructure_failure_releases_the_claim_and_propagates(
    store: Store,
) -> None:
    async def database_down(claim: Claimed) -> str:
        raise ConnectionError("the order service is down")

    with pytest.raises(ConnectionError, match="order service"):
        call(store, database_down)
    effects = Effects()
    assert call(store, effects) == Once(SENT, False)
    assert effects.claims[0].attempt == 1


def test_a_cancelled_call_keeps_its_claim_until_the_lease_runs_out(
    store: Store,
) -> None:
    async def scenario() -> Once:
        started = asyncio.Event()

        async def slow(claim: Claimed) -> str:
            started.set()
            await asyncio.sleep(30)
            return SENT

        task = asyncio.create_task(
            run_once(store, scope=SCOPE, key=KEY, fingerprint=PRINT, execute=slow)
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await run_once(
            store, scope=SCOPE, key=KEY, fingerprint=PRINT, execute=never, wait_s=0
        )

    assert error_of(asyncio.run(scenario())) == OPERATION_IN_PROGRESS


# --- leases -------------------------------------------------------------------------------


def test_a_killed_worker_is_taken_over_after_its_lease(
    store_url: str, store: Store, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.log"
    worker = CONTEXT.Process(
        target=hang_in_execute, args=(store_url, KEY, PRINT, str(effects), 2.0)
    )
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not effects_of(effects) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert effects_of(effects) == [f"start {worker.pid} attempt=1"]
        # alive, it renews its lease: a duplicate is told to come back
        assert error_of(call(store, never, wait_s=0)) == OPERATION_IN_PROGRESS
    finally:
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
    killed = time.monotonic()

    async def take_over(claim: Claimed) -> str:
        record(str(effects), f"start taker attempt={claim.attempt}")
        return '{"ok":true,"executed_by":"taker"}'

    once = call(store, take_over, lease_s=2.0, wait_s=30)
    waited = time.monotonic() - killed
    assert once == Once('{"ok":true,"executed_by":"taker"}', duplicate=False)
    assert effects_of(effects) == [
        f"start {worker.pid} attempt=1",
        "start taker attempt=2",
    ]
    assert waited < 10, f"took over {waited:.1f} s after the kill, lease 2 s"
    assert call(store, never) == Once(once.text, duplicate=True)


def test_a_live_worker_keeps_its_claim_past_the_lease(store: Store) -> None:
    # lease 0.6 s, execution 2 s: only the renewals (every 0.2 s) keep the duplicate
    # waiting; a renewal may come up to 0.4 s late, as on a busy machine
    effects = Effects(delay_s=2.0)

    async def both() -> list[Once]:
        first = asyncio.create_task(
            run_once(
                store,
                scope=SCOPE,
                key=KEY,
                fingerprint=PRINT,
                execute=effects,
                lease_s=0.6,
            )
        )
        await asyncio.wait_for(effects.started.wait(), 30)
        second = await run_once(
            store,
            scope=SCOPE,
            key=KEY,
            fingerprint=PRINT,
            execute=effects,
            lease_s=0.6,
            wait_s=20,
        )
        return [await first, second]

    first, second = asyncio.run(both())
    assert len(effects.claims) == 1
    assert first == Once(SENT, False) and second == Once(SENT, True)


def test_a_late_first_worker_cannot_overwrite_the_takers_outcome(
    store: Store,
) -> None:
    # the duplicate comes within the lease of 0.5 s (a busy machine may delay it), the
    # taker after it
    first = store.claim(SCOPE, KEY, PRINT, lease_s=0.5, retention_s=60)
    assert isinstance(first, Claimed)
    assert isinstance(
        store.claim(SCOPE, KEY, PRINT, lease_s=0.5, retention_s=60), InProgress
    )
    time.sleep(0.6)
    taker = store.claim(SCOPE, KEY, PRINT, lease_s=30, retention_s=60)
    assert isinstance(taker, Claimed)
    assert taker.attempt == 2 and taker.taken_over and taker.token != first.token
    store.complete(taker, '{"ok":true,"by":"taker"}')
    with pytest.raises(ClaimLost, match="may have run twice"):
        store.complete(first, '{"ok":true,"by":"first"}')
    assert store.renew(first) is False
    store.release(first)
    assert store.claim(SCOPE, KEY, PRINT, lease_s=30, retention_s=60) == Completed(
        '{"ok":true,"by":"taker"}'
    )


# --- retention ----------------------------------------------------------------------------


def test_an_outcome_is_forgotten_after_its_retention(store: Store) -> None:
    effects = Effects()
    assert call(store, effects, retention_s=0.5) == Once(SENT, False)
    assert call(store, effects, retention_s=0.5) == Once(SENT, True)
    time.sleep(0.6)
    # forgotten: the same key now runs anew, even with other arguments
    assert call(store, effects, print_="other", retention_s=0.5) == Once(SENT, False)
    assert [claim.attempt for claim in effects.claims] == [1, 1]


def test_expired_records_are_purged_explicitly_and_by_claims(store_url: str) -> None:
    store = open_store(store_url)
    # fewer claims than PURGE_EVERY: none of them purges
    for number in range(90):
        claim = store.claim(SCOPE, f"old-{number}", PRINT, lease_s=30, retention_s=0.2)
        assert isinstance(claim, Claimed)
        store.complete(claim, SENT)
    time.sleep(0.3)
    assert count_records(store_url) == 90
    assert store.purge_expired(limit=50) == 50
    assert count_records(store_url) == 40
    store.close()

    # a fresh process's store: its claims purge as they go
    fresh = open_store(store_url)
    for number in range(PURGE_EVERY):
        assert isinstance(
            fresh.claim(SCOPE, f"new-{number}", PRINT, lease_s=30, retention_s=60),
            Claimed,
        )
    assert count_records(store_url) == PURGE_EVERY
    assert fresh.purge_expired() == 0
    fresh.close()


# --- the store is down ----------------------------------------------------------------------


def test_store_failures_stop_the_run() -> None:
    assert issubclass(StoreUnavailable, AgentsException)


def test_a_sqlite_file_that_cannot_be_created_is_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    not_a_folder = tmp_path / "not-a-folder"
    not_a_folder.write_text("a file where the store's folder should be")
    store = open_store(f"sqlite:///{not_a_folder}/state.db")
    with pytest.raises(StoreUnavailable, match="Nothing was executed"):
        call(store, never)


def test_a_store_that_fails_recording_the_outcome_says_the_effect_ran(
    tmp_path: Path,
) -> None:
    # it said "Nothing was executed" of an order already sent
    path = tmp_path / "state.db"
    store = open_store(f"sqlite:///{path}")
    effects = Effects()

    async def send_then_lose_the_store(claim: Claimed) -> str:
        with sqlite3.connect(path) as other:  # the disk fails, the file is replaced...
            other.execute("DROP TABLE toolgen_idempotency")
        return await effects(claim)

    with pytest.raises(
        StoreUnavailable, match="The effect ran, but its outcome was not"
    ):
        call(store, send_then_lose_the_store)
    assert len(effects.claims) == 1
    store.close()


@pytest.mark.parametrize(
    "row",
    [
        ("f", "done", 1, None, "not a time", '{"ok": true}'),  # a time as text
        ("f", "done", 1, None, 9e18, None),  # done, with no outcome
    ],
)
def test_a_record_toolgen_did_not_write_is_an_infrastructure_error(
    tmp_path: Path, row: tuple[object, ...]
) -> None:
    # SQLite keeps any type in any column: a table made by hand or by another program
    # raised a bare TypeError or AssertionError
    path = tmp_path / "state.db"
    store = open_store(f"sqlite:///{path}")
    call(store, Effects())  # toolgen's tables, and one record to overwrite
    with sqlite3.connect(path) as other:
        other.execute(
            "UPDATE toolgen_idempotency SET fingerprint = ?, state = ?, attempt = ?,"
            " lease_until = ?, expires_at = ?, outcome = ?",
            row,
        )
    with pytest.raises(
        StoreUnavailable, match=r"is not toolgen's\. Nothing was executed"
    ):
        call(store, never)
    store.close()


def test_a_file_that_is_not_a_database_is_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    garbage = tmp_path / "state.db"
    garbage.write_bytes(b"this is not a SQLite database\n" * 200)
    with pytest.raises(StoreUnavailable, match="not a database"):
        call(open_store(f"sqlite:///{garbage}"), never)


def test_a_sqlite_write_lock_held_too_long_is_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    store = open_store(f"sqlite:///{path}?timeout=0.3")
    assert call(store, Effects()) == Once(SENT, False)
    locked, release = CONTEXT.Event(), CONTEXT.Event()
    holder = CONTEXT.Process(target=hold_write_lock, args=(str(path), locked, release))
    holder.start()
    try:
        assert locked.wait(60)
        # the recorded outcome can still be read; a new operation cannot be claimed
        assert call(store, never) == Once(SENT, True)
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="database is locked"):
            call(store, never, key="another-operation")
        assert time.monotonic() - started < 5
    finally:
        release.set()
        holder.join(60)
    assert call(store, Effects(), key="another-operation") == Once(SENT, False)


def test_a_postgres_server_that_is_not_there_is_an_infrastructure_error() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # nothing listens on the port once the probe is closed
    store = open_store(
        f"postgresql://toolgen:secret-password@127.0.0.1:{port}/toolgen?connect_timeout=2"
    )
    with pytest.raises(StoreUnavailable) as raised:
        call(store, never)
    assert "secret-password" not in str(raised.value)
    assert "toolgen:***@127.0.0.1" in str(raised.value)


def test_a_postgres_server_stopped_mid_run_is_an_infrastructure_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    postgres_server_url()  # skips, saying how to run it, where PostgreSQL is not set up
    # a server of its own, so stopping it disturbs no other test; in /tmp (not $TMPDIR,
    # which may be inside a home folder), where the unprivileged server user can reach it
    folder = tempfile.mkdtemp(prefix="toolgen-pg-stopped-", dir="/tmp")

    def server(command: str) -> str:
        done = subprocess.run(
            ["bash", str(SERVER_SCRIPT), command, folder],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    try:
        url = server("start").strip().split("=", 1)[1]
        store = open_store(url)
        assert call(store, Effects()) == Once(SENT, False)
        server("stop")
        with pytest.raises(StoreUnavailable, match="Nothing was executed"):
            call(store, never, key="another-operation")
        # the server is back (on the same port): the store connects again
        assert server("start").strip().split("=", 1)[1] == url
        assert call(store, never) == Once(SENT, True)
        # restarted between two calls: the idle connection is found dead and replaced (any
        # idle time counts here, instead of 5 s), so the call does not fail
        import toolgen_runtime.store.postgres as postgres_store

        monkeypatch.setattr(postgres_store, "IDLE_CHECK_S", 0.0)
        server("stop")
        assert server("start").strip().split("=", 1)[1] == url
        assert call(store, never) == Once(SENT, True)
        store.close()
    finally:
        server("stop")
        shutil.rmtree(folder, ignore_errors=True)
