"""What the worker processes of tests/runtime/test_write_tools.py run: the example catalogue's
generated write tools with their real implementations, each process opening the store and the
inventory database itself (forkserver children, as in store_workers)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from typing import Any

from agents.tool_context import ToolContext
from store_workers import record

SEND_ORDER = {"order_ref": "R-7", "sku": "SKU-11", "quantity": 20}
RAW_SEND_ORDER = json.dumps(SEND_ORDER)
LEASE_S = 2.0


def tool_context(
    tool: str, raw: str, customer_id: int = 1, run_id: str = "run-1"
) -> Any:
    from generated.inventory import InventoryContext

    return ToolContext(
        context=InventoryContext(customer_id=customer_id, run_id=run_id),
        tool_name=tool,
        tool_call_id="call-1",
        tool_arguments=raw,
    )


def send_order_tool(
    store_url: str, implementation: Any = None, lease_s: float | None = None
) -> Any:
    """The generated send_order, on this store; `lease_s` shortens the lease for the tests
    that kill a worker (the contract keeps the runtime's default of 30 s)."""
    from toolgen_runtime import Invoker, make_tool
    from toolgen_runtime.store import open_store

    from generated.inventory import send_order

    store = open_store(store_url)
    if lease_s is None:
        return send_order.build_tool(implementation, store=store)
    from impl.inventory.send_order import send_order as real

    invoker: Invoker[Any, Any, Any] = Invoker(
        tool_name=send_order.NAME,
        args_model=send_order.SendOrderArgs,
        result_type=send_order.SendOrderResult,
        errors=send_order.ERRORS,
        load_implementation=lambda: implementation or real,
        catalogue_context=send_order.InventoryContext,
        build_context=send_order.tool_context,
        schema=send_order.PARAMETERS,
        idempotency=dataclasses.replace(send_order.IDEMPOTENCY, lease_s=lease_s),
        store=store,
    )
    return make_tool(
        name=send_order.NAME,
        description=send_order.DESCRIPTION,
        parameters=send_order.PARAMETERS,
        invoker=invoker,
    )


def send_order_once(store_url: str, db_path: str, start: Any, results: Any) -> None:
    """One agent worker calling send_order with the same arguments in the same run."""
    from impl.inventory.db import get_database, use_database

    use_database(db_path)
    tool = send_order_tool(store_url)
    with get_database().transaction():  # opened, so the calls meet at the same moment
        pass
    start.wait()
    out = asyncio.run(
        tool.on_invoke_tool(tool_context("send_order", RAW_SEND_ORDER), RAW_SEND_ORDER)
    )
    results.put(out)


def send_order_and_hang(store_url: str, db_path: str, effects: str) -> None:
    """A worker whose implementation starts and never finishes: the test kills it."""
    from impl.inventory.db import use_database

    use_database(db_path)

    async def hang(args: Any, context: Any) -> Any:
        record(effects, f"start {os.getpid()}")
        await asyncio.sleep(3600)

    tool = send_order_tool(store_url, hang, lease_s=LEASE_S)
    asyncio.run(
        tool.on_invoke_tool(tool_context("send_order", RAW_SEND_ORDER), RAW_SEND_ORDER)
    )


def confirm_order_once(
    store_url: str, db_path: str, secret: bytes, raw: str, start: Any, results: Any
) -> None:
    """One worker submitting the same confirm_order call, token included."""
    from toolgen_runtime.signing import Signer
    from toolgen_runtime.store import open_store

    from generated.inventory import confirm_order
    from impl.inventory.db import get_database, use_database

    use_database(db_path)
    tool = confirm_order.build_tool(
        store=open_store(store_url), signer=Signer([secret], "confirm")
    )
    with get_database().transaction():
        pass
    start.wait()
    out = asyncio.run(tool.on_invoke_tool(tool_context("confirm_order", raw), raw))
    results.put(out)
