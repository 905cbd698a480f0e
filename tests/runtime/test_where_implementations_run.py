"""A plain `def` implementation runs in a worker thread, an `async def` one on the event loop.

No timings here (they are measured in bench/per_call.py): concurrency is shown by barriers
that only open when every call is running at the same time, and a blocked loop by a sync
implementation that waits for the loop to do something.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from agents.tool_context import ToolContext
from toolgen_runtime import ToolgenError
from toolgen_runtime import threads as threads_module

from generated.inventory import InventoryContext, create_reorder
from generated.inventory.create_reorder import (
    CreateReorderArgs,
    CreateReorderContext,
    CreateReorderError,
    CreateReorderResult,
)

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
RAW = '{"sku": "SKU-11", "quantity": 5, "urgency": null}'
RESULT = CreateReorderResult(
    proposal_id="RP-1", sku="SKU-11", quantity_units=5, urgency="standard", created=True
)
WAIT_S = 10.0  # only reached when something is wrong: a barrier that never fills

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")


def tool_context() -> ToolContext[Any]:
    return ToolContext(
        context=CONTEXT,
        tool_name="create_reorder",
        tool_call_id="c1",
        tool_arguments=RAW,
    )


async def call(implementation: Callable[..., Any]) -> dict[str, Any]:
    tool = create_reorder.build_tool(implementation)
    return dict(json.loads(await tool.on_invoke_tool(tool_context(), RAW)))


def test_a_sync_implementation_runs_in_a_worker_thread() -> None:
    seen: list[str] = []

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        seen.append(threading.current_thread().name)
        return RESULT

    assert asyncio.run(call(implementation))["ok"] is True
    assert len(seen) == 1
    assert seen[0].startswith("toolgen-sync")


def test_an_async_implementation_runs_on_the_loop() -> None:
    loop_thread: list[int] = []
    seen: list[int] = []

    async def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        seen.append(threading.get_ident())
        return RESULT

    async def main() -> dict[str, Any]:
        loop_thread.append(threading.get_ident())
        return await call(implementation)

    assert asyncio.run(main())["ok"] is True
    assert seen == loop_thread


def test_twenty_sync_calls_run_at_the_same_time() -> None:
    together = threading.Barrier(20, timeout=WAIT_S)

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        together.wait()  # raises BrokenBarrierError unless all 20 are running
        return RESULT

    async def main() -> list[dict[str, Any]]:
        return await asyncio.gather(*(call(implementation) for _ in range(20)))

    assert [out["ok"] for out in asyncio.run(main())] == [True] * 20


def test_a_waiting_sync_implementation_leaves_the_loop_free() -> None:
    released = threading.Event()

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        # on the loop this would wait forever: only the loop can set the event
        if not released.wait(WAIT_S):
            raise AssertionError("the loop was blocked")
        return RESULT

    async def release_soon() -> None:
        await asyncio.sleep(0.01)
        released.set()

    async def main() -> dict[str, Any]:
        outcome, _ = await asyncio.gather(call(implementation), release_soon())
        return outcome

    assert asyncio.run(main())["ok"] is True


def test_the_worker_sees_the_callers_context_variables() -> None:
    seen: list[str] = []

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        seen.append(request_id.get("unset"))
        return RESULT

    async def main() -> None:
        request_id.set("req-7")
        await call(implementation)

    asyncio.run(main())
    assert seen == ["req-7"]


def test_errors_raised_in_the_worker_reach_the_caller() -> None:
    def declared(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        raise CreateReorderError("unknown_sku", known_skus=["SKU-12"])

    def broken(args: CreateReorderArgs, context: CreateReorderContext) -> Any:
        raise RuntimeError("database is down")

    assert asyncio.run(call(declared))["error"] == "unknown_sku"
    with pytest.raises(RuntimeError, match="database is down"):
        asyncio.run(call(broken))


class AsyncCallable:
    def __init__(self) -> None:
        self.threads: list[int] = []

    async def __call__(
        self, args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        self.threads.append(threading.get_ident())
        return RESULT


def test_an_object_with_an_async_call_runs_on_the_loop() -> None:
    implementation = AsyncCallable()

    async def main() -> tuple[int, dict[str, Any]]:
        return threading.get_ident(), await call(implementation)

    loop_thread, out = asyncio.run(main())
    assert out["ok"] is True
    assert implementation.threads == [loop_thread]


def test_a_plain_callable_that_returns_a_coroutine_is_awaited() -> None:
    async def later(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        return RESULT

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> Awaitable[CreateReorderResult]:
        return later(args, context)

    assert asyncio.run(call(implementation))["ok"] is True


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bad_thread_count_stops_the_first_sync_call(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(threads_module, "_pool", None)
    monkeypatch.setenv(threads_module.SYNC_THREADS_ENV, value)

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        return RESULT

    with pytest.raises(ToolgenError, match=threads_module.SYNC_THREADS_ENV):
        asyncio.run(call(implementation))


def test_the_thread_count_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(threads_module, "_pool", None)
    monkeypatch.setenv(threads_module.SYNC_THREADS_ENV, "2")
    together = threading.Barrier(3, timeout=0.5)
    outcomes: list[str] = []

    def implementation(
        args: CreateReorderArgs, context: CreateReorderContext
    ) -> CreateReorderResult:
        try:
            together.wait()
            outcomes.append("three at once")
        except threading.BrokenBarrierError:
            outcomes.append("at most two at once")
        return RESULT

    async def main() -> None:
        await asyncio.gather(*(call(implementation) for _ in range(3)))

    try:
        asyncio.run(main())
    finally:
        pool = threads_module._pool
        if pool is not None:
            pool.shutdown()
    assert "three at once" not in outcomes
