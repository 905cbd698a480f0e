"""The addresses `fetch` refuses, held against the IANA special-purpose registries and against
`ipaddress`'s own flags (issue 33, item 5).

The registries' rows are written here as data, from the IANA tables (iana-ipv4-special-registry
and iana-ipv6-special-registry): the block, its RFCs, its "Globally Reachable" column (True,
False, or None for N/A) and a sample address inside it that no more specific row holds. The
guard's table (`toolgen_runtime.guards.addresses.REGISTRY`) must be these rows, and for every
sample the guard must refuse what the registry does not call reachable, and whatever
`ipaddress` calls not public.
"""

from __future__ import annotations

import ipaddress
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolgen_runtime.guards import UrlPolicy, check_url
from toolgen_runtime.guards.addresses import OTHERS, REGISTRY, refused_reason
from toolgen_runtime.guards.fetch import AddressRefused, resolve_public


class Row(NamedTuple):
    block: str
    rfc: str
    reachable: bool | None  # None: the registry says N/A
    sample: str


IPV4 = [
    Row("0.0.0.0/8", "RFC 791", False, "0.1.2.3"),
    Row("0.0.0.0/32", "RFC 1122", False, "0.0.0.0"),
    Row("10.0.0.0/8", "RFC 1918", False, "10.20.30.40"),
    Row("100.64.0.0/10", "RFC 6598", False, "100.100.1.1"),
    Row("127.0.0.0/8", "RFC 1122", False, "127.0.0.53"),
    Row("169.254.0.0/16", "RFC 3927", False, "169.254.169.254"),
    Row("172.16.0.0/12", "RFC 1918", False, "172.31.255.1"),
    Row("192.0.0.0/24", "RFC 6890", False, "192.0.0.100"),
    Row("192.0.0.0/29", "RFC 7335", False, "192.0.0.1"),
    Row("192.0.0.8/32", "RFC 7600", False, "192.0.0.8"),
    Row("192.0.0.9/32", "RFC 7723", True, "192.0.0.9"),
    Row("192.0.0.10/32", "RFC 8155", True, "192.0.0.10"),
    Row("192.0.0.170/32", "RFC 8880", False, "192.0.0.170"),
    Row("192.0.0.171/32", "RFC 8880", False, "192.0.0.171"),
    Row("192.0.2.0/24", "RFC 5737", False, "192.0.2.7"),
    Row("192.31.196.0/24", "RFC 7535", True, "192.31.196.1"),
    Row("192.52.193.0/24", "RFC 7450", True, "192.52.193.1"),
    Row("192.88.99.0/24", "RFC 7526", None, "192.88.99.1"),  # deprecated
    Row("192.88.99.2/32", "RFC 6751", False, "192.88.99.2"),
    Row("192.168.0.0/16", "RFC 1918", False, "192.168.1.1"),
    Row("192.175.48.0/24", "RFC 7534", True, "192.175.48.6"),
    Row("198.18.0.0/15", "RFC 2544", False, "198.19.0.1"),
    Row("198.51.100.0/24", "RFC 5737", False, "198.51.100.20"),
    Row("203.0.113.0/24", "RFC 5737", False, "203.0.113.9"),
    Row("240.0.0.0/4", "RFC 1112", False, "250.1.2.3"),
    Row("255.255.255.255/32", "RFC 8190", False, "255.255.255.255"),
]

IPV6 = [
    Row("::1/128", "RFC 4291", False, "::1"),
    Row("::/128", "RFC 4291", False, "::"),
    Row("::ffff:0:0/96", "RFC 4291", False, "::ffff:8.8.8.8"),
    Row("64:ff9b::/96", "RFC 6052", True, "64:ff9b::808:808"),
    Row("64:ff9b:1::/48", "RFC 8215", False, "64:ff9b:1::808:808"),
    Row("100::/64", "RFC 6666", False, "100::1"),
    Row("100:0:0:1::/64", "RFC 9780", False, "100:0:0:1::1"),
    Row("2001::/23", "RFC 2928", False, "2001:100::1"),
    Row("2001::/32", "RFC 4380", None, "2001:0:4136:e378:8000:63bf:3fff:fdd2"),
    Row("2001:1::1/128", "RFC 7723", True, "2001:1::1"),
    Row("2001:1::2/128", "RFC 8155", True, "2001:1::2"),
    Row("2001:1::3/128", "RFC 9665", True, "2001:1::3"),
    Row("2001:2::/48", "RFC 5180", False, "2001:2::1"),
    Row("2001:3::/32", "RFC 7450", True, "2001:3::1"),
    Row("2001:4:112::/48", "RFC 7535", True, "2001:4:112::1"),
    Row("2001:10::/28", "RFC 4843", None, "2001:10::1"),  # deprecated
    Row("2001:20::/28", "RFC 7343", True, "2001:20::1"),
    Row("2001:30::/28", "RFC 9374", True, "2001:30::1"),
    Row("2001:db8::/32", "RFC 3849", False, "2001:db8::1"),
    Row("2002::/16", "RFC 3056", None, "2002:808:808::1"),  # 6to4 of a public address
    Row("2620:4f:8000::/48", "RFC 7534", True, "2620:4f:8000::1"),
    Row("3fff::/20", "RFC 9637", False, "3fff::1"),
    Row("5f00::/16", "RFC 9602", False, "5f00::1"),
    Row("fc00::/7", "RFC 4193", False, "fd12:3456::1"),
    Row("fe80::/10", "RFC 4291", False, "fe80::1"),
]

REGISTRIES = IPV4 + IPV6
FLAGS = (
    "is_private",
    "is_site_local",
    "is_reserved",
    "is_multicast",
    "is_link_local",
    "is_loopback",
    "is_unspecified",
)


def not_public_by_flags(text: str) -> list[str]:
    """The flags by which `ipaddress` calls the address not public (is_global False too)."""
    address = ipaddress.ip_address(text)
    said = [flag for flag in FLAGS if getattr(address, flag, False)]
    return said + ([] if address.is_global else ["not is_global"])


def test_the_guards_table_is_the_registries() -> None:
    # networks, not their texts: Python 3.13 writes ::ffff:0:0/96 as ::ffff:0.0.0.0/96
    table = {(b.network, b.reachable) for b in REGISTRY}
    assert table == {
        (ipaddress.ip_network(r.block), r.reachable is True) for r in REGISTRIES
    }
    for block in REGISTRY:
        [row] = [
            r for r in REGISTRIES if ipaddress.ip_network(r.block) == block.network
        ]
        assert row.rfc in block.rfc


@pytest.mark.parametrize("row", REGISTRIES, ids=[r.block for r in REGISTRIES])
def test_a_sample_of_every_row_is_refused_unless_the_registry_calls_it_reachable(
    row: Row,
) -> None:
    address = ipaddress.ip_address(row.sample)
    assert address in ipaddress.ip_network(row.block)
    reason = refused_reason(address)
    if row.reachable is not True:
        assert reason is not None
        return
    if address in ipaddress.ip_network("64:ff9b::/96"):
        assert reason is None  # NAT64 of 8.8.8.8: judged by the address inside
        return
    # reachable by the registry: refused only if ipaddress calls it not public (an older
    # Python calls all of 2001::/23 private, exceptions included)
    assert (reason is None) == (not not_public_by_flags(row.sample)), reason


EXTRA_SAMPLES = [
    "fec0::1",  # site-local, deprecated by RFC 3879: the item that started this
    "fec0:0:0:ffff::1",
    "feff::1",
    "ff02::1",
    "224.0.0.251",
    "239.255.255.250",
    "4000::1",  # outside 2000::/3, not allocated as global unicast
    "::2",
    "::127.0.0.1",  # IPv4-compatible, deprecated
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::1",
]


@pytest.mark.parametrize("sample", [r.sample for r in REGISTRIES] + EXTRA_SAMPLES)
def test_every_address_ipaddress_calls_not_public_is_refused(sample: str) -> None:
    address = ipaddress.ip_address(sample)
    flags = not_public_by_flags(sample)
    if address in ipaddress.ip_network("64:ff9b::/96"):
        # ::/8 is all "reserved" to ipaddress, which predates NAT64 (RFC 6052): the IPv4
        # address inside decides
        inner = ipaddress.ip_address(int(address) & 0xFFFFFFFF)
        assert (refused_reason(address) is None) == (
            not not_public_by_flags(str(inner))
        )
        return
    if flags:
        assert refused_reason(address) is not None, flags


def test_site_local_is_refused_after_dns() -> None:
    url = check_url(
        "https://docs.example.test/", UrlPolicy(hosts=("docs.example.test",))
    )

    def resolver(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [(0, 0, 0, "", ("fec0::1", port, 0, 0))]

    with pytest.raises(AddressRefused) as caught:
        resolve_public(url, resolver=resolver)
    assert caught.value.reasons == ("fec0::1 is site-local (RFC 3879)",)


def test_the_blocks_outside_the_registries_are_the_ones_named() -> None:
    assert {str(b.network) for b in OTHERS} == {"224.0.0.0/4", "ff00::/8", "fec0::/10"}
    assert not any(b.reachable for b in OTHERS)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address),
        st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address),
        # the interesting corners of IPv6: the low blocks, 2001::/23 and fc00::/7 up
        st.integers(0, 2**112).map(ipaddress.IPv6Address),
        st.integers(0x2001 << 112, (0x2001 << 112) + 2**105).map(ipaddress.IPv6Address),
        st.integers(0xFC00 << 112, 2**128 - 1).map(ipaddress.IPv6Address),
    )
)
def test_any_address_is_refused_if_a_block_or_a_flag_says_so(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    reason = refused_reason(address)
    if address in ipaddress.ip_network("64:ff9b::/96"):
        return  # judged by the IPv4 address inside, tested above
    blocks = [
        b
        for b in REGISTRY + OTHERS
        if b.network.version == address.version and address in b.network
    ]
    most_specific = max(blocks, key=lambda b: b.network.prefixlen, default=None)
    if most_specific is not None and not most_specific.reachable:
        assert reason is not None
    if not_public_by_flags(str(address)):
        assert reason is not None
    if reason is None:
        assert address.is_global and not address.is_multicast
