"""Property tests over what a model or a remote server controls at the boundaries: the path
and URL guards, and `fetch` against a hostile server on 127.0.0.1 (issue 33, keep it from
coming back).

The property, for every input hypothesis makes: a guard returns its checked value or raises
`GuardFailure`; `fetch` returns `Fetched` or raises `FetchFailed`, within its deadline; and a
tool call answers the model with one JSON object with `ok`. Nothing else leaves: with a healthy
disk and nobody racing the check, not even the documented infrastructure errors
(`PathChanged`, `FileSystemFailed`) have a cause here, so any exception fails the test.
"""

from __future__ import annotations

import datetime
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_server import (
    HostileServer,
    Pause,
    Repeat,
    Reset,
    Send,
    Step,
    hostile_server,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from toolgen_runtime.guards import (
    Boundaries,
    CheckedPath,
    CheckedUrl,
    GuardFailure,
    UrlPolicy,
    check_path,
    check_url,
)
from toolgen_runtime.guards.fetch import Fetched, FetchFailed, fetch
from toolgen_runtime.testing import Recorder, invoke

from generated.inventory import read_document as read_document_module
from generated.inventory import read_supplier_notice as notice_module
from impl.inventory import read_supplier_notice as notice_impl

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLACK_S = 0.75


# --- paths -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root deep enough that long paths pass PATH_MAX, with every trap of the corpus."""
    base = tmp_path_factory.mktemp("paths")
    root = base / ("deployment-archive-" * 4)
    (root / "sub").mkdir(parents=True)
    (base / "secret.md").write_text("outside", encoding="utf-8")
    (root / "note.md").write_text("hello", encoding="utf-8")
    (root / "sub" / "inner.md").write_text("inner", encoding="utf-8")
    (root / ".hidden.md").write_text("hidden", encoding="utf-8")
    os.symlink(base / "secret.md", root / "out.md")
    os.symlink(base, root / "up")
    os.symlink("loop2.md", root / "loop1.md")
    os.symlink("loop1.md", root / "loop2.md")
    os.symlink("/".join(["x" * 255] * 16), root / "far.md")
    os.symlink("sub", root / "same")
    os.mkfifo(root / "pipe.md")
    return root.resolve()


PATH_PIECES = [
    "note.md", "sub", "inner.md", "out.md", "up", "loop1.md", "far.md", "same", "pipe.md",
    ".hidden.md", "..", ".", "", "\U0001f600" * 63, "a" * 255, "a" * 256, "\u00e9" * 128,
    "\x00", "\\", "\u202e", "\u200b", "\ufb01", "\uff0e\uff0e", "\u2025", "\n", "caf\u0301",
    "CON", "note.MD", " note.md", "note.md ", "~", "$HOME", "%2e%2e",
]  # fmt: skip

# found before and kept: each once made the guard raise OSError (issue 33, item 1)
EMOJI_PATH = "/".join(["\U0001f600" * 63] * 15 + ["\U0001f600" * 60 + ".md"])
KNOWN_PATHS = [
    "far.md",
    EMOJI_PATH,
    "loop1.md/note.md",
    "up/secret.md",
    "same/inner.md",
]

paths = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(PATH_PIECES), min_size=1, max_size=40).map("/".join),
    st.lists(st.sampled_from(PATH_PIECES), min_size=1, max_size=40).map(
        lambda parts: "/" + "/".join(parts)
    ),
)


@SETTINGS
@given(text=paths)
@example(text=KNOWN_PATHS[0])
@example(text=KNOWN_PATHS[1])
@example(text=KNOWN_PATHS[2])
@example(text=KNOWN_PATHS[3])
@example(text=KNOWN_PATHS[4])
def test_the_path_guard_answers_a_checked_path_or_a_guard_failure(
    archive: Path, text: str
) -> None:
    try:
        checked = check_path(text, archive, suffixes=(".md", ".txt"))
    except GuardFailure as failure:
        assert failure.code.startswith("path_")
        assert str(archive) not in str(failure)
    else:
        assert isinstance(checked, CheckedPath)
        assert checked.path.resolve().is_relative_to(archive)


@SETTINGS
@given(text=paths)
@example(text=KNOWN_PATHS[0])
@example(text=KNOWN_PATHS[1])
@example(text=KNOWN_PATHS[2])
@example(text=KNOWN_PATHS[3])
@example(text=KNOWN_PATHS[4])
def test_a_path_tool_call_always_answers_the_model(archive: Path, text: str) -> None:
    tool = read_document_module.build_tool(
        boundaries=Boundaries(roots={"archive": archive})
    )
    out = invoke(tool, {"name": text}, None)
    assert isinstance(out, dict) and isinstance(out["ok"], bool)
    if not out["ok"]:
        assert out["error"] == "invalid_arguments"
        assert all(p["field"] == "name" for p in out["problems"])


# --- URLs ------------------------------------------------------------------------------------

SCHEMES = [
    "https://",
    "http://",
    "HTTPS://",
    "https:",
    "https:/",
    "//",
    "file://",
    "javascript:",
    "https:\\\\",
    "",
]
USERINFO = ["", "user:pw@", "suppliers.example.com@", "@", "a%40b@"]
HOSTS = [
    "suppliers.example.com", "SUPPLIERS.EXAMPLE.COM", "suppliers.example.com.",
    "suppliers.example.com\u3002", "169.254.169.254", "0x7f.1", "2130706433", "0177.0.0.1",
    "[::1]", "[fec0::1]", "[::ffff:10.0.0.1]", "[64:ff9b::a9fe:a9fe]", "[fe80::1%25eth0]",
    "\uff53uppliers.example.com", "suppliers.ex\u0430mple.com", "supp1iers.example.com",
    "%73uppliers.example.com", "xn--", "xn--zz", "", "[", "]", "a" * 300,
    "suppliers.example.com.evil.test", "\u0661\u0662\u0667.0.0.1",
]  # fmt: skip
PORTS = [
    "",
    ":443",
    ":0",
    ":65536",
    ":-1",
    ":\uff18\uff10",
    ":99999999999999999999",
    ":",
]
TAILS = ["/", "/notices/2026-11.html", "/%zz", "/a b", "/\u202e", "?q=1#f", "\\@evil.test",
         "#", "/caf\u00e9", "/" + "a" * 3000, "@evil.test/"]  # fmt: skip

urls = st.one_of(
    st.text(max_size=200),
    st.tuples(
        st.sampled_from(SCHEMES),
        st.sampled_from(USERINFO),
        st.sampled_from(HOSTS),
        st.sampled_from(PORTS),
        st.sampled_from(TAILS),
    ).map("".join),
)
POLICY = UrlPolicy(hosts=("suppliers.example.com",))


@SETTINGS
@given(text=urls)
def test_the_url_guard_answers_a_checked_url_or_a_guard_failure(text: str) -> None:
    try:
        checked = check_url(text, POLICY)
    except GuardFailure as failure:
        assert failure.code.startswith("url_")
    else:
        assert isinstance(checked, CheckedUrl)
        assert checked.host == "suppliers.example.com" and checked.port == 443


@SETTINGS
@given(text=urls)
def test_a_url_tool_call_always_answers_the_model(text: str) -> None:
    recorder = Recorder(
        notice_module.ReadSupplierNoticeResult(
            kind="delay", effective_on=datetime.date(2026, 12, 9), delay_days=7
        )
    )
    tool = notice_module.build_tool(recorder, boundaries=Boundaries())
    out = invoke(tool, {"url": text}, None)
    assert isinstance(out, dict) and isinstance(out["ok"], bool)
    if out["ok"]:
        [call] = recorder.calls
        assert call.args.url.host == "suppliers.example.com"
    else:
        assert [p["field"] for p in out["problems"]] == ["url"]
        assert recorder.calls == []


# --- fetch against a hostile server -----------------------------------------------------------

NOTICE = b'{"kind": "delay", "effective_on": "2026-12-09", "delay_days": 7}'
STATUS = [
    b"HTTP/1.1 200 OK\r\n", b"HTTP/1.0 404 Not Found\r\n", b"HTTP/1.1 500 Oops\r\n",
    b"HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data/\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n", b"garbage\r\n", b"", b"\r\n",
    b"HTTP/2.0 200 OK\r\n", b"HTTP/1.1 999999 X\r\n", b"HTTP/1.1 -1 X\r\n", b"ICY 200 OK\r\n",
    b"HTTP/1.1 200 " + b"O" * 70_000 + b"\r\n", b"\xff\xfe\x00\r\n", b"HTTP/1.1 200\r\n",
]  # fmt: skip
HEADERS = [
    b"Content-Length: 64\r\n", b"Content-Length: 5\r\n", b"Content-Length: -1\r\n",
    b"Content-Length: x\r\n", b"Content-Length: 5\r\nContent-Length: 9\r\n",
    b"Content-Length: 99999999999999999999999\r\n", b"Transfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: gzip, chunked\r\n", b"X-A: 1\r\n" * 101,
    b"X-Big: " + b"a" * 70_000 + b"\r\n", b"Location: http://[::1]/\r\n",
    b"Location: http://10.0.0.1/\r\n", b"no colon\r\n", b" folded\r\n", b"\x00\x01: bin\r\n",
    b"Connection: close\r\n", b"Content-Type: application/json\r\n",
]  # fmt: skip
BODIES = [
    b"", NOTICE, b"hello", b"5\r\nhello\r\n0\r\n\r\n", b"40\r\n" + NOTICE + b"\r\n0\r\n\r\n",
    b"zz\r\nabc\r\n", b"ffffffffffffffffff\r\nab", b"5\r\nhello", b"0\r\n" + b"X-T: 1\r\n" * 5,
    b'{"kind": "delay"}', b"\x00" * 100, b'{"kind": "delay", "effective_on": "9999-99-99"}',
]  # fmt: skip
ENDINGS: list[Step | None] = [
    None, None, Reset(), Pause(0.05), Repeat(b"X-T: 1\r\n", 0.03),
    Repeat(b"HTTP/1.1 100 Continue\r\n\r\n", 0.03), Repeat(b"x", 0.05),
]  # fmt: skip


# found before and kept: each escaped fetch or held it (issue 33, items 3 and 4)
KNOWN_SCRIPTS: list[list[Step]] = [
    [Send(b"garbage\r\n\r\n")],
    [Send(b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 101 + b"\r\n")],
    [Send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")],
    [Send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 0.1)],
    [Repeat(b"HTTP/1.1 100 Continue\r\n\r\n", 0.03)],
]


@st.composite
def scripts(draw: st.DrawFn) -> list[Step]:
    head = draw(st.sampled_from(STATUS))
    head += b"".join(draw(st.lists(st.sampled_from(HEADERS), max_size=3)))
    head += draw(st.sampled_from([b"\r\n", b"\r\n", b""]))
    data = head + draw(st.one_of(st.sampled_from(BODIES), st.binary(max_size=200)))
    drip = (
        draw(st.sampled_from([0.0, 0.0, 0.0, 0.02, 0.1])) if len(data) <= 300 else 0.0
    )
    ending = draw(st.sampled_from(ENDINGS))
    return [Send(data, drip)] + ([] if ending is None else [ending])


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.fixture(scope="module")
def routed(server: HostileServer) -> Iterator[HostileServer]:
    notice_impl.route_through(
        notice_impl.Gateway(
            f"http://127.0.0.1:{server.port}",
            allow_networks=("127.0.0.0/8",),
            timeout_s=0.3,
        )
    )
    yield server
    notice_impl.route_through(None)


def loopback(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]


FETCH_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FETCH_SETTINGS
@given(script=scripts())
@example(script=KNOWN_SCRIPTS[0])
@example(script=KNOWN_SCRIPTS[1])
@example(script=KNOWN_SCRIPTS[2])
@example(script=KNOWN_SCRIPTS[3])
@example(script=KNOWN_SCRIPTS[4])
def test_fetch_answers_or_raises_fetch_failed_within_its_deadline(
    server: HostileServer, script: list[Step]
) -> None:
    server.script = script
    policy = UrlPolicy(hosts=("portal.test",), schemes=("http",), ports=(server.port,))
    url = check_url(f"http://portal.test:{server.port}/notices/1", policy)
    start = time.monotonic()
    try:
        got = fetch(url, allow_networks=["127.0.0.0/8"], resolver=loopback, timeout=0.3)
    except FetchFailed as failure:
        assert failure.reason in ("unreachable", "timeout", "bad_answer")
    else:
        assert isinstance(got, Fetched) and 100 <= got.status <= 999
    assert time.monotonic() - start <= 0.3 + SLACK_S


@FETCH_SETTINGS
@given(script=scripts())
@example(script=KNOWN_SCRIPTS[0])
@example(script=KNOWN_SCRIPTS[1])
@example(script=KNOWN_SCRIPTS[2])
@example(script=KNOWN_SCRIPTS[3])
@example(script=KNOWN_SCRIPTS[4])
def test_a_fetching_tool_call_always_answers_the_model(
    routed: HostileServer, script: list[Step]
) -> None:
    routed.script = script
    tool = notice_module.build_tool(boundaries=Boundaries())
    start = time.monotonic()
    out = invoke(tool, {"url": "https://suppliers.example.com/notices/1"}, None)
    assert time.monotonic() - start <= 0.3 + SLACK_S
    assert isinstance(out, dict) and isinstance(out["ok"], bool)
    if not out["ok"]:
        assert out["error"] in ("portal_unreachable", "notice_unreadable")
