"""The two-tool test: read two tools' names and descriptions only; would you know which one
to pick? If you hesitate, the model will too."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.names import overlapping
from toolgen.lint.parameters import is_free_string
from toolgen.lint.registry import Finding, ParamSite, ToolPair, rule
from toolgen.spec.ir import Tool
from toolgen.spec.summary import ToolSummary

_TEST = "toolgen seeds: Tools lesson, 'Designing the catalogue: the two-tool test'"
NAME_SIMILARITY = 0.5
INTENT_SIMILARITY = 0.5
PARAM_SIMILARITY = 0.67
OWN_PARAM_SIMILARITY = 0.5
# tools under two verbs are variants of one action only when their intents say so too
OTHER_VERB_INTENT_SIMILARITY = 0.25


def twins(
    first: ToolSummary, second: ToolSummary, ctx: CatalogueContext
) -> tuple[float, float, float] | None:
    """(name, intent, parameter) similarity of two near-twin tools, or None.

    Near twins do the same kind of thing to the same object with a different key or variant
    (find_customer_by_name, find_customer_by_email; git_diff_staged, git_diff_unstaged):
    half their name words are the same, and either the names differ only in the key after
    `by` (or `with`, `for`, ...) or the parameters that tell them apart are mostly the same
    too, beside alike intents, and the names are about the same object (their last word
    before a preposition, qualifiers such as `staged` aside). Tools that change different
    parts of an object
    (update_reservation_flights, update_reservation_passengers) take different parameters:
    they are neighbours, not twins."""
    a, b = ctx.profile(first.name), ctx.profile(second.name)
    if a.verb_class != b.verb_class or not (a.objects & b.objects or a.verb == b.verb):
        return None
    if words.opposite_verbs(a.verb, b.verb):
        return None  # deposit and withdraw: one action and its mirror are two tools
    if overlapping(first, second, ctx) or a.name_set == b.name_set:
        return None  # TG206 / TG202
    by_name = words.jaccard(a.name_set, b.name_set)
    by_intent = words.jaccard(a.intent, b.intent)
    by_params = words.jaccard(a.params, b.params) if a.params and b.params else 0.0
    if by_name < NAME_SIMILARITY or (a.head and b.head and a.head != b.head):
        return None  # different heads: update_issue_labels and update_issue_title
    keyed = a.keyed[0] == b.keyed[0] and bool(a.keyed[1]) and bool(b.keyed[1])
    own_a, own_b = a.params - ctx.common_params, b.params - ctx.common_params
    own = (
        1.0 if own_a == own_b or not own_a or not own_b else words.jaccard(own_a, own_b)
    )
    alike = by_intent >= INTENT_SIMILARITY or by_params >= PARAM_SIMILARITY
    if a.verb != b.verb and by_intent < OTHER_VERB_INTENT_SIMILARITY:
        # two verbs, and intents that share almost nothing: the descriptions tell the two
        # actions apart (MakePayment pays, RequestPayment asks to be paid; 9% alike)
        return None
    if keyed or (own >= OWN_PARAM_SIMILARITY and alike):
        return by_name, by_intent, by_params
    return None


@rule(
    id="TG401",
    severity=Severity.WARNING,
    fix="Merge the twins into one tool with a typed kind parameter "
    "(find_customer(value, kind: [name, email, vat])).",
    source=f"{_TEST}: near-twin tools",
)
def near_twin_tools(pair: ToolPair, ctx: CatalogueContext) -> Iterator[Finding]:
    """Near-twin tools.

    ## What it does
    Reports two tools of the same kind of action on the same object whose names are mostly
    the same and that differ only in a key or a variant: the names differ only after `by`
    (`find_customer_by_name`, `find_customer_by_email`), or the intents are alike and the
    parameters that set the two apart (those most of the catalogue's tools do not share)
    are mostly the same. Tools that change different parts of one object
    (`update_reservation_flights`, `update_reservation_passengers`) are not twins, nor are
    tools that do opposite things (`deposit_savings` and `withdraw_savings`; `un`-, `dis`-
    and `de`- verbs too; `contacts_add_segment` and `contacts_remove_segment`, whose verb
    follows their resource), nor tools under two verbs whose intents share less than a
    quarter of their words (`MakePayment` pays, `RequestPayment` asks to be paid).

    ## Why is this bad?
    Each twin takes up context on every turn, and the model has to make a choice that adds no
    information; with a typed parameter the choice becomes a value the validator can check.

    ## Example
    ```yaml
    name: find_customer_by_email    # beside find_customer_by_name
    params:
      email: {type: string, description: The customer's email.}
    ```

    ## Use instead
    ```yaml
    name: find_customer
    params:
      value: {type: string, max_length: 200, description: The name, email or VAT number.}
      kind: {type: string, enum: [name, email, vat], description: What value holds.}
    ```
    """
    if found := twins(pair.first, pair.second, ctx):
        by_name, by_intent, by_params = found
        yield Finding(
            f"tools {pair.first.name!r} and {pair.second.name!r} are near twins (names "
            f"{by_name:.0%}, intents {by_intent:.0%}, parameters {by_params:.0%} alike); "
            "expected one tool"
        )


# the names of a parameter that picks what a tool does (manage_order(action: ...))
ACTION_PARAMS = words.wordset(
    "action actions operation operations op command mode verb"
)


@rule(
    id="TG402",
    severity=Severity.ERROR,
    fix="Split the tool: one read tool, and one tool per write effect.",
    source=f"{_TEST}: a tool that does two things (manage_order(action: read|cancel|edit))",
)
def action_spans_read_and_write(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A parameter whose values pick between reading and writing.

    ## What it does
    Reports an enum parameter whose values include both a read verb (`read`, `get`, `list`)
    and a write verb (`cancel`, `update`, `delete`, `send`), when the parameter picks the
    action: it takes one value (a list of values picks what to include, as a filter does:
    chrome-devtools' `list_console_messages(types: [log, clear, issue, ...])` lists messages
    of those kinds), and in a read tool it is named as an action (`action`, `operation`,
    `mode`, ...): a read tool's contract says a call changes nothing, so its other values
    are kinds of what it reads.

    ## Why is this bad?
    The model picks the action with the same lightness with which it fills in any field, and
    you cannot give different permissions, confirmations or idempotency to different
    operations of one tool. Reads and writes go in separate tools, always.

    ## Example
    ```yaml
    name: manage_order
    params:
      action: {type: string, enum: [read, cancel, edit], description: What to do.}
    ```

    ## Use instead
    ```yaml
    # tools/read_order.yaml (effect: read) and tools/cancel_order.yaml (effect: destructive)
    name: read_order
    ```
    """
    if site.param.items is not None:
        return  # a list of values is a filter: several kinds at once, not one action
    if site.tool.effect == "read" and not ACTION_PARAMS & set(site.name_words):
        return  # what a read tool reads: log and clear are kinds of console messages
    verbs = [v for v in site.scalar.constraints.enum or () if isinstance(v, str)]
    reads = [v for v in verbs if words.VERB_CLASS.get(v) == "lookup"]
    writes = [v for v in verbs if words.VERB_CLASS.get(v, "") in words.WRITE_CLASSES]
    if reads and writes:
        yield Finding(
            f"parameter {site.dotted!r} of {site.tool.name!r} picks between reading "
            f"({words.quoted(reads)}) and writing ({words.quoted(writes)}); expected a "
            "separate tool for each effect",
            span=site.scalar.origin.span("enum"),
        )


DISPATCH_WORDS = words.wordset(
    """run execute exec call invoke perform do process handle dispatch trigger operation
    operations action actions command commands request requests task tasks function method
    api endpoint job step query generic any dynamic tool"""
)
FREEFORM_PARAMS = words.wordset(
    """params parameters args arguments kwargs payload body options config settings json
    dict fields attributes"""
)


# A "body" that is the text of a message is prose for people, not a payload of fields.
_PROSE = re.compile(
    r"\b(markdown|text|content|comment|message|description|prose|e?mail|letter|note|reply)"
    r"\b(?![^.]*\bjson\b)",
    re.I,
)


@rule(
    id="TG403",
    severity=Severity.WARNING,
    fix="Design one tool per user intention, with typed parameters for what it accepts.",
    source=f"{_TEST}: a tool that is too generic (run_operation(name, parameters: dict))",
)
def too_generic_tool(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A tool too generic to be chosen or validated.

    ## What it does
    Reports a dispatcher name made only of generic words (`run_operation`, `execute_action`,
    `call_api`) and parameters that carry free-form data: an object without properties, or a
    string named like `params`, `payload`, `options` or `json` without a pattern (a `body`
    whose description says it is text, markdown or a comment is prose and passes).

    ## Why is this bad?
    The schema says nothing, the model does not know what it can ask for, and all the
    validation ends up at run time. Such agents fail in ways impossible to diagnose.

    ## Example
    ```yaml
    name: run_operation
    params:
      name: {type: string, description: The operation.}
      params: {type: string, description: JSON of the operation's parameters.}
    ```

    ## Use instead
    ```yaml
    name: create_reorder
    params:
      sku: {type: string, pattern: '^SKU-\\d{2,6}$', description: The product code.}
      quantity: {type: integer, min: 1, max: 1000, description: Pieces to order.}
    ```
    """
    parts = words.name_words(tool.name)
    if len(parts) >= 2 and all(p in DISPATCH_WORDS for p in parts):
        yield Finding(
            f"tool name {tool.name!r} names a dispatcher, not an intention; expected one tool "
            "per thing the user wants done"
        )
    for param in tool.all_params():
        free_object = param.type == "object" and not param.properties
        free_string = (
            is_free_string(param)
            and param.name.lower() in FREEFORM_PARAMS
            and not _PROSE.search(param.description)
        )
        if free_object or free_string:
            kind = (
                "an object without properties" if free_object else "a free-form string"
            )
            yield Finding(
                f"parameter {param.name!r} of {tool.name!r} is {kind}; expected typed "
                "parameters for what the tool accepts",
                span=param.origin.key_span,
            )


_AFTER = re.compile(
    r"(?:\b(?:then|afterwards|after (?:this|that|it|each call|every call)|always|each time"
    r"|every time)\b[^.;]*?\b(?:call|use|run|invoke)\s+`?(?P<a>[A-Za-z0-9_.-]+)`?)"
    r"|(?:\b(?:call|use|run|invoke)\s+`?(?P<b>[A-Za-z0-9_.-]+)`?\s+(?:afterwards|after"
    r"(?:wards)?|next|right after|immediately after)\b)"
    r"|(?:\bmust be followed by\s+`?(?P<c>[A-Za-z0-9_.-]+)`?)",
    re.IGNORECASE,
)
_CONDITIONAL = re.compile(
    r"\b(if|only|when|unless|approves?|confirms?)\b", re.IGNORECASE
)


@rule(
    id="TG404",
    severity=Severity.WARNING,
    fix="Merge the two tools into one that does both steps.",
    source=f"{_TEST}: one tool per user intention, not per endpoint of your backend",
)
def always_call_after(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A tool that says another must always be called after it.

    ## What it does
    Reports prose of a tool that tells the model, without a condition, to call another tool
    of the catalogue afterwards ("then call apply_discount", "always call B after").

    ## Why is this bad?
    Two calls for one intention double the turns and the chances of stopping half way; the
    model may forget the second call, and the state between them is visible and forgeable.
    A step that always follows belongs inside the first tool. (A prepare/confirm pair is
    different: the second call waits for a person, so the sentence has a condition.)

    ## Example
    ```yaml
    name: create_invoice
    intent: Create an invoice for an order, then call send_invoice to deliver it.
    ```

    ## Use instead
    ```yaml
    name: issue_invoice
    intent: Create an invoice for an order and send it to the customer's billing address.
    ```
    """
    for piece in ctx.prose(tool, how_to_fix=False):
        for sentence in re.split(r"(?<=[.;!?])\s+", piece.text):
            if _CONDITIONAL.search(sentence):
                continue
            for found in _AFTER.finditer(sentence):
                target = found.group("a") or found.group("b") or found.group("c")
                if target in ctx.names.known and target != tool.name:
                    yield Finding(
                        f"{piece.where} of {tool.name!r} says to call {target!r} after it "
                        "every time; expected one tool that does both steps",
                        span=piece.span,
                    )
                    return
