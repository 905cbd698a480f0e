"""Rules on parameters: the form the model fills in (the targets' strict-mode limits on its
schema are strict_limits.py's)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext, param_sites
from toolgen.lint.registry import LESSON, Finding, Lifecycle, ParamSite, rule
from toolgen.spec.ir import Param, Tool


def is_free_string(param: Param) -> bool:
    """A string the model may fill with anything: no enum and no pattern."""
    c = param.constraints
    return param.type == "string" and c.enum is None and c.pattern is None


ENUMISH = words.wordset(
    """status state type kind mode category level priority severity urgency tier plan role
    channel method direction sort format unit currency gender stage phase visibility
    frequency period granularity scope"""
)


ADDRESS_WORDS = words.wordset(
    "city zip postal postcode country street address1 address"
)


@rule(
    id="TG501",
    severity=Severity.WARNING,
    lifecycle=Lifecycle.PREVIEW,
    fix="List the accepted values in enum: [...].",
    source=f"{LESSON}: an enum that had stayed a free string; an argument status: str will "
    "reach you as 'in progress', 'OPEN', 'open?'",
)
def free_string_should_be_enum(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A free string that should be an enum.

    ## What it does
    Reports a string parameter without enum or pattern whose name ends in a word that names a
    closed set: status, type, kind, mode, category, priority, level, sort, direction,
    currency, unit, ...

    ## Why is this bad?
    A closed set written as a free string reaches you as "in progress", "OPEN" and "open?";
    the enum closes the space of answers before your code runs.

    ## Why preview
    On the real-world corpus (tests/lint/realworld) most of its findings were open
    vocabularies that only the name made look closed (the entity and relation types of a
    knowledge graph, the issue types an organisation defines): a name cannot tell the two
    apart. It runs when `preview: true` or selected by id; TG312 reports the closed sets a
    description lists.

    ## Example
    ```yaml
    status: {type: string, description: Only orders in this status.}
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
    parts = site.name_words
    if not (is_free_string(node) and parts and words.stem(parts[-1]) in ENUMISH):
        return
    # the siblings' words only for a candidate, as in vague_parameter_name
    if parts[-1:] == ("state",) and ADDRESS_WORDS & {
        w for p in site.siblings for w in words.name_words(p.name)
    }:
        return  # the state of a postal address, a place
    yield Finding(
        f"string parameter {site.dotted!r} takes any text; expected enum: [...] with the "
        f"{parts[-1]} values the tool accepts"
    )


DATE_WORDS = words.wordset(
    "date day dob birthday birthdate deadline since until timestamp datetime"
)


_RELATIVE = re.compile(r"\brelative\b|\bago\b|\byesterday\b|natural[- ]language", re.I)


@rule(
    id="TG502",
    severity=Severity.WARNING,
    fix="Use type: date (YYYY-MM-DD) or type: datetime (with a UTC offset).",
    source=f"{LESSON}: the format of an argument ('the date must be in the format "
    "2026-10-09')",
)
def date_as_free_string(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A date as a free string.

    ## What it does
    Reports a string parameter without a pattern named like a date or a time
    (`date`, `since`, `until`, `deadline`, `*_at`, `*_on`), unless its description says it
    also takes relative dates ("2 weeks ago", "yesterday"), which no date type can hold.

    ## Why is this bad?
    The model writes "09/10/2026", "yesterday" or "Oct 9": each one parses differently or not
    at all. type: date states the format in the schema and the validator rejects the rest.

    ## Example
    ```yaml
    since: {type: string, description: Only orders placed on or after this day.}
    ```

    ## Use instead
    ```yaml
    since: {type: date, description: Only orders placed on or after this day.}
    ```
    """
    node = site.scalar
    parts = site.name_words
    if not is_free_string(node) or not parts:
        return
    datelike = parts[-1] in DATE_WORDS or (len(parts) > 1 and parts[-1] in ("at", "on"))
    if datelike and not _RELATIVE.search(site.param.description):
        yield Finding(
            f"parameter {site.dotted!r} is a date as a free string; expected type: date or "
            "type: datetime"
        )


CONTACT_WORDS = words.wordset("email mail phone telephone mobile msisdn fax")
# after a contact word, a word that makes the name something else than the address:
# email_id is the id of an email message, phone_type a kind of phone
NOT_AN_ADDRESS = words.wordset("id ids uuid key count counts type types kind status")


@rule(
    id="TG503",
    severity=Severity.WARNING,
    fix="Add a pattern: an email as ^[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}$, a phone in E.164 as "
    "^\\+[1-9]\\d{6,14}$.",
    source=f"{LESSON}: tight schemas (enum, pattern, range) mean less junk entering the system",
)
def contact_as_free_string(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """An email address or phone number as a free string.

    ## What it does
    Reports a string parameter without a pattern named `email`, `phone`, `mobile` or similar
    (`customer_email`, `phone_number`); not `email_id`, the id of an email message, nor
    `phone_type`.

    ## Why is this bad?
    Addresses are where a model's small slips do real harm: a missing character sends the
    message to someone else. A pattern rejects the malformed ones with a useful error.

    ## Example
    ```yaml
    email: {type: string, description: Where to send the receipt.}
    ```

    ## Use instead
    ```yaml
    email:
      type: string
      pattern: '^[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}$'
      description: Where to send the receipt.
    ```
    """
    if not is_free_string(site.scalar):
        return
    parts = site.name_words
    if any(
        w in CONTACT_WORDS
        and (i + 1 == len(parts) or parts[i + 1] not in NOT_AN_ADDRESS)
        for i, w in enumerate(parts)
    ):
        yield Finding(
            f"parameter {site.dotted!r} is a contact address as a free string; expected a "
            "pattern the address must match"
        )


# the last word of a name that says which one, not how much: issue_number, pullNumber,
# user_id, page, start_index
POSITION_WORDS = words.wordset("id ids number num no page offset index position cursor")


# "Issue number that this issue duplicates", "Milestone number", "The order's id"; not
# "the number of days"
_IDENTIFIER = re.compile(r"\b(?:number|id|ID|identifier)\b(?! of\b)")


@rule(
    id="TG504",
    severity=Severity.WARNING,
    fix="Add min and max: the smallest and largest value that makes sense.",
    source=f"{LESSON}: tight schemas (enum, pattern, range) mean less damage; for tools that "
    "write, always tighten",
)
def unbounded_number(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """A number without bounds.

    ## What it does
    Reports an integer or number parameter (or array items) without `min` or without `max`,
    unless it has an enum or names an identifier or a position (`issue_number`, `order_id`,
    `page`, `start_index`, or a description such as "Milestone number"): those say which
    one, not how much, and have no business range.

    ## Why is this bad?
    The model writes any number it can imagine: a quantity of 0, -5 or 10,000,000. Bounds put
    the business range in the schema, where the validator rejects the rest before your code.

    ## Example
    ```yaml
    quantity: {type: integer, description: Pieces to order.}
    ```

    ## Use instead
    ```yaml
    quantity: {type: integer, min: 1, max: 1000, description: Pieces to order.}
    ```
    """
    node = site.scalar
    c = node.constraints
    if node.type not in ("integer", "number") or c.enum is not None:
        return
    parts = site.name_words
    which = bool(parts) and parts[-1] in POSITION_WORDS
    if which or _IDENTIFIER.search(site.param.description):
        return  # an id or a page number has no business range; the implementation checks it
    missing = [k for k, v in (("min", c.minimum), ("max", c.maximum)) if v is None]
    if missing:
        yield Finding(
            f"{node.type} parameter {site.dotted!r} has no {' and no '.join(missing)}; "
            "expected both bounds"
        )


@rule(
    id="TG505",
    severity=Severity.WARNING,
    fix="Add max_items: the most values one call may carry.",
    source=f"{LESSON}: tight schemas; OpenAI strict mode supports minItems and maxItems",
)
def unbounded_array(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """An array without a maximum size.

    ## What it does
    Reports an array parameter (or an array inside one) without `max_items`.

    ## Why is this bad?
    One call can carry ten thousand SKUs: a slow, expensive and unreviewable operation the
    model chose on its own. A maximum makes big batches a visible decision.

    ## Example
    ```yaml
    skus: {type: array, items: {type: string}, description: The products.}
    ```

    ## Use instead
    ```yaml
    skus: {type: array, max_items: 50, items: {type: string}, description: The products.}
    ```
    """
    node: Param | None = site.param
    while node is not None and node.type == "array":
        if node.constraints.max_items is None:
            yield Finding(
                f"array parameter {site.dotted!r} has no max_items; expected the most values "
                "one call may carry",
                span=node.origin.key_span,
            )
            return
        node = node.items


MANY_PARAMETERS = 10
TOO_MANY_PARAMETERS = 20


def _field_count(tool: Tool) -> int:
    """Every named field the model fills in, nested properties included."""
    return sum(1 for _ in param_sites(tool))


@rule(
    id="TG506",
    severity=Severity.WARNING,
    fix="Split the tool by intention, or give fields sensible defaults and fewer choices.",
    source="OpenAI function calling best practices (fewer, clearer parameters); "
    f"{LESSON}: each tool becomes a function with many branches to validate",
)
def many_parameters(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """More than 10 parameters.

    ## What it does
    Counts the fields the model fills in (nested properties included) and reports a tool
    with 11 to 20 of them (more is TG507).

    ## Why is this bad?
    Every field is a decision the model can get wrong and a token cost on every turn; a tool
    with many fields usually serves several intentions.

    ## Example
    ```yaml
    name: search_orders   # with 14 filters
    ```

    ## Use instead
    ```yaml
    name: search_orders   # status, since, max_results; rare filters in their own tool
    ```
    """
    count = _field_count(tool)
    if MANY_PARAMETERS < count <= TOO_MANY_PARAMETERS:
        yield Finding(
            f"tool {tool.name!r} has {count} parameters; expected at most {MANY_PARAMETERS}"
        )


@rule(
    id="TG507",
    severity=Severity.ERROR,
    fix="Split the tool by intention.",
    source="OpenAI function calling best practices (fewer, clearer parameters)",
)
def too_many_parameters(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """More than 20 parameters.

    ## What it does
    Counts the fields the model fills in (nested properties included) and reports a tool
    with more than 20.

    ## Why is this bad?
    At this size the model fills fields by pattern rather than by reading, and no reviewer can
    check the combinations; it is several tools in one.

    ## Example
    ```yaml
    name: update_customer   # 24 optional fields
    ```

    ## Use instead
    ```yaml
    name: update_customer_address   # and update_customer_contact, ...
    ```
    """
    count = _field_count(tool)
    if count > TOO_MANY_PARAMETERS:
        yield Finding(
            f"tool {tool.name!r} has {count} parameters; expected at most "
            f"{TOO_MANY_PARAMETERS} (and at best {MANY_PARAMETERS})"
        )


# boolean name words and their opposites, written first/second
_PAIRS = """on/off enable/disable enabled/disabled include/exclude show/hide allow/deny
    open/closed active/inactive visible/hidden yes/no start/stop lock/unlock with/without
    only/exclude"""
_NEGATIONS = ("no", "not", "skip", "without")
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in (pair.split("/") for pair in _PAIRS.split()):
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)


def contradictions(parts: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Names that contradict a boolean's name: one word swapped for its opposite
    (include_archived, exclude_archived), or a negation added or removed (notify, no_notify)."""
    found: set[tuple[str, ...]] = set()
    for index, word in enumerate(parts):
        for other in _OPPOSITE.get(word, ()):
            found.add((*parts[:index], other, *parts[index + 1 :]))
        if word in _NEGATIONS and len(parts) > 1:
            found.add(parts[:index] + parts[index + 1 :])
    for index in range(len(parts) + 1):
        for negation in _NEGATIONS:
            found.add((*parts[:index], negation, *parts[index:]))
    return found


@rule(
    id="TG509",
    severity=Severity.WARNING,
    fix="Replace the pair with one enum parameter that lists the valid states.",
    source="Make invalid states unrepresentable; OpenAI function calling best practices "
    "(use enums and object structure to make invalid states unrepresentable)",
)
def paired_booleans(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """Paired booleans that allow invalid states.

    ## What it does
    Reports a boolean parameter that is the opposite of an earlier boolean sibling
    (`on` and `off`, `include_archived` and `exclude_archived`, `notify` and `no_notify`).

    ## Why is this bad?
    Both can be true, or both false: the schema accepts a call that means nothing, and the
    implementation has to invent a precedence the model does not know.

    ## Example
    ```yaml
    include_archived: {type: boolean, description: Include archived orders.}
    exclude_archived: {type: boolean, description: Leave archived orders out.}
    ```

    ## Use instead
    ```yaml
    archived:
      type: string
      enum: [include, exclude, only]
      description: What to do with archived orders.
    ```
    """
    if site.param.type != "boolean":
        return
    booleans = ctx.booleans_by_words(site.siblings)
    mine = site.name_words
    position = booleans[mine][0] if mine in booleans else len(site.siblings)
    for candidate in sorted(contradictions(mine)):
        index, other = booleans.get(candidate, (position, site.param))
        if index < position:
            yield Finding(
                f"boolean parameters {other.name!r} and {site.param.name!r} can both be true; "
                "expected one enum parameter with the valid states"
            )
            return
