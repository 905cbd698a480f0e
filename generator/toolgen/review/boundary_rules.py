"""Diff rules of boundaries: the guards of path and URL parameters, pagination and output
contracts.

A boundary that lets more through is breaking even when every call still validates: the
contract promised the reviewer more than it now does. The snapshot keys these rules read, and
the shape they expect, are in `elements`' docstring.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolgen.review.elements import GuardPair, Json, ToolChange
from toolgen.review.registry import Found, Group, Level, diff_rules
from toolgen.text import json_sorted

# --- guards -------------------------------------------------------------------------------

# allow-lists: an item added lets more through (an empty list of suffixes means any name)
_ALLOW_LISTS = ("hosts", "schemes", "ports", "suffixes")


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
            narrower.append(f"only {json_sorted(after)} allowed now")
            continue
        if came:
            wider.append(f"{key} added: {json_sorted(came)}")
        if gone:
            narrower.append(f"{key} removed: {json_sorted(gone)}")
    if old.get("must_exist", True) and not new.get("must_exist", True):
        wider.append("paths that do not exist are allowed now")
    elif not old.get("must_exist", True) and new.get("must_exist", True):
        narrower.append("paths must exist now")
    if old.get("root") != new.get("root"):
        wider.append(
            f"root is {json_sorted(new.get('root'))}, was {json_sorted(old.get('root'))}"
        )
    if old.get("hosts_from") != new.get("hosts_from") and new.get("hosts_from"):
        wider.append(f"hosts also come from {json_sorted(new.get('hosts_from'))}")
    known = {"kind", "root", "must_exist", "hosts_from", *_ALLOW_LISTS}
    for key in sorted((set(old) | set(new)) - known):
        if old.get(key) != new.get(key):
            # a setting this version of toolgen does not know: assume the worst
            wider.append(
                f"{key} is {json_sorted(new.get(key))}, was {json_sorted(old.get(key))}"
            )
    return wider, narrower


guard_rule = diff_rules(GuardPair, Group.BOUNDARIES)
boundary_rule = diff_rules(ToolChange, Group.BOUNDARIES)


@guard_rule("TD511", "guard-widened", Level.BREAKING)
def guard_widened(pair: GuardPair) -> Iterator[Found]:
    """A guarded parameter lets more through: a host, scheme, port or suffix added, another
    root, paths that need not exist, or the guard removed.

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


@guard_rule("TD512", "guard-narrowed", Level.DANGEROUS)
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


@boundary_rule("TD601", "pagination-removed", Level.BREAKING)
def pagination_removed(pair: ToolChange) -> Iterator[Found]:
    """A paginated tool no longer pages its answers.

    ## Why breaking
    Calls that sent a cursor are refused, and the answer is no longer capped: a list can
    fill the context.
    """
    if _pagination(pair.old) and not _pagination(pair.new):
        yield Found(f"{pair.name!r} no longer pages its answers", ("pagination",))


@boundary_rule("TD602", "cursor-binding-loosened", Level.BREAKING)
def cursor_binding_loosened(pair: ToolChange) -> Iterator[Found]:
    """A cursor lives longer (or forever).

    ## Why breaking
    A safety regression: a cursor taken back much later returns rows its filters did not
    select when it was made.
    """
    old, new = (_pagination(t) for t in pair.both)
    if not old or not new:
        return
    before, after = old.get("ttl_seconds"), new.get("ttl_seconds")
    if before is not None and (after is None or after > before):
        life = "forever" if after is None else f"{after} s"
        yield Found(
            f"cursors of {pair.name!r} stay valid {life}, was {before} s",
            ("pagination", "ttl_seconds"),
        )


@boundary_rule("TD603", "page-size-cap-raised", Level.DANGEROUS)
def page_size_cap_raised(pair: ToolChange) -> Iterator[Found]:
    """A paginated tool may return more items per page.

    ## Why dangerous
    Every answer may cost more context; nothing fails.
    """
    old, new = (_pagination(t) for t in pair.both)
    if old and new:
        before, after = old.get("max_page_size", 0), new.get("max_page_size", 0)
        if after > before:
            yield Found(
                f"{pair.name!r} returns up to {after} items per page, was {before}",
                ("pagination", "max_page_size"),
            )


@boundary_rule("TD604", "pagination-tightened", Level.SAFE)
def pagination_tightened(pair: ToolChange) -> Iterator[Found]:
    """A tool pages its answers now, or with a smaller cap.

    ## Why safe
    Answers get shorter; the model follows the cursor for more.
    """
    old, new = (_pagination(t) for t in pair.both)
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
    sensitive = set(value.get("sensitive", []))
    return (dict(limits) if isinstance(limits, Mapping) else {}), sensitive


def _return_where(field: str) -> tuple[str, ...]:
    """Where a dotted return field is: "a.b" is ("returns", "a", "properties", "b")."""
    first, *rest = field.split(".")
    return ("returns", first, *(key for part in rest for key in ("properties", part)))


@boundary_rule("TD701", "sensitive-field-exposed", Level.BREAKING)
def sensitive_field_exposed(pair: ToolChange) -> Iterator[Found]:
    """A return field marked sensitive is not any more.

    ## Why breaking
    A safety regression: its value was redacted from error messages, logs and what the
    model reads; now it appears in them.
    """
    (_, old), (_, new) = (_output(t) for t in pair.both)
    for name in sorted(old - new):
        yield Found(
            f"return field {name!r} of {pair.name!r} is no longer sensitive",
            _return_where(name),
        )


@boundary_rule("TD702", "output-limit-raised", Level.DANGEROUS)
def output_limit_raised(pair: ToolChange) -> Iterator[Found]:
    """A text field of the answer may be longer, or is no longer cut.

    ## Why dangerous
    Every answer may cost more context, and a long text from outside carries more room for
    instructions the model should not follow.
    """
    (old, _), (new, _) = (_output(t) for t in pair.both)
    for name in sorted(old):
        after = new.get(name)
        if after is None or after > old[name]:
            now = "no limit" if after is None else f"at most {after} characters"
            yield Found(
                f"return field {name!r} of {pair.name!r}: {now}, was {old[name]}",
                _return_where(name),
            )


@boundary_rule("TD703", "output-contract-tightened", Level.SAFE)
def output_contract_tightened(pair: ToolChange) -> Iterator[Found]:
    """A return field is marked sensitive now, or cut shorter, or newly limited.

    ## Why safe
    The model reads less, never more; a cut field says so with its `truncated` flag.
    """
    (old_limits, old_sensitive), (new_limits, new_sensitive) = (
        _output(t) for t in pair.both
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
