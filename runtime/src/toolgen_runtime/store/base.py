"""The store interface both backends keep, the answers of a claim, and the store's errors.

A record is one operation of one tool: `(scope, key)` is unique (the scope is the tool's name,
the key comes from `idempotency_key`). Its life:

    (absent) --claim--> running --complete--> done --retention passes--> (absent)
                          |  \\--release--> (absent)
                          \\--lease passes, a duplicate claims--> running (attempt + 1)

Who executes is decided by the unique constraint on `(scope, key)`: the first caller inserts
the record and gets `Claimed`; everyone else finds it. A running record carries a random
`token` that only its current holder knows: `complete`, `release` and `renew` match on it, so a
worker whose lease was taken over can no longer write (its `complete` raises `ClaimLost`).
"""

from __future__ import annotations

import abc
import secrets
from dataclasses import dataclass
from typing import TypeAlias

from toolgen_runtime.errors import ToolgenError

__all__ = [
    "ClaimLost",
    "ClaimState",
    "Claimed",
    "Completed",
    "Conflict",
    "InProgress",
    "Record",
    "Store",
    "StoreNotConfigured",
    "StoreUnavailable",
    "decide",
    "new_token",
]


class StoreUnavailable(ToolgenError):
    """The store cannot be read or written (file unwritable, database locked too long,
    server down): an infrastructure failure, so the run stops and the effect is not run."""


class StoreNotConfigured(ToolgenError):
    """No store URL was given, or it is not one this runtime can open."""


class ClaimLost(ToolgenError):
    """A worker tried to record an outcome for a claim it no longer holds: its lease ran out
    and another worker took the operation over (or it was released). The effect may have run
    twice; the run stops so that this is seen."""


@dataclass(frozen=True, slots=True)
class Claimed:
    """This caller holds the operation and must execute it, then `complete` or `release`.

    `attempt` is 1 for the first execution; more when earlier holders died (their leases ran
    out) and this caller took over: their effect may be half done, see docs/writes.md.
    """

    scope: str
    key: str
    token: str
    attempt: int
    lease_s: float
    retention_s: float

    @property
    def taken_over(self) -> bool:
        return self.attempt > 1


@dataclass(frozen=True, slots=True)
class Completed:
    """The operation was executed before: this is its recorded outcome."""

    outcome: str


@dataclass(frozen=True, slots=True)
class InProgress:
    """Another caller holds the operation and its lease is still running."""

    lease_remaining_s: float


@dataclass(frozen=True, slots=True)
class Conflict:
    """The key was used before with other arguments (another fingerprint)."""


ClaimState: TypeAlias = Claimed | Completed | InProgress | Conflict


@dataclass(frozen=True, slots=True)
class Record:
    """A stored record as both backends read it; times are seconds since the epoch."""

    fingerprint: str
    state: str  # "running" or "done"
    attempt: int
    lease_until: float | None
    expires_at: float
    outcome: str | None


# What a claim must do with the record it found.
REPLACE = "replace"  # absent in effect (past its retention): start afresh at attempt 1
TAKE_OVER = "take_over"  # running, lease expired, same arguments: attempt + 1


def decide(
    record: Record, fingerprint: str, now: float
) -> Completed | InProgress | Conflict | str:
    """What a claim finds in an existing record: an answer, or REPLACE / TAKE_OVER for the
    caller to write (under the backend's lock)."""
    if record.expires_at <= now:
        return REPLACE
    if record.fingerprint != fingerprint:
        return Conflict()
    if record.state == "done":
        assert record.outcome is not None
        return Completed(record.outcome)
    assert record.lease_until is not None
    if record.lease_until > now:
        return InProgress(record.lease_until - now)
    return TAKE_OVER


def new_token() -> str:
    return secrets.token_urlsafe(16)


def lost_message(claim: Claimed, url: str) -> str:
    return (
        f"the claim on {claim.scope} key {claim.key} in {url} is no longer this worker's: "
        f"its lease of {claim.lease_s:g} s ran out and another worker took the operation "
        "over, so this outcome was not recorded and the effect may have run twice. Keep "
        "the event loop free while an implementation runs (a blocking implementation stops "
        "the lease from being renewed), or give the tool a longer lease."
    )


def what_ran(after_effect: bool) -> str:
    """What a store that failed leaves done: nothing, when it failed before the effect; the
    effect, when it failed recording the outcome."""
    if not after_effect:
        return "Nothing was executed."
    return (
        "The effect ran, but its outcome was not recorded: the claim stays until its lease "
        "runs out, and a later call takes the operation over and runs it again."
    )


def check_durations(lease_s: float, retention_s: float) -> None:
    if not lease_s > 0:
        raise ValueError(f"lease_s must be positive, got {lease_s!r}")
    if not retention_s > 0:
        raise ValueError(f"retention_s must be positive, got {retention_s!r}")


class Store(abc.ABC):
    """Where idempotency records and used confirmation tokens live.

    Every method blocks (a database round trip): from async code call them in a thread, as
    `run_once` and `ConfirmationGate.redeem` do. A store object is safe to share between the
    threads of a process, and survives a fork (the child opens its own connections). Every
    failure of the database is raised as `StoreUnavailable`.
    """

    url: str
    """The store's URL with any password masked: safe to log."""

    @abc.abstractmethod
    def claim(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        *,
        lease_s: float,
        retention_s: float,
    ) -> ClaimState:
        """Claim an operation: `Claimed` if this caller must execute it (first, or taking
        over from a holder whose lease ran out), else what another caller left: `Completed`,
        `InProgress` or `Conflict`. The record is kept `retention_s` after its outcome."""

    @abc.abstractmethod
    def complete(self, claim: Claimed, outcome: str) -> None:
        """Record the outcome; raises `ClaimLost` if the claim is no longer this caller's."""

    @abc.abstractmethod
    def release(self, claim: Claimed) -> None:
        """Forget a claim whose execution failed before any effect, so a retry runs it.
        A claim that is no longer this caller's is left alone."""

    @abc.abstractmethod
    def renew(self, claim: Claimed) -> bool:
        """Extend the lease by `claim.lease_s` from now; False if the claim was lost."""

    @abc.abstractmethod
    def use_token(self, token_id: str, expires_at: float) -> bool:
        """Mark a single-use token as used: True the first time, False ever after (until
        `expires_at`, when the token itself is no longer accepted and the mark is purged)."""

    @abc.abstractmethod
    def purge_expired(self, limit: int = 1000) -> int:
        """Delete up to `limit` records past their retention (and used tokens past their
        expiry); returns how many. Claims also purge a few as they go."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close this process's connections; the store reopens them if used again."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"


# One claim in PURGE_EVERY purges up to PURGE_BATCH expired rows: in steady state that removes
# records as fast as claims make them, at the cost of one small indexed delete per hundred calls.
PURGE_EVERY = 100
PURGE_BATCH = 200
