"""Execute an operation once per key, whoever calls and however often: `run_once`.

The whole protocol around one tool call:

1. `claim` the key. The first caller executes; a caller that finds the outcome returns it
   (`duplicate` true); one that finds the operation running waits for its outcome, polling,
   up to `wait_s`, then answers `operation_in_progress`; one whose arguments differ from those
   the key was first used with answers `idempotency_conflict`. Neither of the last two runs
   anything.
2. While `execute` runs, its lease is renewed every third of `lease_s`, so only a worker that
   died (or blocks its event loop) loses the operation, `lease_s` after its last renewal.
   With `deferred_start` (a blocking implementation, queued for a worker thread), the lease
   is renewed only once the effect has started (`effect_starts()`, called where it begins):
   a live event loop alone keeps nothing, so a claim whose effect never starts (every worker
   thread busy, a pool that did not survive a fork) runs out like a dead worker's. An effect
   that starts after that finds its claim taken over and does not run: the call answers
   `operation_in_progress`, the taker's outcome being on its way.
3. What `execute` returns is recorded and returned: the success envelope or a declared error's
   envelope, as text. Returning `Outcome(text, record=False)` (a retryable declared error:
   nothing was done, trying again may work) releases the claim instead, so the same call can
   run again.
4. An exception from `execute` (an infrastructure failure) releases the claim, so a retry runs,
   and propagates: the run stops. Cancellation (the SDK's tool timeout) does not release: the
   effect may still be under way in a thread, so the claim stays until its lease runs out.

Store failures raise `StoreUnavailable` before anything is executed.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pydantic_core import to_jsonable_python

from toolgen_runtime.errors import ContractViolation, DeclaredError
from toolgen_runtime.signing import digest
from toolgen_runtime.store.base import (
    Claimed,
    ClaimLost,
    Completed,
    Conflict,
    InProgress,
    Store,
)

__all__ = [
    "DEFAULT_LEASE_S",
    "DEFAULT_RETENTION_S",
    "DEFAULT_WAIT_S",
    "IDEMPOTENCY_CONFLICT",
    "OPERATION_IN_PROGRESS",
    "Once",
    "Outcome",
    "effect_starts",
    "fingerprint",
    "idempotency_errors",
    "idempotency_key",
    "mark_duplicate",
    "run_once",
]

# A live worker renews its lease every third of it, so the lease only bounds how long a dead
# worker's operation stays blocked, not how long an implementation may run.
DEFAULT_LEASE_S = 30.0
DEFAULT_RETENTION_S = 24 * 3600.0
DEFAULT_WAIT_S = 10.0

IDEMPOTENCY_CONFLICT = "idempotency_conflict"
OPERATION_IN_PROGRESS = "operation_in_progress"

_FIRST_POLL_S = 0.01
_MAX_POLL_S = 0.25


def _jsonable(value: Mapping[str, object]) -> object:
    return to_jsonable_python(dict(value))


def idempotency_key(
    tool: str, args: Mapping[str, object], context: Mapping[str, object]
) -> str:
    """The key of one operation: the tool, the named arguments and the named context fields
    (the run id, say), as canonical JSON, digested. Dates and other pydantic-known values
    are turned into their JSON form first, so equal values give equal keys."""
    return digest(
        {"tool": tool, "args": _jsonable(args), "context": _jsonable(context)}
    )


def fingerprint(
    args: Mapping[str, object], context: Mapping[str, object] | None = None
) -> str:
    """What must be equal for a repeated key to be the same operation: every argument (and
    the given context fields)."""
    return digest({"args": _jsonable(args), "context": _jsonable(context or {})})


def idempotency_errors(
    tool: str, key_fields: Sequence[str] = ()
) -> dict[str, DeclaredError]:
    """The two envelopes `run_once` may answer with instead of executing, for `tool`.

    `key_fields` names the arguments the key is made of, so the fix can name them."""
    fields = " and ".join(key_fields) if key_fields else "operation key"
    return {
        IDEMPOTENCY_CONFLICT: DeclaredError(
            how_to_fix=(
                f"Nothing was done: {tool} was already called with the same {fields} and "
                "other arguments. To get the outcome of that call, call again with exactly "
                f"its arguments; for a new operation, use a new {fields}."
            ),
            retryable=False,
        ),
        OPERATION_IN_PROGRESS: DeclaredError(
            how_to_fix=(
                f"Nothing new was started: the same {tool} operation from an earlier call is "
                "still running. Call again with the same arguments in a few seconds to get "
                "its outcome."
            ),
            retryable=True,
        ),
    }


def _dumps(payload: Mapping[str, object]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _envelope(code: str, declared: DeclaredError) -> str:
    return _dumps(
        {
            "ok": False,
            "error": code,
            "how_to_fix": declared.how_to_fix,
            "retryable": declared.retryable,
        }
    )


def mark_duplicate(text: str) -> str:
    """A recorded envelope as a repeat returns it: `"duplicate": true` right after `ok`."""
    try:
        envelope = json.loads(text)
    except ValueError:
        envelope = None
    if not isinstance(envelope, dict) or "ok" not in envelope:
        raise ContractViolation(
            f"a recorded outcome is not an envelope (a JSON object with ok): {text[:80]!r}"
        )
    marked: dict[str, object] = {"ok": envelope.pop("ok"), "duplicate": True}
    marked.update(envelope)
    return _dumps(marked)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What `execute` returns when it must say more than the text: `record=False` for a
    retryable declared error, whose claim is released instead of recorded."""

    text: str
    record: bool = True


class Once(NamedTuple):
    """The answer of `run_once`: the outcome text, and whether it is an earlier call's."""

    text: str
    duplicate: bool

    @property
    def model_text(self) -> str:
        """What the model receives: a repeat carries `"duplicate": true`."""
        return mark_duplicate(self.text) if self.duplicate else self.text


Execute = Callable[[Claimed], Awaitable[str | Outcome]]


@dataclass(frozen=True, slots=True)
class _Execution:
    """One claimed operation being executed, as `effect_starts` finds it."""

    store: Store
    claim: Claimed
    claimed_at: float  # time.monotonic() before the claim was asked for
    started: threading.Event


# the operation the current task executes; a worker thread gets a copy of the context
_EXECUTION: contextvars.ContextVar[_Execution | None] = contextvars.ContextVar(
    "toolgen_run_once_execution", default=None
)


def effect_starts() -> None:
    """Say that the effect of the operation `run_once(..., deferred_start=True)` executes
    starts now, in whichever thread it runs (the context is copied there); elsewhere it
    does nothing. From now on the lease is renewed. If the claim is no longer this
    caller's (the effect started so late that the lease ran out and a duplicate took the
    operation over), it raises `ClaimLost` and the effect must not run. Blocks on the
    store only when the start comes late: in the first half of the lease the claim is
    certainly still held."""
    execution = _EXECUTION.get()
    if execution is None or execution.started.is_set():
        return
    claim = execution.claim
    late = time.monotonic() - execution.claimed_at >= claim.lease_s / 2
    if late and not execution.store.renew(claim):
        raise ClaimLost(
            f"the claim on {claim.scope} key {claim.key} ran out before its effect "
            f"started (its lease is {claim.lease_s:g} s) and another caller took the "
            "operation over: this call did not run it"
        )
    execution.started.set()


async def run_once(
    store: Store,
    *,
    scope: str,
    key: str,
    fingerprint: str,
    execute: Execute,
    lease_s: float = DEFAULT_LEASE_S,
    retention_s: float = DEFAULT_RETENTION_S,
    wait_s: float = DEFAULT_WAIT_S,
    key_fields: Sequence[str] = (),
    deferred_start: bool = False,
) -> Once:
    """Execute `execute` at most once for `(scope, key)` (see the module docstring).

    `scope` is the tool's name; `key` from `idempotency_key`; `fingerprint` from
    `fingerprint`; `execute` receives the claim (`claim.taken_over` tells it a previous
    holder died mid-way) and returns the envelope text to record. With `deferred_start`,
    the effect starts when `effect_starts()` says so, not when `execute` is called.
    """
    deadline = time.monotonic() + wait_s
    poll = _FIRST_POLL_S
    while True:
        claimed_at = time.monotonic()
        state = await asyncio.to_thread(
            store.claim,
            scope,
            key,
            fingerprint,
            lease_s=lease_s,
            retention_s=retention_s,
        )
        if isinstance(state, Claimed):
            break
        if isinstance(state, Completed):
            return Once(state.outcome, duplicate=True)
        errors = idempotency_errors(scope, key_fields)
        if isinstance(state, Conflict):
            return Once(
                _envelope(IDEMPOTENCY_CONFLICT, errors[IDEMPOTENCY_CONFLICT]), False
            )
        assert isinstance(state, InProgress)
        left = deadline - time.monotonic()
        if left <= 0:
            return Once(
                _envelope(OPERATION_IN_PROGRESS, errors[OPERATION_IN_PROGRESS]), False
            )
        # a little past the holder's lease, so a dead holder is taken over at once
        await asyncio.sleep(min(poll, left, state.lease_remaining_s + 0.005))
        poll = min(poll * 1.5, _MAX_POLL_S)
    execution = _Execution(store, state, claimed_at, threading.Event())
    if not deferred_start:
        execution.started.set()
    token = _EXECUTION.set(execution)
    try:
        return await _execute_claimed(execution, execute, key_fields)
    finally:
        _EXECUTION.reset(token)


async def _execute_claimed(
    execution: _Execution, execute: Execute, key_fields: Sequence[str]
) -> Once:
    store, claim = execution.store, execution.claim
    heartbeat = asyncio.create_task(_keep_leased(execution))
    try:
        result = await execute(claim)
    except asyncio.CancelledError:
        heartbeat.cancel()
        raise
    except BaseException as exc:
        heartbeat.cancel()
        if isinstance(exc, ClaimLost) and not execution.started.is_set():
            # lost before the effect started: nothing ran here, and the taker runs it
            errors = idempotency_errors(claim.scope, key_fields)
            text = _envelope(OPERATION_IN_PROGRESS, errors[OPERATION_IN_PROGRESS])
            return Once(text, duplicate=False)
        try:
            await asyncio.shield(asyncio.to_thread(store.release, claim))
        except Exception as release_failed:
            exc.add_note(
                f"releasing the claim failed too ({release_failed}); its lease of "
                f"{claim.lease_s:g} s will run out instead"
            )
        raise
    heartbeat.cancel()
    outcome = result if isinstance(result, Outcome) else Outcome(result)
    if not isinstance(outcome.text, str):
        await asyncio.to_thread(store.release, claim)
        raise ContractViolation(
            f"{claim.scope}: execute must return the envelope text or an Outcome, "
            f"got {type(outcome.text).__name__}"
        )
    if outcome.record:
        # a failure here leaves the record running: the effect happened, so the claim must
        # not be released; its lease runs out and a later call takes over (attempt 2)
        await asyncio.to_thread(store.complete, claim, outcome.text)
    else:
        await asyncio.to_thread(store.release, claim)
    return Once(outcome.text, duplicate=False)


async def _keep_leased(execution: _Execution) -> None:
    """Renew the lease while the effect runs (not before it starts); stop when it is lost or
    the store fails (the `complete` that follows reports either)."""
    store, claim = execution.store, execution.claim
    while True:
        await asyncio.sleep(claim.lease_s / 3)
        if not execution.started.is_set():
            continue
        try:
            renewed = await asyncio.to_thread(store.renew, claim)
        except Exception:
            return
        if not renewed:
            return
