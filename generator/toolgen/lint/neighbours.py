"""Rules on the boundary between neighbouring tools: the tools a request could fit both of
(`neighbours`) must say which is which with a `not_when`, and a `not_when` must send its case
to a tool that covers it, never back and forth."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import CatalogueContext, ToolProfile
from toolgen.lint.names import overlapping
from toolgen.lint.registry import DOCSTRING, Finding, ToolPair, rule
from toolgen.lint.two_tool import twins
from toolgen.spec.summary import ToolSummary


@rule(
    id="TG303",
    severity=Severity.WARNING,
    fix="Add a not_when to one of the two tools naming the other, with the case that "
    "belongs there.",
    source=f"{DOCSTRING}: the line 'do not use it for returns' is worth more than a paragraph "
    "of the system prompt",
)
def neighbour_without_not_when(
    pair: ToolPair, ctx: CatalogueContext
) -> Iterator[Finding]:
    """Two neighbouring tools and no when-not between them.

    ## What it does
    Reports two tools that a request could fit both of, when neither has a `not_when` (or
    `requires`) naming the other: tools about the same object (the last word of both names,
    `get_current_weather` and `get_weather_forecast`) that both look it up, or change it
    under synonymous verbs (`add_sub_issue`, `create_issue`), or, for a verb the vocabulary
    does not know, whose intents say mostly the same. Tools that
    only share a word are not neighbours: `read_order` and `cancel_order` are told apart by
    their verbs, `add_issue_comment` and `create_issue` by their objects. A name that puts
    its resource first reads its verb second: `contacts_list_segments` lists and
    `contacts_remove_segment` removes. Twins and
    overlapping names are reported by their own rules.

    ## Why is this bad?
    Neighbours are where the model hesitates. The boundary stated where the model looks while
    it decides ("not when the user wants to cancel: use cancel_order") prevents the wrong
    call; without it the model chooses by the look of the names.

    ## Example
    ```yaml
    name: read_order
    intent: Read the status, lines and total of one of the customer's orders.
    # beside search_orders: List the customer's orders, newest first.
    ```

    ## Use instead
    ```yaml
    name: read_order
    intent: Read the status, lines and total of one of the customer's orders.
    not_when:
      - when: The user asks about their orders in general, without an order number.
        use: search_orders
    ```
    """
    first, second = pair.first, pair.second
    a, b = ctx.profile(first.name), ctx.profile(second.name)
    shared = a.objects & b.objects
    if not shared or overlapping(first, second, ctx) or twins(first, second, ctx):
        return
    if a.normalized == b.normalized or not neighbours(a, b):
        return
    if not told_apart(first, second):
        yield Finding(
            f"tools {first.name!r} and {second.name!r} both act on "
            f"{words.quoted(sorted(shared))} and neither has a not_when naming the other; "
            "expected a not_when that tells the model when to use the other one"
        )


def told_apart(first: ToolSummary, second: ToolSummary) -> bool:
    """Whether one of two tools names the other in a not_when or in requires."""
    return (
        second.name in first.not_when_uses
        or first.name in second.not_when_uses
        or second.name in first.required
        or first.name in second.required
    )


NEIGHBOUR_INTENTS = 0.3
NEIGHBOUR_OBJECTS = 0.5


def neighbours(a: ToolProfile, b: ToolProfile) -> bool:
    """Two tools a request could fit both of: the same object (the head of both names) and
    the same kind of action. Sharing a word is not enough: read_order and cancel_order are
    told apart by their verbs (so are star and unstar), add_issue_comment and create_issue
    by their objects, set_battery_saver_mode and set_follow_me_mode by what the mode is.
    Two reads may answer one question whatever their verbs (read_file, search_files); two
    changes under verbs that are not synonyms are different changes (edit_file,
    move_file). A verb the vocabulary does not know (exchange, return) is judged by the
    intents."""
    if not a.head or a.head != b.head or words.opposite_verbs(a.verb, b.verb):
        return False
    alike = words.jaccard(a.intent, b.intent) >= NEIGHBOUR_INTENTS
    if a.verb_class.startswith("verb:") or b.verb_class.startswith("verb:"):
        return alike
    if a.verb_class != b.verb_class:
        return False
    if a.verb_class != "lookup" and words.SYNONYM_GROUP.get(a.verb, a.verb) != (
        words.SYNONYM_GROUP.get(b.verb, b.verb)
    ):
        # two changes under two verbs are two changes: edit_file, move_file
        return False
    return alike or words.jaccard(a.objects, b.objects) >= NEIGHBOUR_OBJECTS


@rule(
    id="TG304",
    severity=Severity.WARNING,
    fix="Send the case to the tool that handles it, or add the case to that tool's use_when.",
    source=f"{DOCSTRING}: the boundary with a neighbouring tool",
)
def not_when_not_covered(tool: ToolSummary, ctx: CatalogueContext) -> Iterator[Finding]:
    """A when-not whose alternative does not cover the case.

    ## What it does
    For each `not_when`, checks that the tool it names mentions the case: at least one
    content word of the `when` appears in that tool's name, intent or use_when.

    ## Why is this bad?
    The model follows the redirection and lands on a tool whose description does not match
    the request; it either calls it with made-up arguments or comes back, a turn lost.

    ## Example
    ```yaml
    not_when:
      - when: The user wants to cancel an order.
        use: read_stock
    ```

    ## Use instead
    ```yaml
    not_when:
      - when: The user wants to cancel an order.
        use: cancel_order
    ```
    """
    for item in tool.not_when:
        other = ctx.tool(item.name)
        if other is None or other.name == tool.name:
            continue  # unknown or self references are format errors (TG113, TG114)
        case = words.content_words(item.text)
        offered = ctx.profile(other.name).intent | ctx.profile(other.name).name_set
        if case and not case & offered:
            yield Finding(
                f"not_when sends {item.text!r} to {other.name!r}, whose intent and use_when "
                "say nothing of that case; expected a tool that covers it",
                span=item.at,
            )


LOOP_SIMILARITY = 0.5


@rule(
    id="TG305",
    severity=Severity.WARNING,
    fix="Decide which tool owns the case: keep the not_when on the other one only.",
    source=f"{DOCSTRING}: one boundary, stated once, in the right direction",
)
def not_when_loops_back(tool: ToolSummary, ctx: CatalogueContext) -> Iterator[Finding]:
    """A when-not that loops back.

    ## What it does
    Reports a `not_when` that sends a case to another tool whose own `not_when` sends the
    same case (mostly the same words) back.

    ## Why is this bad?
    Each description tells the model the other tool is right: it bounces between the two, or
    gives up and guesses.

    ## Example
    ```yaml
    # search_orders
    not_when:
      - {when: The user asks about a refund., use: search_returns}
    # search_returns
    not_when:
      - {when: The user asks about a refund., use: search_orders}
    ```

    ## Use instead
    ```yaml
    # search_returns
    not_when:
      - {when: The user asks about a refund on a delivered order., use: search_orders}
    # search_orders: no not_when for refunds
    ```
    """
    for item in tool.not_when:
        other = ctx.tool(item.name)
        if other is None or other.name == tool.name:
            continue
        case = words.content_words(item.text)
        if any(
            back.name == tool.name
            and words.jaccard(case, words.content_words(back.text)) >= LOOP_SIMILARITY
            for back in other.not_when
        ):
            yield Finding(
                f"not_when sends {item.text!r} to {other.name!r}, whose not_when sends "
                f"the same case back to {tool.name!r}; expected one owner per case",
                span=item.text_at or item.at,
            )
