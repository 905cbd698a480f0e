"""Signed, tamper-evident text for the model to carry: confirmation tokens, pagination cursors.

The model may copy such a text back into a later call, but it cannot make one up or change one:
each is `<payload>.<mac>`, the payload canonical JSON in base64url and the MAC an HMAC-SHA256 of
it under a key derived for one purpose only, so a cursor can never pass for a token. The secret
comes from the environment (`TOOLGEN_SECRET`), never from a default: without it, building a tool
that needs one fails at start-up with `MissingSecret`. `TOOLGEN_SECRET_PREVIOUS` (optional) is
still accepted when verifying, so a secret can be rotated without breaking what is in flight.

A payload is readable by whoever holds the text (it is signed, not encrypted): put digests in it,
never the values themselves.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from collections.abc import Mapping, Sequence

from toolgen_runtime.errors import ToolgenError

__all__ = [
    "MAX_SIGNED_LENGTH",
    "PREVIOUS_SECRET_ENV",
    "SECRET_ENV",
    "MissingSecret",
    "Signer",
    "canonical",
    "digest",
    "secret_from_environment",
]

SECRET_ENV = "TOOLGEN_SECRET"
PREVIOUS_SECRET_ENV = "TOOLGEN_SECRET_PREVIOUS"
MIN_SECRET_BYTES = 32
# A signed text longer than this was not made here: it is refused before any decoding.
MAX_SIGNED_LENGTH = 2048


class MissingSecret(ToolgenError):
    """The secret that signs tokens and cursors is not configured, or too short."""


def secret_from_environment(
    environ: Mapping[str, str] | None = None,
) -> tuple[bytes, ...]:
    """The signing secrets: the current one first, then the previous one if set."""
    env = os.environ if environ is None else environ
    found = []
    for name in (SECRET_ENV, PREVIOUS_SECRET_ENV):
        value = env.get(name, "")
        if not value:
            if name == SECRET_ENV:
                raise MissingSecret(
                    f"{SECRET_ENV} is not set: tools with confirmation tokens or paginated "
                    "results sign what the model carries with it. Set it to at least "
                    f"{MIN_SECRET_BYTES} random bytes, for example the output of "
                    "`python -c 'import secrets; print(secrets.token_urlsafe(48))'`, the "
                    "same value in every worker."
                )
            continue
        secret = value.encode()
        if len(secret) < MIN_SECRET_BYTES:
            raise MissingSecret(
                f"{name} has {len(secret)} bytes; use at least {MIN_SECRET_BYTES} random bytes"
            )
        found.append(secret)
    return tuple(found)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(value: object) -> bytes:
    """One byte string per JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()


def digest(value: object) -> str:
    """A short, stable digest of a JSON value (arguments, filters, an identity)."""
    return _b64(hashlib.sha256(canonical(value)).digest()[:18])


class Signer:
    """Signs and verifies payloads for one purpose ("confirm", "cursor", ...)."""

    __slots__ = ("_keys", "purpose")

    def __init__(self, secrets: Sequence[bytes], purpose: str) -> None:
        if not secrets:
            raise MissingSecret("a Signer needs at least one secret")
        self.purpose = purpose
        label = f"toolgen/{purpose}".encode()
        self._keys = tuple(
            hmac.new(secret, label, hashlib.sha256).digest() for secret in secrets
        )

    @classmethod
    def from_environment(
        cls, purpose: str, environ: Mapping[str, str] | None = None
    ) -> Signer:
        return cls(secret_from_environment(environ), purpose)

    def _mac(self, key: bytes, body: str) -> str:
        return _b64(hmac.new(key, body.encode("ascii"), hashlib.sha256).digest())

    def sign(self, payload: Mapping[str, object]) -> str:
        body = _b64(canonical(dict(payload)))
        return f"{body}.{self._mac(self._keys[0], body)}"

    def verify(self, text: object) -> dict[str, object] | None:
        """The payload of a text this signer made, or None for anything else (made up,
        altered, signed for another purpose or with an unknown secret, too long)."""
        if not isinstance(text, str) or len(text) > MAX_SIGNED_LENGTH:
            return None
        body, dot, mac = text.partition(".")
        if not dot or not body or not mac or not body.isascii() or not mac.isascii():
            return None
        if not any(
            hmac.compare_digest(self._mac(key, body), mac) for key in self._keys
        ):
            return None
        try:
            payload = json.loads(_unb64(body))
        except (binascii.Error, ValueError):
            return None
        return payload if isinstance(payload, dict) else None
