"""Plain `def` implementations run in worker threads (toolgen_runtime.threads)."""

from __future__ import annotations

import asyncio

import pytest
from toolgen_runtime.threads import run_in_worker


def _first_order(number: str) -> str:
    orders = ["ORD-1001"]
    return next(o for o in orders if o == number)  # StopIteration for an unknown one


def test_a_stop_iteration_stops_the_call_instead_of_hanging_it() -> None:
    # asyncio cannot set a StopIteration on a future: the call never finished, and an
    # idempotent write kept its claim (every retry: operation_in_progress) until a restart
    async def call() -> str:
        return await asyncio.wait_for(run_in_worker(_first_order, "ORD-9"), timeout=10)

    with pytest.raises(
        RuntimeError, match="_first_order raised StopIteration"
    ) as raised:
        asyncio.run(call())
    assert isinstance(raised.value.__cause__, StopIteration)
    assert asyncio.run(run_in_worker(_first_order, "ORD-1001")) == "ORD-1001"
