"""Confirmation by token: a prepare tool issues a token, the confirm tool acts only on it.

The model cannot skip the prepare step, because only `prepare` can make a token: each is
signed (`Signer`, purpose "confirm", secret from TOOLGEN_SECRET) and bound to

- the tool that may redeem it (the confirm tool, by a digest of its name),
- the arguments it confirms (a digest: the confirm call must carry the same arguments),
- the identity from the run context (a digest: another user or session cannot use it),
- an expiry (`ttl_s`, default 10 minutes),

and is single use: redeeming it records its random id in the store under a unique constraint,
so a replay fails in any process that shares the store. The payload holds digests only,
never the arguments themselves (it is signed, not encrypted), so every token has
`TOKEN_CHARS` characters, whatever the tool's name, arguments and identity.

    gate = ConfirmationGate.from_environment(tool="send_order", prepare_tool="prepare_order")
    token = gate.issue(args, identity={"customer_id": 7})          # in prepare_order
    rejection = await gate.redeem(token, args, identity={"customer_id": 7})  # in send_order
    if rejection is not None:
        return json.dumps(rejection.envelope())                    # the effect never runs

Every way a token can be wrong has its own error code and how-to-fix (`token_errors`):
token_invalid (made up or altered), token_other_tool, token_other_identity, token_expired,
token_mismatch (other arguments), token_used (a replay). The checks run in that order, and all
but the last need no store, so a forged token costs nothing. A token is used up once it is
redeemed, before the effect runs: if the effect then fails, the user confirms again.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import math
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic_core import to_jsonable_python

from toolgen_runtime.errors import DeclaredError
from toolgen_runtime.signing import Signer, canonical
from toolgen_runtime.store import Store, default_store

__all__ = [
    "CONFIRM_PURPOSE",
    "DEFAULT_TTL_S",
    "TOKEN_CHARS",
    "TOKEN_ERROR_CODES",
    "TOKEN_EXPIRED",
    "TOKEN_INVALID",
    "TOKEN_MISMATCH",
    "TOKEN_OTHER_IDENTITY",
    "TOKEN_OTHER_TOOL",
    "TOKEN_USED",
    "Accepted",
    "ConfirmationGate",
    "TokenRejection",
    "token_errors",
]

CONFIRM_PURPOSE = "confirm"
DEFAULT_TTL_S = 600.0
# A used token's mark outlives the token by this much, so a worker whose clock is behind the
# store's still finds the mark while it would accept the token.
CLOCK_SKEW_MARGIN_S = 300.0

TOKEN_INVALID = "token_invalid"
TOKEN_OTHER_TOOL = "token_other_tool"
TOKEN_OTHER_IDENTITY = "token_other_identity"
TOKEN_EXPIRED = "token_expired"
TOKEN_MISMATCH = "token_mismatch"
TOKEN_USED = "token_used"

# in the order they are checked
TOKEN_ERROR_CODES = (
    TOKEN_INVALID,
    TOKEN_OTHER_TOOL,
    TOKEN_OTHER_IDENTITY,
    TOKEN_EXPIRED,
    TOKEN_MISMATCH,
    TOKEN_USED,
)


def _ttl_words(ttl_s: float) -> str:
    if ttl_s >= 120 and ttl_s % 60 == 0:
        return f"{ttl_s / 60:g} minutes"
    return f"{ttl_s:g} seconds"


def token_errors(
    tool: str, prepare_tool: str, ttl_s: float = DEFAULT_TTL_S
) -> dict[str, DeclaredError]:
    """The error codes of a confirm tool, each with how to fix it; none is retryable, since
    calling again with the same token cannot succeed."""
    again = f"Call {prepare_tool} again, show its summary to the user and ask them to approve"
    texts = {
        TOKEN_INVALID: (
            f"Nothing was done: this is not a token that {prepare_tool} issued (made up, "
            f"altered or cut short). Call {prepare_tool}, show its summary to the user, and "
            f"once they approve call {tool} with the token it returned, copied exactly."
        ),
        TOKEN_OTHER_TOOL: (
            f"Nothing was done: this token confirms another tool, not {tool}. Call "
            f"{prepare_tool} to get a token for {tool}."
        ),
        TOKEN_OTHER_IDENTITY: (
            "Nothing was done: this token was issued to another user or session and only "
            f"they can use it. {again}."
        ),
        TOKEN_EXPIRED: (
            f"Nothing was done: the token expired (a token lasts {_ttl_words(ttl_s)}). "
            f"{again} again."
        ),
        TOKEN_MISMATCH: (
            "Nothing was done: these arguments differ from the ones the token was issued "
            f"for. Call {tool} with exactly the arguments you gave {prepare_tool}; to change "
            f"them, call {prepare_tool} with the new arguments and ask the user to approve "
            "those."
        ),
        TOKEN_USED: (
            "Nothing was done now: this token was already used, so the action it confirmed "
            f"has already been carried out. Do not call {tool} with it again; if the user "
            f"wants the action once more, call {prepare_tool} again and ask them to approve."
        ),
    }
    return {
        code: DeclaredError(texts[code], retryable=False) for code in TOKEN_ERROR_CODES
    }


@dataclass(frozen=True, slots=True)
class TokenRejection:
    """Why a token was refused; the effect must not run."""

    code: str
    how_to_fix: str

    def envelope(self) -> dict[str, object]:
        """What the model receives, shaped as every declared error is."""
        return {
            "ok": False,
            "error": self.code,
            "how_to_fix": self.how_to_fix,
            "retryable": False,
        }


@dataclass(frozen=True, slots=True)
class Accepted:
    """A token that checks out; not yet used up (`redeem` does both)."""

    token_id: str
    expires_at: float


# The model copies the token from one call into the next: every character costs tokens and
# is a chance to miscopy one. 12-byte digests (96 bits against a second preimage) of the
# tool, the arguments and the identity, a 12-byte nonce and the expiry in milliseconds make
# every token this long (until the year 2286), under 200 characters.
_DIGEST_BYTES = 12
TOKEN_CHARS = 192


def _digest_of(value: Mapping[str, object]) -> str:
    raw = hashlib.sha256(canonical(to_jsonable_python(dict(value)))).digest()
    return base64.urlsafe_b64encode(raw[:_DIGEST_BYTES]).rstrip(b"=").decode("ascii")


class ConfirmationGate:
    """Issues and redeems the tokens of one prepare/confirm pair of tools."""

    __slots__ = (
        "_errors",
        "_signer",
        "_store",
        "_tool_digest",
        "prepare_tool",
        "tool",
        "ttl_s",
    )

    def __init__(
        self,
        *,
        tool: str,
        prepare_tool: str,
        signer: Signer,
        store: Store,
        ttl_s: float = DEFAULT_TTL_S,
    ) -> None:
        if signer.purpose != CONFIRM_PURPOSE:
            raise ValueError(
                f"a confirmation gate signs with purpose {CONFIRM_PURPOSE!r}, "
                f"got a signer for {signer.purpose!r}"
            )
        if not ttl_s > 0:
            raise ValueError(f"ttl_s must be positive, got {ttl_s!r}")
        self.tool = tool
        # the token names its tool by a digest: its length does not grow with the name
        self._tool_digest = _digest_of({"tool": tool})
        self.prepare_tool = prepare_tool
        self.ttl_s = ttl_s
        self._signer = signer
        self._store = store
        self._errors = token_errors(tool, prepare_tool, ttl_s)

    @classmethod
    def from_environment(
        cls,
        *,
        tool: str,
        prepare_tool: str,
        store: Store | None = None,
        ttl_s: float = DEFAULT_TTL_S,
        environ: Mapping[str, str] | None = None,
    ) -> ConfirmationGate:
        """A gate signing with TOOLGEN_SECRET (a `MissingSecret` now if it is not set) on the
        given store, or the process's `default_store()` (TOOLGEN_STORE_URL)."""
        signer = Signer.from_environment(CONFIRM_PURPOSE, environ)
        return cls(
            tool=tool,
            prepare_tool=prepare_tool,
            signer=signer,
            store=store if store is not None else default_store(),
            ttl_s=ttl_s,
        )

    @property
    def errors(self) -> dict[str, DeclaredError]:
        """The confirm tool's token error codes, to declare beside its own."""
        return dict(self._errors)

    def issue(self, args: Mapping[str, object], identity: Mapping[str, object]) -> str:
        """A token confirming `args` for `identity`, valid for `ttl_s`, usable once."""
        payload = {
            "t": self._tool_digest,
            "a": _digest_of(args),
            "i": _digest_of(identity),
            "x": math.ceil((time.time() + self.ttl_s) * 1000),
            "n": secrets.token_urlsafe(_DIGEST_BYTES),
        }
        return self._signer.sign(payload)

    def _reject(self, code: str) -> TokenRejection:
        return TokenRejection(code, self._errors[code].how_to_fix)

    def check(
        self,
        token: object,
        args: Mapping[str, object],
        identity: Mapping[str, object],
    ) -> TokenRejection | Accepted:
        """Everything but single use: signature, tool, identity, expiry, arguments."""
        payload = self._signer.verify(token)
        if payload is None:
            return self._reject(TOKEN_INVALID)
        tool, bound_args, bound_identity, expiry_ms, nonce = (
            payload.get(name) for name in ("t", "a", "i", "x", "n")
        )
        if not (
            isinstance(tool, str)
            and isinstance(bound_args, str)
            and isinstance(bound_identity, str)
            and isinstance(expiry_ms, int)
            and isinstance(nonce, str)
        ):
            return self._reject(TOKEN_INVALID)
        if tool != self._tool_digest:
            return self._reject(TOKEN_OTHER_TOOL)
        if bound_identity != _digest_of(identity):
            return self._reject(TOKEN_OTHER_IDENTITY)
        expires_at = expiry_ms / 1000
        if expires_at <= time.time():
            return self._reject(TOKEN_EXPIRED)
        if bound_args != _digest_of(args):
            return self._reject(TOKEN_MISMATCH)
        return Accepted(nonce, expires_at)

    def redeem_sync(
        self,
        token: object,
        args: Mapping[str, object],
        identity: Mapping[str, object],
    ) -> TokenRejection | None:
        """Check the token and use it up: None means the effect may run, now and only now.
        Blocks on the store; `StoreUnavailable` if it fails (the effect must not run)."""
        checked = self.check(token, args, identity)
        if isinstance(checked, TokenRejection):
            return checked
        if not self._store.use_token(
            checked.token_id, checked.expires_at + CLOCK_SKEW_MARGIN_S
        ):
            return self._reject(TOKEN_USED)
        return None

    async def redeem(
        self,
        token: object,
        args: Mapping[str, object],
        identity: Mapping[str, object],
    ) -> TokenRejection | None:
        """`redeem_sync` without blocking the event loop."""
        return await asyncio.to_thread(self.redeem_sync, token, args, identity)
