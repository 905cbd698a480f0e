"""read_supplier_notice: a page of the supplier portal.

The generated module checked `args.url` before this runs against the contract: https, the
host suppliers.example.com and nothing that imitates it, no user name, no IP address, the
default port. The guard checks names, not addresses: what the name resolves to is checked
here, by `fetch`, which refuses every address that is not globally reachable (unless the
deployment allows a network) and connects to the address it checked, so a second DNS
answer cannot lead it elsewhere. It never follows a redirect, and it gives up after
`timeout` seconds in all. Whatever the portal does wrong reaches this code as one
exception, `FetchFailed`, which is the declared `portal_unreachable` with its reason.

A deployment may send the portal's requests through a gateway of its own
(`route_through`): the path and query the model asked for are kept, the gateway's address
is the deployment's.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import TypeAdapter, ValidationError
from toolgen_runtime.guards import CheckedUrl, UrlPolicy, check_url
from toolgen_runtime.guards.fetch import FetchFailed, fetch

from generated.inventory.read_supplier_notice import (
    ReadSupplierNoticeArgs,
    ReadSupplierNoticeError,
    ReadSupplierNoticeResult,
)

_MAX_BYTES = 64_000


@dataclass(frozen=True, slots=True)
class Gateway:
    """Where the portal's requests go instead of the portal's own address."""

    origin: str  # such as http://127.0.0.1:8080
    allow_networks: tuple[str, ...] = ()
    timeout_s: float = 10.0


_gateway: Gateway | None = None


def route_through(gateway: Gateway | None) -> None:
    """Send the portal's requests through `gateway` (None: to the portal itself)."""
    global _gateway
    _gateway = gateway


def _target(url: CheckedUrl) -> tuple[CheckedUrl, tuple[str, ...], float]:
    gateway = _gateway
    if gateway is None:
        return url, (), 10.0
    scheme, _, authority = gateway.origin.partition("://")
    host, _, port = authority.partition(":")
    policy = UrlPolicy(
        hosts=(host,),
        schemes=(scheme,),
        ports=(int(port),) if port else (),
    )
    routed = check_url(gateway.origin + url.target, policy)
    return routed, gateway.allow_networks, gateway.timeout_s


def read_supplier_notice(args: ReadSupplierNoticeArgs) -> ReadSupplierNoticeResult:
    target, networks, timeout = _target(args.url)
    try:
        answer = fetch(
            target,
            headers={"Host": args.url.host, "Accept": "application/json"},
            allow_networks=networks,
            timeout=timeout,
            max_bytes=_MAX_BYTES,
        )
    except FetchFailed as exc:
        raise ReadSupplierNoticeError("portal_unreachable", reason=exc.reason) from exc
    if answer.status >= 400:
        raise ReadSupplierNoticeError("portal_unreachable", status_code=answer.status)
    # the page is outside text: only the fields below are taken from it, each checked, so
    # nothing the portal writes reaches the model as words
    try:
        return _notice.validate_json(answer.body)
    except ValidationError:
        raise ReadSupplierNoticeError("notice_unreadable") from None


_notice = TypeAdapter(ReadSupplierNoticeResult)
