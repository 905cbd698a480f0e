"""Fetching a checked URL without being led to an internal address, or held by the server.

The URL guard checks names; DNS decides addresses. An allowed name can resolve to 10.0.0.5 or
169.254.169.254 (a record its owner changed, an internal resolver, a rebinding attack that answers
differently the second time). `fetch` resolves the host once, refuses every address that is not
globally reachable (`toolgen_runtime.guards.addresses`: the IANA special-purpose registries,
multicast, site-local, and what `ipaddress` calls not public) unless the caller allows its
network, then connects to the address it checked, while TLS still verifies the certificate for
the host name. It does not follow redirects: a `Location` is a new URL, to check with
`check_url` before fetching it.

Whatever the remote side does, the caller gets a `Fetched` or one exception, `FetchFailed`,
whose `reason` says what went wrong in one word; and it gets it within `timeout` seconds,
counted from the call: one deadline covers connecting, TLS, sending, the headers and the body
(a server that sends a byte every second, or `100 Continue` for ever, is cut off).

Standard library only (`http.client`), synchronous: an async implementation runs it with
`await asyncio.to_thread(fetch, url)`.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen_runtime.guards.addresses import IPAddress, refused_reason
from toolgen_runtime.guards.urls import CheckedUrl

__all__ = [
    "REASONS",
    "AddressRefused",
    "FetchFailed",
    "Fetched",
    "fetch",
    "refused_reason",
    "resolve_public",
]

Resolver = Callable[..., Sequence[tuple[Any, ...]]]

REASONS: Mapping[str, str] = {
    "address_refused": "the host does not resolve, or only to addresses that may not be reached",
    "unreachable": "the connection could not be made, or was closed or reset before the answer",
    "tls": "the TLS handshake or the certificate check failed",
    "timeout": "the whole answer did not arrive within the timeout",
    "bad_answer": "the answer is not HTTP/1.x as http.client reads it: no status line, more "
    "than 100 headers, a line over 64 KiB, a broken chunk, a body shorter than its length",
}


class FetchFailed(Exception):
    """The remote side failed; `reason` is a key of `REASONS`. An implementation turns it into
    one of its declared errors (the model can try again later or choose another URL); it is
    not a bug. The message is for logs: it may name addresses the model must not see."""

    def __init__(self, host: str, reason: str, detail: str) -> None:
        super().__init__(f"{host}: {detail}")
        self.host = host
        self.reason = reason


class AddressRefused(FetchFailed):
    """The host resolved to no address the caller may reach (`reason` "address_refused")."""

    def __init__(self, host: str, reasons: Sequence[str]) -> None:
        super().__init__(
            host,
            "address_refused",
            f"resolves only to refused addresses: {'; '.join(reasons)}",
        )
        self.reasons = tuple(reasons)


def resolve_public(
    url: CheckedUrl,
    *,
    allow_networks: Iterable[str] = (),
    resolver: Resolver = socket.getaddrinfo,
) -> list[IPAddress]:
    """The addresses of the URL's host that may be reached, in the resolver's order; raise
    `AddressRefused` when there is none. `allow_networks` lets through networks the contract
    allows (such as "10.20.0.0/16" for an internal service)."""
    allowed = [ipaddress.ip_network(n) for n in allow_networks]
    host = url.host.strip("[]")
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        candidates = [literal]
    else:
        try:
            answers = resolver(host, url.port, type=socket.SOCK_STREAM)
        except (
            OSError
        ) as exc:  # socket.gaierror, and what a resolver of the caller's raises
            raise AddressRefused(url.host, [f"it does not resolve ({exc})"]) from exc
        candidates = [ipaddress.ip_address(answer[4][0]) for answer in answers]
    reachable: list[IPAddress] = []
    reasons: list[str] = []
    for address in dict.fromkeys(candidates):
        reason = refused_reason(address, allowed)
        if reason is None:
            reachable.append(address)
        else:
            reasons.append(reason)
    if not reachable:
        raise AddressRefused(url.host, reasons or ["it has no address"])
    return reachable


@dataclass(frozen=True, slots=True)
class Fetched:
    status: int
    headers: Mapping[str, str]
    body: bytes
    truncated: bool  # the body was longer than max_bytes and was cut
    address: str  # the address connected to


class _Deadline:
    """One deadline for a whole request. A socket timeout bounds each read, not their sum: at
    the deadline a timer shuts the connection down, which ends whatever read or write waits
    on it (connect, TLS, headers, body), and `expired` says why it ended."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._end = time.monotonic() + timeout
        self._lock = threading.Lock()
        self._watched: socket.socket | None = None
        self._closed = False
        self.expired = False
        self._timer = threading.Timer(timeout, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0 or self.expired:
            raise TimeoutError("the deadline passed before the connection")
        return left

    def watch(self, sock: socket.socket) -> None:
        """Shut `sock` down at the deadline. A duplicate is kept, which reaches the same
        connection: TLS takes the original object over while it shakes hands."""
        with self._lock:
            if self.expired:
                raise TimeoutError("the deadline passed while connecting")
            self._watched = sock.dup()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._watched is not None and not self._closed:
                with contextlib.suppress(OSError):
                    self._watched.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._watched is not None:
                self._watched.close()


def _failure(host: str, exc: Exception, deadline: _Deadline) -> FetchFailed:
    if deadline.expired or isinstance(exc, TimeoutError):
        return FetchFailed(
            host, "timeout", f"no complete answer within {deadline.timeout:g} s"
        )
    if isinstance(exc, ssl.SSLError):
        return FetchFailed(host, "tls", f"TLS failed: {exc}")
    if isinstance(exc, http.client.HTTPException | ValueError) and not isinstance(
        exc, ConnectionError
    ):
        return FetchFailed(host, "bad_answer", f"not an HTTP answer: {exc!r:.200}")
    return FetchFailed(host, "unreachable", f"the connection failed: {exc!r:.200}")


def fetch(
    url: CheckedUrl,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    allow_networks: Iterable[str] = (),
    timeout: float = 10.0,
    max_bytes: int = 1_000_000,
    resolver: Resolver = socket.getaddrinfo,
    tls: ssl.SSLContext | None = None,
) -> Fetched:
    """Request a checked URL from the first reachable address of its host.

    `timeout` is for the whole call, resolution included (a resolver that hangs is the one
    wait it cannot cut). Any failure of the remote side raises `FetchFailed`; a status of 400
    or more is an answer, not a failure."""
    deadline = _Deadline(timeout)
    try:
        reachable = resolve_public(
            url, allow_networks=allow_networks, resolver=resolver
        )
        return _request(
            url, str(reachable[0]), deadline, method, headers, body, max_bytes, tls
        )
    finally:
        deadline.close()


def _request(
    url: CheckedUrl,
    address: str,
    deadline: _Deadline,
    method: str,
    headers: Mapping[str, str] | None,
    body: bytes | None,
    max_bytes: int,
    tls: ssl.SSLContext | None,
) -> Fetched:
    host = url.host.strip("[]")
    connection: http.client.HTTPConnection
    if url.scheme == "https":
        context = tls or ssl.create_default_context()
        connection = http.client.HTTPSConnection(
            host, url.port, timeout=deadline.timeout, context=context
        )
    else:
        connection = http.client.HTTPConnection(
            host, url.port, timeout=deadline.timeout
        )

    # http.client connects through this attribute: pointing it at the checked address keeps
    # the host name for the Host header and for TLS (SNI and certificate check) while making a
    # second DNS answer impossible
    def connect_checked(
        _where: tuple[str, int], _timeout: float, source: tuple[str, int] | None = None
    ) -> socket.socket:
        sock = socket.create_connection(
            (address, url.port), deadline.remaining(), source
        )
        try:
            deadline.watch(sock)
        except BaseException:
            sock.close()
            raise
        return sock

    connection._create_connection = connect_checked  # type: ignore[attr-defined]
    try:
        connection.request(method, url.target, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        data = _body(response, max_bytes + 1)
        if deadline.expired:  # the read ended at the shutdown: what came is not all
            raise TimeoutError
        if len(data) <= max_bytes and response.length:
            raise http.client.IncompleteRead(data, response.length)
        return Fetched(
            status=response.status,
            headers={k.lower(): v for k, v in response.getheaders()},
            body=data[:max_bytes],
            truncated=len(data) > max_bytes,
            address=address,
        )
    except Exception as exc:
        # ValueError: what http.client makes of some broken answers (a chunk of size -5)
        remote = (OSError, http.client.HTTPException, ValueError)
        if deadline.expired or isinstance(exc, remote):
            raise _failure(url.host, exc, deadline) from exc
        raise
    finally:
        connection.close()


def _body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """At most `limit` bytes of the body, a buffer at a time: `read(n)` trusts the chunk
    sizes the server sends, and one of -1 read to the end of the connection whatever `n`."""
    pieces: list[bytes] = []
    size = 0
    while size < limit:
        piece = response.read1(limit - size)
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)[:limit]
