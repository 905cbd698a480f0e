"""Namespaces, toolsets, deferred tools and tool search (issue 36): catalogue-wide rules over
the tools' summaries, and one over a tool's own timeout (TG968).

What loads up front and what a search finds are computed here once for the rules, the review
page and the bench: `toolset_tokens` (what a toolset costs up front per turn, and what it
leaves to search) and `misrouted` (the asks the catalogue's own search sends to another
tool, with `toolgen_runtime.search`, the one search engine).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from toolgen_runtime.search import DEFAULT_LIMIT, ToolIndex, terms

from toolgen.diagnostics import Severity
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.registry import TRADE_OFFS, Finding, rule
from toolgen.spec import tokens
from toolgen.spec.groups import search_document
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary

# OpenAI, tool search: "aim for fewer than 10 functions per namespace"; a namespace of ten
# is the boundary, tolerated (the issue's own shape: 300 tools in about 30 namespaces)
NAMESPACE_FUNCTIONS = {"openai": 10}
MIN_TERMS = 8  # distinct content words (stemmed, no stop words) a search needs to go on
_SEARCH = "OpenAI tool search: the model sees a namespace's name and description only"


@dataclass(frozen=True, slots=True)
class ToolsetTokens:
    """What one toolset costs: `up_front` tokens on every turn (its tools loaded up front,
    and, when some are deferred, each of their namespaces' name and description and the
    tool search tool, as the Responses API receives them), and `searchable`, the tokens of
    the deferred tools' definitions, paid only once a search loads them."""

    name: str
    up_front: int
    searchable: int
    budget: int | None


def toolset_tokens(
    catalogue: Catalogue, tools: Sequence[ToolSummary], tool_tokens: dict[str, int]
) -> tuple[ToolsetTokens, ...]:
    """The cost of each toolset of `catalogue` (its toolsets resolved over `tools`)."""
    described = {n.name: n.description for n in catalogue.namespaces}
    by_name = {t.name: t for t in tools}
    found = []
    for toolset in catalogue.toolsets:
        members = [by_name[n] for n in toolset.tools if n in by_name]
        deferred = [t for t in members if t.deferred]
        up_front = sum(tool_tokens[t.name] for t in members if not t.deferred)
        if deferred:
            up_front += tokens.count(tokens.payload_text({"type": "tool_search"}))
        for name in sorted({t.namespace for t in deferred if t.namespace}):
            entry = {"type": "namespace", "name": name, "description": described[name]}
            up_front += tokens.count(tokens.payload_text(entry))
        searchable = sum(tool_tokens[t.name] for t in deferred)
        found.append(ToolsetTokens(toolset.name, up_front, searchable, toolset.budget))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Misrouted:
    """An ask the search does not send to its tool: `goes_to`, the tool it ranks first;
    `shared` when it is also an ask of that tool, word for word (after stemming)."""

    ask: str
    goes_to: str
    shared: bool = False


def misrouted(
    catalogue: Catalogue, tools: Sequence[ToolSummary]
) -> dict[str, tuple[Misrouted, ...]]:
    """Per tool with asks, those the catalogue's search (over every tool, asks included,
    as a toolset's index holds them) does not put among the `DEFAULT_LIMIT` tools
    `search_tools` loads, or that another tool has too (the search cannot tell them
    apart). A prepare tool, made of its confirm tool's contract, is that tool here."""
    tools = [t for t in tools if not t.derived]
    asked = [t for t in tools if t.asks]
    if not asked:
        return {}
    index = ToolIndex.build(search_document(t, catalogue) for t in tools)
    # an ask's terms, as a key: two asks with the same key are one ask (after stemming)
    keys = {ask: tuple(sorted(set(terms(ask)))) for t in asked for ask in t.asks}
    owners: dict[tuple[str, ...], list[str]] = {}
    for tool in asked:
        for ask in tool.asks:
            if keys[ask] and tool.name not in owners.setdefault(keys[ask], []):
                owners[keys[ask]].append(tool.name)
    found: dict[str, tuple[Misrouted, ...]] = {}
    for tool in asked:
        wrong = []
        for ask in tool.asks:
            others = [o for o in owners.get(keys[ask], []) if o != tool.name]
            if others:
                wrong.append(Misrouted(ask, others[0], shared=True))
            elif first := index.instead_of(ask, tool.name, DEFAULT_LIMIT):
                wrong.append(Misrouted(ask, first.name))
        if wrong:
            found[tool.name] = tuple(wrong)
    return found


def _content_words(*texts: str) -> int:
    return len({term for text in texts for term in terms(text)})


@rule(
    id="TG961",
    severity=Severity.WARNING,
    fix="Split the namespace in two, each described for when to look inside.",
    source="OpenAI tool search: aim for fewer than 10 functions per namespace",
)
def namespace_too_large(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A namespace with more functions than a target advises.

    ## What it does
    Counts the tools of each namespace against the advice of every declared target that
    gives one (OpenAI: fewer than 10 functions per namespace; ten are tolerated).

    ## Why is this bad?
    A search loads a namespace's functions together; a large one costs many tokens once
    found, and the model chooses worse among many functions that look alike.

    ## Example
    ```yaml
    namespaces:
      orders: {description: ...}   # 14 tools name it
    ```

    ## Use instead
    ```yaml
    namespaces:
      orders: {description: ...}   # 7 tools
      returns: {description: ...}  # 7 tools
    ```
    """
    sizes = Counter(t.namespace for t in ctx.tools() if t.namespace is not None)
    for target in ctx.targets:
        limit = NAMESPACE_FUNCTIONS.get(target.key)
        for namespace in catalogue.namespaces:
            count = sizes[namespace.name]
            if limit is not None and count > limit:
                yield Finding(
                    f"namespace {namespace.name!r} holds {count} tools; {target.label} "
                    f"advises fewer than {limit} per namespace",
                    span=namespace.origin.key_span,
                )


@rule(
    id="TG962",
    severity=Severity.WARNING,
    fix="Say in the description what the namespace holds and when to look inside, in the "
    "words a user would use.",
    source=_SEARCH,
)
def namespace_too_thin_to_find(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A namespace whose description is too thin for a search to find its tools.

    ## What it does
    Counts the distinct content words (stemmed, without stop words) of the description of
    each namespace with deferred tools; fewer than 8 is too few. (A namespace whose tools
    all load up front is not searched.)

    ## Why is this bad?
    Before a search, the model sees a namespace's name and description only: it looks
    inside when the description matches what the user asked, and never otherwise.

    ## Example
    ```yaml
    namespaces:
      orders: {description: Order tools., deferred: true}
    ```

    ## Use instead
    ```yaml
    namespaces:
      orders:
        description: >-
          The customer's orders: find one, read it, place, cancel or return it. Look here
          for anything about an order, a delivery or a refund.
        deferred: true
    ```
    """
    searched = {t.namespace for t in ctx.tools() if t.deferred}
    for namespace in catalogue.namespaces:
        found = _content_words(namespace.description)
        if namespace.name in searched and found < MIN_TERMS:
            yield Finding(
                f"namespace {namespace.name!r} is described in {found} content words; a "
                f"search needs at least {MIN_TERMS} to find its tools",
                span=namespace.origin.span("description"),
            )


@rule(
    id="TG963",
    severity=Severity.WARNING,
    fix="Give the tool asks (requests in a user's words for which it is the right tool) "
    "and an intent and use_when that say what it does.",
    source=_SEARCH,
)
def deferred_tool_too_thin_to_find(
    tool: ToolSummary, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A deferred tool with too few words for a search to find it.

    ## What it does
    A deferred tool loads only when a search finds it: it needs `asks`, and its intent,
    use_when and asks together need at least 8 distinct content words.

    ## Why is this bad?
    The search reads the contract's words; a tool with none that match what users say is
    never loaded, and the model answers without it.

    ## Example
    ```yaml
    name: read_notice
    intent: Read a notice.
    deferred: true
    ```

    ## Use instead
    ```yaml
    name: read_notice
    intent: Read a notice of the supplier portal (delays, price changes).
    asks: [Did the supplier announce a delay for November?]
    ```
    """
    if not tool.deferred:
        return
    found = _content_words(tool.intent, tool.use_when, *tool.asks)
    if not tool.asks:
        yield Finding(f"deferred tool {tool.name!r} has no asks to be found by")
    elif found < MIN_TERMS:
        yield Finding(
            f"deferred tool {tool.name!r} has {found} content words in its intent, "
            f"use_when and asks; a search needs at least {MIN_TERMS}"
        )


@rule(
    id="TG964",
    severity=Severity.WARNING,
    fix="Reword the ask or the tools' intents so the search tells them apart, or keep "
    "the ask on one tool only.",
    source=_SEARCH,
)
def ask_goes_elsewhere(tool: ToolSummary, ctx: CatalogueContext) -> Iterator[Finding]:
    """An ask that the catalogue's search sends to another tool.

    ## What it does
    Searches each of the tool's `asks` with the catalogue's own search
    (`toolgen_runtime.search`, over every tool, asks included): it reports an ask that is
    also another tool's, and one for which the tool is not among the 3 tools
    `search_tools` loads, naming the tool the search ranks first.

    ## Why is this bad?
    The search cannot tell the tools apart: the model is given the wrong tool for the
    request the contract says is this one's.

    ## Example
    ```yaml
    name: cancel_order
    asks: [Stop my order]   # also an ask of cancel_subscription
    ```

    ## Use instead
    ```yaml
    name: cancel_order
    asks: [Cancel order ORD-1012 before it ships]
    ```
    """
    for wrong in ctx.misrouted.get(tool.name, ()):
        why = "is also an ask of" if wrong.shared else "is sent by the search to"
        yield Finding(f"ask {wrong.ask!r} of {tool.name!r} {why} {wrong.goes_to!r}")


@rule(
    id="TG965",
    severity=Severity.ERROR,
    fix="Defer more of the toolset's tools (a namespace with deferred: true), shorten "
    "them, or raise its budget in a reviewed change.",
    source=TRADE_OFFS,
)
def toolset_over_budget(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A toolset whose up-front definitions cost more tokens than its budget.

    ## What it does
    Counts what a toolset loads on every turn (its tools loaded up front, and for the
    deferred ones their namespaces' names and descriptions and the tool search tool, in
    o200k_base tokens) against the toolset's `budget`.

    ## Why is this bad?
    The agent pays the up-front definitions on every turn; the budget is the reviewed
    limit, and going over it is caught in the pull request that does.

    ## Example
    ```yaml
    toolsets:
      support: {tools: [orders, documents], budget: 900}   # costs 1,450
    ```

    ## Use instead
    ```yaml
    namespaces:
      documents: {description: ..., deferred: true}
    ```
    """
    origins = {t.name: t.origin for t in catalogue.toolsets}
    for cost in toolset_tokens(catalogue, ctx.tools(), ctx.tool_tokens):
        if cost.budget is not None and cost.up_front > cost.budget:
            yield Finding(
                f"toolset {cost.name!r} loads {cost.up_front:,} tokens up front per turn "
                f"({tokens.ENCODING}); its budget is {cost.budget:,}",
                span=origins[cost.name].span("budget"),
            )


@rule(
    id="TG966",
    severity=Severity.WARNING,
    fix="Add the tool (or its namespace) to the toolset of the agent that uses it, or "
    "delete it.",
    source="toolgen toolsets: a toolset names the tools one agent gets, so a tool in none "
    "reaches no agent",
)
def tool_in_no_toolset(tool: ToolSummary, ctx: CatalogueContext) -> Iterator[Finding]:
    """A tool no toolset holds, when catalogue.yaml declares toolsets.

    ## What it does
    Reports a tool that is in no toolset, directly or through its namespace.

    ## Why is this bad?
    No agent gets it: it is reviewed, built and tested for nothing, or a toolset forgot it.

    ## Example
    ```yaml
    toolsets:
      support: {tools: [orders]}   # read_stock is in no namespace and no toolset
    ```

    ## Use instead
    ```yaml
    toolsets:
      support: {tools: [orders, read_stock]}
    ```
    """
    declared = any(not t.implicit for t in ctx.catalogue.toolsets)
    if declared and tool.name not in ctx.toolsets_of:
        yield Finding(f"tool {tool.name!r} is in no toolset")


@rule(
    id="TG967",
    severity=Severity.WARNING,
    fix="Load the required tool up front (deferred: false), or defer both.",
    source=_SEARCH,
)
def required_tool_deferred(
    tool: ToolSummary, ctx: CatalogueContext
) -> Iterator[Finding]:
    """An up-front tool that requires a deferred tool of the same toolset first.

    ## What it does
    For each toolset holding both, reports a tool loaded up front whose `requires` names a
    deferred tool.

    ## Why is this bad?
    The description tells the model to call a tool it cannot see until a search loads it:
    it calls a name it does not have, or skips the step.

    ## Example
    ```yaml
    name: send_order        # up front
    requires: [read_stock]  # in a deferred namespace
    ```

    ## Use instead
    ```yaml
    name: read_stock
    deferred: false
    ```
    """
    if tool.deferred:
        return
    for required in tool.requires:
        other = ctx.tool(required.name)
        if other is None or not other.deferred:
            continue
        theirs = ctx.toolsets_of.get(other.name, [])
        if shared := [t for t in ctx.toolsets_of.get(tool.name, []) if t in theirs]:
            yield Finding(
                f"tool {tool.name!r} requires {other.name!r} first, which is deferred in "
                f"toolset {shared[0]!r}",
                span=required.at,
            )


@rule(
    id="TG968",
    severity=Severity.WARNING,
    fix="Give the tool an idempotency key (idempotency: {key: [...]}), or declare "
    "idempotency: natural if a repeat is harmless, or drop the timeout.",
    source="toolgen runtime: a tool's timeout answer is retryable, so the model calls "
    "again; Agents SDK: a sync implementation keeps running in its worker thread after the "
    "timeout",
)
def timeout_retries_a_write(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A tool with effects, a timeout and nothing that makes a repeat harmless.

    ## What it does
    Reports a write or destructive tool with a `timeout` whose idempotency is `none`.

    ## Why is this bad?
    When the timeout passes, the model is told the call may be tried again
    (`retryable: true`), but the implementation may still finish (a sync one keeps running
    in its worker thread): the retry does the write a second time.

    ## Example
    ```yaml
    name: send_order
    effect: write
    timeout: {seconds: 20, how_to_fix: Try again in a minute.}
    ```

    ## Use instead
    ```yaml
    name: send_order
    effect: write
    idempotency: {key: [order_ref]}
    timeout: {seconds: 20, how_to_fix: Try again in a minute.}
    ```
    """
    repeats = tool.effect != "read" and tool.idempotency.kind == "none"
    if tool.timeout is not None and repeats:
        yield Finding(
            f"tool {tool.name!r} has effect {tool.effect}, a timeout and no "
            "idempotency: a retry after the timeout may repeat the write",
            span=tool.origin.span("timeout"),
        )
