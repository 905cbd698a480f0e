"""Rules on returns and errors: what comes back enters the context, and is paid for on every
following turn."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext, return_sites
from toolgen.lint.registry import (
    LESSON,
    ErrorSite,
    Finding,
    Lifecycle,
    ReturnSite,
    rule,
)
from toolgen.spec.ir import Tool, innermost

_CONTEXT = f"{LESSON}, 'The return value is context, and context is paid n times'"

TOTAL_FIELDS = frozenset({"total_available", "total", "total_count", "total_matching"})
HINT_FIELDS = words.wordset(
    "note next_cursor cursor truncated has_more next_page next_page_token"
)


@rule(
    id="TG801",
    severity=Severity.WARNING,
    fix="Declare pagination: (max_page_size, total) and return the fields of one item: the "
    "runtime builds the page with its counts, a signed cursor and a note. A list bounded by "
    "nature (a week's days, the fields one update changed) needs none: suppress the rule on "
    "the tool, with the bound as the reason.",
    source=f"{_CONTEXT}: paginate, and declare that you are paginating",
)
def list_without_pagination(site: ReturnSite, ctx: LintContext) -> Iterator[Finding]:
    """A list without pagination and a truncation hint.

    ## What it does
    Reports a top-level list in the returns when its siblings have neither a total
    (`total_available`) nor a truncation hint (`note`, `next_cursor`, `next_page_token`,
    `has_more`): either one tells the model there may be more. A tool that takes a list
    (one answer per item asked for) is bounded by its own call and passes, and so does a
    list beside an `id`: the tags of the one record returned, not results. A list bounded
    by nature (the seven days of a week) has no count to give: suppress the rule on that
    tool, with the bound as the reason.

    ## Why is this bad?
    If the tool returns ten results out of 428 and does not say so, the model concludes there
    are ten and tells the user with confidence: a lie in perfect good faith.

    ## Example
    ```yaml
    returns:
      orders: {type: array, items: {type: string}, description: The orders found.}
    ```

    ## Use instead
    ```yaml
    pagination: {max_page_size: 50, total: counted, noun: order}
    returns:
      order_number: {type: string, description: The order's number.}
    ```

    Returning `shown`, `total_available` and a `note` beside the list also passes.
    """
    if len(site.path) != 1 or site.field.type != "array":
        return
    if site.tool.pagination is not None:
        return  # the returns are one item; the runtime builds the page around them
    if any(p.type == "array" for p in site.tool.params):
        return  # one item per item asked for: the call's own list bounds the answer
    names = {f.name for f in site.siblings}
    if names & TOTAL_FIELDS or names & HINT_FIELDS or "id" in names:
        return  # beside the record's id, a list is one of its attributes (a pet's tags)
    yield Finding(
        f"list {site.field.name!r} of {site.tool.name!r} comes without a total "
        "(total_available) or a truncation hint (next_cursor, note, has_more); expected the "
        "model to know when it sees only part of the results"
    )


# whose size is how many members: page_size, batch_size, party_size
GROUPS = words.wordset(
    "page batch chunk party team group sample household crew history queue list"
)
QUANTITY_WORDS = words.wordset(
    """weight mass amount price cost fee total balance duration timeout delay interval age
    distance length width height depth size volume temperature speed capacity tax discount
    salary revenue budget elevation altitude latency"""
)
UNIT_WORDS = words.wordset(
    """kg g mg lb lbs oz t eur usd gbp chf jpy cny inr sek nok dkk pln czk aud cad nzd brl
    mxn zar krw sgd hkd cents cent s sec secs second seconds ms milliseconds min mins minute
    minutes h hr hrs hour hours day days week weeks month months year years m km cm mm mi ft
    inch inches bytes kb mb gb tb kib mib gib pct percent ratio celsius fahrenheit kelvin
    c f kmh mph mps l ml units unit pieces items count"""
)


# The unit a message suggests for each quantity.
UNIT_FOR = {
    quantity: unit
    for unit, quantities in (
        ("kg", "weight mass"),
        ("s", "duration timeout delay interval"),
        ("ms", "latency"),
        ("years", "age"),
        ("km", "distance"),
        ("m", "length width height depth elevation altitude"),
        ("bytes", "size"),
        ("l", "volume"),
        ("units", "capacity"),
        ("celsius", "temperature"),
        ("kmh", "speed"),
    )
    for quantity in quantities.split()
}


def _plural(word: str) -> bool:
    """totalThoughts: a total of things counted, not an amount."""
    return len(word) > 3 and word.endswith("s") and word not in UNIT_WORDS


@rule(
    id="TG802",
    severity=Severity.WARNING,
    fix="Put the unit in the name: weight_kg, amount_eur, duration_s.",
    source="toolgen design: returns carry the fields the model needs, with units in their "
    "names",
)
def quantity_without_unit(site: ReturnSite, ctx: LintContext) -> Iterator[Finding]:
    """A return key with a quantity and no unit.

    ## What it does
    Reports a number or integer return field named like a quantity (`weight`, `amount`,
    `price`, `duration`, `distance`, ...) with no unit word in its name; not a count
    (`total_thoughts`, an integer `total`, `page_size`, `thought_history_length`).

    ## Why is this bad?
    The model reads `weight: 12` and tells the user twelve of whatever it guesses: kilograms,
    pounds, grams. The unit in the key travels with the value into every turn.

    ## Example
    ```yaml
    returns:
      price: {type: number, description: The unit price.}
    ```

    ## Use instead
    ```yaml
    returns:
      price_eur: {type: number, description: The unit price in euros.}
    ```
    """
    field = site.field
    if field.type not in ("integer", "number"):
        return
    parts = words.name_words(field.name)
    quantities = [
        p
        for before, p, after in zip(("", *parts), parts, (*parts[1:], ""), strict=False)
        if p in QUANTITY_WORDS
        and not (p == "total" and (field.type == "integer" or _plural(after)))
        # page_size, history_length count items, not bytes or metres
        and not (p in ("size", "length") and before in GROUPS)
    ]
    if quantities and not set(parts) & UNIT_WORDS:
        unit = UNIT_FOR.get(quantities[0], "eur")
        yield Finding(
            f"return field {site.dotted!r} holds a quantity ({quantities[0]}) without a unit; "
            f"expected the unit in the name, such as '{field.name}_{unit}'",
            hint=f"Rename the field to {field.name + '_' + unit!r} (or the unit it holds).",
        )


STATUS_FLAGS = words.wordset(
    """success succeeded successful ok status approved accepted allowed permitted valid
    eligible passed failed rejected denied completed done"""
)
REASON_WORDS = words.wordset(
    "reason reasons message why explanation detail details note"
)


@rule(
    id="TG803",
    severity=Severity.WARNING,
    fix="Add a string field beside it that says why (reason), or return a declared error "
    "with a how_to_fix instead of false.",
    source=f"{LESSON}: a tool's error is not an exception but a piece of information to "
    "return",
)
def boolean_status_without_reason(
    site: ReturnSite, ctx: LintContext
) -> Iterator[Finding]:
    """A boolean status without a reason.

    ## What it does
    Reports a boolean return field named like an outcome (`success`, `ok`, `approved`,
    `valid`, `eligible`, ...) when no sibling string field gives the reason.

    ## Why is this bad?
    `approved: false` tells the model that something went wrong and nothing about what to do:
    it retries unchanged, or invents an explanation for the user.

    ## Example
    ```yaml
    returns:
      approved: {type: boolean, description: Whether the refund was approved.}
    ```

    ## Use instead
    ```yaml
    returns:
      approved: {type: boolean, description: Whether the refund was approved.}
      reason: {type: string, description: Why the refund was or was not approved.}
    ```
    """
    field = site.field
    if field.type != "boolean" or field.name.lower() not in STATUS_FLAGS:
        return
    if not any(
        s.type == "string" and REASON_WORDS & set(words.name_words(s.name))
        for s in site.siblings
    ):
        yield Finding(
            f"boolean {site.dotted!r} of {site.tool.name!r} has no reason beside it; "
            "expected a string field that says why"
        )


@rule(
    id="TG804",
    severity=Severity.WARNING,
    fix="Name the error code in snake case after its cause: unknown_sku, out_of_stock.",
    source='toolgen design: every error output is {"ok": false, "error": "<code>"}; '
    "Google API design guide (error reasons as stable identifiers)",
)
def error_code_not_snake_case(site: ErrorSite, ctx: LintContext) -> Iterator[Finding]:
    """An error code that is not snake case.

    ## What it does
    Checks that every error code is lower-case words joined by `_`.

    ## Why is this bad?
    The code is the stable identifier the model, the logs and the dashboards match on;
    `UnknownSku`, `unknown-sku` and `ERR42` make that matching (and grepping) unreliable.

    ## Example
    ```yaml
    errors:
      UnknownSKU: {how_to_fix: Call read_stock again with sku set to one of known_skus.}
    ```

    ## Use instead
    ```yaml
    errors:
      unknown_sku: {how_to_fix: Call read_stock again with sku set to one of known_skus.}
    ```
    """
    code = site.error.code
    if not words.SNAKE_CASE.fullmatch(code):
        suggestion = "_".join(words.name_words(code)) or "error_cause"
        yield Finding(
            f"error code {code!r} is not snake case; expected {suggestion!r}",
            hint=f"Rename the error code to {suggestion!r}.",
        )


IMPERATIVES = frozenset(words.VERB_CLASS) | words.wordset(
    """ask retry try wait pass give tell correct shorten fix repeat contact inform explain
    offer suggest omit include narrow widen limit keep split reduce increase lower raise
    enter provide pick choose select use call leave write spell do don't stop
    request"""
)
_LEADING_CLAUSE = re.compile(
    r"^(if|when|unless|once|after|before)\b[^,]*,\s*", re.IGNORECASE
)


@rule(
    id="TG805",
    severity=Severity.WARNING,
    fix="Start how_to_fix with what the model should do: 'Call ...', 'Ask the user ...', "
    "'Retry with ...'.",
    source=f"{LESSON}: errors that say what to retry; the generic 'please try again' is worse "
    "than nothing",
)
def how_to_fix_not_instruction(site: ErrorSite, ctx: LintContext) -> Iterator[Finding]:
    """A how-to-fix that is not an instruction.

    ## What it does
    Checks that an error's `how_to_fix` is an imperative sentence (after an optional leading
    "If ...," clause): it starts with a verb such as Call, Ask, Retry, Use or Set.

    ## Why is this bad?
    The model reads how_to_fix after a failed call to decide its next step. A description of
    the problem ("The SKU does not exist.") leaves it to guess the step; an instruction tells
    it.

    ## Example
    ```yaml
    errors:
      unknown_sku: {how_to_fix: The SKU does not exist.}
    ```

    ## Use instead
    ```yaml
    errors:
      unknown_sku: {how_to_fix: Call read_stock again with sku set to one of known_skus.}
    ```
    """
    text = site.error.how_to_fix.strip()
    first = re.match(r"[A-Za-z']+", _LEADING_CLAUSE.sub("", text))
    if first is None or first.group(0).lower() not in IMPERATIVES:
        yield Finding(
            f"how_to_fix of {site.error.code!r} is not an instruction ({text!r}); expected "
            "an imperative such as 'Call read_stock, then ...'",
            span=site.error.origin.span("how_to_fix"),
        )


_QUOTED = re.compile(r"['\"`][^'\"`]+['\"`]|\d")
_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")


@rule(
    id="TG806",
    severity=Severity.WARNING,
    fix="Name what to change or use: a parameter, a value, a detail the error adds (named in "
    "its when) or the tool to call.",
    source=f"{LESSON}: a useful error names the field and the way out",
)
def how_to_fix_names_nothing(site: ErrorSite, ctx: LintContext) -> Iterator[Finding]:
    """A how-to-fix that names no parameter, value or tool.

    ## What it does
    Checks that an error's `how_to_fix` names at least one parameter of the tool, one tool of
    the catalogue, a value (quoted, or a number) or a detail the error adds (a snake_case
    name its `when` names too: `next_free_on`).

    ## Why is this bad?
    "Try again with valid input" is the generic message that teaches the model nothing: it
    retries unchanged. Naming the parameter and the way to a valid value turns the error into
    the next call.

    ## Example
    ```yaml
    errors:
      unknown_sku: {how_to_fix: Try again with a valid product.}
    ```

    ## Use instead
    ```yaml
    errors:
      unknown_sku: {how_to_fix: Call read_stock again with sku set to one of known_skus.}
    ```
    """
    text = site.error.how_to_fix
    if _QUOTED.search(text):
        return
    tokens = {t.strip(".-") for t in _TOKEN.findall(text)}
    # what it may name: the catalogue's tools, the tool's parameters and their string values
    params = site.tool.all_params()
    values = {v for p in params for v in p.constraints.enum or () if isinstance(v, str)}
    details = {t.strip(".-") for t in _TOKEN.findall(site.error.when) if "_" in t}
    own = {p.name for p in params} | values | details
    # the catalogue's names are not copied into a union: that is a copy for each error
    if not (tokens & ctx.names.known or tokens & own):
        yield Finding(
            f"how_to_fix of {site.error.code!r} names no parameter, value, detail or tool; "
            f"expected what to change, such as a parameter of {site.tool.name!r} or a tool "
            "to call",
            span=site.error.origin.span("how_to_fix"),
        )


FREE_TEXT_RESULTS = words.wordset(
    """result message text output response summary answer content body reply info
    details"""
)


# things whose text is what reading them is for (stemmed: "notes" is "note")
TEXT_OBJECTS = words.wordset(
    """file text content document page article body source readme transcript contents
    attachment note memo letter email mail message log manual chapter post comment notice"""
)


@rule(
    id="TG807",
    severity=Severity.WARNING,
    fix="Return the fields the model needs (numbers, codes, dates); it writes the prose.",
    source=f"{LESSON}, 'The traps you really fall into': returning free text instead of data",
)
def free_text_result(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A tool that returns prose instead of data.

    ## What it does
    Reports a tool whose only return field is a string named `result`, `message`, `text`,
    `output`, `summary` or similar, unless the tool reads a text (`read_file`, `read_attachment`,
    `fetch_page`, or a tool returning the `text` or `content` of what a `path` or `url`
    parameter names): there the text is the data.

    ## Why is this bad?
    "I found three orders, the most recent is from Tuesday" forces the model to re-parse
    prose, loses the numbers' types, and cannot be checked by the generated tests.

    ## Example
    ```yaml
    returns:
      result: {type: string, description: What was found.}
    ```

    ## Use instead
    ```yaml
    returns:
      on_hand_units: {type: integer, description: Pieces in the warehouse now.}
      below_threshold: {type: boolean, description: True when the product should be reordered.}
    ```
    """
    if len(tool.returns) != 1:
        return
    only = tool.returns[0]
    prof = ctx.profile_of(tool)
    # the text of the file or page a path or URL parameter names, as it is
    read = tool.has_guards and words.stem(only.name.lower()) in TEXT_OBJECTS
    if prof.verb_class == "lookup" and (prof.objects & TEXT_OBJECTS or read):
        return  # reading a file or a page: the text is the data the tool exists for
    if (
        only.type == "string"
        and only.enum is None
        and only.name.lower() in FREE_TEXT_RESULTS
    ):
        yield Finding(
            f"tool {tool.name!r} returns only free text ({only.name!r}); expected the fields "
            "the model needs",
            span=only.origin.key_span,
        )


@rule(
    id="TG808",
    severity=Severity.INFO,
    lifecycle=Lifecycle.PREVIEW,
    fix="Return extracted fields rather than raw text, and guard the output "
    "(tool_output_guardrails) against instructions in it.",
    source=f"{LESSON}, 'The traps you really fall into': the tool's return is untrusted text",
)
def open_world_free_text_result(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """An open-world tool that returns outside text.

    ## What it does
    Reports a tool with `open_world: true` that returns free strings (no enum): the first one
    is named.

    ## Why is this bad?
    A web page, an email or a third party's answer enters the context as the tool's result,
    and it may contain instructions. The schema cannot solve this, the architecture must;
    the rule makes the exposure visible in review.

    ## Example
    ```yaml
    name: fetch_supplier_page
    open_world: true
    returns:
      page_text: {type: string, description: The page.}
    ```

    ## Use instead
    ```yaml
    name: read_supplier_price
    open_world: true
    returns:
      price_eur: {type: number, description: The supplier's current unit price in euros.}
    ```
    """
    if not tool.open_world:
        return
    for site in return_sites(tool):
        value = innermost(site.field)
        if value.type == "string" and value.enum is None:
            yield Finding(
                f"open-world tool {tool.name!r} returns outside text in "
                f"{site.field.name!r}; expected it treated as untrusted (instructions may "
                "hide in it)",
                span=site.field.origin.key_span,
            )
            return


MAX_RETURN_FIELDS = 15


@rule(
    id="TG809",
    severity=Severity.WARNING,
    lifecycle=Lifecycle.PREVIEW,
    fix="Return the fields this agent's decisions need, never the whole row.",
    source=f"{_CONTEXT}: return the fields that are needed, never the whole row",
)
def too_many_return_fields(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A result with more fields than a decision needs.

    ## What it does
    Reports the returns of a tool, or an object inside them, with more than 15 fields.

    ## Why is this bad?
    A result is re-sent on every following turn: twenty columns of which the model uses four
    cost five times what they should, and the irrelevant ones are chances to confuse it.

    ## Example
    ```yaml
    returns:   # every column of the orders table
      order_number: ...
      # ... 19 more
    ```

    ## Use instead
    ```yaml
    returns:
      order_number: ...
      status: ...
      placed_on: ...
      total_eur: ...
    ```
    """
    objects = [f for top in tool.returns for f in top.walk() if f.type == "object"]
    groups = [
        ("the returns", tool.returns, tool.origin.span("returns", key=True)),
        *((f"object {f.name!r}", f.properties, f.origin.key_span) for f in objects),
    ]
    for label, fields, span in groups:
        if len(fields) > MAX_RETURN_FIELDS:
            yield Finding(
                f"{label} of {tool.name!r} have {len(fields)} fields; expected at most "
                f"{MAX_RETURN_FIELDS}, the ones a decision needs",
                span=span,
            )
