"""Diff rules of the tools themselves: removed, renamed, added, what the model reads and what
it costs.

Each rule sees one tool pair (see `elements`) and yields what changed, with a one-line reason
that names the old and the new value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolgen.review.elements import ToolPair
from toolgen.review.registry import Found, Group, Level, diff_rules

tool_rule = diff_rules(ToolPair, Group.TOOLS)


@tool_rule("TD101", "tool-removed", Level.BREAKING)
def tool_removed(pair: ToolPair) -> Iterator[Found]:
    """A tool was removed.

    ## Why breaking
    A run in progress, an approval waiting in a saved RunState, a prompt or an evaluation
    that calls the tool gets no tool of that name: the SDK fails the call.

    ## Example
    `tools/read_stock.yaml` deleted.
    """
    if pair.new is None and pair.old is not None:
        yield Found(f"tool {pair.name!r} was removed", ("name",))


@tool_rule("TD102", "tool-renamed", Level.BREAKING)
def tool_renamed(pair: ToolPair) -> Iterator[Found]:
    """A tool was renamed (removed, and added under another name with the same parameters,
    returns, effect and error codes; a how_to_fix that follows the new name is a change of
    its own).

    ## Why breaking
    Calls under the old name fail as for a removed tool; the rename is reported once, not as
    a removal and an addition.

    ## Example
    `name: read_stock` becomes `name: get_stock`, nothing else changes.
    """
    if pair.renamed_from is not None:
        yield Found(
            f"tool {pair.renamed_from!r} was renamed to {pair.name!r}", ("name",)
        )


@tool_rule("TD103", "tool-added", Level.SAFE)
def tool_added(pair: ToolPair) -> Iterator[Found]:
    """A tool was added.

    ## Why safe
    Nothing that worked stops working. The new tool still costs tokens on every turn and may
    be a neighbour of an existing one: the review page shows both.
    """
    if pair.old is None and pair.new is not None:
        yield Found(f"tool {pair.name!r} was added", ("name",))


@tool_rule("TD104", "description-changed", Level.SAFE)
def description_changed(pair: ToolPair) -> Iterator[Found]:
    """The description the model reads changed.

    The description is composed from several keys of the contract (intent, use_when,
    not_when, requires, effect, idempotency, confirmation; the name, for the two tools of a
    token pair): the change names the keys that changed it and is placed on the first of
    them.

    ## Why safe
    The model reads the new text on its next turn and nothing it sends becomes invalid; but
    the description is a prompt, so the change is shown for review.

    ## Example
    `intent: List the customer's orders.` becomes `intent: List the customer's orders,
    newest first.`: "the description of 'search_orders' changed (... characters): intent
    changed", on the line of `intent`.
    """
    both = pair.both
    if both is None:
        return
    old, new = (t.get("model", {}).get("description", "") for t in both)
    if old == new:
        return
    before, after = (t.get("description_keys", {}) for t in both)
    causes = [k for k in {**before, **after} if before.get(k) != after.get(k)]
    sizes = f"{len(old)} -> {len(new)} characters"
    message = f"the description of {pair.name!r} changed ({sizes})"
    if not causes:
        yield Found(message, ("name",))
        return
    shown = [_cause(k, before.get(k), after.get(k)) for k in causes]
    written = [k for k in causes if _written(after.get(k))]
    yield Found(f"{message}: {'; '.join(shown)}", ((written or causes)[0],))


def _cause(key: str, old: object, new: object) -> str:
    """A key that changed a description, with its values when they are one word."""
    if key in ("effect", "confirmation"):
        return f"{key} is {new or 'none'}, was {old or 'none'}"
    return f"{key} changed"


def _written(value: object) -> bool:
    """Whether a description key holds something a contract writes (its line exists)."""
    if isinstance(value, Mapping):
        return bool(value.get("kind", "") != "none")
    return bool(value) and value != "none"


@tool_rule("TD105", "definition-changed-by-toolgen", Level.DANGEROUS)
def definition_changed_by_toolgen(pair: ToolPair) -> Iterator[Found]:
    """What the model reads changed without a change of the contract: the old version's
    lockfile holds another definition than this toolgen makes from the same contract.

    ## Why dangerous
    A new toolgen version composed the description or the schema differently. Nothing in
    the spec diff shows it; the lockfile diff does, and this rule names it so a reviewer
    reads the new text on purpose.
    """
    old, committed = pair.old, pair.committed
    if old is None or committed is None:
        return
    same_source = committed.get("source") == old.get("source")
    if same_source and committed.get("digest") != old.get("digest"):
        yield Found(
            f"toolgen now gives the model another definition of {pair.name!r} from the same "
            f"contract (digest {committed.get('digest')} in the committed lockfile, "
            f"{old.get('digest')} now)",
            ("name",),
        )


@tool_rule("TD106", "token-cost-changed", Level.SAFE)
def token_cost_changed(pair: ToolPair) -> Iterator[Found]:
    """What the tool costs the model on every turn changed.

    ## Why safe
    Compatible, but paid on every turn of every run: the change is shown per tool, with the
    catalogue's total and budget in the summary.
    """
    both = pair.both
    if both is None:
        return
    old, new = (int(t.get("tokens", 0)) for t in both)
    if old != new:
        yield Found(
            f"{pair.name!r} costs {new} tokens per turn, was {old} ({new - old:+d})",
            ("name",),
        )
