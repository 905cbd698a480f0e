"""Diff rules of safety: effect, confirmation, idempotency and context (those of the
boundaries, guards, pagination and output contracts, are boundary_rules.py's).

A safety property that gets weaker is breaking even when every call still validates: the
contract promised the reviewer more than it now does. The snapshot keys these rules read, and
the shape they expect, are in `elements`' docstring.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.review.elements import Json, ToolChange, parameters
from toolgen.review.registry import Found, Group, Level, diff_rules
from toolgen.spec.model.reading import duration_text
from toolgen.text import json_sorted

# how much protection each confirmation gives: a person approving each call (the SDK's
# needs_approval) is more than a token the model itself carries from prepare to confirm
CONFIRMATION_RANK = {"none": 0, "token": 1, "approval": 2}
EFFECT_RANK = {"read": 0, "write": 1, "destructive": 2}


def confirmation_of(tool: Json) -> tuple[str, dict[str, Any]]:
    value = tool.get("confirmation", "none")
    if isinstance(value, Mapping):
        settings = {k: v for k, v in value.items() if k != "kind"}
        return str(value.get("kind", "none")), settings
    return str(value), {}


def idempotency_of(tool: Json) -> dict[str, Any]:
    value = tool.get("idempotency", {"kind": "none"})
    return dict(value) if isinstance(value, Mapping) else {"kind": str(value)}


def _param_names(tool: Json) -> set[str]:
    """The top-level parameter names of a snapshot tool."""
    return set(parameters(tool).get("properties", {}))


# --- effect and confirmation --------------------------------------------------------------


safety_rule = diff_rules(ToolChange, Group.SAFETY)


@safety_rule("TD501", "confirmation-weakened", Level.BREAKING)
def confirmation_weakened(pair: ToolChange) -> Iterator[Found]:
    """The confirmation a tool needs was weakened or removed: `approval` (a person approves
    every call) to `token` or `none`, `token` to `none`, or the settings of the same kind
    changed (a token living longer).

    ## Why breaking
    A safety regression: calls that waited for a person, or for the user's confirmation,
    now run without it. Accept it only on purpose.

    ## Example
    `confirmation: approval` becomes `confirmation: none`.
    """
    (old, old_settings), (new, new_settings) = (confirmation_of(t) for t in pair.both)
    if CONFIRMATION_RANK.get(new, 0) < CONFIRMATION_RANK.get(old, 0):
        yield Found(
            f"{pair.name!r} needs confirmation {new!r}, was {old!r}", ("confirmation",)
        )
    elif new == old and new_settings != old_settings:
        yield Found(
            f"the {new} confirmation of {pair.name!r} changed: {json_sorted(old_settings)} -> "
            f"{json_sorted(new_settings)}",
            ("confirmation",),
        )


@safety_rule("TD502", "confirmation-strengthened", Level.SAFE)
def confirmation_strengthened(pair: ToolChange) -> Iterator[Found]:
    """A tool needs a stronger confirmation than before (`none` to `token` or `approval`,
    `token` to `approval`).

    ## Why safe
    Calls that ran at once now wait for a confirmation; nothing runs that did not before.
    """
    (old, _), (new, _) = (confirmation_of(t) for t in pair.both)
    if CONFIRMATION_RANK.get(new, 0) > CONFIRMATION_RANK.get(old, 0):
        yield Found(
            f"{pair.name!r} needs confirmation {new!r}, was {old!r}", ("confirmation",)
        )


@safety_rule("TD503", "effect-escalated", Level.BREAKING)
def effect_escalated(pair: ToolChange) -> Iterator[Found]:
    """A tool's effect got stronger: `read` to `write` or `destructive`, `write` to
    `destructive`.

    ## Why breaking
    A safety regression: an agent allowed this tool because it only read (or only wrote)
    now changes or destroys data with the same name and the same arguments.

    ## Example
    `effect: read` becomes `effect: write`.
    """
    old, new = (str(t.get("effect", "read")) for t in pair.both)
    if EFFECT_RANK.get(new, 2) > EFFECT_RANK.get(old, 2):
        yield Found(f"{pair.name!r} is {new}, was {old}", ("effect",))


@safety_rule("TD504", "effect-relaxed", Level.DANGEROUS)
def effect_relaxed(pair: ToolChange) -> Iterator[Found]:
    """A tool's declared effect got weaker (`destructive` to `write`, `write` to `read`).

    ## Why dangerous
    Nothing fails, but the lint rules that demand idempotency and confirmation for writes
    stop applying: a reviewer should check that the tool really no longer changes data.
    """
    old, new = (str(t.get("effect", "read")) for t in pair.both)
    if EFFECT_RANK.get(new, 2) < EFFECT_RANK.get(old, 2):
        yield Found(f"{pair.name!r} is declared {new}, was {old}", ("effect",))


@safety_rule("TD505", "open-world-enabled", Level.DANGEROUS)
def open_world_enabled(pair: ToolChange) -> Iterator[Found]:
    """A tool now reaches the open world (outside systems, the web).

    ## Why dangerous
    Its answers may carry text nobody in the organisation wrote: instructions hidden in a
    page or an email reach the model's context.
    """
    if not pair.old.get("open_world") and pair.new.get("open_world"):
        yield Found(f"{pair.name!r} now reaches the open world", ("open_world",))


# --- idempotency --------------------------------------------------------------------------


@safety_rule("TD506", "idempotency-key-changed", Level.BREAKING)
def idempotency_key_changed(pair: ToolChange) -> Iterator[Found]:
    """A tool's idempotency changed kind or key: removed (`natural` or `key` to `none`),
    `natural` to `key`, or the key built from other arguments or context fields.

    ## Why breaking
    A safety regression: a call repeated across the change (a retry, a resumed run) is not
    recognised as the same operation, and its effect happens twice; with idempotency
    removed, every repeat repeats the effect.

    ## Example
    `idempotency: {key: [order_ref], context: [run_id]}` becomes `key: [order_ref]`.
    """
    old, new = (idempotency_of(t) for t in pair.both)
    old_kind, new_kind = old.get("kind", "none"), new.get("kind", "none")
    if old_kind == "none":
        return
    if new_kind != old_kind:
        yield Found(
            f"{pair.name!r} is idempotent by {new_kind!r}, was {old_kind!r}",
            ("idempotency",),
        )
        return
    # each part of the key, and its key in the YAML
    for part, written in (("arguments", "key"), ("context", "context")):
        if list(old.get(part, [])) != list(new.get(part, [])):
            yield Found(
                f"the idempotency key of {pair.name!r} is built from {part} "
                f"{json_sorted(new.get(part, []))}, was {json_sorted(old.get(part, []))}",
                ("idempotency", written),
            )


@safety_rule("TD507", "idempotency-added", Level.SAFE)
def idempotency_added(pair: ToolChange) -> Iterator[Found]:
    """A tool that was not idempotent now is.

    ## Why safe
    Repeated calls stop repeating the effect; nothing that worked stops working.
    """
    old, new = (idempotency_of(t).get("kind", "none") for t in pair.both)
    if old == "none" and new != "none":
        yield Found(f"{pair.name!r} is idempotent by {new!r} now", ("idempotency",))


@safety_rule("TD508", "idempotency-retention-shortened", Level.DANGEROUS)
def idempotency_retention_shortened(pair: ToolChange) -> Iterator[Found]:
    """The time an idempotency key is remembered got shorter.

    ## Why dangerous
    A repeat that comes later than the new retention (a run resumed the next day) executes
    again.
    """
    old, new = (idempotency_of(t).get("retention_s") for t in pair.both)
    if isinstance(old, int) and isinstance(new, int) and new < old:
        yield Found(
            f"{pair.name!r} remembers idempotency keys for {duration_text(new)}, was "
            f"{duration_text(old)}",
            ("idempotency", "retention"),
        )


# --- context ------------------------------------------------------------------------------


@safety_rule("TD509", "context-moved-into-schema", Level.BREAKING)
def context_moved_into_schema(pair: ToolChange) -> Iterator[Found]:
    """A field the tool read from the run context is now a parameter the model fills in.

    ## Why breaking
    A safety regression: identity, tenancy or a run id came from the application; now the
    model chooses it, and a prompt can make it choose another customer's.

    ## Example
    `context: [customer_id]` becomes a parameter `customer_id: {type: integer}`.
    """
    old, new = pair.both
    moved = set(old.get("context", [])) - set(new.get("context", []))
    for name in sorted(moved & _param_names(new)):
        yield Found(
            f"{name!r} was read from the run context by {pair.name!r} and is now a parameter "
            "the model fills in",
            ("params", name),
        )


@safety_rule("TD510", "context-changed", Level.SAFE)
def context_changed(pair: ToolChange) -> Iterator[Found]:
    """The run-context fields a tool reads changed (and none moved into its schema).

    ## Why safe
    The model sees none of them; the application must provide what the tool now reads.
    """
    old, new = (list(t.get("context", [])) for t in pair.both)
    moved = (set(old) - set(new)) & _param_names(pair.new)
    if old != new and not moved:
        yield Found(
            f"{pair.name!r} reads context {json_sorted(new)}, was {json_sorted(old)}",
            ("context",),
        )
