"""Rules on names: of tools (what the model picks from) and of parameters (what it fills in)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.registry import LESSON, Finding, ParamSite, ToolPair, rule
from toolgen.spec.ir import Tool
from toolgen.spec.summary import ToolSummary

# A name made only of these says nothing about what the tool acts on.
GENERIC_SINGLE = words.wordset(
    "tool api helper util utils assistant action function agent"
)
GENERIC_OBJECTS = words.wordset(
    """data info information item items thing things stuff result results object objects
    record records entity entities resource resources value values content details
    everything all any"""
)
VAGUE_PARAMS = words.wordset(
    """val value data x y z input inp obj object item thing stuff arg param info id user
    tmp temp foo bar s n q v str num"""
)


PAIR_KEYS = words.wordset("field name key property attribute column setting")


def is_generic_name(name: str) -> bool:
    """search, get, run, tool, get_data: names with no object the model can match."""
    parts = words.name_words(name)
    if len(parts) == 1:
        return parts[0] in words.VERB_CLASS or parts[0] in GENERIC_SINGLE
    return (
        len(parts) == 2 and parts[0] in words.VERB_CLASS and parts[1] in GENERIC_OBJECTS
    )


@rule(
    id="TG201",
    severity=Severity.ERROR,
    fix="Rename the tool with the characters and length every declared target accepts.",
    source="OpenAI function calling: name ^[a-zA-Z0-9_-]{1,64}$; MCP specification: tool "
    "names of 1 to 128 letters, digits, '_', '-' or '.'",
)
def tool_name_target_limit(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Tool name outside what a declared target accepts.

    ## What it does
    Checks the tool's name against the name rule of every target in `targets:` (OpenAI:
    `^[a-zA-Z0-9_-]{1,64}$`; MCP: `^[A-Za-z0-9_.-]{1,128}$`).

    ## Why is this bad?
    The provider rejects the whole request, not just the tool: one bad name takes every tool
    of the agent down with it.

    ## Example
    ```yaml
    name: inventory.read_stock
    ```

    ## Use instead
    ```yaml
    name: read_stock
    ```
    """
    for target in ctx.targets:
        if not target.tool_name.fullmatch(tool.name):
            fixed = (
                re.sub(r"[^A-Za-z0-9_-]+", "_", tool.name)[:64].strip("_")
                or "verb_noun"
            )
            yield Finding(
                f"tool name {tool.name!r} does not fit {target.label}: expected "
                f"{target.tool_name_words} ({target.tool_name.pattern})",
                hint=f"Rename the tool, for example to {fixed!r}, and its file to match.",
            )


@rule(
    id="TG202",
    severity=Severity.ERROR,
    fix="Keep one of the two tools; if both are needed, name them by what differs.",
    source=f"{LESSON}, 'overlapping names'; MCP specification: tool names are case-sensitive",
)
def names_differ_only_in_case(
    pair: ToolPair, ctx: CatalogueContext
) -> Iterator[Finding]:
    """Two tool names that differ only in case or separators.

    ## What it does
    Reports two tools whose names become the same once case, `_`, `-` and `.` are ignored
    (`findCustomer` and `find_customer`).

    ## Why is this bad?
    To the model the two names are one word; it picks between them at random, and a reviewer
    cannot tell which one a log line means.

    ## Example
    ```yaml
    # tools/findCustomer.yaml and tools/find_customer.yaml
    name: findCustomer
    ```

    ## Use instead
    ```yaml
    # one tool
    name: find_customer
    ```
    """
    first, second = pair.first.name, pair.second.name
    # the names alone (a profile's `normalized`, without making two profiles a pair)
    if words.normalized_name(first) == words.normalized_name(second):
        yield Finding(
            f"tool names {first!r} and {second!r} differ only in case or separators; expected "
            "names that differ in words"
        )


def _not_a_verb(rest: tuple[str, ...], tool: Tool, ctx: LintContext) -> bool:
    """Whether the first word (after a namespace) is, on the evidence, not a verb.

    The verb vocabulary is not English: calibrate, fork, star, takeoff and waive are verbs it
    lacks. So an unknown first word counts as a noun only with evidence. A qualifier
    (next_batch) is one; past that the intent is heard first: one that opens with the word
    ("Waive the fee", "Request a review") makes it a verb. Then a known verb ending the name
    (pull_request_read, stock_level_get: the verb-last names the profile reads too), an
    intent that opens with another verb and uses the word as its object ("Read the current
    stock" for stock_level), or the word used as an object elsewhere in the catalogue
    (directory_tree beside list_directory) make it a noun. A known verb inside the name is
    no evidence: it is part of the object there (waive_no_show_fee, set_top_box_channel)."""
    first = rest[0]
    if first in words.VERB_CLASS:
        return False
    if first in words.QUALIFIERS:
        return True
    opening = re.match(r"[A-Za-z]+", tool.intent)
    said = opening.group(0).lower() if opening else ""
    if said in (first, first + "s", first + "es"):
        return False
    if len(rest) > 1 and rest[-1] in words.VERB_CLASS:
        return True
    opens_with_verb = any(
        v in words.VERB_CLASS for v in (said, said[:-1], said[:-2]) if v
    )
    if opens_with_verb and words.stem(first) in words.content_words(tool.intent):
        return True
    return words.stem(first) in ctx.names.object_counts


@rule(
    id="TG203",
    severity=Severity.WARNING,
    fix="Name the tool verb_noun in snake case: the action, then what it acts on.",
    source="OpenAI function calling best practices (clear, intuitive names); Anthropic, "
    "'Writing effective tools for agents' (namespacing and naming)",
)
def tool_name_not_verb_noun(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Tool name that is not verb_noun snake case.

    ## What it does
    Checks that a tool's name is lower-case words joined by `_`, the first word a verb
    (`read_stock`, `create_reorder`, `search_orders`). A prefix most of the catalogue's
    names share (`git_add`, `git_log`) is a namespace and is skipped. A first word the
    verb vocabulary does not know counts as a noun only on evidence: a qualifier
    (`next_batch`), or, unless the intent opens with the word itself ("Waive the no-show
    fee ..." for `waive_no_show_fee`), a known verb ending the name (`stock_level_get`), an
    intent that opens with another verb and names the word as its object, or the word used
    as an object by other tools of the catalogue (`directory_tree` beside
    `list_directory`). A known verb inside the name is part of its object (`no_show` in
    `waive_no_show_fee`), never evidence. The message offers a name only where it adds a
    verb (`get_` before a read tool's name that has none), never one made by moving the
    name's own words about, nor one that would hold two verbs (`emails_get_attachment`).

    ## Why is this bad?
    The name is the first thing the model matches against the user's request. A name that
    leads with the action reads like the request ("read the stock"); one casing convention
    across the catalogue keeps near-duplicates visible in review.

    ## Example
    ```yaml
    name: stockLevel
    ```

    ## Use instead
    ```yaml
    name: read_stock_level
    ```
    """
    if is_generic_name(tool.name):
        return  # TG204 says it better
    parts = words.name_words(tool.name)
    if not words.SNAKE_CASE.fullmatch(tool.name) or len(parts) < 2:
        # the same words in snake case; a single word needs an object no one can guess
        such = f", such as {'_'.join(parts)!r}" if len(parts) > 1 else ""
        yield Finding(
            f"tool name {tool.name!r} is not verb_noun snake case; expected lower-case "
            f"words joined by '_', the action then what it acts on{such}"
        )
        return
    rest = parts[1:] if ctx.profile_of(tool).namespace else parts
    if not _not_a_verb(rest, tool, ctx):
        return
    # an example only where it adds a word (a read's verb before a name with none): a name
    # made by moving the name's own words about reads as nonsense as often as not
    inside = [w for w in rest[1:] if w in words.VERB_CLASS]
    if inside and rest[-1] == inside[-1]:
        such = f"; {rest[-1]!r} ends the name"
    elif inside:  # emails_get_attachment: a get_ before it would read get twice
        such = f"; {inside[0]!r} comes after {rest[0]!r}"
    elif tool.effect == "read":
        such = f", such as {'get_' + tool.name!r}"
    else:
        such = ""  # the verb of a write says what it does: only a person knows it
    yield Finding(
        f"tool name {tool.name!r} does not start with a verb ({rest[0]!r}); expected "
        f"verb_noun, the action first{such}"
    )


@rule(
    id="TG204",
    severity=Severity.WARNING,
    fix="Name what the tool acts on: search_orders, not search.",
    source="Anthropic, 'Writing effective tools for agents' (names that say which service "
    "and resource); MCP tool naming guidance",
)
def generic_tool_name(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Generic tool name in a catalogue of several tools.

    ## What it does
    Reports a tool named with a bare verb or a verb and a generic object (`search`, `get`,
    `run`, `get_data`, `fetch_info`) in a catalogue with more than one tool. A generic word
    that several tools of the catalogue act on is the catalogue's own object
    (`create_entities` and `delete_entities` of a knowledge graph) and passes.

    ## Why is this bad?
    Next to other tools (and other servers' tools) a generic name matches every request a
    little and none well; the model falls back on the description, or picks the wrong tool.

    ## Example
    ```yaml
    name: search
    ```

    ## Use instead
    ```yaml
    name: search_orders
    ```
    """
    parts = words.name_words(tool.name)
    domain = len(parts) == 2 and ctx.names.object_counts[words.stem(parts[1])] >= 2
    if len(ctx.names.tools) > 1 and is_generic_name(tool.name) and not domain:
        yield Finding(
            f"tool name {tool.name!r} is generic in a catalogue of "
            f"{len(ctx.names.tools)} tools; expected the object it acts on, such as "
            f"'{parts[0]}_orders'"
        )


@rule(
    id="TG205",
    severity=Severity.WARNING,
    fix="Name the parameter by what it holds: quantity, sku, order_number.",
    source=f"{LESSON}: 'an argument called val' is the first thing a reading finds",
)
def vague_parameter_name(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
    """Vague parameter name.

    ## What it does
    Reports parameters named `val`, `value`, `data`, `x`, `input`, `obj`, `item`, `id` (but
    the `id` of an object parameter, `category.id`, and an `id` that is the tool's only
    parameter, `get_template(id)`) or `user`, and similar names that say nothing about the
    value.

    ## Why is this bad?
    The model fills a parameter from its name first and its description second; `id` next to
    an order, a customer and a product is an invitation to pass the wrong one.

    ## Example
    ```yaml
    params:
      id: {type: string, description: The id.}
    ```

    ## Use instead
    ```yaml
    params:
      order_number: {type: string, pattern: '^ORD-\\d{6}$', description: The order's number.}
    ```
    """
    name = site.param.name.lower()
    if name not in VAGUE_PARAMS or (name == "id" and len(site.path) > 1):
        return  # category.id: the object the id sits in says whose it is
    # the siblings' words only for a vague name: one site's cost stays independent of
    # how many parameters sit beside it
    siblings = {
        w
        for p in site.siblings
        if p is not site.param
        for w in words.name_words(p.name)
    }
    if name == "value" and siblings & PAIR_KEYS:
        return  # {field, value}: the sibling says what the value is
    if name == "id" and not siblings:
        return  # the only parameter: the tool's name says whose id it is
    yield Finding(
        f"parameter {site.dotted!r} has a vague name; expected a name that says what the "
        "value is, such as 'order_number' or 'quantity'"
    )


def overlapping(first: ToolSummary, second: ToolSummary, ctx: CatalogueContext) -> bool:
    """One action on the same object under two synonyms (search_order, find_order).

    Verbs of one kind that are not synonyms name related but different actions: get one
    and list many, edit and move, create and fork. The objects are compared with their
    qualifiers (get_file_info is not read_file)."""
    a, b = ctx.profile(first.name), ctx.profile(second.name)
    group = words.SYNONYM_GROUP.get(a.verb)
    return (
        a.verb != b.verb
        and group is not None
        and group == words.SYNONYM_GROUP.get(b.verb)
        and bool(a.qualified)
        and a.qualified == b.qualified
    )


@rule(
    id="TG206",
    severity=Severity.WARNING,
    fix="Keep one tool per intention: merge the two into the one whose verb fits best.",
    source=f"{LESSON}, 'The traps you really fall into': search_order and find_order in the "
    "same catalogue guarantee random choices",
)
def overlapping_tool_names(pair: ToolPair, ctx: CatalogueContext) -> Iterator[Finding]:
    """Two tools that name the same action on the same object.

    ## What it does
    Reports two tools whose verbs are synonyms (search, find, list; get, read, fetch;
    update, edit, modify; ...) and whose objects are the same words (`search_order` and
    `find_order`). Related actions are not synonyms: `get_commit` (one, by its id) and
    `list_commits` (a listing), `merge_pull_request` and `update_pull_request`, `edit_file`
    and `move_file` are different tools.

    ## Why is this bad?
    One intention under two names guarantees random choices: the model cannot know which one
    you meant, and the two drift apart as they are maintained.

    ## Example
    ```yaml
    name: find_order      # and tools/search_order.yaml
    ```

    ## Use instead
    ```yaml
    name: search_orders   # one tool, with the filters of both
    ```
    """
    if overlapping(pair.first, pair.second, ctx):
        objects = "_".join(sorted(ctx.profile(pair.first.name).objects))
        yield Finding(
            f"tools {pair.first.name!r} and {pair.second.name!r} name the same action on "
            f"{objects!r}; expected one tool per intention"
        )


@rule(
    id="TG207",
    severity=Severity.ERROR,
    fix="Keep one of the two parameters.",
    source=f"{LESSON} (one intention, one name), applied to arguments",
)
def parameter_names_differ_only_in_case(
    site: ParamSite, ctx: LintContext
) -> Iterator[Finding]:
    """Two parameters whose names differ only in case or separators.

    ## What it does
    Reports a parameter whose name equals an earlier sibling's once case and separators are
    ignored (`orderId` beside `order_id`).

    ## Why is this bad?
    The model sees two fields for one value; it fills one, the other, or both with different
    values, and the implementation has to guess which one wins.

    ## Example
    ```yaml
    params:
      order_id: {type: string, description: The order.}
      orderId: {type: string, description: The order.}
    ```

    ## Use instead
    ```yaml
    params:
      order_id: {type: string, description: The order.}
    ```
    """
    first = ctx.first_by_normalized_name(site.siblings).get(
        words.normalized_name(site.param.name)
    )
    if first is not None and first is not site.param:
        yield Finding(
            f"parameter {site.param.name!r} differs from {first.name!r} only in case or "
            "separators; expected one parameter per value"
        )


@rule(
    id="TG208",
    severity=Severity.WARNING,
    fix="Rename the parameter in snake case.",
    source="OpenAI function calling examples and the Agents SDK (Python names become "
    "parameter names): one casing per catalogue",
)
def parameter_name_not_snake_case(
    site: ParamSite, ctx: LintContext
) -> Iterator[Finding]:
    """Parameter name that is not snake case.

    ## What it does
    Checks that every parameter name is lower-case words joined by `_`.

    ## Why is this bad?
    Mixed conventions (`maxResults` here, `max_results` there) make the model guess the
    spelling of a field and make near-duplicates hard to see in review.

    ## Example
    ```yaml
    params:
      maxResults: {type: integer, min: 1, max: 50, description: Most orders to return.}
    ```

    ## Use instead
    ```yaml
    params:
      max_results: {type: integer, min: 1, max: 50, description: Most orders to return.}
    ```
    """
    name = site.param.name
    if not words.SNAKE_CASE.fullmatch(name):
        yield Finding(
            f"parameter {site.dotted!r} is not snake case; expected "
            f"{'_'.join(words.name_words(name)) or 'snake_case'!r}"
        )
