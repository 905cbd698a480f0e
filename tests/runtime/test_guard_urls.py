"""The URL guard: an attack corpus through a real FunctionTool, and what a passing URL becomes.

Every rejected case asserts its code, that the problem names the field, and that the
implementation was never called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import idna
import pytest
from pydantic import BaseModel, ConfigDict
from test_guard_harness import guarded_tool
from toolgen_runtime.guards import (
    CODES,
    Boundaries,
    CheckedUrl,
    GuardFailure,
    UrlGuard,
    UrlPolicy,
    check_url,
)
from toolgen_runtime.guards.urls import normalize_host
from toolgen_runtime.testing import Recorder, invoke

HOSTS = ("api.example.com", "*.cdn.example.org")


class FetchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    url: Annotated[CheckedUrl, UrlGuard(hosts=HOSTS)]


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str


def fetcher() -> tuple[Any, Recorder]:
    recorder = Recorder(Fetched(""))
    return guarded_tool(FetchArgs, recorder, result_type=Fetched), recorder


CYRILLIC_API = "\u0430pi.example.com"  # a Cyrillic a (U+0430)
ATTACKS = [
    # other hosts, and hosts hidden behind the allowed one
    ("https://evil.example/", "url_host_not_allowed"),
    ("https://example.com/", "url_host_not_allowed"),
    ("https://api.example.com.evil.example/", "url_host_not_allowed"),
    ("https://evil.example#@api.example.com", "url_host_not_allowed"),
    ("https://evil.example?@api.example.com", "url_host_not_allowed"),
    ("https://cdn.example.org/", "url_host_not_allowed"),  # the wildcard's own apex
    ("https://api.example.com@evil.example/", "url_userinfo"),
    ("https://user:secret@api.example.com/", "url_userinfo"),
    ("https://api.example.com\\@evil.example/", "url_bad_character"),
    # every form of an IP literal
    ("https://127.0.0.1/", "url_ip_literal"),
    ("https://169.254.169.254/latest/meta-data/", "url_ip_literal"),
    ("https://2130706433/", "url_ip_literal"),  # decimal
    ("https://0177.0.0.1/", "url_ip_literal"),  # octal
    ("https://017700000001/", "url_ip_literal"),
    ("https://0x7f.0.0.1/", "url_ip_literal"),  # hex
    ("https://0x7f000001/", "url_ip_literal"),
    ("https://0x7F.1/", "url_ip_literal"),
    ("https://127.1/", "url_ip_literal"),  # short forms
    ("https://10.1/", "url_ip_literal"),
    ("https://127.0.0.1./", "url_ip_literal"),
    (
        "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/",
        "url_ip_literal",
    ),  # full-width
    ("https://[::1]/", "url_ip_literal"),  # IPv6
    ("https://[0:0:0:0:0:0:0:1]/", "url_ip_literal"),
    ("https://[::ffff:127.0.0.1]/", "url_ip_literal"),  # IPv4-mapped
    ("https://[::ffff:7f00:1]/", "url_ip_literal"),
    ("https://[fe80::1%25eth0]/", "url_ip_literal"),  # with a zone
    ("https://[64:ff9b::a9fe:a9fe]/", "url_ip_literal"),  # NAT64 of 169.254.169.254
    ("https://1.2.3.4.5/", "url_bad_host"),
    ("https://256.1.1.1/", "url_bad_host"),
    ("https://0x100000000/", "url_bad_host"),
    ("https://1.2.3.08/", "url_bad_host"),  # 08 is no octal number
    ("https://api.example.0x1/", "url_bad_host"),
    ("https://[127.0.0.1]/", "url_bad_host"),
    ("https://[::1/", "url_bad_host"),
    # ports
    ("https://api.example.com:8443/", "url_port_not_allowed"),
    ("https://api.example.com:80/", "url_port_not_allowed"),
    ("https://api.example.com:0/", "url_bad_port"),
    ("https://api.example.com:65536/", "url_bad_port"),
    ("https://api.example.com:/", "url_bad_port"),
    ("https://api.example.com:44a/", "url_bad_port"),
    ("https://api.example.com:\uff14\uff14\uff13/", "url_bad_port"),
    # schemes
    ("http://api.example.com/", "url_scheme_not_allowed"),
    ("ftp://api.example.com/", "url_scheme_not_allowed"),
    ("file:///etc/passwd", "url_scheme_not_allowed"),
    ("javascript:alert(1)", "url_scheme_not_allowed"),
    ("data:text/html,hello", "url_scheme_not_allowed"),
    ("gopher://api.example.com/", "url_scheme_not_allowed"),
    ("api.example.com/v1", "url_not_absolute"),
    ("//api.example.com/v1", "url_not_absolute"),
    ("https:api.example.com", "url_not_absolute"),
    ("https:/api.example.com", "url_not_absolute"),
    ("localhost:8080/x", "url_not_absolute"),
    # IDNA look-alikes, in Unicode and in punycode, and ASCII typosquats
    (f"https://{CYRILLIC_API}/", "url_lookalike_host"),
    (f"https://{idna.encode(CYRILLIC_API).decode()}/", "url_lookalike_host"),
    ("https://api.ex\u0430mple.com/", "url_lookalike_host"),
    ("https://api.\u0435x\u0430mple.com/", "url_lookalike_host"),
    ("https://api.exam\u03c1le.com/", "url_lookalike_host"),  # Greek rho
    ("https://api.exämple.com/", "url_lookalike_host"),
    ("https://api.examp1e.com/", "url_lookalike_host"),
    ("https://api.exarnple.com/", "url_lookalike_host"),
    ("https://img.cdn.\u0435xample.org/", "url_lookalike_host"),
    ("https://xn--zz.example.com/", "url_bad_host"),  # not valid punycode
    ("https://api%2eexample.com/", "url_bad_host"),
    ("https://ap%69.example.com/", "url_bad_host"),
    ("https://api..example.com/", "url_bad_host"),
    ("https://-api.example.com/", "url_bad_host"),
    ("https://api_v1.example.com/", "url_bad_host"),
    ("https:///path", "url_bad_host"),
    # trailing dots, in ASCII and in other scripts
    ("https://api.example.com./", "url_trailing_dot"),
    ("https://api.example.com\u3002/", "url_trailing_dot"),
    # characters a parser may read in its own way
    ("https://api.example.com/a b", "url_bad_character"),
    ("https://api.example.com/\t", "url_bad_character"),
    ("https://api.exa\u200bmple.com/", "url_bad_character"),
    ("https://api.example.com/\u202e", "url_bad_character"),
    ("https://api.example.com/%zz", "url_bad_character"),
    (" https://api.example.com/", "url_bad_character"),
    ("https://api.example.com/" + "a" * 2100, "url_too_long"),
]

FILL = {
    "hosts": "api.example.com or *.cdn.example.org",
    "schemes": "https://",
    "example": "https://api.example.com/",
    "example_host": "api.example.com",
    "ports": "",
    "max_chars": 2048,
}


@pytest.mark.parametrize(
    ("url", "code"), ATTACKS, ids=[repr(a[0])[:50] for a in ATTACKS]
)
def test_attack_is_rejected_with_its_code_and_never_reaches_the_implementation(
    url: str, code: str
) -> None:
    tool, recorder = fetcher()
    out = invoke(tool, {"url": url}, None)
    assert out["ok"] is False and out["error"] == "invalid_arguments"
    [problem] = out["problems"]
    assert (problem["field"], problem["code"]) == ("url", code)
    lookalike_of = {"url_lookalike_host": {"lookalike_of": _imitated(url)}}
    fill = {**FILL, **lookalike_of.get(code, {})}
    assert problem["how_to_fix"] == CODES[code].how_to_fix.format(**fill)
    assert recorder.calls == []


def _imitated(url: str) -> str:
    return "cdn.example.org" if "cdn" in url else "api.example.com"


def test_every_url_code_is_in_the_corpus() -> None:
    url_codes = {c.code for c in CODES.values() if c.guard == "url"}
    assert url_codes == {code for _, code in ATTACKS}


ACCEPTED = [
    ("https://api.example.com/v1/items?q=1", "https://api.example.com/v1/items?q=1"),
    ("https://api.example.com", "https://api.example.com/"),
    ("HTTPS://API.Example.COM:443/x", "https://api.example.com/x"),
    ("https://\uff41\uff50\uff49.example.com/", "https://api.example.com/"),  # UTS-46 maps it
    ("https://api.example.com/caf\u00e9?q=\u00e9", "https://api.example.com/caf%C3%A9?q=%C3%A9"),
    ("https://api.example.com/a%2fb", "https://api.example.com/a%2Fb"),
    ("https://api.example.com/a\"<>b", "https://api.example.com/a%22%3C%3Eb"),
    ("https://api.example.com/x#part", "https://api.example.com/x"),
    ("https://img.cdn.example.org/a.png", "https://img.cdn.example.org/a.png"),
    ("https://a.b.cdn.example.org/", "https://a.b.cdn.example.org/"),
]  # fmt: skip


@pytest.mark.parametrize(("url", "text"), ACCEPTED)
def test_the_implementation_receives_the_url_rebuilt_from_its_checked_parts(
    url: str, text: str
) -> None:
    tool, recorder = fetcher()
    assert invoke(tool, {"url": url}, None)["ok"] is True
    checked = recorder.calls[0].args.url
    assert isinstance(checked, CheckedUrl)
    assert (checked.text, checked.requested) == (text, url)


def test_a_checked_url_has_its_parts() -> None:
    checked = check_url(
        "https://api.example.com/v1/items?q=1#top", UrlPolicy(hosts=HOSTS)
    )
    assert (checked.scheme, checked.host, checked.port) == (
        "https",
        "api.example.com",
        443,
    )
    assert (checked.path, checked.query, checked.fragment) == (
        "/v1/items",
        "q=1",
        "top",
    )
    assert (
        checked.target == "/v1/items?q=1"
        and checked.origin == "https://api.example.com"
    )


def test_what_the_contract_allows_is_allowed() -> None:
    policy = UrlPolicy(
        hosts=("api.example.com", "10.20.0.5", "::1", "b\u00fccher.example"),
        schemes=("https", "http"),
        ports=(8443,),
        allow_userinfo=True,
        allow_trailing_dot=True,
    )
    cases = {
        "http://api.example.com/": "http://api.example.com/",
        "https://api.example.com:8443/": "https://api.example.com:8443/",
        "https://api.example.com./": "https://api.example.com/",
        "https://10.20.0.5/": "https://10.20.0.5/",
        "https://012.20.0.5/": "https://10.20.0.5/",
        "https://[::1]/": "https://[::1]/",
        "https://[::ffff:0a14:0005]/": None,  # an allowed IPv4, written as IPv6
        "https://b\u00fccher.example/": "https://xn--bcher-kva.example/",
        "https://xn--bcher-kva.example/": "https://xn--bcher-kva.example/",
    }
    for url, text in cases.items():
        checked = check_url(url, policy)
        assert text is None or checked.text == text, url
    assert check_url("https://user:pw@api.example.com/", policy).userinfo == "user:pw"
    assert (
        check_url("https://b\u00fccher.example/", policy).unicode_host
        == "b\u00fccher.example"
    )
    with pytest.raises(GuardFailure) as caught:
        check_url("https://api.example.com:9000/", policy)
    assert caught.value.how_to_fix == "Send the URL without a port, or with port 8443."


@pytest.mark.parametrize("hosts", [(), ("bad host",), ("a..b",), ("exa_mple.com",)])
def test_a_policy_with_a_broken_host_stops_the_start_up(hosts: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        UrlPolicy(hosts=hosts)


def test_a_policy_knows_only_http_and_https() -> None:
    with pytest.raises(ValueError, match="schemes"):
        UrlPolicy(hosts=HOSTS, schemes=("ftp",))


class PartnerArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    url: Annotated[
        CheckedUrl, UrlGuard(hosts=("api.example.com",), hosts_from="partners")
    ]


def test_configuration_can_add_hosts_the_model_cannot() -> None:
    recorder = Recorder(Fetched(""))
    boundaries = Boundaries(hosts={"partners": ("partner.example.net",)})
    tool = guarded_tool(
        PartnerArgs, recorder, boundaries=boundaries, result_type=Fetched
    )
    assert invoke(tool, {"url": "https://partner.example.net/x"}, None)["ok"] is True
    assert invoke(tool, {"url": "https://api.example.com/x"}, None)["ok"] is True
    out = invoke(tool, {"url": "https://other.example.net/"}, None)
    assert out["problems"][0]["code"] == "url_host_not_allowed"
    assert len(recorder.calls) == 2


@pytest.mark.parametrize(
    "host",
    [
        "api.example.com", "API.Example.COM", "a", "a-b.c", "1.2.3", "0x7f", "x" * 63 + ".com",
        "x" * 64 + ".com", "ab--cd.com", "xn--bcher-kva.de", "-a.com", "a-.com", "a..b",
        "a_b.com", ".".join(["abcdefgh"] * 28), "b\u00fccher.de", "\uff41pi.com", "",
    ],
)  # fmt: skip
def test_the_plain_ascii_shortcut_agrees_with_idna(host: str) -> None:
    def by_idna() -> str:
        encoded: bytes = idna.encode(
            host, uts46=True, std3_rules=True, transitional=False
        )
        return encoded.decode("ascii").lower()

    try:
        expected: str | None = by_idna()
    except (idna.IDNAError, UnicodeError):
        expected = None
    try:
        got: str | None = normalize_host(host)
    except (idna.IDNAError, UnicodeError):
        got = None
    assert got == expected
