"""Fetching a checked URL without being led to an internal address.

The URL guard checks names; DNS decides addresses. An allowed name can resolve to 10.0.0.5 or
169.254.169.254 (a record its owner changed, an internal resolver, a rebinding attack that answers
differently the second time). `fetch` resolves the host once, refuses every address that is not
public (loopback, private, link-local, shared, reserved, multicast, and IPv6 forms that embed
one: IPv4-mapped, NAT64, 6to4, Teredo) unless the caller allows its network, then connects to
the address it checked, while TLS still verifies the certificate for the host name. It does not
follow redirects: a `Location` is a new URL, to check with `check_url` before fetching it.

Standard library only (`http.client`), synchronous: an async implementation runs it with
`await asyncio.to_thread(fetch, url)`.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen_runtime.guards.urls import CheckedUrl

__all__ = [
    "AddressRefused",
    "Fetched",
    "fetch",
    "refused_reason",
    "resolve_public",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[..., Sequence[tuple[Any, ...]]]

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")


class AddressRefused(Exception):
    """The host resolved to no address the caller may reach. An implementation turns it into
    one of its declared errors (the model can choose another URL); it is not a bug."""

    def __init__(self, host: str, reasons: Sequence[str]) -> None:
        super().__init__(
            f"{host} resolves only to refused addresses: {'; '.join(reasons)}"
        )
        self.host = host
        self.reasons = tuple(reasons)


def refused_reason(address: IPAddress, allowed: Iterable[IPNetwork] = ()) -> str | None:
    """Why `address` must not be reached, or None for a public address (or one in `allowed`)."""
    if any(address in network for network in allowed):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        embedded: IPAddress | None = address.ipv4_mapped
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is None:
            embedded = address.sixtofour
        if address.teredo is not None:
            return f"{address} is a Teredo address"
        if address in _NAT64_LOCAL:
            return f"{address} is a local NAT64 address"
        if embedded is not None:
            inner = refused_reason(embedded, allowed)
            return None if inner is None else f"{address} embeds {inner}"
    for word, flag in (
        # the most specific word first: a link-local address is private too
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    ):
        if flag:
            return f"{address} is {word}"
    if not address.is_global:
        return f"{address} is not a public address"
    return None


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
        except socket.gaierror as exc:
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
    """Request a checked URL from the first reachable address of its host."""
    address = str(
        resolve_public(url, allow_networks=allow_networks, resolver=resolver)[0]
    )
    host = url.host.strip("[]")
    connection: http.client.HTTPConnection
    if url.scheme == "https":
        context = tls or ssl.create_default_context()
        connection = http.client.HTTPSConnection(
            host, url.port, timeout=timeout, context=context
        )
    else:
        connection = http.client.HTTPConnection(host, url.port, timeout=timeout)

    # http.client connects through this attribute: pointing it at the checked address keeps
    # the host name for the Host header and for TLS (SNI and certificate check) while making a
    # second DNS answer impossible
    def connect_checked(
        _where: tuple[str, int], timeout: float, source: tuple[str, int] | None = None
    ) -> socket.socket:
        return socket.create_connection((address, url.port), timeout, source)

    connection._create_connection = connect_checked  # type: ignore[attr-defined]
    try:
        connection.request(method, url.target, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        data = response.read(max_bytes + 1)
        return Fetched(
            status=response.status,
            headers={k.lower(): v for k, v in response.getheaders()},
            body=data[:max_bytes],
            truncated=len(data) > max_bytes,
            address=address,
        )
    finally:
        connection.close()
