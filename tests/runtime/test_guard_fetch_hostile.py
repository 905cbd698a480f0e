"""`fetch` against a hostile server on 127.0.0.1: every failure of the remote side is one
`FetchFailed` with its reason (issue 33, item 3), and one deadline covers the whole call
(item 4); the example's `read_supplier_notice` answers `portal_unreachable` for all of it.

Each call runs in a thread joined with a limit, so code that lets a server hold it fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from agents import Agent
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from hostile_server import (
    HostileServer,
    Pause,
    Repeat,
    Reset,
    Send,
    Step,
    hostile_server,
)
from toolgen_runtime.guards import Boundaries, CheckedUrl, UrlPolicy, check_url
from toolgen_runtime.guards.fetch import REASONS, Fetched, FetchFailed, fetch
from toolgen_runtime.testing import invoke
from toolgen_runtime.testing.helpers import run_agent

from generated.inventory import read_supplier_notice as notice_module
from impl.inventory import read_supplier_notice as notice_impl

HOST = "portal.example.test"
SLACK_S = 0.75  # what a loaded machine may add to a deadline
NOTICE = b'{"kind": "delay", "effective_on": "2026-12-09", "delay_days": 7}'


def loopback(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


def url_of(port: int, scheme: str = "http") -> CheckedUrl:
    policy = UrlPolicy(hosts=(HOST,), schemes=(scheme,), ports=(port,))
    return check_url(f"{scheme}://{HOST}:{port}/notices/1", policy)


def within(limit_s: float, call: Callable[[], object]) -> tuple[object, float]:
    """What `call` returned or raised, and how long it took; fails if it is still running
    after `limit_s` (it is left to end on its own, in a daemon thread)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # the test looks at whatever came out
            outcome.append(exc)

    start = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit_s)
    elapsed = time.monotonic() - start
    assert outcome, f"still running after {limit_s} s"
    return outcome[0], elapsed


def fetched(
    server: HostileServer, *, timeout: float = 2.0, scheme: str = "http"
) -> Any:
    return fetch(
        url_of(server.port, scheme),
        allow_networks=["127.0.0.0/8"],
        resolver=loopback,
        timeout=timeout,
    )


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


OK_HEAD = b"HTTP/1.1 200 OK\r\n"
CHUNKED = OK_HEAD + b"Transfer-Encoding: chunked\r\n\r\n"

BROKEN: list[tuple[str, list[Step], set[str]]] = [
    ("garbage status line", [Send(b"garbage\r\n\r\n")], {"bad_answer"}),
    ("binary status line", [Send(b"\x16\x03\x01\x00\xff\r\n\r\n")], {"bad_answer"}),
    ("HTTP/2 status line", [Send(b"HTTP/2.0 200 OK\r\n\r\n")], {"bad_answer"}),
    ("status line over 64 KiB", [Send(b"HTTP/1.1 200 " + b"O" * 70_000)], {"bad_answer"}),
    ("101 headers", [Send(OK_HEAD + b"X-A: 1\r\n" * 101 + b"\r\n")], {"bad_answer"}),
    ("header over 64 KiB", [Send(OK_HEAD + b"X-A: " + b"a" * 70_000)], {"bad_answer"}),
    ("bad chunk size", [Send(CHUNKED + b"zz\r\nabc\r\n0\r\n\r\n")], {"bad_answer"}),
    # http.client reads the size with int(line, 16), sign and all: -5 was a ValueError
    ("negative chunk size", [Send(CHUNKED + b"-5\r\nabc\r\n0\r\n\r\n")], {"bad_answer"}),
    ("chunk cut short", [Send(CHUNKED + b"10\r\nabc")], {"bad_answer"}),
    ("body under its length", [Send(OK_HEAD + b"Content-Length: 99\r\n\r\nab")], {"bad_answer"}),
    ("closed without an answer", [], {"unreachable"}),
    ("reset before the answer", [Reset()], {"unreachable"}),
    ("reset mid-body",
     [Send(OK_HEAD + b"Content-Length: 99\r\n\r\nab"), Pause(0.05), Reset()],
     {"unreachable", "bad_answer"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("script", "reasons"),
    [(s, r) for _, s, r in BROKEN],
    ids=[name for name, _, _ in BROKEN],
)
def test_a_broken_answer_is_one_exception_with_its_reason(
    server: HostileServer, script: list[Step], reasons: set[str]
) -> None:
    server.script = script
    outcome, _ = within(10, lambda: fetched(server))
    assert isinstance(outcome, FetchFailed), repr(outcome)
    assert outcome.reason in reasons and outcome.reason in REASONS


def test_a_chunk_of_size_minus_one_reads_no_more_than_max_bytes(
    server: HostileServer,
) -> None:
    # read(n) took -1 as "to the end of the connection": 3 GB in 5 s of an endless body
    server.script = [Send(CHUNKED + b"-1\r\n"), Repeat(b"x" * 65_536, 0.0)]
    outcome, elapsed = within(10, lambda: fetched(server))
    assert isinstance(outcome, Fetched), repr(outcome)
    assert outcome.truncated and len(outcome.body) == 1_000_000
    assert elapsed < 2 + SLACK_S


def test_a_refused_connection_is_unreachable() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    # the port is free again: nobody listens
    outcome, _ = within(
        10,
        lambda: fetch(
            url_of(port), allow_networks=["127.0.0.0/8"], resolver=loopback, timeout=2
        ),
    )
    assert isinstance(outcome, FetchFailed) and outcome.reason == "unreachable"


def test_a_redirect_is_an_answer_and_is_not_followed(server: HostileServer) -> None:
    server.script = [
        Send(b"HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\n"
             b"Content-Length: 0\r\n\r\n")
    ]  # fmt: skip
    outcome, _ = within(10, lambda: fetched(server))
    assert isinstance(outcome, Fetched)
    assert (outcome.status, outcome.headers["location"]) == (
        302,
        "http://169.254.169.254/",
    )
    assert server.connections == 1


# --- one deadline for the whole call (item 4) ------------------------------------------------

HELD: list[tuple[str, list[Step], str]] = [
    ("a byte every 0.2 s", [Send(OK_HEAD + b"Content-Length: 5\r\n\r\nhello", 0.2)], "http"),
    ("the body a byte every 0.2 s",
     [Send(OK_HEAD + b"Content-Length: 40\r\n\r\n"), Send(b"x" * 40, 0.2)], "http"),
    ("100 Continue for ever", [Repeat(b"HTTP/1.1 100 Continue\r\n\r\n", 0.05)], "http"),
    ("trailers for ever", [Send(CHUNKED + b"0\r\n"), Repeat(b"X-T: 1\r\n", 0.05)], "http"),
    ("a TLS record a byte every 0.1 s",
     [Send(b"\x16\x03\x03\x40\x00" + b"\x00" * 200, 0.1)], "https"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("script", "scheme"),
    [(s, scheme) for _, s, scheme in HELD],
    ids=[name for name, _, _ in HELD],
)
def test_a_server_cannot_hold_a_call_past_its_timeout(
    server: HostileServer, script: list[Step], scheme: str
) -> None:
    server.script = script
    outcome, elapsed = within(5, lambda: fetched(server, timeout=0.5, scheme=scheme))
    assert isinstance(outcome, FetchFailed), repr(outcome)
    assert outcome.reason == "timeout"
    assert 0.45 <= elapsed <= 0.5 + SLACK_S


def test_an_answer_within_the_deadline_is_whole(server: HostileServer) -> None:
    server.script = [Send(OK_HEAD + b"Content-Length: 5\r\n\r\n", 0.01), Send(b"hello")]
    outcome, _ = within(10, lambda: fetched(server, timeout=2))
    assert isinstance(outcome, Fetched)
    assert (outcome.status, outcome.body, outcome.truncated) == (200, b"hello", False)


# --- the example's implementation ------------------------------------------------------------


@pytest.fixture
def routed(server: HostileServer) -> Iterator[HostileServer]:
    """read_supplier_notice sends its requests to the hostile server, 0.5 s at most."""
    notice_impl.route_through(
        notice_impl.Gateway(
            f"http://127.0.0.1:{server.port}",
            allow_networks=("127.0.0.0/8",),
            timeout_s=0.5,
        )
    )
    yield server
    notice_impl.route_through(None)


NOTICE_URL = "https://suppliers.example.com/notices/2026-11.html"


@pytest.mark.parametrize(
    "script",
    [s for _, s, _ in BROKEN] + [s for _, s, scheme in HELD if scheme == "http"],
    ids=[name for name, _, _ in BROKEN] + [n for n, _, s in HELD if s == "http"],
)
def test_the_example_answers_portal_unreachable(
    routed: HostileServer, script: list[Step]
) -> None:
    routed.script = script
    tool = notice_module.build_tool(boundaries=Boundaries())
    outcome, elapsed = within(10, lambda: invoke(tool, {"url": NOTICE_URL}, None))
    assert isinstance(outcome, dict), repr(outcome)
    assert outcome["ok"] is False and outcome["error"] == "portal_unreachable"
    assert outcome["retryable"] is True and outcome["reason"] in REASONS
    assert elapsed <= 0.5 + SLACK_S


def test_through_the_runner_the_model_is_answered_and_the_run_finishes(
    routed: HostileServer,
) -> None:
    routed.script = [Send(b"garbage\r\n\r\n")]
    agent = Agent[Any](
        name="buyer",
        instructions="Read supplier notices.",
        tools=[notice_module.build_tool(boundaries=Boundaries())],
        model=ScriptedModel(
            [
                [
                    function_call(
                        "read_supplier_notice",
                        {"url": "https://169.254.169.254/latest/meta-data/"},
                        call_id="c1",
                    )
                ],
                [
                    function_call(
                        "read_supplier_notice", {"url": NOTICE_URL}, call_id="c2"
                    )
                ],
                [assistant_message("done")],
            ]
        ),
    )
    result = run_agent(agent, "go")
    outputs = [
        json.loads(str(item.output))
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]
    assert result.final_output == "done"
    assert [p["code"] for p in outputs[0]["problems"]] == ["url_ip_literal"]
    assert (outputs[1]["error"], outputs[1]["reason"]) == (
        "portal_unreachable",
        "bad_answer",
    )
    assert routed.connections == 1  # the refused URL never reached it
