"""What the worker processes of the store and confirmation tests run.

The processes are real: forked from a forkserver that imported the runtime once, so fifty of
them start in a second or two, each opening the store itself. Every
execution of an effect appends a line to a file (O_APPEND), which is how the tests count
executions across processes.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from toolgen_runtime.confirm import ConfirmationGate
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import Claimed, open_store, run_once

CONTEXT = multiprocessing.get_context("forkserver")
# the forkserver does not get the tests' sys.path (Python 3.11), so it preloads what is
# installed: the runtime and the SDK it imports, which are the slow part; a child then
# imports this small module itself
CONTEXT.set_forkserver_preload(
    ["toolgen_runtime.store", "toolgen_runtime.confirm", "psycopg"]
)

SCOPE = "send_order"


def record(effects: str, line: str) -> None:
    with open(effects, "a", encoding="utf-8") as file:
        file.write(line + "\n")


def effects_of(effects: str | Path) -> list[str]:
    path = Path(effects)
    if not path.exists():
        return []
    return path.read_text(encoding="utf-8").splitlines()


def call_once(
    url: str,
    key: str,
    fingerprint: str,
    effects: str,
    execute_s: float,
    lease_s: float,
    cold: bool,
    start: Any,
    results: Any,
) -> None:
    """One agent worker calling the tool. Warm, it has its connection open (and the tables
    made) before the start, so the claims of all workers meet at the same moment; cold, it
    opens the store only after the start, as workers starting together on a new file do."""
    store = open_store(url)
    if not cold:
        store.purge_expired(limit=1)
    start.wait()

    async def execute(claim: Claimed) -> str:
        record(effects, f"start {os.getpid()} attempt={claim.attempt}")
        await asyncio.sleep(execute_s)
        record(effects, f"done {os.getpid()}")
        return json.dumps({"ok": True, "executed_by": os.getpid()})

    once = asyncio.run(
        run_once(
            store,
            scope=SCOPE,
            key=key,
            fingerprint=fingerprint,
            execute=execute,
            lease_s=lease_s,
            wait_s=60.0,
        )
    )
    store.close()
    results.put((once.text, once.duplicate))


def hang_in_execute(
    url: str, key: str, fingerprint: str, effects: str, lease_s: float
) -> None:
    """A worker that claims, starts the effect, and never finishes: the test kills it."""
    store = open_store(url)

    async def execute(claim: Claimed) -> str:
        record(effects, f"start {os.getpid()} attempt={claim.attempt}")
        await asyncio.sleep(3600)
        return json.dumps({"ok": True, "executed_by": os.getpid()})

    asyncio.run(
        run_once(
            store,
            scope=SCOPE,
            key=key,
            fingerprint=fingerprint,
            execute=execute,
            lease_s=lease_s,
        )
    )


def hold_write_lock(path: str, locked: Any, release: Any) -> None:
    """Another process holding the SQLite file's write lock until told to let go."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    locked.set()
    release.wait(60)
    conn.execute("ROLLBACK")
    conn.close()


def redeem(
    url: str,
    secret: bytes,
    token: str,
    args: dict[str, object],
    identity: dict[str, object],
    effects: str,
    start: Any,
    results: Any,
) -> None:
    """One worker of the confirm tool: the effect runs only if the token is accepted."""
    gate = ConfirmationGate(
        tool="send_order",
        prepare_tool="prepare_order",
        signer=Signer([secret], "confirm"),
        store=open_store(url),
    )
    start.wait()
    rejection = gate.redeem_sync(token, args, identity)
    if rejection is None:
        record(effects, f"sent {os.getpid()}")
    results.put(None if rejection is None else rejection.code)


def run_together(
    target: Callable[..., None], args: Sequence[tuple[Any, ...]], timeout_s: float = 120
) -> list[Any]:
    """Start one process per argument tuple, release them at once, and collect what each
    put on the results queue. Each tuple is completed with (start event, results queue)."""
    start = CONTEXT.Event()
    results = CONTEXT.Queue()
    processes: list[BaseProcess] = [
        CONTEXT.Process(target=target, args=(*each, start, results)) for each in args
    ]
    try:
        for process in processes:
            process.start()
        start.set()
        collected = []
        deadline = time.monotonic() + timeout_s
        for _ in processes:
            collected.append(results.get(timeout=max(0.1, deadline - time.monotonic())))
        for process in processes:
            process.join(timeout=max(0.1, deadline - time.monotonic()))
            assert process.exitcode == 0, (
                f"worker {process.pid} exited {process.exitcode}"
            )
        return collected
    finally:
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join()
