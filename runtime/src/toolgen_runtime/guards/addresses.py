"""Which addresses `fetch` may connect to: the IANA special-purpose address registries as a table.

`REGISTRY` holds the rows of the IANA IPv4 and IPv6 Special-Purpose Address Registries, each
with its name, its RFCs and the registry's "Globally Reachable" column: True for a block where
a public service may answer (anycast services, AS112, NAT64 of a public address), False or N/A
(Teredo, 6to4, deprecated blocks) for one that is refused. `OTHERS` are blocks the registries
leave out and `fetch` refuses too: multicast, and the IPv6 site-local block fec0::/10 (deprecated
by RFC 3879, still routed inside networks that use it).

`refused_reason` decides with the most specific block that holds the address, and then with
the `ipaddress` module's own flags, so an address either source calls not public is refused.
A NAT64 address (64:ff9b::/96) is judged by the IPv4 address it carries.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "BLOCKS",
    "OTHERS",
    "REGISTRY",
    "Block",
    "IPAddress",
    "IPNetwork",
    "refused_reason",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Block:
    network: IPNetwork
    name: str
    rfc: str
    reachable: bool  # the registry's Globally Reachable is True (N/A counts as False)


def _block(network: str, name: str, rfc: str, reachable: bool = False) -> Block:
    return Block(ipaddress.ip_network(network), name, rfc, reachable)


REGISTRY: tuple[Block, ...] = (
    # --- iana-ipv4-special-registry --------------------------------------------------------
    _block("0.0.0.0/8", '"this network"', "RFC 791 section 3.2"),
    _block("0.0.0.0/32", '"this host on this network"', "RFC 1122 section 3.2.1.3"),
    _block("10.0.0.0/8", "private-use", "RFC 1918"),
    _block("100.64.0.0/10", "shared address space", "RFC 6598"),
    _block("127.0.0.0/8", "loopback", "RFC 1122 section 3.2.1.3"),
    _block("169.254.0.0/16", "link-local", "RFC 3927"),
    _block("172.16.0.0/12", "private-use", "RFC 1918"),
    _block("192.0.0.0/24", "IETF protocol assignments", "RFC 6890 section 2.1"),
    _block("192.0.0.0/29", "IPv4 service continuity prefix", "RFC 7335"),
    _block("192.0.0.8/32", "IPv4 dummy address", "RFC 7600"),
    _block("192.0.0.9/32", "Port Control Protocol anycast", "RFC 7723", True),
    _block("192.0.0.10/32", "TURN anycast", "RFC 8155", True),
    _block("192.0.0.170/32", "NAT64/DNS64 discovery", "RFC 8880, RFC 7050 section 2.2"),
    _block("192.0.0.171/32", "NAT64/DNS64 discovery", "RFC 8880, RFC 7050 section 2.2"),
    _block("192.0.2.0/24", "documentation (TEST-NET-1)", "RFC 5737"),
    _block("192.31.196.0/24", "AS112-v4", "RFC 7535", True),
    _block("192.52.193.0/24", "AMT", "RFC 7450", True),
    _block("192.88.99.0/24", "deprecated (6to4 relay anycast)", "RFC 7526"),
    _block("192.88.99.2/32", "6a44-relay anycast", "RFC 6751"),
    _block("192.168.0.0/16", "private-use", "RFC 1918"),
    _block("192.175.48.0/24", "direct delegation AS112 service", "RFC 7534", True),
    _block("198.18.0.0/15", "benchmarking", "RFC 2544"),
    _block("198.51.100.0/24", "documentation (TEST-NET-2)", "RFC 5737"),
    _block("203.0.113.0/24", "documentation (TEST-NET-3)", "RFC 5737"),
    _block("240.0.0.0/4", "reserved", "RFC 1112 section 4"),
    _block("255.255.255.255/32", "limited broadcast", "RFC 8190, RFC 919 section 7"),
    # --- iana-ipv6-special-registry --------------------------------------------------------
    _block("::1/128", "loopback", "RFC 4291"),
    _block("::/128", "unspecified", "RFC 4291"),
    _block("::ffff:0:0/96", "IPv4-mapped", "RFC 4291"),
    _block("64:ff9b::/96", "IPv4-IPv6 translation (NAT64)", "RFC 6052", True),
    _block("64:ff9b:1::/48", "local IPv4-IPv6 translation", "RFC 8215"),
    _block("100::/64", "discard-only", "RFC 6666"),
    _block("100:0:0:1::/64", "dummy IPv6 prefix", "RFC 9780"),
    _block("2001::/23", "IETF protocol assignments", "RFC 2928"),
    _block("2001::/32", "Teredo", "RFC 4380, RFC 8190"),
    _block("2001:1::1/128", "Port Control Protocol anycast", "RFC 7723", True),
    _block("2001:1::2/128", "TURN anycast", "RFC 8155", True),
    _block("2001:1::3/128", "DNS-SD service registration anycast", "RFC 9665", True),
    _block("2001:2::/48", "benchmarking", "RFC 5180"),
    _block("2001:3::/32", "AMT", "RFC 7450", True),
    _block("2001:4:112::/48", "AS112-v6", "RFC 7535", True),
    _block("2001:10::/28", "deprecated (previously ORCHID)", "RFC 4843"),
    _block("2001:20::/28", "ORCHIDv2", "RFC 7343", True),
    _block("2001:30::/28", "drone remote ID entity tags", "RFC 9374", True),
    _block("2001:db8::/32", "documentation", "RFC 3849"),
    _block("2002::/16", "6to4", "RFC 3056"),
    _block("2620:4f:8000::/48", "direct delegation AS112 service", "RFC 7534", True),
    _block("3fff::/20", "documentation", "RFC 9637"),
    _block("5f00::/16", "segment routing (SRv6) SIDs", "RFC 9602"),
    _block("fc00::/7", "unique-local", "RFC 4193, RFC 8190"),
    _block("fe80::/10", "link-local", "RFC 4291"),
)  # fmt: skip

OTHERS: tuple[Block, ...] = (
    _block("224.0.0.0/4", "multicast", "RFC 5771"),
    _block("ff00::/8", "multicast", "RFC 4291"),
    _block("fec0::/10", "site-local", "RFC 3879"),
)

# the most specific block first: a reachable block inside a refused one decides for its own
BLOCKS: tuple[Block, ...] = tuple(
    sorted(REGISTRY + OTHERS, key=lambda b: -b.network.prefixlen)
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _block_of(address: IPAddress) -> Block | None:
    return next((b for b in BLOCKS if address in b.network), None)


def _flagged(address: IPAddress) -> str | None:
    """What `ipaddress` calls the address, when it calls it not public."""
    for word, flag in (
        # the most specific word first: a link-local address is private too
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("site-local", getattr(address, "is_site_local", False)),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    ):
        if flag:
            return word
    return None if address.is_global else "not a public address"


def refused_reason(address: IPAddress, allowed: Iterable[IPNetwork] = ()) -> str | None:
    """Why `address` must not be reached, or None for a public address (or one in `allowed`)."""
    if any(address in network for network in allowed):
        return None
    if isinstance(address, ipaddress.IPv6Address) and address in _NAT64:
        # the registry calls NAT64 reachable, and `ipaddress` calls all of ::/8 reserved:
        # what it reaches is the IPv4 address inside
        inner = refused_reason(
            ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), allowed
        )
        return None if inner is None else f"{address} embeds {inner}"
    block = _block_of(address)
    if block is not None and not block.reachable:
        return f"{_shown(address)} is {block.name} ({block.rfc})"
    word = _flagged(address)
    return None if word is None else f"{_shown(address)} is {word}"


def _shown(address: IPAddress) -> str:
    """The address as it is written: an IPv4-mapped one ends in its IPv4 address, as
    Python 3.13 prints it (`::ffff:10.0.0.1`, where 3.11 prints `::ffff:a00:1`)."""
    mapped = getattr(address, "ipv4_mapped", None)
    return str(address) if mapped is None else f"::ffff:{mapped}"
