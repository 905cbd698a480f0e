"""The hosts of the URL guard: how a host name is compared (`normalize_host`: IDNA UTS-46
ASCII, lower case), and what a policy allows (`UrlPolicy`: host names, wildcards under a name,
IP addresses, and which allowed host a look-alike name imitates). `host_problem` says why an
entry of a contract's allow-list cannot be a host; the compiler checks contracts with it.
The URL around the host is checked in urls.py.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import idna

from toolgen_runtime.guards.codes import alternatives

__all__ = [
    "DEFAULT_PORTS",
    "MAX_URL_CHARS",
    "IPAddress",
    "UrlPolicy",
    "host_problem",
    "normalize_host",
]

DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL_CHARS = 2048

# Letters of other scripts (and digits) that pass for Latin letters in a host name. Not the
# whole of Unicode's confusables.txt: safety comes from the allow-list, which refuses these
# hosts anyway; this only tells the model why, with its own code.
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic
        "\u0430": "a", "\u0432": "b", "\u0441": "c", "\u0501": "d", "\u0435": "e",
        "\u04bb": "h", "\u0456": "i", "\u0458": "j", "\u043a": "k", "\u04cf": "l",
        "\u043c": "m", "\u043d": "h", "\u043e": "o", "\u0440": "p", "\u051b": "q",
        "\u0455": "s", "\u0442": "t", "\u0443": "y", "\u04af": "y", "\u0445": "x",
        "\u051d": "w", "\u0461": "w", "\u044c": "b",
        # Greek
        "\u03b1": "a", "\u03b2": "b", "\u03b5": "e", "\u03b7": "n", "\u03b9": "i",
        "\u03ba": "k", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t",
        "\u03c5": "u", "\u03c7": "x", "\u03b3": "y", "\u03c9": "w",
        # Armenian
        "\u057d": "u", "\u0585": "o", "\u0581": "g", "\u0570": "h", "\u0578": "n",
        "\u0566": "q", "\u0561": "w",
        # Latin letters that are not a, g, i, j, y
        "\u0251": "a", "\u0261": "g", "\u0131": "i", "\u0237": "j", "\u0269": "i",
        "\u028f": "y",
        # digits for letters
        "0": "o", "1": "l",
    }
)  # fmt: skip
_LOOKALIKE_PAIRS = (("rn", "m"), ("vv", "w"))


_PLAIN_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


def _plain_ascii(host: str) -> str | None:
    """The host, lower case, when it is plain ASCII letters, digits and hyphens, where UTS-46
    maps nothing but letter case (about half the cost of a check); None for anything else."""
    if not host.isascii() or len(host) > 253:
        return None
    lowered = host.lower()
    labels = lowered.split(".")
    for label in labels:
        # "xn--" and other "--" at 3-4 are A-labels or reserved: idna checks those
        if not _PLAIN_LABEL.match(label) or label[2:4] == "--":
            return None
    return lowered


def normalize_host(host: str) -> str:
    """A host name in the form it is compared in: IDNA (UTS-46, non-transitional) ASCII, lower
    case; raise `idna.IDNAError` for a name that is not a valid domain name."""
    plain = _plain_ascii(host)
    if plain is not None:
        return plain
    encoded: bytes = idna.encode(host, uts46=True, std3_rules=True, transitional=False)
    return encoded.decode("ascii").lower()


def _skeleton(ascii_host: str) -> str:
    try:
        text = idna.decode(ascii_host)
    except (idna.IDNAError, UnicodeError):
        text = ascii_host
    decomposed = unicodedata.normalize("NFKD", text.lower())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    skeleton = bare.translate(_LOOKALIKES)
    for pair, letter in _LOOKALIKE_PAIRS:
        skeleton = skeleton.replace(pair, letter)
    return skeleton


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _comparable(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """What a URL guard allows.

    `hosts` lists host names (`api.example.com`), `*.example.com` for every name under
    example.com (not example.com itself), or an IP address to allow that address. `schemes`
    is https only unless the contract says otherwise (http and https are the schemes known
    here). `ports` adds ports besides the scheme's default.
    """

    hosts: tuple[str, ...]
    schemes: tuple[str, ...] = ("https",)
    ports: tuple[int, ...] = ()
    allow_userinfo: bool = False
    allow_trailing_dot: bool = False
    max_chars: int = MAX_URL_CHARS
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    _wildcards: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _addresses: frozenset[IPAddress] = field(init=False, repr=False, compare=False)
    _skeletons: tuple[tuple[str, str, bool], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not self.hosts:
            raise ValueError("a URL policy needs at least one allowed host")
        unknown = [s for s in self.schemes if s not in DEFAULT_PORTS]
        if unknown or not self.schemes:
            raise ValueError(
                f"schemes must be among {sorted(DEFAULT_PORTS)}, got {unknown}"
            )
        names: set[str] = set()
        wildcards: list[str] = []
        addresses: set[IPAddress] = set()
        for entry in self.hosts:
            try:
                addresses.add(_comparable(ipaddress.ip_address(entry.strip("[]"))))
                continue
            except ValueError:
                pass
            try:
                if entry.startswith("*."):
                    wildcards.append(normalize_host(entry[2:]))
                else:
                    names.add(normalize_host(entry))
            except (idna.IDNAError, UnicodeError) as exc:
                raise ValueError(
                    f"allowed host {entry!r} is not a host name: {exc}"
                ) from exc
        object.__setattr__(self, "_names", frozenset(names))
        object.__setattr__(self, "_wildcards", tuple(wildcards))
        object.__setattr__(self, "_addresses", frozenset(addresses))
        skeletons = [(_skeleton(n), n, False) for n in sorted(names)]
        skeletons += [(_skeleton(w), w, True) for w in wildcards]
        object.__setattr__(self, "_skeletons", tuple(skeletons))

    def with_hosts(self, extra: Sequence[str]) -> UrlPolicy:
        return _extended(self, tuple(extra))

    @property
    def hosts_text(self) -> str:
        return alternatives([h.strip("[]") for h in self.hosts])

    def allows_name(self, host: str) -> bool:
        return host in self._names or any(
            host.endswith("." + w) for w in self._wildcards
        )

    def allows_address(self, address: IPAddress) -> bool:
        return _comparable(address) in self._addresses

    def imitated(self, host: str) -> str | None:
        """The allowed host that `host` imitates with look-alike characters, if any."""
        skeleton = _skeleton(host)
        for allowed, name, wildcard in self._skeletons:
            if skeleton == allowed and host != name:
                return name
            # under a wildcard, the look-alike may be in the allowed part only
            if (
                wildcard
                and skeleton.endswith("." + allowed)
                and not host.endswith("." + name)
            ):
                return name
        return None


@functools.lru_cache(maxsize=64)
def _extended(policy: UrlPolicy, extra: tuple[str, ...]) -> UrlPolicy:
    return UrlPolicy(
        hosts=tuple(dict.fromkeys(policy.hosts + extra)),
        schemes=policy.schemes,
        ports=policy.ports,
        allow_userinfo=policy.allow_userinfo,
        allow_trailing_dot=policy.allow_trailing_dot,
        max_chars=policy.max_chars,
    )


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def host_problem(entry: str) -> str | None:
    """Why `entry` cannot be an allowed host (said after the entry: "is not a host name"),
    or None; the compiler checks a contract's hosts with it."""
    if entry != entry.strip() or not entry:
        return "is empty or has spaces around it"
    if "/" in entry or (":" in entry and not _is_address(entry.strip("[]"))):
        return "is not a host name (write the host alone, without scheme, port or path)"
    if entry.rstrip("]").endswith("."):
        return "ends with a dot"
    try:
        UrlPolicy(hosts=(entry,))
    except ValueError:
        return "is not a host name"
    return None
