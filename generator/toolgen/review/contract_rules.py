"""Diff rules of the contract: parameters, return fields, error codes.

Each rule sees one element pair (see `elements`) and yields what changed, with a one-line
reason that names the old and the new value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from toolgen.review.elements import (
    BOUNDS,
    SPEC_KEY,
    ErrorPair,
    Node,
    ParamPair,
    ReturnPair,
    parameters,
)
from toolgen.review.registry import Found, Group, Level, diff_rule


def _values(values: object) -> str:
    items = values if isinstance(values, list | tuple | set | frozenset) else [values]
    return ", ".join(json.dumps(v, ensure_ascii=False) for v in items)


def _type(node: Node) -> str:
    return node.type + (f" ({node.format})" if node.format else "")


# --- parameters ---------------------------------------------------------------------------


@diff_rule(
    ParamPair,
    id="TD201",
    name="parameter-removed",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def parameter_removed(pair: ParamPair) -> Iterator[Found]:
    """A parameter was removed.

    ## Why breaking
    The schema forbids keys it does not list (`additionalProperties: false`): a call that
    sends the old parameter is refused.
    """
    if pair.new is None and pair.old is not None:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} was removed", pair.old.parent
        )


@diff_rule(
    ParamPair,
    id="TD202",
    name="parameter-renamed",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def parameter_renamed(pair: ParamPair) -> Iterator[Found]:
    """A parameter was renamed (removed, and added beside it accepting the same values).

    ## Why breaking
    A call with the old name is refused for an unknown key and a missing one.
    """
    if pair.renamed_from is not None and pair.new is not None:
        yield Found(
            f"parameter {pair.renamed_from.name!r} of {pair.tool!r} was renamed to "
            f"{pair.new.name!r}",
            pair.new.where,
        )


@diff_rule(
    ParamPair,
    id="TD203",
    name="parameter-added-required",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
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


@diff_rule(
    ParamPair,
    id="TD204",
    name="parameter-added-optional",
    level=Level.DANGEROUS,
    group=Group.PARAMETERS,
)
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


@diff_rule(
    ParamPair,
    id="TD205",
    name="parameter-made-required",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def parameter_made_required(pair: ParamPair) -> Iterator[Found]:
    """A parameter that took null no longer does.

    ## Why breaking
    A call that sent null (meaning "leave it out" or "the default") is refused.
    """
    if pair.old and pair.new and pair.old.node.nullable and not pair.new.node.nullable:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} no longer takes null",
            (*pair.new.where, "optional"),
        )


@diff_rule(
    ParamPair,
    id="TD206",
    name="parameter-type-changed",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def parameter_type_changed(pair: ParamPair) -> Iterator[Found]:
    """A parameter's type (or format, such as date and date-time) changed.

    ## Why breaking
    Values of the old type are refused: strict validation does not convert `"5"` to `5`.
    """
    if pair.old and pair.new and pair.old.node.shape != pair.new.node.shape:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} is {_type(pair.new.node)}, was "
            f"{_type(pair.old.node)}",
            (*pair.new.where, "type"),
        )


@diff_rule(
    ParamPair,
    id="TD207",
    name="enum-value-removed",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def enum_value_removed(pair: ParamPair) -> Iterator[Found]:
    """A value was removed from a parameter's enum.

    ## Why breaking
    A call with that value is refused.
    """
    if not (pair.old and pair.new) or pair.old.node.shape != pair.new.node.shape:
        return
    old, new = pair.old.node.enum, pair.new.node.enum
    if old is not None and new is not None:
        gone = [v for v in old if v not in new]
        if gone:
            yield Found(
                f"parameter {pair.label!r} of {pair.tool!r} no longer accepts "
                f"{_values(gone)}",
                (*pair.new.where, "enum"),
            )


def _tightened(old: Node, new: Node) -> list[tuple[str, str]]:
    """(schema keyword, reason) for each constraint of `new` that accepts fewer values."""
    found = []
    if old.enum is None and new.enum is not None:
        found.append(("enum", f"now accepts only {_values(new.enum)}"))
    for key, larger_is_tighter in BOUNDS.items():
        before, after = old.bounds.get(key), new.bounds.get(key)
        if after is None or before == after:
            continue
        if before is None or (after > before) == larger_is_tighter:
            was = "none" if before is None else json.dumps(before)
            found.append((key, f"{key} is {json.dumps(after)}, was {was}"))
    if new.pattern is not None and new.pattern != old.pattern:
        was = "none" if old.pattern is None else repr(old.pattern)
        found.append(("pattern", f"must match {new.pattern!r}, was {was}"))
    for key in sorted(set(old.other) | set(new.other)):
        if old.other.get(key) != new.other.get(key):
            found.append((key, f"{key} changed"))
    return found


@diff_rule(
    ParamPair,
    id="TD208",
    name="constraint-tightened",
    level=Level.BREAKING,
    group=Group.PARAMETERS,
)
def constraint_tightened(pair: ParamPair) -> Iterator[Found]:
    """A parameter's constraint accepts fewer values: a minimum raised, a maximum lowered, an
    enum or a pattern added, a pattern changed.

    ## Why breaking
    A call that passed may now be refused. A changed pattern counts as tightened: toolgen
    cannot prove the new one accepts everything the old one did.

    ## Example
    `max_results: {type: integer, max: 50}` becomes `max: 20`.
    """
    if not (pair.old and pair.new) or pair.old.node.shape != pair.new.node.shape:
        return
    for key, reason in _tightened(pair.old.node, pair.new.node):
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r}: {reason}",
            (*pair.new.where, SPEC_KEY.get(key, key)),
        )


@diff_rule(
    ParamPair,
    id="TD209",
    name="parameter-loosened",
    level=Level.SAFE,
    group=Group.PARAMETERS,
)
def parameter_loosened(pair: ParamPair) -> Iterator[Found]:
    """A parameter accepts more values: an enum value added, a bound relaxed or dropped, a
    pattern dropped, null now accepted.

    ## Why safe
    Every call that passed still passes.
    """
    if not (pair.old and pair.new) or pair.old.node.shape != pair.new.node.shape:
        return
    old, new = pair.old.node, pair.new.node
    where = pair.new.where
    if old.enum is not None and new.enum is not None:
        came = [v for v in new.enum if v not in old.enum]
        if came:
            yield Found(
                f"parameter {pair.label!r} of {pair.tool!r} also accepts {_values(came)}",
                (*where, "enum"),
            )
    elif old.enum is not None and new.enum is None:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} no longer has an enum",
            (*where, "enum"),
        )
    for key, larger_is_tighter in BOUNDS.items():
        before, after = old.bounds.get(key), new.bounds.get(key)
        if before is None or before == after:
            continue
        if after is None or (after > before) != larger_is_tighter:
            now = "none" if after is None else json.dumps(after)
            yield Found(
                f"parameter {pair.label!r} of {pair.tool!r}: {key} is {now}, was "
                f"{json.dumps(before)}",
                (*where, SPEC_KEY[key]),
            )
    if old.pattern is not None and new.pattern is None:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} no longer has a pattern",
            (*where, "pattern"),
        )
    if not old.nullable and new.nullable:
        yield Found(
            f"parameter {pair.label!r} of {pair.tool!r} now takes null",
            (*where, "optional"),
        )


@diff_rule(
    ParamPair,
    id="TD210",
    name="parameter-description-changed",
    level=Level.SAFE,
    group=Group.PARAMETERS,
)
def parameter_description_changed(pair: ParamPair) -> Iterator[Found]:
    """The description of a parameter changed (the text the model reads beside it).

    ## Why safe
    Nothing the model sends becomes invalid; the text guides how it fills the value in.
    """
    if pair.old and pair.new and pair.old.node.description != pair.new.node.description:
        yield Found(
            f"the description of parameter {pair.label!r} of {pair.tool!r} changed",
            (*pair.new.where, "description"),
        )


# --- return fields ------------------------------------------------------------------------


@diff_rule(
    ReturnPair,
    id="TD301",
    name="return-field-removed",
    level=Level.BREAKING,
    group=Group.RETURNS,
)
def return_field_removed(pair: ReturnPair) -> Iterator[Found]:
    """A field of a successful answer was removed (or renamed).

    ## Why breaking
    The model, and any code that reads the answer, relied on it: the next turn asks for a
    value that is no longer there.
    """
    if pair.new is None and pair.old is not None:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} was removed", pair.old.parent
        )
    if pair.renamed_from is not None and pair.new is not None:
        yield Found(
            f"return field {pair.renamed_from.name!r} of {pair.tool!r} was renamed to "
            f"{pair.new.name!r}",
            pair.new.where,
        )


@diff_rule(
    ReturnPair,
    id="TD302",
    name="return-field-retyped",
    level=Level.BREAKING,
    group=Group.RETURNS,
)
def return_field_retyped(pair: ReturnPair) -> Iterator[Found]:
    """A return field's type (or format) changed.

    ## Why breaking
    Whatever reads the answer (the model's next call that passes the value on, the
    application) gets a value of another kind.
    """
    if pair.old and pair.new and pair.old.node.shape != pair.new.node.shape:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} is {_type(pair.new.node)}, was "
            f"{_type(pair.old.node)}",
            (*pair.new.where, "type"),
        )


@diff_rule(
    ReturnPair,
    id="TD303",
    name="return-field-made-nullable",
    level=Level.BREAKING,
    group=Group.RETURNS,
)
def return_field_made_nullable(pair: ReturnPair) -> Iterator[Found]:
    """A return field that always had a value may now be null.

    ## Why breaking
    A reader that used the value now meets null.
    """
    if pair.old and pair.new and not pair.old.node.nullable and pair.new.node.nullable:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} may now be null",
            (*pair.new.where, "optional"),
        )


@diff_rule(
    ReturnPair,
    id="TD304",
    name="return-enum-widened",
    level=Level.DANGEROUS,
    group=Group.RETURNS,
)
def return_enum_widened(pair: ReturnPair) -> Iterator[Found]:
    """A return field may hold values it never held: an enum value added, or the enum
    dropped.

    ## Why dangerous
    Nothing fails, but code that switches on the value (and the model's idea of what the
    values mean) meets a case it was not written for.
    """
    if not (pair.old and pair.new) or pair.old.node.shape != pair.new.node.shape:
        return
    old, new = pair.old.node.enum, pair.new.node.enum
    if old is None:
        return
    if new is None:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} is no longer limited to "
            f"{_values(old)}",
            (*pair.new.where, "enum"),
        )
        return
    came = [v for v in new if v not in old]
    if came:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} may also be {_values(came)}",
            (*pair.new.where, "enum"),
        )


@diff_rule(
    ReturnPair,
    id="TD305",
    name="return-field-added",
    level=Level.SAFE,
    group=Group.RETURNS,
)
def return_field_added(pair: ReturnPair) -> Iterator[Found]:
    """A field was added to successful answers.

    ## Why safe
    Readers of the old fields still find them; the answer costs a little more context.
    """
    if pair.old is None and pair.renamed_from is None and pair.new is not None:
        yield Found(
            f"return field {pair.label!r} was added to {pair.tool!r}", pair.new.where
        )


@diff_rule(
    ReturnPair,
    id="TD306",
    name="return-field-narrowed",
    level=Level.SAFE,
    group=Group.RETURNS,
)
def return_field_narrowed(pair: ReturnPair) -> Iterator[Found]:
    """A return field holds fewer kinds of values: an enum value removed, an enum added,
    or it is never null any more.

    ## Why safe
    Every value a reader may now meet is one it met before.
    """
    if not (pair.old and pair.new) or pair.old.node.shape != pair.new.node.shape:
        return
    old, new = pair.old.node, pair.new.node
    if old.enum is not None and new.enum is not None:
        gone = [v for v in old.enum if v not in new.enum]
        if gone:
            yield Found(
                f"return field {pair.label!r} of {pair.tool!r} is never {_values(gone)} "
                "any more",
                (*pair.new.where, "enum"),
            )
    elif old.enum is None and new.enum is not None:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} is now one of {_values(new.enum)}",
            (*pair.new.where, "enum"),
        )
    if old.nullable and not new.nullable:
        yield Found(
            f"return field {pair.label!r} of {pair.tool!r} is never null any more",
            (*pair.new.where, "optional"),
        )


@diff_rule(
    ReturnPair,
    id="TD307",
    name="return-description-changed",
    level=Level.SAFE,
    group=Group.RETURNS,
)
def return_description_changed(pair: ReturnPair) -> Iterator[Found]:
    """The description of a return field changed.

    ## Why safe
    The values are the same; the words that explain them to a reader changed.
    """
    if pair.old and pair.new and pair.old.node.description != pair.new.node.description:
        yield Found(
            f"the description of return field {pair.label!r} of {pair.tool!r} changed",
            (*pair.new.where, "description"),
        )


# --- error codes --------------------------------------------------------------------------


@diff_rule(
    ErrorPair,
    id="TD401",
    name="error-code-removed",
    level=Level.BREAKING,
    group=Group.ERRORS,
)
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


@diff_rule(
    ErrorPair, id="TD402", name="error-code-added", level=Level.SAFE, group=Group.ERRORS
)
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


@diff_rule(
    ErrorPair,
    id="TD403",
    name="error-retryable-changed",
    level=Level.DANGEROUS,
    group=Group.ERRORS,
)
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


@diff_rule(
    ErrorPair,
    id="TD404",
    name="error-fix-changed",
    level=Level.SAFE,
    group=Group.ERRORS,
)
def error_fix_changed(pair: ErrorPair) -> Iterator[Found]:
    """An error code's how-to-fix changed (what the model reads when the error happens).

    ## Why safe
    The code and its meaning stay; the instruction that comes with it changed.
    """
    old, new = pair.old, pair.new
    if (
        old is not None
        and new is not None
        and old.get("how_to_fix") != new.get("how_to_fix")
    ):
        yield Found(
            f"the how-to-fix of error code {pair.code!r} of {pair.tool!r} changed",
            ("errors", pair.code, "how_to_fix"),
        )


def param_names(tool: object) -> set[str]:
    """The top-level parameter names of a snapshot tool."""
    if not isinstance(tool, dict):
        return set()
    props = parameters(tool).get("properties", {})
    return set(props) if isinstance(props, dict) else set()
