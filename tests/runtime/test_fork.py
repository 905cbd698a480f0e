"""Workers forked from a process that already made calls, as a pre-fork server (gunicorn) makes
them: the worker pool of plain `def` implementations must work in the child, and a claim whose
implementation never starts must not hold its key for ever.

The tests fork this test process itself (`os.fork`): the child makes real calls of the
example's generated send_order on a real store, reports through a pipe and leaves with
`os._exit`, so it never returns into pytest. toolgen itself never forks.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from store_workers import effects_of, record
from toolgen_runtime.store import open_store
from toolgen_runtime.threads import run_in_worker
from write_tool_workers import send_order_tool, tool_context

from generated.inventory import send_order

ORDER = {"order_ref": "R-9", "sku": "SKU-11", "quantity": 20}
CHILD_DEADLINE_S = 20.0


def sender(effects: Path, who: str) -> Callable[[Any, Any], Any]:
    def send(args: Any, context: Any) -> Any:  # a plain def: it runs in the worker pool
        record(str(effects), f"{who} sent {args.order_ref}")
        return send_order.SendOrderResult(
            purchase_order_number=f"PO-{who}",
            sku=args.sku,
            quantity_units=args.quantity,
        )

    return send


def call(tool: Any, args: dict[str, Any]) -> Any:
    raw = json.dumps(args)
    return json.loads(
        asyncio.run(tool.on_invoke_tool(tool_context("send_order", raw), raw))
    )


def fork(child: Callable[[int], None]) -> tuple[int, int]:
    """Fork; the child runs `child(write_end)` and leaves. Returns (pid, read end)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        code = 1
        try:
            os.close(read)
            child(write)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def reap(pid: int, deadline_s: float = CHILD_DEADLINE_S) -> int | None:
    """The child's exit status, or None after killing it when it outlives the deadline."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def test_a_forked_worker_runs_its_calls(store_url: str, tmp_path: Path) -> None:
    """Before, the child's call never ran: the pool it inherited had no threads, and the
    child's event loop renewed the claim's lease, so every other worker was told
    operation_in_progress for that key until the child was killed."""
    effects = tmp_path / "effects"
    tool = send_order_tool(store_url, sender(effects, "worker"))
    # the parent (the pre-fork master) makes a call: its pool now has a thread
    assert call(tool, {**ORDER, "order_ref": "R-0"})["ok"] is True

    def child(write: int) -> None:
        answer = asyncio.run(asyncio.wait_for(asyncio.to_thread(call, tool, ORDER), 10))
        os.write(write, json.dumps(answer).encode())

    pid, read = fork(child)
    status = reap(pid)
    answer = read_all(read)
    assert status == 0, "the forked worker's call did not finish"
    assert json.loads(answer) == {
        "ok": True,
        "purchase_order_number": "PO-worker",
        "sku": "SKU-11",
        "quantity_units": 20,
    }
    # another worker with the same call gets the child's outcome, not a claim held for ever
    assert call(tool, ORDER) == {**json.loads(answer), "duplicate": True}
    assert effects_of(effects) == ["worker sent R-0", "worker sent R-9"]


def test_a_claim_whose_implementation_never_starts_runs_out(
    store_url: str, tmp_path: Path
) -> None:
    """A worker whose one thread is busy claims a call it cannot start. Its event loop is
    alive, but that keeps no lease: the claim runs out, another worker takes the call over,
    and when the first worker's thread comes free it does not run the effect again. Before,
    the live loop renewed the lease for as long as the call waited, so every duplicate was
    told operation_in_progress."""
    effects = tmp_path / "effects"
    with open_store(store_url) as store:
        store.purge_expired(limit=1)  # the tables exist before anyone claims
    ready_read, ready_write = os.pipe()
    go_read, go_write = os.pipe()

    def child(write: int) -> None:
        os.environ["TOOLGEN_SYNC_THREADS"] = "1"  # the child's own pool: one thread
        tool = send_order_tool(store_url, sender(effects, "stuck"), lease_s=0.6)

        def busy() -> None:  # holds the only thread until the test says go
            os.write(ready_write, b"r")
            os.read(go_read, 1)

        async def both() -> Any:
            held = asyncio.ensure_future(run_in_worker(busy))
            answer = await asyncio.to_thread(call, tool, ORDER)
            await held
            return answer

        os.write(write, json.dumps(asyncio.run(both())).encode())

    pid, read = fork(child)
    try:
        assert os.read(ready_read, 1) == b"r"
        # wait until the child's call has claimed the key
        deadline = time.monotonic() + 10
        while not claimed(store_url) and time.monotonic() < deadline:
            time.sleep(0.02)
        taker = send_order_tool(store_url, sender(effects, "taker"), lease_s=0.6)
        started = time.monotonic()
        took_over = call(taker, ORDER)
        waited = time.monotonic() - started
    finally:
        os.write(go_write, b"g")
    status = reap(pid)
    stuck = json.loads(read_all(read))
    assert took_over["ok"] is True, took_over
    assert took_over["purchase_order_number"] == "PO-taker"
    assert waited < 5, f"took {waited:.1f} s to take over a lease of 0.6 s"
    assert status == 0
    # the first worker, its thread free at last, did not run the effect a second time
    assert stuck["error"] == "operation_in_progress", stuck
    assert effects_of(effects) == ["taker sent R-9"]
    assert call(taker, ORDER) == {**took_over, "duplicate": True}


def claimed(store_url: str) -> bool:
    from test_store import count_records

    return count_records(store_url) > 0


def test_a_started_implementation_keeps_its_claim_past_the_lease(
    store_url: str, tmp_path: Path
) -> None:
    """Once a plain def has started, its claim is renewed as an async one's is: a duplicate
    waits for its outcome instead of taking it over."""
    effects = tmp_path / "effects"

    started = threading.Event()

    def slow(args: Any, context: Any) -> Any:
        started.set()
        time.sleep(2.0)  # over three leases
        return sender(effects, "slow")(args, context)

    tool = send_order_tool(store_url, slow, lease_s=0.6)

    async def both() -> list[Any]:
        first = asyncio.ensure_future(asyncio.to_thread(call, tool, ORDER))
        # the duplicate comes once the first call holds the claim and runs (a fixed pause
        # let it come first on a busy machine)
        assert await asyncio.to_thread(started.wait, 30)
        second = await asyncio.to_thread(call, tool, ORDER)
        return [await first, second]

    first, second = asyncio.run(both())
    assert first["ok"] is True and second == {**first, "duplicate": True}
    assert effects_of(effects) == ["slow sent R-9"]
