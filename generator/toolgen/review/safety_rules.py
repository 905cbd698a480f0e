"""Diff rules of safety and boundaries: effect, confirmation, idempotency, context, guards,
pagination and output contracts.

A safety property that gets weaker is breaking even when every call still validates: the
contract promised the reviewer more than it now does. The snapshot keys these rules read, and
the shape they expect, are in `elements`' docstring.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.review.contract_rules import param_names
from toolgen.review.elements import GuardPair, Json, ToolPair
from toolgen.review.registry import Found, Group, Level, diff_rule

# how much protection each confirmation gives: a person approving each call (the SDK's
# needs_approval) is more than a token the model itself carries from prepare to confirm
CONFIRMATION_RANK = {"none": 0, "token": 1, "approval": 2}
EFFECT_RANK = {"read": 0, "write": 1, "destructive": 2}


def _confirmation(tool: Json) -> tuple[str, dict[str, Any]]:
    value = tool.get("confirmation", "none")
    if isinstance(value, Mapping):
        settings = {k: v for k, v in value.items() if k != "kind"}
        return str(value.get("kind", "none")), settings
    return str(value), {}


def _idempotency(tool: Json) -> dict[str, Any]:
    value = tool.get("idempotency", {"kind": "none"})
    return dict(value) if isinstance(value, Mapping) else {"kind": str(value)}


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# --- effect and confirmation --------------------------------------------------------------


@diff_rule(
    ToolPair,
    id="TD501",
    name="confirmation-weakened",
    level=Level.BREAKING,
    group=Group.SAFETY,
)
def confirmation_weakened(pair: ToolPair) -> Iterator[Found]:
    """The confirmation a tool needs was weakened or removed: `approval` (a person approves
    every call) to `token` or `none`, `token` to `none`, or the settings of the same kind
    changed (a token living longer).

    ## Why breaking
    A safety regression: calls that waited for a person, or for the user's confirmation,
    now run without it. Accept it only on purpose.

    ## Example
    `confirmation: approval` becomes `confirmation: none`.
    """
    both = pair.both
    if both is None:
        return
    (old, old_settings), (new, new_settings) = (_confirmation(t) for t in both)
    if CONFIRMATION_RANK.get(new, 0) < CONFIRMATION_RANK.get(old, 0):
        yield Found(
            f"{pair.name!r} needs confirmation {new!r}, was {old!r}", ("confirmation",)
        )
    elif new == old and new_settings != old_settings:
        yield Found(
            f"the {new} confirmation of {pair.name!r} changed: {_shown(old_settings)} -> "
            f"{_shown(new_settings)}",
            ("confirmation",),
        )


@diff_rule(
    ToolPair,
    id="TD502",
    name="confirmation-strengthened",
    level=Level.SAFE,
    group=Group.SAFETY,
)
def confirmation_strengthened(pair: ToolPair) -> Iterator[Found]:
    """A tool needs a stronger confirmation than before (`none` to `token` or `approval`,
    `token` to `approval`).

    ## Why safe
    Calls that ran at once now wait for a confirmation; nothing runs that did not before.
    """
    both = pair.both
    if both is None:
        return
    (old, _), (new, _) = (_confirmation(t) for t in both)
    if CONFIRMATION_RANK.get(new, 0) > CONFIRMATION_RANK.get(old, 0):
        yield Found(
            f"{pair.name!r} needs confirmation {new!r}, was {old!r}", ("confirmation",)
        )


@diff_rule(
    ToolPair,
    id="TD503",
    name="effect-escalated",
    level=Level.BREAKING,
    group=Group.SAFETY,
)
def effect_escalated(pair: ToolPair) -> Iterator[Found]:
    """A tool's effect got stronger: `read` to `write` or `destructive`, `write` to
    `destructive`.

    ## Why breaking
    A safety regression: an agent allowed this tool because it only read (or only wrote)
    now changes or destroys data with the same name and the same arguments.

    ## Example
    `effect: read` becomes `effect: write`.
    """
    both = pair.both
    if both is None:
        return
    old, new = (str(t.get("effect", "read")) for t in both)
    if EFFECT_RANK.get(new, 2) > EFFECT_RANK.get(old, 2):
        yield Found(f"{pair.name!r} is {new}, was {old}", ("effect",))


@diff_rule(
    ToolPair,
    id="TD504",
    name="effect-relaxed",
    level=Level.DANGEROUS,
    group=Group.SAFETY,
)
def effect_relaxed(pair: ToolPair) -> Iterator[Found]:
    """A tool's declared effect got weaker (`destructive` to `write`, `write` to `read`).

    ## Why dangerous
    Nothing fails, but the lint rules that demand idempotency and confirmation for writes
    stop applying: a reviewer should check that the tool really no longer changes data.
    """
    both = pair.both
    if both is None:
        return
    old, new = (str(t.get("effect", "read")) for t in both)
    if EFFECT_RANK.get(new, 2) < EFFECT_RANK.get(old, 2):
        yield Found(f"{pair.name!r} is declared {new}, was {old}", ("effect",))


@diff_rule(
    ToolPair,
    id="TD505",
    name="open-world-enabled",
    level=Level.DANGEROUS,
    group=Group.SAFETY,
)
def open_world_enabled(pair: ToolPair) -> Iterator[Found]:
    """A tool now reaches the open world (outside systems, the web).

    ## Why dangerous
    Its answers may carry text nobody in the organisation wrote: instructions hidden in a
    page or an email reach the model's context.
    """
    both = pair.both
    if both is not None and not both[0].get("open_world") and both[1].get("open_world"):
        yield Found(f"{pair.name!r} now reaches the open world", ("open_world",))


# --- idempotency --------------------------------------------------------------------------


@diff_rule(
    ToolPair,
    id="TD506",
    name="idempotency-key-changed",
    level=Level.BREAKING,
    group=Group.SAFETY,
)
def idempotency_key_changed(pair: ToolPair) -> Iterator[Found]:
    """A tool's idempotency changed kind or key: removed (`natural` or `key` to `none`),
    `natural` to `key`, or the key built from other arguments or context fields.

    ## Why breaking
    A safety regression: a call repeated across the change (a retry, a resumed run) is not
    recognised as the same operation, and its effect happens twice; with idempotency
    removed, every repeat repeats the effect.

    ## Example
    `idempotency: {key: [order_ref], context: [run_id]}` becomes `key: [order_ref]`.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_idempotency(t) for t in both)
    old_kind, new_kind = old.get("kind", "none"), new.get("kind", "none")
    if old_kind == "none":
        return
    if new_kind != old_kind:
        yield Found(
            f"{pair.name!r} is idempotent by {new_kind!r}, was {old_kind!r}",
            ("idempotency",),
        )
        return
    for key in ("args", "context"):
        if list(old.get(key, [])) != list(new.get(key, [])):
            yield Found(
                f"the idempotency key of {pair.name!r} is built from {key} "
                f"{_shown(new.get(key, []))}, was {_shown(old.get(key, []))}",
                ("idempotency", key),
            )


@diff_rule(
    ToolPair, id="TD507", name="idempotency-added", level=Level.SAFE, group=Group.SAFETY
)
def idempotency_added(pair: ToolPair) -> Iterator[Found]:
    """A tool that was not idempotent now is.

    ## Why safe
    Repeated calls stop repeating the effect; nothing that worked stops working.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_idempotency(t).get("kind", "none") for t in both)
    if old == "none" and new != "none":
        yield Found(f"{pair.name!r} is idempotent by {new!r} now", ("idempotency",))


@diff_rule(
    ToolPair,
    id="TD508",
    name="idempotency-retention-shortened",
    level=Level.DANGEROUS,
    group=Group.SAFETY,
)
def idempotency_retention_shortened(pair: ToolPair) -> Iterator[Found]:
    """The time an idempotency key is remembered got shorter.

    ## Why dangerous
    A repeat that comes later than the new retention (a run resumed the next day) executes
    again.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_idempotency(t).get("retention_s") for t in both)
    if isinstance(old, int | float) and isinstance(new, int | float) and new < old:
        yield Found(
            f"{pair.name!r} remembers idempotency keys for {new} s, was {old} s",
            ("idempotency", "retention"),
        )


# --- context ------------------------------------------------------------------------------


@diff_rule(
    ToolPair,
    id="TD509",
    name="context-moved-into-schema",
    level=Level.BREAKING,
    group=Group.SAFETY,
)
def context_moved_into_schema(pair: ToolPair) -> Iterator[Found]:
    """A field the tool read from the run context is now a parameter the model fills in.

    ## Why breaking
    A safety regression: identity, tenancy or a run id came from the application; now the
    model chooses it, and a prompt can make it choose another customer's.

    ## Example
    `context: [customer_id]` becomes a parameter `customer_id: {type: integer}`.
    """
    both = pair.both
    if both is None:
        return
    old, new = both
    moved = set(old.get("context", [])) - set(new.get("context", []))
    for name in sorted(moved & param_names(dict(new))):
        yield Found(
            f"{name!r} was read from the run context by {pair.name!r} and is now a parameter "
            "the model fills in",
            ("params", name),
        )


@diff_rule(
    ToolPair, id="TD510", name="context-changed", level=Level.SAFE, group=Group.SAFETY
)
def context_changed(pair: ToolPair) -> Iterator[Found]:
    """The run-context fields a tool reads changed (and none moved into its schema).

    ## Why safe
    The model sees none of them; the application must provide what the tool now reads.
    """
    both = pair.both
    if both is None:
        return
    old, new = (list(t.get("context", [])) for t in both)
    moved = (set(old) - set(new)) & param_names(dict(both[1]))
    if old != new and not moved:
        yield Found(
            f"{pair.name!r} reads context {_shown(new)}, was {_shown(old)}",
            ("context",),
        )


# --- guards -------------------------------------------------------------------------------

# allow-lists: an item added lets more through (an empty list of suffixes means any name)
_ALLOW_LISTS = ("hosts", "schemes", "ports", "suffixes")
# switches that let more through when they turn on
_PERMISSIONS = ("allow_userinfo", "allow_trailing_dot", "allow_hidden")


def _guard_changes(old: Json, new: Json) -> tuple[list[str], list[str]]:
    """(what lets more through, what lets less through) between two guards of one kind."""
    wider: list[str] = []
    narrower: list[str] = []
    for key in _ALLOW_LISTS:
        before, after = list(old.get(key, [])), list(new.get(key, []))
        came = [v for v in after if v not in before]
        gone = [v for v in before if v not in after]
        if key == "suffixes" and before and not after:
            wider.append("any file name is allowed now (suffixes removed)")
            continue
        if key == "suffixes" and not before and after:
            narrower.append(f"only {_shown(after)} allowed now")
            continue
        if came:
            wider.append(f"{key} added: {_shown(came)}")
        if gone:
            narrower.append(f"{key} removed: {_shown(gone)}")
    for key in _PERMISSIONS:
        if not old.get(key) and new.get(key):
            wider.append(f"{key} turned on")
        elif old.get(key) and not new.get(key):
            narrower.append(f"{key} turned off")
    if old.get("must_exist", True) and not new.get("must_exist", True):
        wider.append("paths that do not exist are allowed now")
    elif not old.get("must_exist", True) and new.get("must_exist", True):
        narrower.append("paths must exist now")
    if old.get("root") != new.get("root"):
        wider.append(
            f"root is {_shown(new.get('root'))}, was {_shown(old.get('root'))}"
        )
    if old.get("hosts_from") != new.get("hosts_from") and new.get("hosts_from"):
        wider.append(f"hosts also come from {_shown(new.get('hosts_from'))}")
    before_chars, after_chars = old.get("max_chars"), new.get("max_chars")
    if isinstance(before_chars, int) and isinstance(after_chars, int):
        if after_chars > before_chars:
            wider.append(f"max_chars is {after_chars}, was {before_chars}")
        elif after_chars < before_chars:
            narrower.append(f"max_chars is {after_chars}, was {before_chars}")
    known = {"kind", "root", "must_exist", "hosts_from", "max_chars"}
    known.update(_ALLOW_LISTS, _PERMISSIONS)
    for key in sorted((set(old) | set(new)) - known):
        if old.get(key) != new.get(key):
            # a setting this version of toolgen does not know: assume the worst
            wider.append(f"{key} is {_shown(new.get(key))}, was {_shown(old.get(key))}")
    return wider, narrower


@diff_rule(
    GuardPair,
    id="TD511",
    name="guard-widened",
    level=Level.BREAKING,
    group=Group.BOUNDARIES,
)
def guard_widened(pair: GuardPair) -> Iterator[Found]:
    """A guarded parameter lets more through: a host, scheme, port or suffix added, another
    root, a permission turned on, a longer limit, or the guard removed.

    ## Why breaking
    A safety regression: the guard is what keeps the model's arguments inside the folders
    and hosts a reviewer agreed to. A setting toolgen does not know counts as widened.

    ## Example
    `hosts: [api.example.com]` becomes `hosts: [api.example.com, example.org]`.
    """
    if pair.old is None:
        return
    if pair.new is None:
        yield Found(
            f"parameter {pair.path!r} of {pair.tool!r} lost its {pair.old.get('kind')} guard",
            pair.where,
        )
        return
    if pair.old.get("kind") != pair.new.get("kind"):
        yield Found(
            f"parameter {pair.path!r} of {pair.tool!r} is guarded as "
            f"{pair.new.get('kind')}, was {pair.old.get('kind')}",
            pair.where,
        )
        return
    wider, _ = _guard_changes(pair.old, pair.new)
    for reason in wider:
        yield Found(
            f"the guard of {pair.path!r} of {pair.tool!r}: {reason}", pair.where
        )


@diff_rule(
    GuardPair,
    id="TD512",
    name="guard-narrowed",
    level=Level.DANGEROUS,
    group=Group.BOUNDARIES,
)
def guard_narrowed(pair: GuardPair) -> Iterator[Found]:
    """A parameter gained a guard, or its guard lets less through.

    ## Why dangerous
    The boundary is safer, but calls that passed (a host now off the list) are refused with
    the guard's error code: check that no legitimate use depended on them.
    """
    if pair.new is None:
        return
    if pair.old is None:
        yield Found(
            f"parameter {pair.path!r} of {pair.tool!r} is guarded as "
            f"{pair.new.get('kind')} now",
            pair.where,
        )
        return
    if pair.old.get("kind") == pair.new.get("kind"):
        _, narrower = _guard_changes(pair.old, pair.new)
        for reason in narrower:
            yield Found(
                f"the guard of {pair.path!r} of {pair.tool!r}: {reason}", pair.where
            )


# --- pagination ---------------------------------------------------------------------------


def _pagination(tool: Json) -> dict[str, Any] | None:
    value = tool.get("pagination")
    return dict(value) if isinstance(value, Mapping) else None


@diff_rule(
    ToolPair,
    id="TD601",
    name="pagination-removed",
    level=Level.BREAKING,
    group=Group.BOUNDARIES,
)
def pagination_removed(pair: ToolPair) -> Iterator[Found]:
    """A paginated tool no longer pages its answers.

    ## Why breaking
    Calls that sent a cursor are refused, and the answer is no longer capped: a list can
    fill the context.
    """
    both = pair.both
    if both is not None and _pagination(both[0]) and not _pagination(both[1]):
        yield Found(f"{pair.name!r} no longer pages its answers", ("pagination",))


@diff_rule(
    ToolPair,
    id="TD602",
    name="cursor-binding-loosened",
    level=Level.BREAKING,
    group=Group.BOUNDARIES,
)
def cursor_binding_loosened(pair: ToolPair) -> Iterator[Found]:
    """A cursor is bound to fewer filters, or lives longer (or forever).

    ## Why breaking
    A safety regression: a cursor reused with other filters, or much later, returns rows the
    filters it was made for did not select.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_pagination(t) for t in both)
    if not old or not new:
        return
    came = [u for u in new.get("unbound", []) if u not in old.get("unbound", [])]
    if came:
        yield Found(
            f"cursors of {pair.name!r} may now be reused with other {_shown(came)}",
            ("pagination", "unbound"),
        )
    before, after = old.get("ttl_seconds"), new.get("ttl_seconds")
    if before is not None and (after is None or after > before):
        life = "forever" if after is None else f"{after} s"
        yield Found(
            f"cursors of {pair.name!r} stay valid {life}, was {before} s",
            ("pagination", "ttl_seconds"),
        )


@diff_rule(
    ToolPair,
    id="TD603",
    name="page-size-cap-raised",
    level=Level.DANGEROUS,
    group=Group.BOUNDARIES,
)
def page_size_cap_raised(pair: ToolPair) -> Iterator[Found]:
    """A paginated tool may return more items per page.

    ## Why dangerous
    Every answer may cost more context; nothing fails.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_pagination(t) for t in both)
    if old and new:
        before, after = old.get("max_page_size", 0), new.get("max_page_size", 0)
        if after > before:
            yield Found(
                f"{pair.name!r} returns up to {after} items per page, was {before}",
                ("pagination", "max_page_size"),
            )


@diff_rule(
    ToolPair,
    id="TD604",
    name="pagination-tightened",
    level=Level.SAFE,
    group=Group.BOUNDARIES,
)
def pagination_tightened(pair: ToolPair) -> Iterator[Found]:
    """A tool pages its answers now, or with a smaller cap.

    ## Why safe
    Answers get shorter; the model follows the cursor for more.
    """
    both = pair.both
    if both is None:
        return
    old, new = (_pagination(t) for t in both)
    if new and not old:
        yield Found(f"{pair.name!r} pages its answers now", ("pagination",))
    elif old and new and new.get("max_page_size", 0) < old.get("max_page_size", 0):
        yield Found(
            f"{pair.name!r} returns up to {new.get('max_page_size')} items per page, was "
            f"{old.get('max_page_size')}",
            ("pagination", "max_page_size"),
        )


# --- output contracts ---------------------------------------------------------------------


def _output(tool: Json) -> tuple[dict[str, int], set[str]]:
    value = tool.get("output")
    if not isinstance(value, Mapping):
        return {}, set()
    limits = value.get("max_chars", {})
    return (dict(limits) if isinstance(limits, Mapping) else {}), set(
        value.get("sensitive", [])
    )


def _return_where(field: str) -> tuple[str, ...]:
    parts: list[str] = ["returns"]
    for i, part in enumerate(field.split(".")):
        if i:
            parts.append("properties")
        parts.append(part)
    return tuple(parts)


@diff_rule(
    ToolPair,
    id="TD701",
    name="sensitive-field-exposed",
    level=Level.BREAKING,
    group=Group.BOUNDARIES,
)
def sensitive_field_exposed(pair: ToolPair) -> Iterator[Found]:
    """A return field marked sensitive is not any more.

    ## Why breaking
    A safety regression: its value was redacted from error messages, logs and what the
    model reads; now it appears in them.
    """
    both = pair.both
    if both is None:
        return
    (_, old), (_, new) = (_output(t) for t in both)
    for name in sorted(old - new):
        yield Found(
            f"return field {name!r} of {pair.name!r} is no longer sensitive",
            _return_where(name),
        )


@diff_rule(
    ToolPair,
    id="TD702",
    name="output-limit-raised",
    level=Level.DANGEROUS,
    group=Group.BOUNDARIES,
)
def output_limit_raised(pair: ToolPair) -> Iterator[Found]:
    """A text field of the answer may be longer, or is no longer cut.

    ## Why dangerous
    Every answer may cost more context, and a long text from outside carries more room for
    instructions the model should not follow.
    """
    both = pair.both
    if both is None:
        return
    (old, _), (new, _) = (_output(t) for t in both)
    for name in sorted(old):
        after = new.get(name)
        if after is None or after > old[name]:
            now = "no limit" if after is None else f"at most {after} characters"
            yield Found(
                f"return field {name!r} of {pair.name!r}: {now}, was {old[name]}",
                _return_where(name),
            )


@diff_rule(
    ToolPair,
    id="TD703",
    name="output-contract-tightened",
    level=Level.SAFE,
    group=Group.BOUNDARIES,
)
def output_contract_tightened(pair: ToolPair) -> Iterator[Found]:
    """A return field is marked sensitive now, or cut shorter, or newly limited.

    ## Why safe
    The model reads less, never more; a cut field says so with its `truncated` flag.
    """
    both = pair.both
    if both is None:
        return
    (old_limits, old_sensitive), (new_limits, new_sensitive) = (
        _output(t) for t in both
    )
    for name in sorted(new_sensitive - old_sensitive):
        yield Found(
            f"return field {name!r} of {pair.name!r} is sensitive now",
            _return_where(name),
        )
    for name in sorted(new_limits):
        before = old_limits.get(name)
        if before is None or new_limits[name] < before:
            was = "no limit" if before is None else str(before)
            yield Found(
                f"return field {name!r} of {pair.name!r}: at most {new_limits[name]} "
                f"characters, was {was}",
                _return_where(name),
            )
