"""What idempotency costs: a write tool with and without `run_once`, on SQLite and PostgreSQL.

Run: .venv/bin/python bench/idempotency.py [--calls N] [--workers W]
                                [--worker-calls K] [--postgres URL]

The tool is the example catalogue's generated `send_order` (idempotent by key: order_ref and
the run id) with its real implementation on its own SQLite database: a validated call that
writes one purchase order row and commits. The baseline is the same generated module in an
Invoker without the key. Every call has a new run id, so every call is a new operation.

- Per call: the median time of one call, the plain tool against the same call inside
  `run_once` (claim, execute, record), and a repeated call (the record read back, the tool not
  run), each as a ratio to the plain call. The variants alternate call by call, N times each,
  so a machine that slows down slows all of them.
- Throughput: W worker processes (default 8), each claiming and recording K distinct keys
  one at a time (run_once around an execute that does nothing), as keys per second from the
  first start to the last finish, the median of 3 runs. The baseline is the same workers
  making one committed single-row INSERT per key on the same backend, with the same
  durability: what any write costs. (With the tool itself in the workers, 8 processes
  contending for the tool's own SQLite file would be measured instead of the store.)

PostgreSQL is measured when a URL is given (`--postgres`, or TOOLGEN_TEST_POSTGRES_URL as
`scripts/postgres-server.sh start` prints it); otherwise that part is skipped with a message.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.tool_context import ToolContext  # noqa: E402
from toolgen_runtime.store import (  # noqa: E402
    Claimed,
    Store,
    open_store,
    run_once,
)

TOOL_NAME = "send_order"
ARGS = {"order_ref": "R-1", "sku": "SKU-11", "quantity": 20}
RAW = json.dumps(ARGS)

Call = Callable[[str], Awaitable[str]]


def make_calls(db_path: str, store: Store | None) -> tuple[Call, Call]:
    """(plain call, idempotent call) of the generated send_order, each taking a run id.

    The idempotent one is the generated tool as built (`idempotency: {key: [order_ref],
    context: [run_id]}`, its Invoker calling run_once); the plain one is the same generated
    module's arguments, context and real implementation in an Invoker without the key."""
    # importing a write tool's module builds its TOOL, which needs a store at start-up
    os.environ.setdefault("TOOLGEN_STORE_URL", store.url if store else "")
    from toolgen_runtime import Invoker, make_tool

    from generated.inventory import InventoryContext, send_order
    from impl.inventory.db import use_database
    from impl.inventory.send_order import send_order as implementation

    use_database(db_path)
    assert store is not None
    idempotent_tool = send_order.build_tool(store=store)
    plain_invoker: Invoker[Any, Any, Any] = Invoker(
        tool_name=send_order.NAME,
        args_model=send_order.SendOrderArgs,
        result_type=send_order.SendOrderResult,
        errors=send_order.ERRORS,
        load_implementation=lambda: implementation,
        catalogue_context=InventoryContext,
        build_context=send_order.tool_context,
        schema=send_order.PARAMETERS,
    )
    plain_tool = make_tool(
        name=send_order.NAME,
        description=send_order.DESCRIPTION,
        parameters=send_order.PARAMETERS,
        invoker=plain_invoker,
    )

    def caller(tool: Any) -> Call:
        async def call(run_id: str) -> str:
            context = InventoryContext(customer_id=1, run_id=run_id)
            ctx = ToolContext(
                context=context,
                tool_name=TOOL_NAME,
                tool_call_id="c",
                tool_arguments=RAW,
            )
            return str(await tool.on_invoke_tool(ctx, RAW))

        return call

    return caller(plain_tool), caller(idempotent_tool)


@dataclass
class PerCall:
    plain_us: float
    idempotent_us: float
    repeat_us: float


async def _timed(call: Call, run_id: str) -> float:
    started = time.perf_counter()
    await call(run_id)
    return time.perf_counter() - started


def per_call(store_url: str, folder: Path, calls: int) -> PerCall:
    store = open_store(store_url)
    plain, idempotent = make_calls(str(folder / "inventory.db"), store)
    times: dict[str, list[float]] = {"plain": [], "idempotent": [], "repeat": []}

    async def measure() -> None:
        await plain("warm-up")
        await idempotent("warm-up")
        # the variants alternate call by call: this machine's disk flushes in bursts, with
        # commits costing 0.5 ms for a while and 4 ms for the next, and each variant must
        # see the same bursts
        for _ in range(calls):
            run_id = f"r-{uuid.uuid4().hex}"
            times["plain"].append(await _timed(plain, run_id + "-plain"))
            times["idempotent"].append(await _timed(idempotent, run_id))
            times["repeat"].append(await _timed(idempotent, run_id))

    asyncio.run(measure())
    store.close()
    return PerCall(
        *(statistics.median(times[k]) * 1e6 for k in ("plain", "idempotent", "repeat"))
    )


class BareWrite:
    """The baseline of the throughput: one committed single-row INSERT per key, on the same
    backend with the same durability (SQLite: WAL, synchronous=FULL, BEGIN IMMEDIATE)."""

    def __init__(self, store_url: str, folder: Path) -> None:
        self.conn: Any
        if store_url.startswith("sqlite:"):
            import sqlite3

            self.conn = sqlite3.connect(
                folder / "bare.db",
                timeout=30,
                isolation_level=None,
                check_same_thread=False,
            )
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.begin, self.insert = "BEGIN IMMEDIATE", "INSERT INTO bare VALUES (?)"
        else:
            import psycopg

            self.conn = psycopg.connect(store_url, autocommit=True)
            self.begin, self.insert = "BEGIN", "INSERT INTO bare VALUES (%s)"
        self.conn.execute("CREATE TABLE IF NOT EXISTS bare (key text PRIMARY KEY)")

    def write(self, key: str) -> None:
        self.conn.execute(self.begin)
        self.conn.execute(self.insert, (key,))
        self.conn.execute("COMMIT")


async def _noop(claim: Claimed) -> str:
    return '{"ok":true}'


def worker(
    mode: str,
    store_url: str,
    folder: str,
    calls: int,
    ready: Any,
    start: Any,
    results: Any,
) -> None:
    tag = uuid.uuid4().hex
    store = open_store(store_url)
    bare = BareWrite(store_url, Path(folder))

    async def once(key: str) -> None:
        if mode == "bare":
            await asyncio.to_thread(bare.write, key)
        else:
            await run_once(
                store, scope=TOOL_NAME, key=key, fingerprint="f", execute=_noop
            )

    async def run() -> tuple[float, float]:
        await once(f"warm-{tag}")
        ready.put(os.getpid())
        start.wait()
        began = time.monotonic()
        for number in range(calls):
            await once(f"{tag}-{number}")
        return began, time.monotonic()

    results.put(asyncio.run(run()))


def _get(queue: Any, processes: list[Any]) -> Any:
    """The next item from a worker; an error as soon as a worker died instead."""
    while True:
        try:
            return queue.get(timeout=0.5)
        except Empty:
            if any(p.exitcode not in (None, 0) for p in processes):
                raise SystemExit("a worker failed (its traceback is above)") from None


def throughput(
    mode: str, store_url: str, folder: Path, workers: int, calls: int
) -> float:
    """Keys per second from `workers` processes, each making `calls` one at a time."""
    context = multiprocessing.get_context("forkserver")
    ready, start, results = context.Queue(), context.Event(), context.Queue()
    processes = [
        context.Process(
            target=worker,
            args=(mode, store_url, str(folder), calls, ready, start, results),
        )
        for _ in range(workers)
    ]
    try:
        for process in processes:
            process.start()
        # every worker has made its warm-up call (and opened its connections) first
        for _ in processes:
            _get(ready, processes)
        start.set()
        spans = [_get(results, processes) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    wall = max(end for _, end in spans) - min(began for began, _ in spans)
    return workers * calls / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--worker-calls", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=3, help="throughput runs")
    parser.add_argument(
        "--postgres", default=os.environ.get("TOOLGEN_TEST_POSTGRES_URL", "")
    )
    options = parser.parse_args()
    multiprocessing.set_forkserver_preload(["toolgen_runtime.store", "agents"])

    with tempfile.TemporaryDirectory(prefix="toolgen-bench-") as tmp:
        backends = {"SQLite": f"sqlite:///{Path(tmp) / 'state' / 'toolgen.db'}"}
        if options.postgres:
            backends["PostgreSQL"] = options.postgres
        else:
            print(
                "PostgreSQL skipped: no server URL. Start one with "
                '`eval "$(scripts/postgres-server.sh start)"` or pass --postgres URL.\n'
            )
        per: dict[str, PerCall] = {}
        rates: dict[str, tuple[float, float]] = {}
        for name, url in backends.items():
            folder = Path(tmp) / name
            folder.mkdir()
            per[name] = per_call(url, folder, options.calls)
            runs: dict[str, list[float]] = {"bare": [], "once": []}
            for _ in range(options.repeats):  # alternating, as the per-call figures do
                for mode, found in runs.items():
                    found.append(
                        throughput(
                            mode, url, folder, options.workers, options.worker_calls
                        )
                    )
            rates[name] = (
                statistics.median(runs["bare"]),
                statistics.median(runs["once"]),
            )

    print(
        f"Per call, median of {options.calls} calls each "
        "(the generated send_order on its SQLite database):\n"
    )
    print("| store | plain call | idempotent call | added | repeated call |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, figures in per.items():
        base = figures.plain_us
        print(
            f"| {name} | {base:,.0f} us | {figures.idempotent_us:,.0f} us "
            f"({figures.idempotent_us / base:.2f}x) "
            f"| {figures.idempotent_us - base:,.0f} us "
            f"| {figures.repeat_us:,.0f} us ({figures.repeat_us / base:.2f}x) |"
        )
    print(
        f"\nThroughput of distinct keys, {options.workers} worker processes, "
        f"{options.worker_calls} keys each, one at a time, median of {options.repeats} "
        "runs (run_once with an execute that does nothing, against one committed "
        "single-row INSERT per key):\n"
    )
    print("| store | bare write, keys/s | run_once, keys/s | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name, (bare_rate, once_rate) in rates.items():
        print(
            f"| {name} | {bare_rate:,.0f} | {once_rate:,.0f} "
            f"| {once_rate / bare_rate:.2f}x |"
        )


if __name__ == "__main__":
    main()
