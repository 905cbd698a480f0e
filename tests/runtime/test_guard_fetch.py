"""Fetching a checked URL: addresses refused after DNS, the connection pinned to the checked
address, TLS still verified for the host name.

Real servers on 127.0.0.1 only (loopback is allowed explicitly where a test connects); every
other address in these tests is refused before any connection is made, which the tests check.
"""

from __future__ import annotations

import http.server
import ipaddress
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toolgen_runtime.guards import UrlPolicy, check_url
from toolgen_runtime.guards.fetch import (
    AddressRefused,
    FetchFailed,
    fetch,
    refused_reason,
    resolve_public,
)

HOST = "docs.example.test"


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("172.16.5.4", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "shared address space"),
        ("224.0.0.1", "multicast"),
        ("0.0.0.0", "this host on this network"),
        ("240.0.0.1", "reserved"),
        ("::1", "loopback"),
        ("fc00::1", "unique-local"),
        ("fe80::1", "link-local"),
        ("::ffff:10.0.0.1", "IPv4-mapped"),
        ("64:ff9b::a9fe:a9fe", "embeds 169.254.169.254 is link-local"),
        ("64:ff9b:1::1", "local IPv4-IPv6 translation"),
        ("2002:0a00:0001::1", "6to4"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
        ("64:ff9b::808:808", None),  # NAT64 of a public address
    ],
)
def test_only_public_addresses_may_be_reached(
    address: str, refused: str | None
) -> None:
    reason = refused_reason(ipaddress.ip_address(address))
    if refused is None:
        assert reason is None
    else:
        assert reason is not None and refused in reason


def test_an_allowed_network_is_let_through() -> None:
    internal = ipaddress.ip_network("10.20.0.0/16")
    assert refused_reason(ipaddress.ip_address("10.20.1.1"), [internal]) is None
    assert refused_reason(ipaddress.ip_address("10.21.1.1"), [internal]) is not None


def answers(*addresses: str) -> Any:
    calls: list[str] = []

    def resolver(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        calls.append(host)
        family = socket.AF_INET6 if ":" in addresses[0] else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses]

    resolver.calls = calls  # type: ignore[attr-defined]
    return resolver


def url(port: int = 443, scheme: str = "https") -> Any:
    policy = UrlPolicy(hosts=(HOST,), schemes=(scheme,), ports=(port,))
    suffix = "" if port == 443 else f":{port}"
    return check_url(f"{scheme}://{HOST}{suffix}/v1/doc?id=7", policy)


def test_an_allowed_name_that_resolves_inside_is_refused() -> None:
    with pytest.raises(AddressRefused) as caught:
        resolve_public(url(), resolver=answers("10.0.0.5", "169.254.169.254"))
    assert caught.value.host == HOST
    assert caught.value.reasons == (
        "10.0.0.5 is private-use (RFC 1918)",
        "169.254.169.254 is link-local (RFC 3927)",
    )
    assert caught.value.reason == "address_refused"


def test_refused_answers_are_dropped_and_public_ones_kept_in_order() -> None:
    found = resolve_public(url(), resolver=answers("10.0.0.5", "8.8.4.4", "8.8.8.8"))
    assert [str(a) for a in found] == ["8.8.4.4", "8.8.8.8"]


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def resolver(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(AddressRefused, match="does not resolve"):
        resolve_public(url(), resolver=resolver)


def test_nothing_connects_to_a_refused_address(monkeypatch: pytest.MonkeyPatch) -> None:
    connections: list[object] = []
    monkeypatch.setattr(
        socket, "create_connection", lambda *a, **k: connections.append(a)
    )
    with pytest.raises(AddressRefused):
        fetch(url(), resolver=answers("192.168.1.1"))
    assert connections == []


# --- against a real server on loopback ----------------------------------------------------


class Handler(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str | None]]] = []

    def do_GET(self) -> None:
        Handler.seen.append((self.path, self.headers.get("Host")))
        body = b"x" * 5000 if self.path.startswith("/big") else b"document 7"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[http.server.ThreadingHTTPServer]:
    Handler.seen = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_connection_goes_to_the_checked_address_with_the_host_name(
    server: http.server.ThreadingHTTPServer,
) -> None:
    port = server.server_address[1]
    # a rebinding resolver would answer 10.0.0.5 the second time: it is asked only once
    resolver = answers("127.0.0.1")
    got = fetch(
        url(port, "http"), allow_networks=["127.0.0.0/8"], resolver=resolver, timeout=5
    )
    assert (got.status, got.body, got.truncated, got.address) == (
        200,
        b"document 7",
        False,
        "127.0.0.1",
    )
    assert got.headers["content-type"] == "text/plain"
    assert resolver.calls == [HOST]
    assert Handler.seen == [("/v1/doc?id=7", f"{HOST}:{port}")]


def test_a_long_body_is_cut_at_max_bytes(
    server: http.server.ThreadingHTTPServer,
) -> None:
    port = server.server_address[1]
    policy = UrlPolicy(hosts=(HOST,), schemes=("http",), ports=(port,))
    big = check_url(f"http://{HOST}:{port}/big", policy)
    got = fetch(
        big,
        allow_networks=["127.0.0.0/8"],
        resolver=answers("127.0.0.1"),
        max_bytes=100,
        timeout=5,
    )
    assert (len(got.body), got.truncated) == (100, True)


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[int, Path]]:
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = _certificate(tmp_path, request.param)
    Handler.seen = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield httpd.server_address[1], cert
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("tls_server", [HOST], indirect=True)
def test_tls_verifies_the_host_name_while_connecting_to_the_address(
    tls_server: tuple[int, Path],
) -> None:
    port, cert = tls_server
    got = fetch(
        url(port),
        allow_networks=["127.0.0.0/8"],
        resolver=answers("127.0.0.1"),
        tls=ssl.create_default_context(cafile=str(cert)),
        timeout=5,
    )
    assert (got.status, got.body) == (200, b"document 7")


@pytest.mark.parametrize("tls_server", ["other.example.test"], indirect=True)
def test_tls_refuses_a_certificate_for_another_name(
    tls_server: tuple[int, Path],
) -> None:
    port, cert = tls_server
    with pytest.raises(FetchFailed, match=r"docs\.example\.test") as caught:
        fetch(
            url(port),
            allow_networks=["127.0.0.0/8"],
            resolver=answers("127.0.0.1"),
            tls=ssl.create_default_context(cafile=str(cert)),
            timeout=5,
        )
    assert caught.value.reason == "tls"
    assert isinstance(caught.value.__cause__, ssl.SSLCertVerificationError)
