"""What a generated tool that writes declares to the runtime, and the runtime's part of it.

A tool module passes these to its `Invoker` (see docs/writes.md):

- `KeyIdempotency`: a repeat with the same key returns the first outcome (`run_once` on the
  store), the key made of named arguments and named context fields;
- `TokenConfirmation`: the tool is one of a prepare/confirm pair; the prepare tool issues a
  token (`ConfirmationGate.issue`) and does nothing else, the confirm tool redeems it before
  it acts;
- approval is `needs_approval`, see `toolgen_runtime.approval`.

The store (TOOLGEN_STORE_URL) and the signing secret (TOOLGEN_SECRET) are resolved when the
tool is built, at start-up: a missing one is `StoreNotConfigured` or `MissingSecret` then,
never a default, and never a surprise at the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from toolgen_runtime.confirm import DEFAULT_TTL_S
from toolgen_runtime.output import REVEAL_FOR_DIGEST
from toolgen_runtime.store import DEFAULT_LEASE_S, DEFAULT_RETENTION_S, DEFAULT_WAIT_S

__all__ = [
    "TOKEN_PARAM",
    "ContextFields",
    "KeyIdempotency",
    "TokenConfirmation",
    "context_values",
    "summary",
    "wire_arguments",
]

TOKEN_PARAM = "token"

# (the name the contract gives a context field, its attribute on the tool's context object)
ContextFields = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class KeyIdempotency:
    """`idempotency: {key: [...], context: [...], retention: ...}` of a contract."""

    arguments: tuple[str, ...]
    context: ContextFields
    retention_s: float = DEFAULT_RETENTION_S
    lease_s: float = DEFAULT_LEASE_S
    wait_s: float = DEFAULT_WAIT_S


@dataclass(frozen=True, slots=True)
class TokenConfirmation:
    """`confirmation: token`: which of the pair this tool is, and the identity (context
    fields) a token is bound to."""

    role: Literal["prepare", "confirm"]
    prepare_tool: str
    confirm_tool: str
    identity: ContextFields
    ttl_s: float = DEFAULT_TTL_S


def context_values(context: object, fields: ContextFields) -> dict[str, object]:
    """The named fields of a tool's context object, by the names the contract gives them."""
    return {name: getattr(context, attribute) for name, attribute in fields}


def wire_arguments(
    args: BaseModel, *, without: frozenset[str] = frozenset(), shown: bool = False
) -> dict[str, object]:
    """The validated arguments as the model wrote them (wire names, JSON values, defaults
    filled in): what keys, fingerprints and token digests are computed from, so that a
    prepare call and its confirm call digest alike. A `Sensitive` value is itself in them,
    so it is bound like any other argument (only digests of it leave the process, as a
    cursor's filters do); `shown=True` gives it as `[redacted]`, for text the model reads
    (a prepare tool's summary)."""
    return args.model_dump(
        mode="json",
        by_alias=True,
        exclude=set(without) or None,
        context=None if shown else {REVEAL_FOR_DIGEST: True},
    )


def summary(tool: str, arguments: Mapping[str, object]) -> str:
    """What a prepare tool says the confirm call would do, from its arguments alone."""
    import json

    parts = [
        f"{name} {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for name, value in arguments.items()
        if value is not None
    ]
    return f"{tool} with {', '.join(parts)}" if parts else tool
