"""The URL guard: a URL from the model, checked against an allow-list of hosts.

`check_url` is the check; `UrlGuard` is the same check as pydantic metadata. Either gives a
`CheckedUrl`: the URL rebuilt from its checked parts (scheme and host in lower case, the host in
its ASCII form, path and query percent-encoded), which is what the implementation must use, so
the HTTP client never parses a text that this check read differently.

The URL is parsed here, strictly, not with a lenient library parser: a URL that two parsers read
differently (a backslash, an @ in the wrong place, a host that ends in a number) is refused
rather than guessed. Hosts are compared after IDNA (UTS-46) mapping, the way browsers and HTTP
clients map them, so a host in full-width letters is the plain one; anything not on the list is
refused, and a host that only imitates an allowed one gets its own code. How hosts compare and
what a `UrlPolicy` allows are hosts.py's (importable from here too).

What this cannot do: DNS. An allowed name can resolve to an internal address (a DNS record the
name's owner changes, or an internal resolver). `toolgen_runtime.guards.fetch` resolves, refuses
private addresses and connects to the address it checked; see docs/boundaries.md.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import idna

from toolgen_runtime.guards.codes import GuardFailure, alternatives, as_pydantic_error
from toolgen_runtime.guards.hosts import (
    DEFAULT_PORTS,
    MAX_URL_CHARS,
    UrlPolicy,
    host_problem,
    normalize_host,
)

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema
    from pydantic_core.core_schema import ValidationInfo

__all__ = [
    "DEFAULT_PORTS",
    "MAX_URL_CHARS",
    "CheckedUrl",
    "UrlGuard",
    "UrlPolicy",
    "check_url",
    "host_problem",
    "normalize_host",
]

_SHOWN_CHARS = 80
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HEX = frozenset("0123456789abcdefABCDEF")
_UNRESERVED = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
)
_SUB_DELIMS = frozenset("!$&'()*+,;=")
_PATH_CHARS = _UNRESERVED | _SUB_DELIMS | frozenset(":@/")
_QUERY_CHARS = _PATH_CHARS | frozenset("?")
_USERINFO_CHARS = _UNRESERVED | _SUB_DELIMS | frozenset(":")


def _shown(text: str) -> str:
    quoted = repr(text)
    return (
        quoted if len(quoted) <= _SHOWN_CHARS else quoted[: _SHOWN_CHARS - 4] + "...'"
    )


def _char_name(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'character')}"


# --- hosts that end in a number -------------------------------------------------------------


def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 address as WHATWG URL parsers read it: 0x.. hex, 0.. octal."""
    base = 10
    if part[:2] in ("0x", "0X"):
        base, part = 16, part[2:]
    elif len(part) > 1 and part[0] == "0":
        base, part = 8, part[1:]
    if part == "":
        return 0
    digits = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}[base]
    if not all(char in digits for char in part):
        return None
    return int(part, base)


def _ends_in_number(host: str) -> bool:
    last = host.rsplit(".", 1)[-1]
    if last.isascii() and last.isdigit():
        return True
    return last[:2] in ("0x", "0X") and all(char in _HEX for char in last[2:])


def _bad_host(problem: str, policy: UrlPolicy) -> GuardFailure:
    return GuardFailure(
        "url_bad_host", problem, example_host=policy.hosts[0].removeprefix("*.")
    )


def _ipv4_literal(host: str, policy: UrlPolicy) -> ipaddress.IPv4Address | None:
    """The address a host that ends in a number stands for (127.1, 0x7f000001, 017700000001
    are all 127.0.0.1 to a browser), None for a name; raise for a number that is no address,
    which a parser would refuse or read in its own way."""
    if not _ends_in_number(host):
        return None
    parts = host.split(".")
    numbers = [_ipv4_number(part) for part in parts] if len(parts) <= 4 else [None]
    if (
        any(n is None for n in numbers)
        or any(n > 255 for n in numbers[:-1] if n is not None)
        or (numbers[-1] or 0) >= 256 ** (5 - len(numbers))
    ):
        raise _bad_host(
            f"host {_shown(host)} ends in a number but is not an address", policy
        )
    value = numbers[-1] or 0
    for index, number in enumerate(numbers[:-1]):
        value += (number or 0) * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


# --- the URL --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckedUrl:
    """A URL that passed the guard, rebuilt from its checked parts.

    `host` is ASCII (IDNA A-labels), lower case, without a trailing dot; an allowed IPv6
    address is in brackets. `port` is always set (the scheme's default when the URL had none).
    `text` is the URL to request: use it, never the text the model sent (`requested`).
    """

    requested: str
    scheme: str
    host: str
    port: int
    path: str
    query: str | None
    fragment: str | None
    userinfo: str | None = None

    @property
    def origin(self) -> str:
        default = DEFAULT_PORTS[self.scheme] == self.port
        return f"{self.scheme}://{self.host}" + ("" if default else f":{self.port}")

    @property
    def target(self) -> str:
        """What goes on the request line: the path and the query."""
        return self.path + ("" if self.query is None else "?" + self.query)

    @property
    def text(self) -> str:
        """The URL without its fragment (which is never sent) and without user-info (which
        goes in a header, if allowed at all)."""
        return self.origin + self.target

    @property
    def unicode_host(self) -> str:
        """The host as people read it (U-labels), for messages."""
        if self.host.startswith("["):
            return self.host
        try:
            decoded: str = idna.decode(self.host)
        except (idna.IDNAError, UnicodeError):
            return self.host
        return decoded

    def __str__(self) -> str:
        return self.text


def _bad_character(text: str) -> str | None:
    for char in text:
        if char.isascii():
            if ord(char) <= 0x20 or ord(char) == 0x7F or char == "\\":
                return char
        elif unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zs", "Zl", "Zp"):
            return char
    return None


def _encoded(part: str, allowed: frozenset[str]) -> str:
    out: list[str] = []
    index = 0
    while index < len(part):
        char = part[index]
        if char == "%":
            escape = part[index + 1 : index + 3]
            if len(escape) != 2 or not set(escape) <= _HEX:
                raise GuardFailure(
                    "url_bad_character", "has a % that does not start a %XX escape"
                )
            out.append("%" + escape.upper())
            index += 3
            continue
        if char in allowed:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        index += 1
    return "".join(out)


def _split_authority(authority: str, policy: UrlPolicy) -> tuple[str, str | None]:
    """(host, port text or None); a bracketed IPv6 host keeps its brackets."""
    if authority.startswith("["):
        end = authority.find("]")
        if end == -1:
            raise _bad_host("has a [ without its closing ]", policy)
        after = authority[end + 1 :]
        if after and not after.startswith(":"):
            raise _bad_host("has characters after the ] of its address", policy)
        return authority[: end + 1], (after[1:] if after else None)
    host, colon, port = authority.rpartition(":")
    return (host, port) if colon else (authority, None)


def _checked_port(text: str | None, scheme: str, policy: UrlPolicy) -> int:
    default = DEFAULT_PORTS[scheme]
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 65535:
        raise GuardFailure(
            "url_bad_port", f"port {_shown(text)} is not from 1 to 65535"
        )
    port = int(text)
    if port != default and port not in policy.ports:
        ports = [str(p) for p in policy.ports]
        raise GuardFailure(
            "url_port_not_allowed",
            f"port {port} is not allowed",
            ports=f", or with port {alternatives(ports)}" if ports else "",
        )
    return port


def _checked_host(raw: str, policy: UrlPolicy) -> str:
    hosts = policy.hosts_text
    if raw.startswith("["):
        inner = raw[1:-1]
        try:
            v6 = ipaddress.IPv6Address(inner)
        except ValueError:
            raise _bad_host(f"{_shown(raw)} is not an IPv6 address", policy) from None
        if v6.scope_id is None and policy.allows_address(v6):
            return f"[{v6.compressed}]"
        raise GuardFailure(
            "url_ip_literal", f"host {_shown(raw)} is an IP address", hosts=hosts
        )
    if raw == "":
        raise _bad_host("has no host", policy)
    if "%" in raw:
        raise _bad_host(f"host {_shown(raw)} is percent-encoded", policy)
    trailing = raw.endswith(".")
    core = raw[:-1] if trailing else raw
    try:
        host = normalize_host(core)
    except (idna.IDNAError, UnicodeError):
        raise _bad_host(
            f"host {_shown(raw)} is not a valid host name", policy
        ) from None
    if host.endswith("."):  # a full stop of another script, mapped to "."
        trailing, host = True, host.rstrip(".")
    address = _ipv4_literal(host, policy)
    if address is not None:
        if policy.allows_address(address):
            return str(address)
        raise GuardFailure(
            "url_ip_literal", f"host {_shown(raw)} is an IP address", hosts=hosts
        )
    if trailing and not policy.allow_trailing_dot:
        raise GuardFailure("url_trailing_dot", f"host {_shown(raw)} ends with a dot")
    if policy.allows_name(host):
        return host
    imitated = policy.imitated(host)
    if imitated is not None:
        raise GuardFailure(
            "url_lookalike_host",
            f"host {_shown(raw)} is not allowed: it imitates {imitated}",
            lookalike_of=imitated,
        )
    raise GuardFailure(
        "url_host_not_allowed", f"host {_shown(raw)} is not allowed", hosts=hosts
    )


def check_url(text: str, policy: UrlPolicy) -> CheckedUrl:
    """Check a URL the model sent; raise `GuardFailure`."""
    schemes = alternatives([s + "://" for s in policy.schemes])
    example = f"{policy.schemes[0]}://{policy.hosts[0].removeprefix('*.')}/"
    if len(text) > policy.max_chars:
        raise GuardFailure(
            "url_too_long",
            f"has {len(text)} characters, longer than allowed",
            max_chars=policy.max_chars,
        )
    bad = _bad_character(text)
    if bad is not None:
        raise GuardFailure("url_bad_character", f"contains {_char_name(bad)}")
    match = _SCHEME.match(text)
    rest = text[match.end() :] if match else ""
    if match is None or "." in match.group(1) or rest[:1].isdigit():
        raise GuardFailure(
            "url_not_absolute",
            f"{_shown(text)} does not start with a scheme such as https://",
            schemes=schemes,
            example=example,
        )
    scheme = match.group(1).lower()
    if scheme not in policy.schemes:
        raise GuardFailure(
            "url_scheme_not_allowed",
            f"scheme {scheme!r} is not allowed",
            schemes=schemes,
        )
    if not rest.startswith("//"):
        raise GuardFailure(
            "url_not_absolute",
            f"{_shown(text)} has no // after {scheme}:",
            schemes=schemes,
            example=example,
        )
    rest = rest[2:]
    cut = min((i for i in (rest.find(c) for c in "/?#") if i != -1), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    userinfo: str | None = None
    if "@" in authority:
        if not policy.allow_userinfo:
            raise GuardFailure("url_userinfo", "has a user name or password before @")
        userinfo, _, authority = authority.rpartition("@")
        userinfo = _encoded(userinfo, _USERINFO_CHARS)
    raw_host, port_text = _split_authority(authority, policy)
    host = _checked_host(raw_host, policy)
    port = _checked_port(port_text, scheme, policy)
    tail, hash_mark, fragment = tail.partition("#")
    path, question, query = tail.partition("?")
    return CheckedUrl(
        requested=text,
        scheme=scheme,
        host=host,
        port=port,
        path=_encoded(path, _PATH_CHARS) or "/",
        query=_encoded(query, _QUERY_CHARS) if question else None,
        fragment=_encoded(fragment, _QUERY_CHARS) if hash_mark else None,
        userinfo=userinfo,
    )


@functools.lru_cache(maxsize=64)
def _from_list(guard: UrlGuard, hosts: tuple[str, ...]) -> UrlPolicy:
    return UrlPolicy(
        hosts=hosts,
        schemes=guard.schemes,
        ports=guard.ports,
        allow_userinfo=guard.allow_userinfo,
        allow_trailing_dot=guard.allow_trailing_dot,
        max_chars=guard.max_chars,
    )


@dataclass(frozen=True, slots=True)
class UrlGuard:
    """`Annotated[CheckedUrl, UrlGuard(hosts=("api.example.com",))]`: the field takes a JSON
    string and gives a `CheckedUrl`. `hosts_from` names a list of the validation context's
    boundaries (`Boundaries(hosts={name: (...)})`) whose hosts are allowed too."""

    hosts: tuple[str, ...]
    schemes: tuple[str, ...] = ("https",)
    ports: tuple[int, ...] = ()
    allow_userinfo: bool = False
    allow_trailing_dot: bool = False
    hosts_from: str | None = None
    max_chars: int = MAX_URL_CHARS
    policy: UrlPolicy | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.hosts and self.hosts_from is not None:
            # every host comes from the deployment's list, read at each call
            object.__setattr__(self, "policy", None)
            return
        object.__setattr__(
            self,
            "policy",
            UrlPolicy(
                hosts=self.hosts,
                schemes=self.schemes,
                ports=self.ports,
                allow_userinfo=self.allow_userinfo,
                allow_trailing_dot=self.allow_trailing_dot,
                max_chars=self.max_chars,
            ),
        )

    def check(self, value: object, context: Any) -> CheckedUrl:
        policy = self.policy
        if self.hosts_from is not None:
            # a run's: it loads the Agents SDK, which the compiler (checking a contract's
            # URLs with this module) never needs
            from toolgen_runtime.guards.scope import BoundariesMissing, scope_of

            scope = scope_of(
                context, f"the URL guard with hosts_from={self.hosts_from!r}"
            )
            extra = scope.boundaries.hosts.get(self.hosts_from, ())
            if policy is not None:
                policy = policy.with_hosts(extra)
            elif not extra:
                raise BoundariesMissing(
                    f"the URL guard takes its hosts from the list {self.hosts_from!r}, "
                    "which is empty or not configured: pass Boundaries(hosts="
                    f"{{{self.hosts_from!r}: (...)}}) or set "
                    f"TOOLGEN_HOSTS_{self.hosts_from.upper()}"
                )
            else:
                policy = _from_list(self, tuple(extra))
        assert policy is not None
        if not isinstance(value, str):
            from pydantic_core import PydanticKnownError  # on this error only

            raise PydanticKnownError("string_type")
        try:
            return check_url(value, policy)
        except GuardFailure as failure:
            raise as_pydantic_error(failure) from None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        def validate(value: object, info: ValidationInfo) -> CheckedUrl:
            return self.check(value, info.context)

        return core_schema.with_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda checked: checked.text
            ),
        )
