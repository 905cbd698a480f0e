"""Rules on descriptions: what the model reads to decide whether, and how, to call a tool."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext
from toolgen.lint.prose import Scanner
from toolgen.lint.registry import (
    DOCSTRING,
    LESSON,
    Finding,
    ParamSite,
    ReturnSite,
    SpecText,
    rule,
)
from toolgen.spec.ir import Tool, innermost
from toolgen.text import clipped, counted

MIN_INTENT_WORDS = 5


@rule(
    id="TG301",
    severity=Severity.WARNING,
    fix="Write the intent as one sentence of what the tool does for the user, with its "
    "object and its limits.",
    source=f"{DOCSTRING}; OpenAI function calling best practices (detailed descriptions)",
)
def intent_too_short(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Missing or too short intent.

    ## What it does
    Reports a tool whose `intent` has fewer than five words.

    ## Why is this bad?
    The intent opens the description the model reads at every turn. "Gets data." tells it
    nothing it could not guess from the name, so every call rests on a guess.

    ## Example
    ```yaml
    intent: Reads stock.
    ```

    ## Use instead
    ```yaml
    intent: Read the current stock and the reorder threshold of a product.
    ```
    """
    count = len(re.findall(r"[^\W_]+", tool.intent))
    if count < MIN_INTENT_WORDS:
        yield Finding(
            f"intent {tool.intent!r} has {counted(count, 'word')}; expected a sentence of "
            f"at least {MIN_INTENT_WORDS} words saying what the tool does",
            span=tool.origin.span("intent"),
        )


@rule(
    id="TG302",
    severity=Severity.WARNING,
    fix="Add use_when: the user's situation that should make the model pick this tool.",
    source=f"{DOCSTRING}: the description says when to use the tool, not how it works",
)
def missing_use_when(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Tool without a when-to-use.

    ## What it does
    Reports a tool with no `use_when`.

    ## Why is this bad?
    The model picks a tool by matching the user's words against the description. The intent
    says what the tool does; use_when says which requests it answers, in the user's terms.

    ## Example
    ```yaml
    name: read_stock
    intent: Read the current stock and the reorder threshold of a product.
    ```

    ## Use instead
    ```yaml
    name: read_stock
    intent: Read the current stock and the reorder threshold of a product.
    use_when: The user asks how many pieces of a product are in stock.
    ```
    """
    if not tool.use_when:
        yield Finding(
            f"tool {tool.name!r} has no use_when; expected the situation in which the model "
            "should pick it"
        )


@rule(
    id="TG306",
    severity=Severity.ERROR,
    fix="Shorten the intent, use_when and not_when; move detail to parameter descriptions.",
    source="OpenAI function calling: a function description is at most 1024 characters",
)
def description_over_target_limit(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Tool description longer than a target accepts.

    ## What it does
    Measures the description toolgen composes (intent, use_when, not_when, requires, effect)
    against the limit of every declared target (OpenAI: 1,024 characters).

    ## Why is this bad?
    The provider rejects the request; and long before the limit, every extra sentence is
    paid on every turn.

    ## Example
    ```yaml
    intent: >-
      Read the stock ... (a page of history, caveats and examples)
    ```

    ## Use instead
    ```yaml
    intent: Read the current stock and the reorder threshold of a product.
    ```
    """
    size = len(tool.description)
    for target in ctx.targets:
        if target.description_chars is not None and size > target.description_chars:
            yield Finding(
                f"description of {tool.name!r} is {size:,} characters; {target.label} accepts "
                f"at most {target.description_chars:,}",
                span=tool.origin.span("intent"),
            )


PROMOTIONAL = Scanner(
    ("always", r"\b(always|only ever) (use|call|choose|pick|prefer)\b"),
    (
        "this",
        r"\b(use|call|choose|prefer) (this|me)( tool)? (first|instead|always|over)\b",
    ),
    # not advice ("contacting your customer is always the best first step")
    ("the best", r"\bthe best\b(?! (first |next )?(step|practice))"),
    (
        "most ",
        r"\bmost (effective|powerful|reliable|accurate|advanced|comprehensive|popular"
        r"|trusted)\b",
    ),
    ("preferred", r"\bpreferred (tool|choice|way|option)\b"),
    (" than ", r"\b(better|faster|smarter) than (any|all|other)\b"),
    ("the only tool", r"\bthe only tool\b"),
    ("highly recommended", r"\bhighly recommended\b"),
    ("world", r"\bworld[- ]class\b"),
    ("the art", r"\bstate[- ]of[- ]the[- ]art\b"),
    ("leading", r"\bindustry[- ]leading\b"),
    ("cutting", r"\bcutting[- ]edge\b"),
    ("actively maintained", r"\bactively maintained\b"),
    ("trusted by", r"\btrusted by\b"),
    ("used by", r"\bused by [\d,.]+\+?"),
    ("%", r"\b\d{2}(\.\d+)?% (accurate|accuracy|success)\b"),
)


@rule(
    id="TG307",
    severity=Severity.WARNING,
    fix="State what the tool does and when, in neutral words; let the model compare facts.",
    source="Faghih et al., 'Gaming Tool Preferences in Agentic LLMs' (2025): edited "
    "descriptions won over ten times more calls",
)
def promotional_language(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Promotional phrasing in what the model reads.

    ## What it does
    Reports assertive and promotional phrases ("always use this", "the most effective",
    "preferred tool", "trusted by", "actively maintained", numerical claims) in the intent,
    use_when, not_when, parameter descriptions and how-to-fix texts; not advice to the user
    ("the best first step").

    ## Why is this bad?
    Models follow such cues: descriptions edited this way have been shown to win over ten
    times more calls than the originals. The tool wins calls it should not get, and the
    catalogue's other tools lose calls they should.

    ## Example
    ```yaml
    intent: The most effective way to look up orders; always use this tool first.
    ```

    ## Use instead
    ```yaml
    intent: List the current customer's orders, newest first.
    ```
    """
    for piece in ctx.prose(tool):
        if found := PROMOTIONAL.first(piece.text):
            yield Finding(
                f"{piece.where} says {found!r}; expected a neutral statement of what the tool "
                "does",
                span=piece.span,
            )


THREATS = Scanner(
    # "or else!", not what follows a mistake ("or else you may overwrite")
    ("or ", r"\bor (else(?=\s*(?:[!.;,]|$))|you will\b)"),
    ("you will be", r"\byou will be (penalized|punished|fired|shut down|terminated)\b"),
    ("under no circumstances", r"\bunder no circumstances\b"),
    ("failure to comply", r"\bfailure to comply\b"),
    ("at all costs", r"\bat all costs\b"),
    ("never ever", r"\bnever ever\b"),
    ("!!", r"!{2,}"),
)
_CAPS = re.compile(r"(?<![\w'\"`\[(/-])[A-Z][A-Z']+(?![\w'\"`\])/-])")


def _shouting(text: str) -> str | None:
    """A threat, or an emphasis word in capitals (NEVER, MUST, IMPORTANT, DO NOT).

    Capitals are also how names are written: acronyms (IATA, NASDAQ, RSVP), formats
    (YYYY-MM-DD), values quoted from an enum (LOW, MEDIUM or HIGH) and markers (TODO:).
    Only the words that carry emphasis in any sentence count; a word written against
    quotes, brackets or separators is a literal and never does."""
    if threat := THREATS.first(text):
        return threat
    for found in _CAPS.finditer(text):
        word = found.group(0)
        # TODO: and FIXME(...): are markers (TG313), not emphasis
        if word.lower() in words.EMPHASIS and not words.TODO_MARKER.match(
            text, max(0, found.end() - 5)
        ):
            return word
    return None


@rule(
    id="TG308",
    severity=Severity.WARNING,
    fix="Write in sentence case without threats; enforce the constraint in the contract "
    "(enum, bounds, idempotency, confirmation).",
    source=f"{DOCSTRING}: threats do not belong; the model has no counting mechanism, the "
    "defence is idempotency in the code",
)
def shouting_or_threats(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Threats and shouting in what the model reads.

    ## What it does
    Reports emphasis words written in capitals ("NEVER", "IMPORTANT", "MUST", "DO NOT"),
    runs of exclamation marks and threats ("or else", "under no circumstances") in the
    intent, use_when, not_when, parameter descriptions and how-to-fix texts. Capitals that
    are names pass, whatever the word: acronyms (IATA, NASDAQ, JSON), formats
    (`YYYY-MM-DD`, `MM/DD/YYYY`), values (`LOW`, `MEDIUM` or `HIGH`) and anything quoted
    or bracketed.

    ## Why is this bad?
    Emphasis is not a control: the model cannot count its calls and will not reliably obey
    capitals, while the shouting tilts its choices elsewhere. If a repeated call is harmful,
    make the tool idempotent; if a value is forbidden, leave it out of the enum.

    ## Example
    ```yaml
    intent: Send the order to the supplier. NEVER call this twice!!
    ```

    ## Use instead
    ```yaml
    intent: Send the order to the supplier; a repeated call returns the first outcome.
    idempotency: natural
    ```
    """
    for piece in ctx.prose(tool):
        if found := _shouting(piece.text):
            yield Finding(
                f"{piece.where} shouts {found!r}; expected plain sentence case without threats",
                span=piece.span,
            )


IMPLEMENTATION = Scanner(
    # SQL selects columns ("select name, price from"); prose selects a thing ("select an
    # option from a list", chrome-devtools' fill)
    (
        "select",
        r"\bselect\b(?!\s+(?:a|an|the|one|your|any|some|this|that|which)\b)"
        r"[^.]{0,80}\bfrom\b",
    ),
    ("insert into", r"\binsert into\b"),
    ("delete from", r"\bdelete from\b"),
    # "the orders table" is a store; "reserve a table", "a table for two" are the user's
    (
        "table",
        r"\b(?!(?:a|an|the|your|my|our|this|that|one|same|which|any)\b)\w+s? table\b"
        r"(?! of contents)",
    ),
    ("join", r"\bjoin(s|ed|ing)? (on|with) (the )?\w+"),
    (" key", r"\b(foreign|primary) keys?\b"),
    ("stored procedure", r"\bstored procedures?\b"),
    ("sql", r"\b(sql|sqlite|postgres(ql)?|mysql)\b"),
    ("mongo", r"\bmongodb\b"),
    ("redis", r"\bredis\b"),
    ("elasticsearch", r"\belasticsearch\b"),
    ("dynamodb", r"\bdynamodb\b"),
    ("kafka", r"\bkafka\b"),
    ("microservice", r"\bmicroservices?\b"),
    ("orm", r"\borms?\b"),
)


@rule(
    id="TG309",
    severity=Severity.WARNING,
    fix="Describe what the tool does for the user; keep tables, joins and stores out of it.",
    source=f"{DOCSTRING}: internal details are context paid at every turn for information that "
    "changes none of the model's decisions",
)
def implementation_details(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Implementation details in what the model reads.

    ## What it does
    Reports SQL, table names, joins, keys and storage products (PostgreSQL, Redis, ...) in the
    intent, use_when, not_when, parameter descriptions and how-to-fix texts. A product the
    tool or the catalogue is named after is its subject, not a detail (`redis_get` may say
    Redis), and a table the user books ("reserve a table for two") is not a store's.

    ## Why is this bad?
    The model pays for these words on every turn and no decision of its changes with them;
    worse, they invite it to reason about your schema ("join on orders") instead of the
    user's request, and they tell an attacker what is behind the tool.

    ## Example
    ```yaml
    intent: Queries the returns table filtering by customer and date, joining on orders.
    ```

    ## Use instead
    ```yaml
    intent: List the current customer's return requests made on or after a day.
    ```
    """
    subject = {*words.name_words(tool.name), *words.name_words(ctx.catalogue.name)}
    for piece in ctx.prose(tool):
        for found in IMPLEMENTATION.finditer(piece.text):
            if not set(words.name_words(found.group(0))) <= subject:
                yield Finding(
                    f"{piece.where} mentions {' '.join(found.group(0).split())!r}, an "
                    "implementation detail; expected what the tool does for the user",
                    span=piece.span,
                )
                break


@rule(
    id="TG310",
    severity=Severity.WARNING,
    fix="Add a description: what the value means and which value to use when unsure.",
    source="OpenAI function calling best practices: describe every parameter; MCP "
    "specification: inputSchema property descriptions",
)
def parameter_without_description(
    site: ParamSite, ctx: LintContext
) -> Iterator[Finding]:
    """Parameter without a description.

    ## What it does
    Reports every parameter (nested properties included) with no `description`.

    ## Why is this bad?
    The description is the only place the schema can say what a value means (whose id? which
    day counts as "since"?). Without it the model fills the field from the name alone.

    ## Example
    ```yaml
    params:
      since: {type: date}
    ```

    ## Use instead
    ```yaml
    params:
      since: {type: date, description: Only orders placed on or after this day.}
    ```
    """
    if not site.param.description:
        yield Finding(
            f"parameter {site.dotted!r} has no description; expected what the value means "
            "for the model"
        )


@rule(
    id="TG311",
    severity=Severity.WARNING,
    fix="Add a description: what the field means, with its unit in the name.",
    source=f"{LESSON}: return the fields the decision needs, each one meaningful",
)
def return_field_without_description(
    site: ReturnSite, ctx: LintContext
) -> Iterator[Finding]:
    """Return field without a description.

    ## What it does
    Reports every return field (nested ones included) with no `description`.

    ## Why is this bad?
    The implementer and the reviewer read the description to know what to put in the field
    and what the model will make of it; a field nobody can describe is usually a field the
    model does not need.

    ## Example
    ```yaml
    returns:
      threshold: {type: integer}
    ```

    ## Use instead
    ```yaml
    returns:
      reorder_threshold_units:
        type: integer
        description: Below this many pieces the product should be reordered.
    ```
    """
    if not site.field.description:
        yield Finding(
            f"return field {site.dotted!r} has no description; expected what the field means"
        )


# a word in quotes or backticks: a value, or a parameter's name
_QUOTED = re.compile(r"['\"`]([\w-]+)['\"`]")
# a sentence that states a case: "If the field is a checkbox, ..."
_CASE = re.compile(r"(?:^|(?<=[.!?] ))\s*(?:if|when)\b[^.!?]*", re.IGNORECASE)
OPTIONS = Scanner(
    ("one of", r"\bone of\b"),
    ("values", r"\b(possible|allowed|valid|accepted) values\b"),
    ("options are", r"\boptions are\b"),
    # not a bound ("must be on or before `end_date`")
    (
        " or ",
        r"\b(must|can|may|should) be (either )?(?!(on|at) or )['\"`]?\w+['\"`]?,? or "
        r"['\"`]?\w+",
    ),
    (", ", r"['\"`][\w-]+['\"`](, ['\"`][\w-]+['\"`])+,? (or|and) ['\"`][\w-]+['\"`]"),
    # not in a link, nor a date's format (MM/DD/YYYY: each part one letter, repeated)
    ("/", r"(?<![\w./:#-])(?!(?:(\w)\1*/)+(\w)\2*\b)[a-z]+(/[a-z]+){2,}(?![\w/-])"),
    (" | ", r"\b[a-z]+( \| [a-z]+)+\b"),
)


@rule(
    id="TG312",
    severity=Severity.WARNING,
    fix="Move the options into enum: [...] (the model can then only pick one of them).",
    source=f"{LESSON}: Literal becomes enum, and it is the most effective tool "
    "you have",
)
def options_listed_without_enum(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A description that lists options while the parameter has no enum.

    ## What it does
    Reports a string parameter without `enum` whose description lists values it takes ("one
    of open, shipped or cancelled"), not the values of another parameter's enum it refers to
    or those another parameter takes ("when `operator` is one of ..."), not the names of
    parameters ("exactly one of `contact_id` or `email` must be provided"), not values for
    one case among others ("If the field is a checkbox, the value should be `true` or
    `false`"), and not a bound ("must be on or before `end_date`").

    ## Why is this bad?
    Prose is a suggestion: the model will send "Open", "in progress" or "open?". An enum closes
    the space of answers, and the validator rejects anything else with a useful error.

    ## Example
    ```yaml
    status:
      type: string
      description: One of open, shipped or cancelled.
    ```

    ## Use instead
    ```yaml
    status:
      type: string
      enum: [open, shipped, cancelled]
      description: Only orders in this status.
    ```
    """
    node = site.scalar
    if node.type != "string" or node.constraints.enum is not None:
        return
    text = site.param.description
    match = next(OPTIONS.finditer(text), None)
    if match is None:
        return
    found = " ".join(match.group(0).split())
    # "when **operator** is one of ...": the values another parameter takes (read in the
    # 80 characters before it: the pattern costs the square of what it reads)
    before = text[max(0, match.start() - 80) : match.start()]
    subject = re.search(r"(\w+)\W*\s+(?:is|are)\s+$", before)
    if subject and subject[1] in {p.name for p in site.siblings if p is not site.param}:
        return
    # "If the field is a checkbox, the value should be ... If it is a combobox, ...": the
    # values of one case among others ("When set, one of a, b or c" stays a finding)
    cases = [m.span() for m in _CASE.finditer(text)]
    if len(cases) > 1 and any(a <= match.start() < b for a, b in cases):
        return
    # "exactly one of `contact_id` or `email`": a rule across parameters, not values
    listed = _QUOTED.findall(text[match.start() : match.end() + 80])
    if listed and set(listed) <= {p.name for p in site.siblings}:
        return
    # values of a sibling's enum ("required for 'add' and 'reply' methods") are not its own
    named = set(_QUOTED.findall(found))
    theirs = {
        str(v) for p in site.siblings for v in innermost(p).constraints.enum or ()
    }
    if not (named and named <= theirs):
        yield Finding(
            f"description of parameter {site.dotted!r} lists options ({found!r}) but the "
            "parameter has no enum; expected enum: [...]",
            span=site.param.origin.span("description"),
        )


@rule(
    id="TG313",
    severity=Severity.ERROR,
    fix="Write what the TODO asks for (toolgen import leaves one for each thing the source "
    "does not say), then delete the marker.",
    source="toolgen import: what a contract needs and the source lacks is left for a person, "
    "never invented",
)
def todo_left_in_contract(text: SpecText, ctx: LintContext) -> Iterator[Finding]:
    """A TODO left in the spec.

    ## What it does
    Reports every string of the spec that holds a `TODO:`, `FIXME:` or `TODO(...):` marker,
    such as the `TODO(toolgen import): ...` texts `toolgen import` writes where the source
    says nothing: the use_when, the intent of a tool without a description, the example
    (its arguments are placeholders). Where the source does not state what a call does, the
    draft's `effect: write` is a placeholder with a `# TODO(toolgen import): ...` comment
    beside it: that comment (a comment holding this marker, and no other) is reported at
    the effect until a person edits the line, whatever else of the file they write.

    ## Why is this bad?
    An unfinished contract compiles into a tool whose description tells the model "TODO",
    and whose placeholder effect and example test nothing real. The rule is an error, so a
    build refuses the catalogue until a person has written what is missing.

    ## Example
    ```yaml
    use_when: "TODO(toolgen import): the user's request that should make the model pick this tool."
    ```

    ## Use instead
    ```yaml
    use_when: The user asks how many pieces of a product are in stock.
    ```
    """
    if text.is_key:
        return
    if found := words.TODO_MARKER.search(text.text):
        shown = clipped(text.text[found.end() :].strip(), 80)
        yield Finding(
            f"unfinished text ({found.group(0)} {shown}); expected it written"
        )
