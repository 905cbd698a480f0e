"""The example catalogue's write tools end to end: generated modules, real implementations on
the example SQLite database, a real store (SQLite, and PostgreSQL when
TOOLGEN_TEST_POSTGRES_URL names a server; skipped with how to start one otherwise), real
threads and processes, and the real Agents SDK Runner with a scripted model.

- send_order (idempotent by key): 50 identical concurrent calls, from threads and from
  processes, send one purchase order; a worker killed mid-call is taken over after its lease;
- prepare_order / confirm_order (token): forged, altered, replayed, expired, other-identity
  and other-tool tokens are refused and no order is placed; a token submitted by ten processes
  at once places one order;
- cancel_order (approval): approve, reject (the model is told nothing was done), invalid
  arguments (no interruption), and a run resumed from its serialised RunState in another
  process.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from store_workers import CONTEXT, effects_of, run_together
from toolgen_runtime.confirm import ConfirmationGate
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import Store, open_store
from toolgen_runtime.testing.helpers import run_agent
from write_tool_workers import (
    LEASE_S,
    RAW_SEND_ORDER,
    confirm_order_once,
    send_order_and_hang,
    send_order_once,
    send_order_tool,
    tool_context,
)

from generated.inventory import (
    InventoryContext,
    cancel_order,
    confirm_order,
    prepare_order,
    send_order,
)
from impl.inventory.db import close_database, use_database

ROOT = Path(__file__).resolve().parents[2]
SECRET = b"a test secret for the write tools, 32+ bytes"


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    path = str(tmp_path / "inventory.db")
    with use_database(path).transaction():  # created and seeded now
        pass
    yield path
    close_database()


def rows(db_path: str, sql: str, *params: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as conn:
        return list(conn.execute(sql, params).fetchall())


def call(tool: Any, args: dict[str, Any], customer_id: int = 1) -> dict[str, Any]:
    raw = json.dumps(args)
    ctx = tool_context(tool.name, raw, customer_id=customer_id)
    return json.loads(asyncio.run(tool.on_invoke_tool(ctx, raw)))


# --- send_order: idempotent by key ------------------------------------------------------


def test_fifty_identical_calls_from_threads_send_one_order(
    store_url: str, db_path: str
) -> None:
    tool = send_order_tool(store_url)
    barrier = threading.Barrier(50)
    answers: list[dict[str, Any]] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait()
        out = json.loads(
            asyncio.run(
                tool.on_invoke_tool(
                    tool_context("send_order", RAW_SEND_ORDER), RAW_SEND_ORDER
                )
            )
        )
        with lock:
            answers.append(out)

    threads = [threading.Thread(target=worker) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 50
    assert rows(db_path, "SELECT count(*) FROM purchase_orders") == [(1,)]
    assert len({a["purchase_order_number"] for a in answers}) == 1
    assert sorted(a.get("duplicate", False) for a in answers) == [False] + [True] * 49
    assert all(a["ok"] is True for a in answers)


def test_fifty_identical_calls_from_processes_send_one_order(
    store_url: str, db_path: str
) -> None:
    close_database()  # each process opens the file itself
    answers = [
        json.loads(a)
        for a in run_together(send_order_once, [(store_url, db_path)] * 50)
    ]
    assert len(answers) == 50
    assert rows(db_path, "SELECT count(*) FROM purchase_orders") == [(1,)]
    assert len({a["purchase_order_number"] for a in answers}) == 1
    assert sorted(a.get("duplicate", False) for a in answers) == [False] + [True] * 49


def test_the_same_order_ref_with_other_arguments_sends_nothing(
    store_url: str, db_path: str
) -> None:
    tool = send_order_tool(store_url)
    first = call(tool, {"order_ref": "R-9", "sku": "SKU-11", "quantity": 20})
    other = call(tool, {"order_ref": "R-9", "sku": "SKU-11", "quantity": 25})
    assert first["ok"] is True
    assert other["error"] == "idempotency_conflict"
    assert "order_ref" in other["how_to_fix"]
    assert rows(db_path, "SELECT count(*) FROM purchase_orders") == [(1,)]


def test_a_killed_worker_is_taken_over_after_its_lease(
    store_url: str, db_path: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.log"
    worker = CONTEXT.Process(
        target=send_order_and_hang, args=(store_url, db_path, str(effects))
    )
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not effects_of(effects) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert effects_of(effects) == [f"start {worker.pid}"]
        tool = send_order_tool(store_url, lease_s=LEASE_S)
        # alive, it holds the key: a duplicate is told the operation is in progress
        # (after waiting, by contract, up to wait_s)
    finally:
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
    killed = time.monotonic()
    out = call(tool, {"order_ref": "R-7", "sku": "SKU-11", "quantity": 20})
    waited = time.monotonic() - killed
    assert out["ok"] is True and "duplicate" not in out, out
    assert rows(db_path, "SELECT count(*) FROM purchase_orders") == [(1,)]
    assert waited < 10, f"took over {waited:.1f} s after the kill, lease {LEASE_S} s"
    again = call(tool, {"order_ref": "R-7", "sku": "SKU-11", "quantity": 20})
    assert again == {"duplicate": True, **out}


# --- prepare_order / confirm_order: tokens ----------------------------------------------


ORDER = {"sku": "SKU-12", "quantity": 2}


def token_tools(store: Store, secret: bytes = SECRET) -> tuple[Any, Any]:
    signer = Signer([secret], "confirm")
    return (
        prepare_order.build_tool(store=store, signer=signer),
        confirm_order.build_tool(store=store, signer=signer),
    )


def placed(db_path: str) -> int:
    return int(rows(db_path, "SELECT count(*) FROM order_lines")[0][0])


def test_prepare_does_nothing_and_confirm_places_the_order_once(
    store: Store, db_path: str
) -> None:
    prepare, confirm = token_tools(store)
    prepared = call(prepare, ORDER)
    assert prepared["ok"] is True
    assert prepared["summary"] == "confirm_order with sku SKU-12, quantity 2"
    assert placed(db_path) == 0
    first = call(confirm, {**ORDER, "token": prepared["token"]})
    assert first["ok"] is True and first["total_eur"] == 17.98, first
    replay = call(confirm, {**ORDER, "token": prepared["token"]})
    assert replay["error"] == "token_used"
    assert placed(db_path) == 1


@pytest.mark.parametrize(
    "case",
    [
        "made_up",
        "altered",
        "truncated",
        "other_secret",
        "other_tool",
        "other_identity",
        "other_arguments",
        "expired",
        "missing",
    ],
)
def test_a_bad_token_is_refused_and_nothing_is_placed(
    store: Store, db_path: str, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare, confirm = token_tools(store)
    token = call(prepare, ORDER)["token"]
    args: dict[str, Any] = {**ORDER, "token": token}
    customer = 1
    expected = "token_invalid"
    if case == "made_up":
        args["token"] = "tok_1f2e3d"
    elif case == "altered":
        body, _, mac = token.partition(".")
        args["token"] = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + mac
    elif case == "truncated":
        args["token"] = token[:-3]
    elif case == "other_secret":
        other_prepare, _ = token_tools(store, b"another secret of at least 32 bytes!")
        args["token"] = call(other_prepare, ORDER)["token"]
    elif case == "other_tool":
        gate = ConfirmationGate(
            tool="confirm_refund",
            prepare_tool="prepare_refund",
            signer=Signer([SECRET], "confirm"),
            store=store,
        )
        args["token"] = gate.issue(ORDER, {"customer_id": 1})
        expected = "token_other_tool"
    elif case == "other_identity":
        customer, expected = 2, "token_other_identity"
    elif case == "other_arguments":
        args["quantity"], expected = 3, "token_mismatch"
    elif case == "expired":
        import toolgen_runtime.confirm as confirm_module

        later = time.time() + 601
        monkeypatch.setattr(confirm_module.time, "time", lambda: later)
        expected = "token_expired"
    elif case == "missing":
        del args["token"]
        expected = "invalid_arguments"
    out = call(confirm, args, customer_id=customer)
    assert out["ok"] is False and out["error"] == expected, out
    assert out["how_to_fix"], out
    assert placed(db_path) == 0


def test_one_token_sent_by_ten_processes_places_one_order(
    store_url: str, db_path: str
) -> None:
    prepare, _ = token_tools(open_store(store_url))
    token = call(prepare, ORDER)["token"]
    close_database()
    raw = json.dumps({**ORDER, "token": token})
    answers = [
        json.loads(a)
        for a in run_together(
            confirm_order_once, [(store_url, db_path, SECRET, raw)] * 10
        )
    ]
    assert sorted(a.get("error", "ok") for a in answers) == ["ok"] + ["token_used"] * 9
    assert placed(db_path) == 1


def test_a_missing_secret_or_store_is_an_error_at_start_up_or_the_first_call(
    monkeypatch: pytest.MonkeyPatch, db_path: str
) -> None:
    """Making the tools needs no configuration; the package's check_services() at
    start-up, or else the tool's first call, says what is missing."""
    from toolgen_runtime.signing import MissingSecret
    from toolgen_runtime.store import StoreNotConfigured

    from generated.inventory import all_tools, check_services, tools

    monkeypatch.delenv("TOOLGEN_SECRET")
    confirm, prepare = confirm_order.build_tool(), prepare_order.build_tool()
    assert [t.name for t in tools("prepare_order")] == ["prepare_order"]
    assert len(all_tools()) == 12
    check_services("read_stock", "send_order")  # neither signs anything
    with pytest.raises(MissingSecret, match="TOOLGEN_SECRET is not set"):
        check_services()
    with pytest.raises(MissingSecret, match="TOOLGEN_SECRET is not set"):
        call(prepare, ORDER)
    with pytest.raises(MissingSecret, match="TOOLGEN_SECRET is not set"):
        call(confirm, {**ORDER, "token": "x"})
    # a call the validator refuses needs neither
    assert call(confirm, {"sku": 1})["error"] == "invalid_arguments"
    monkeypatch.delenv("TOOLGEN_STORE_URL")
    with pytest.raises(StoreNotConfigured, match="TOOLGEN_STORE_URL is not set"):
        check_services("send_order")
    with pytest.raises(StoreNotConfigured, match="TOOLGEN_STORE_URL is not set"):
        call(send_order.build_tool(), json.loads(RAW_SEND_ORDER))


def test_check_services_says_a_paginated_tool_needs_the_secret_of_its_cursors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolgen_runtime.guards import BoundariesMissing, configure_boundaries

    from generated.inventory import check_services

    secret = os.environ["TOOLGEN_SECRET"]
    monkeypatch.delenv("TOOLGEN_SECRET")
    configure_boundaries(None)  # read again from this environment, at the check
    try:
        with pytest.raises(BoundariesMissing, match="set TOOLGEN_SECRET"):
            check_services("search_orders")
        configure_boundaries(None)
        monkeypatch.setenv("TOOLGEN_SECRET", secret)
        check_services("search_orders")
    finally:
        configure_boundaries(None)


# --- cancel_order: approval through the Runner ------------------------------------------


def agent_for(script: list[Any]) -> Agent[Any]:
    return Agent(
        name="orders",
        instructions="Help with orders.",
        tools=[cancel_order.build_tool()],
        model=ScriptedModel(script),
    )


def status(db_path: str, order_number: str) -> str:
    return str(
        rows(db_path, "SELECT status FROM orders WHERE order_number = ?", order_number)[
            0
        ][0]
    )


def outputs(result: Any) -> list[Any]:
    return [
        json.loads(str(item.output))
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]


CANCEL = function_call("cancel_order", {"order_number": "ORD-1012"}, call_id="c1")
CONTEXT_1 = InventoryContext(customer_id=1, run_id="run-1")


def test_approved_the_order_is_cancelled(db_path: str) -> None:
    agent = agent_for([[CANCEL], [assistant_message("cancelled")]])
    first = run_agent(agent, "cancel ORD-1012", context=CONTEXT_1)
    assert [i.tool_name for i in first.interruptions] == ["cancel_order"]
    assert status(db_path, "ORD-1012") == "open"
    state = first.to_state()
    state.approve(first.interruptions[0])
    result = run_agent(agent, state)
    assert outputs(result) == [
        {"ok": True, "order_number": "ORD-1012", "cancelled_now": True}
    ]
    assert status(db_path, "ORD-1012") == "cancelled"
    assert result.final_output == "cancelled"


@pytest.mark.parametrize("how", ["reject", "formatter"])
def test_rejected_nothing_is_done_and_the_model_is_told(db_path: str, how: str) -> None:
    from toolgen_runtime.approval import approval_error_formatter, reject

    model = ScriptedModel([[CANCEL], [assistant_message("not cancelled")]])
    agent: Agent[Any] = Agent(
        name="orders", instructions="", tools=[cancel_order.build_tool()], model=model
    )
    config = RunConfig(
        tracing_disabled=True, tool_error_formatter=approval_error_formatter
    )
    first = run_agent(agent, "cancel ORD-1012", context=CONTEXT_1, run_config=config)
    state = first.to_state()
    if how == "reject":
        reject(state, first.interruptions[0], "the customer changed their mind")
    else:
        state.reject(first.interruptions[0])
    result = run_agent(agent, state, run_config=config)
    [told] = outputs(result)
    assert told["error"] == "not_approved"
    assert told["how_to_fix"].startswith("Nothing was done")
    if how == "reject":
        assert told["reason"] == "the customer changed their mind"
    # what the model received on its next turn
    assert "Nothing was done" in json.dumps(model.calls[-1].input, default=str)
    assert status(db_path, "ORD-1012") == "open"


def test_invalid_arguments_never_interrupt(db_path: str) -> None:
    bad = function_call("cancel_order", {"order_number": "1012"}, call_id="c1")
    agent = agent_for([[bad], [assistant_message("fixed")]])
    result = run_agent(agent, "cancel 1012", context=CONTEXT_1)
    assert result.interruptions == []
    [out] = outputs(result)
    assert out["error"] == "invalid_arguments"
    assert [p["field"] for p in out["problems"]] == ["order_number"]
    assert status(db_path, "ORD-1012") == "open"


def test_a_lazy_tool_from_its_card_asks_the_same_way(db_path: str) -> None:
    from generated.inventory import tools

    [lazy] = tools("cancel_order")
    for args, interrupts in (
        ({"order_number": "ORD-1012"}, True),
        ({"order_number": "x"}, False),
    ):
        agent: Agent[Any] = Agent(
            name="orders",
            instructions="",
            tools=[lazy],
            model=ScriptedModel(
                [
                    [function_call("cancel_order", args, call_id="c1")],
                    [assistant_message("ok")],
                ]
            ),
        )
        result = run_agent(agent, "go", context=CONTEXT_1)
        assert bool(result.interruptions) is interrupts, args


RESUME = """
import asyncio, json, sys
from agents import Agent, RunConfig, Runner
from agents.run_state import RunState
from agents.testing import ScriptedModel, assistant_message
from generated.inventory import InventoryContext, cancel_order
from impl.inventory.db import use_database

use_database(sys.argv[1])
agent = Agent(name="orders", instructions="Help with orders.",
              tools=[cancel_order.build_tool()],
              model=ScriptedModel([[assistant_message("cancelled")]]))

async def main():
    state = await RunState.from_string(
        agent, open(sys.argv[2]).read(),
        context_override=InventoryContext(customer_id=1, run_id="run-1"))
    [pending] = state.get_interruptions()
    state.approve(pending)
    result = await Runner.run(agent, state, run_config=RunConfig(tracing_disabled=True))
    print(result.final_output)

asyncio.run(main())
"""


def test_a_run_resumes_from_its_serialised_state_in_another_process(
    db_path: str, tmp_path: Path
) -> None:
    agent = agent_for([[CANCEL], [assistant_message("unused here")]])
    first = run_agent(agent, "cancel ORD-1012", context=CONTEXT_1)
    assert first.interruptions
    saved = tmp_path / "state.json"
    saved.write_text(first.to_state().to_string())
    close_database()
    done = subprocess.run(
        [sys.executable, "-c", RESUME, db_path, str(saved)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "cancelled"
    assert status(db_path, "ORD-1012") == "cancelled"


def test_a_contract_test_closes_the_stores_it_opened(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stores a write tool's generated tests open are closed when each test ends: a
    connection left to the garbage collector is a ResourceWarning on Python 3.13, which
    fails a later test where a project turns warnings into errors."""
    from generated.inventory.tests.test_confirm_order import TestConfirmOrder
    from generated.inventory.tests.test_send_order import TestSendOrder

    opened: list[sqlite3.Connection] = []
    connect = sqlite3.connect

    def recording(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(connect(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", recording)
    for case, test in (
        (TestSendOrder(), "test_a_repeat_returns_the_first_outcome"),
        (TestConfirmOrder(), "test_a_token_is_used_once"),
    ):
        getattr(case, test)()
        case.teardown_method()
    assert len(opened) >= 2
    for connection in opened:
        with pytest.raises(sqlite3.ProgrammingError, match="closed database"):
            connection.execute("SELECT 1")
