"""Diff rules of the contract: parameters, return fields, error codes.

Each rule sees one element pair (see `elements`) and yields what changed, with a one-line
reason that names the old and the new value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from toolgen.review.elements import (
    BOUNDS,
    ErrorPair,
    FieldPair,
    Node,
    ParamPair,
    ReturnPair,
    Where,
)
from toolgen.review.registry import Found, Group, Level, diff_rules
from toolgen.text import json_text


def _values(values: Iterable[object]) -> str:
    return ", ".join(json_text(v) for v in values)


def _type(node: Node) -> str:
    return node.type + (f" ({node.format})" if node.format else "")


def _named(pair: FieldPair) -> str:
    """How a message names a field: "parameter 'sku' of 'read_stock'"."""
    return f"{pair.noun} {pair.label!r} of {pair.tool!r}"


def _at(pair: FieldPair, key: str) -> Where:
    """The place of `key` of the field's new version."""
    assert pair.new is not None
    return (*pair.new.where, key)


def _both(pair: FieldPair) -> tuple[Node, Node] | None:
    """The field's old and new node, when it is in both versions with the same type."""
    if pair.old and pair.new and pair.old.node.shape == pair.new.node.shape:
        return pair.old.node, pair.new.node
    return None


def _enum_moves(pair: FieldPair) -> tuple[list[object], list[object]]:
    """The values (gone, came) of the enum of a field that has one in both versions."""
    both = _both(pair)
    if both is None or both[0].enum is None or both[1].enum is None:
        return [], []
    old, new = both[0].enum, both[1].enum
    return [v for v in old if v not in new], [v for v in new if v not in old]


def _bounds_moved(
    pair: FieldPair, old: Node, new: Node, *, tighter: bool
) -> Iterator[Found]:
    """Each bound that changed and now accepts fewer values (`tighter`), or more."""
    for key, spec_key in BOUNDS.items():
        before, after = old.bounds.get(key), new.bounds.get(key)
        if before == after:
            continue
        larger_is_tighter = spec_key.startswith("min")
        fewer = before is None or (
            after is not None and (after > before) == larger_is_tighter
        )
        if fewer == tighter:
            was, now = ("none" if v is None else json_text(v) for v in (before, after))
            yield Found(
                f"{_named(pair)}: {key} is {now}, was {was}", _at(pair, spec_key)
            )


def _removed(pair: FieldPair) -> Iterator[Found]:
    if pair.new is None and pair.old is not None:
        yield Found(f"{_named(pair)} was removed", pair.old.parent)


def _renamed(pair: FieldPair) -> Iterator[Found]:
    if pair.renamed_from is not None and pair.new is not None:
        yield Found(
            f"{pair.noun} {pair.renamed_from.name!r} of {pair.tool!r} was renamed to "
            f"{pair.new.name!r}",
            pair.new.where,
        )


def _retyped(pair: FieldPair) -> Iterator[Found]:
    if pair.old and pair.new and pair.old.node.shape != pair.new.node.shape:
        old, new = _type(pair.old.node), _type(pair.new.node)
        yield Found(f"{_named(pair)} is {new}, was {old}", _at(pair, "type"))


def _description_changed(pair: FieldPair) -> Iterator[Found]:
    if pair.old and pair.new and pair.old.node.description != pair.new.node.description:
        yield Found(
            f"the description of {_named(pair)} changed", _at(pair, "description")
        )


param_rule = diff_rules(ParamPair, Group.PARAMETERS)
return_rule = diff_rules(ReturnPair, Group.RETURNS)
error_rule = diff_rules(ErrorPair, Group.ERRORS)


# --- parameters ---------------------------------------------------------------------------


@param_rule("TD201", "parameter-removed", Level.BREAKING)
def parameter_removed(pair: ParamPair) -> Iterator[Found]:
    """A parameter was removed.

    ## Why breaking
    The schema forbids keys it does not list (`additionalProperties: false`): a call that
    sends the old parameter is refused.
    """
    return _removed(pair)


@param_rule("TD202", "parameter-renamed", Level.BREAKING)
def parameter_renamed(pair: ParamPair) -> Iterator[Found]:
    """A parameter was renamed (removed, and added beside it accepting the same values).

    ## Why breaking
    A call with the old name is refused for an unknown key and a missing one.
    """
    return _renamed(pair)


@param_rule("TD203", "parameter-added-required", Level.BREAKING)
def parameter_added_required(pair: ParamPair) -> Iterator[Found]:
    """A parameter was added that does not take null.

    ## Why breaking
    Every call written before lacks it, and null cannot stand for it: the model must now
    supply a value it may not have.
    """
    new = pair.new
    if pair.old is None and pair.renamed_from is None and new and not new.node.nullable:
        yield Found(
            f"parameter {pair.label!r} was added to {pair.tool!r} and is required",
            new.where,
        )


@param_rule("TD204", "parameter-added-optional", Level.DANGEROUS)
def parameter_added_optional(pair: ParamPair) -> Iterator[Found]:
    """A parameter was added that takes null (optional).

    ## Why dangerous
    The model reads the new schema on its next turn and sends null when it has no value. But
    strict mode lists every parameter as required: a call written before the change (an
    approval waiting in a saved RunState, a recorded conversation, a scripted test) lacks
    the key and is refused.
    """
    new = pair.new
    if pair.old is None and pair.renamed_from is None and new and new.node.nullable:
        yield Found(
            f"parameter {pair.label!r} was added to {pair.tool!r} (optional)", new.where
        )


@param_rule("TD205", "parameter-made-required", Level.BREAKING)
def parameter_made_required(pair: ParamPair) -> Iterator[Found]:
    """A parameter that took null no longer does.

    ## Why breaking
    A call that sent null (meaning "leave it out" or "the default") is refused.
    """
    if pair.old and pair.new and pair.old.node.nullable and not pair.new.node.nullable:
        yield Found(f"{_named(pair)} no longer takes null", _at(pair, "optional"))


@param_rule("TD206", "parameter-type-changed", Level.BREAKING)
def parameter_type_changed(pair: ParamPair) -> Iterator[Found]:
    """A parameter's type (or format, such as date and date-time) changed.

    ## Why breaking
    Values of the old type are refused: strict validation does not convert `"5"` to `5`.
    """
    return _retyped(pair)


@param_rule("TD207", "enum-value-removed", Level.BREAKING)
def enum_value_removed(pair: ParamPair) -> Iterator[Found]:
    """A value was removed from a parameter's enum.

    ## Why breaking
    A call with that value is refused.
    """
    gone, _ = _enum_moves(pair)
    if gone:
        yield Found(
            f"{_named(pair)} no longer accepts {_values(gone)}", _at(pair, "enum")
        )


@param_rule("TD208", "constraint-tightened", Level.BREAKING)
def constraint_tightened(pair: ParamPair) -> Iterator[Found]:
    """A parameter's constraint accepts fewer values: a minimum raised, a maximum lowered, an
    enum or a pattern added, a pattern changed.

    ## Why breaking
    A call that passed may now be refused. A changed pattern counts as tightened: toolgen
    cannot prove the new one accepts everything the old one did.

    ## Example
    `max_results: {type: integer, max: 50}` becomes `max: 20`.
    """
    both = _both(pair)
    if both is None:
        return
    old, new = both
    if old.enum is None and new.enum is not None:
        yield Found(
            f"{_named(pair)}: now accepts only {_values(new.enum)}", _at(pair, "enum")
        )
    yield from _bounds_moved(pair, old, new, tighter=True)
    if new.pattern is not None and new.pattern != old.pattern:
        was = "none" if old.pattern is None else repr(old.pattern)
        yield Found(
            f"{_named(pair)}: must match {new.pattern!r}, was {was}",
            _at(pair, "pattern"),
        )
    for key in sorted(set(old.other) | set(new.other)):
        if old.other.get(key) != new.other.get(key):
            yield Found(f"{_named(pair)}: {key} changed", _at(pair, key))


@param_rule("TD209", "parameter-loosened", Level.SAFE)
def parameter_loosened(pair: ParamPair) -> Iterator[Found]:
    """A parameter accepts more values: an enum value added, a bound relaxed or dropped, a
    pattern dropped, null now accepted.

    ## Why safe
    Every call that passed still passes.
    """
    both = _both(pair)
    if both is None:
        return
    old, new = both
    _, came = _enum_moves(pair)
    if came:
        yield Found(f"{_named(pair)} also accepts {_values(came)}", _at(pair, "enum"))
    elif old.enum is not None and new.enum is None:
        yield Found(f"{_named(pair)} no longer has an enum", _at(pair, "enum"))
    yield from _bounds_moved(pair, old, new, tighter=False)
    if old.pattern is not None and new.pattern is None:
        yield Found(f"{_named(pair)} no longer has a pattern", _at(pair, "pattern"))
    if not old.nullable and new.nullable:
        yield Found(f"{_named(pair)} now takes null", _at(pair, "optional"))


@param_rule("TD210", "parameter-description-changed", Level.SAFE)
def parameter_description_changed(pair: ParamPair) -> Iterator[Found]:
    """The description of a parameter changed (the text the model reads beside it).

    ## Why safe
    Nothing the model sends becomes invalid; the text guides how it fills the value in.
    """
    return _description_changed(pair)


# --- return fields ------------------------------------------------------------------------


@return_rule("TD301", "return-field-removed", Level.BREAKING)
def return_field_removed(pair: ReturnPair) -> Iterator[Found]:
    """A field of a successful answer was removed (or renamed).

    ## Why breaking
    The model, and any code that reads the answer, relied on it: the next turn asks for a
    value that is no longer there.
    """
    yield from _removed(pair)
    yield from _renamed(pair)


@return_rule("TD302", "return-field-retyped", Level.BREAKING)
def return_field_retyped(pair: ReturnPair) -> Iterator[Found]:
    """A return field's type (or format) changed.

    ## Why breaking
    Whatever reads the answer (the model's next call that passes the value on, the
    application) gets a value of another kind.
    """
    return _retyped(pair)


@return_rule("TD303", "return-field-made-nullable", Level.BREAKING)
def return_field_made_nullable(pair: ReturnPair) -> Iterator[Found]:
    """A return field that always had a value may now be null.

    ## Why breaking
    A reader that used the value now meets null.
    """
    if pair.old and pair.new and not pair.old.node.nullable and pair.new.node.nullable:
        yield Found(f"{_named(pair)} may now be null", _at(pair, "optional"))


@return_rule("TD304", "return-enum-widened", Level.DANGEROUS)
def return_enum_widened(pair: ReturnPair) -> Iterator[Found]:
    """A return field may hold values it never held: an enum value added, or the enum
    dropped.

    ## Why dangerous
    Nothing fails, but code that switches on the value (and the model's idea of what the
    values mean) meets a case it was not written for.
    """
    both = _both(pair)
    if both and both[0].enum is not None and both[1].enum is None:
        yield Found(
            f"{_named(pair)} is no longer limited to {_values(both[0].enum)}",
            _at(pair, "enum"),
        )
    _, came = _enum_moves(pair)
    if came:
        yield Found(f"{_named(pair)} may also be {_values(came)}", _at(pair, "enum"))


@return_rule("TD305", "return-field-added", Level.SAFE)
def return_field_added(pair: ReturnPair) -> Iterator[Found]:
    """A field was added to successful answers.

    ## Why safe
    Readers of the old fields still find them; the answer costs a little more context.
    """
    if pair.old is None and pair.renamed_from is None and pair.new is not None:
        yield Found(
            f"return field {pair.label!r} was added to {pair.tool!r}", pair.new.where
        )


@return_rule("TD306", "return-field-narrowed", Level.SAFE)
def return_field_narrowed(pair: ReturnPair) -> Iterator[Found]:
    """A return field holds fewer kinds of values: an enum value removed, an enum added,
    or it is never null any more.

    ## Why safe
    Every value a reader may now meet is one it met before.
    """
    both = _both(pair)
    if both is None:
        return
    old, new = both
    gone, _ = _enum_moves(pair)
    if gone:
        yield Found(
            f"{_named(pair)} is never {_values(gone)} any more", _at(pair, "enum")
        )
    elif old.enum is None and new.enum is not None:
        yield Found(
            f"{_named(pair)} is now one of {_values(new.enum)}", _at(pair, "enum")
        )
    if old.nullable and not new.nullable:
        yield Found(f"{_named(pair)} is never null any more", _at(pair, "optional"))


@return_rule("TD307", "return-description-changed", Level.SAFE)
def return_description_changed(pair: ReturnPair) -> Iterator[Found]:
    """The description of a return field changed.

    ## Why safe
    The values are the same; the words that explain them to a reader changed.
    """
    return _description_changed(pair)


# --- error codes --------------------------------------------------------------------------


@error_rule("TD401", "error-code-removed", Level.BREAKING)
def error_code_removed(pair: ErrorPair) -> Iterator[Found]:
    """A declared error code was removed.

    ## Why breaking
    An implementation that still raises it now raises an undeclared error, which stops the
    run; an application or evaluation that matches on the code never sees it again.
    """
    if pair.old is not None and pair.new is None:
        yield Found(
            f"error code {pair.code!r} of {pair.tool!r} was removed", ("errors",)
        )


@error_rule("TD402", "error-code-added", Level.SAFE)
def error_code_added(pair: ErrorPair) -> Iterator[Found]:
    """An error code was declared.

    ## Why safe
    A new answer the model can recover from, with its how-to-fix.
    """
    if pair.old is None and pair.new is not None:
        yield Found(
            f"error code {pair.code!r} was added to {pair.tool!r}",
            ("errors", pair.code),
        )


@error_rule("TD403", "error-retryable-changed", Level.DANGEROUS)
def error_retryable_changed(pair: ErrorPair) -> Iterator[Found]:
    """An error code's `retryable` flag changed.

    ## Why dangerous
    The model retries what is retryable: a write that becomes retryable may be attempted
    again, one that stops being retryable is given up on.
    """
    if pair.old is not None and pair.new is not None:
        old, new = bool(pair.old.get("retryable")), bool(pair.new.get("retryable"))
        if old != new:
            yield Found(
                f"error code {pair.code!r} of {pair.tool!r} is "
                f"{'retryable' if new else 'not retryable'} now",
                ("errors", pair.code, "retryable"),
            )


@error_rule("TD404", "error-fix-changed", Level.SAFE)
def error_fix_changed(pair: ErrorPair) -> Iterator[Found]:
    """An error code's how-to-fix changed (what the model reads when the error happens).

    ## Why safe
    The code and its meaning stay; the instruction that comes with it changed.
    """
    if pair.old is not None and pair.new is not None:
        old, new = pair.old.get("how_to_fix"), pair.new.get("how_to_fix")
        if old != new:
            yield Found(
                f"the how-to-fix of error code {pair.code!r} of {pair.tool!r} changed",
                ("errors", pair.code, "how_to_fix"),
            )
