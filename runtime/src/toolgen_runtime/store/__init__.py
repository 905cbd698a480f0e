"""Idempotency on a real store: an operation runs once per key, across threads, processes and
machines, and a repeat gets the first outcome back.

    from toolgen_runtime.store import default_store, fingerprint, idempotency_key, run_once

    once = await run_once(
        default_store(),                       # TOOLGEN_STORE_URL, opened once per process
        scope="send_order",
        key=idempotency_key("send_order", {"order_ref": ref}, {"run_id": run_id}),
        fingerprint=fingerprint(all_arguments),
        execute=send,                          # async (claim) -> envelope text
    )
    return once.model_text                     # a repeat carries "duplicate": true

Two backends behind one `Store` interface, chosen by URL (`open_store`):
`sqlite:///path/to/state.db` (the default backend, one machine, any number of processes) and
`postgresql://...` (several workers; the `postgres` extra). See docs/writes.md for the
protocol, the lease and what happens to a half-done effect.
"""

from toolgen_runtime.store.base import (
    Claimed,
    ClaimLost,
    ClaimState,
    Completed,
    Conflict,
    InProgress,
    Store,
    StoreNotConfigured,
    StoreUnavailable,
)
from toolgen_runtime.store.config import (
    STORE_URL_ENV,
    default_store,
    open_store,
    store_from_environment,
)
from toolgen_runtime.store.once import (
    DEFAULT_LEASE_S,
    DEFAULT_RETENTION_S,
    DEFAULT_WAIT_S,
    IDEMPOTENCY_CONFLICT,
    OPERATION_IN_PROGRESS,
    Once,
    Outcome,
    effect_starts,
    fingerprint,
    idempotency_errors,
    idempotency_key,
    mark_duplicate,
    run_once,
)
from toolgen_runtime.store.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_LEASE_S",
    "DEFAULT_RETENTION_S",
    "DEFAULT_WAIT_S",
    "IDEMPOTENCY_CONFLICT",
    "OPERATION_IN_PROGRESS",
    "STORE_URL_ENV",
    "ClaimLost",
    "ClaimState",
    "Claimed",
    "Completed",
    "Conflict",
    "InProgress",
    "Once",
    "Outcome",
    "SQLiteStore",
    "Store",
    "StoreNotConfigured",
    "StoreUnavailable",
    "default_store",
    "effect_starts",
    "fingerprint",
    "idempotency_errors",
    "idempotency_key",
    "mark_duplicate",
    "open_store",
    "run_once",
    "store_from_environment",
]
