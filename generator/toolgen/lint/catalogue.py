"""Catalogue rules: how many tools, and what they cost the model on every turn."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.registry import TRADE_OFFS, Finding, rule
from toolgen.spec import tokens
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary


@rule(
    id="TG951",
    severity=Severity.WARNING,
    fix="Merge near twins, drop tools no user intention needs, or split the agent in two.",
    source="OpenAI function calling best practices: keep the number of functions small "
    "(fewer than 20) for higher accuracy",
)
def too_many_tools(catalogue: Catalogue, ctx: CatalogueContext) -> Iterator[Finding]:
    """More tools than a target handles well.

    ## What it does
    Counts the tools each toolset loads up front (the catalogue's, when it declares none)
    against the recommendation of every declared target (OpenAI: fewer than 20). Deferred
    tools are no choice until a search loads them: they count as the one search tool.

    ## Why is this bad?
    Every tool is a choice the model makes on every turn and a description it pays for; past
    a couple of dozen, accuracy drops and near twins hide in the crowd.

    ## Example
    ```yaml
    # tools/: 26 files
    ```

    ## Use instead
    ```yaml
    # tools/: one tool per user intention; a second agent for the back office
    ```
    """
    for subject, members in _agents(catalogue, ctx):
        count = sum(not t.deferred for t in members) + any(t.deferred for t in members)
        for target in ctx.targets:
            limit, hard = target.tools_recommended, target.tools_max
            if limit is not None and count > limit and (hard is None or count <= hard):
                yield Finding(
                    f"{subject} has {count} tools up front; {target.label} recommends at "
                    f"most {limit}"
                )


@rule(
    id="TG952",
    severity=Severity.ERROR,
    fix="Split the catalogue: one agent per area, with a handoff between them.",
    source="OpenAI function calling: at most 128 tools in one request",
)
def tool_count_over_target_limit(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """More tools than a target accepts.

    ## What it does
    Counts the tools of each toolset (the catalogue's, when it declares none), deferred ones
    too, against the hard limit of every declared target (OpenAI: 128 tools in one request).

    ## Why is this bad?
    The provider rejects the request: the agent cannot start.

    ## Example
    ```yaml
    # tools/: 140 files
    ```

    ## Use instead
    ```yaml
    # two catalogues of 70 tools, two agents and a handoff
    ```
    """
    for subject, members in _agents(catalogue, ctx):
        for target in ctx.targets:
            if target.tools_max is not None and len(members) > target.tools_max:
                yield Finding(
                    f"{subject} has {len(members)} tools; {target.label} accepts at most "
                    f"{target.tools_max} in one request"
                )


def _agents(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[tuple[str, list[ToolSummary]]]:
    """Each toolset (the catalogue, when it declares none) and the tools an agent of it
    gets: what one request carries."""
    by_name = {t.name: t for t in ctx.tools()}
    for toolset in catalogue.toolsets:
        subject = f"toolset {toolset.name!r}"
        if toolset.implicit:
            subject = f"catalogue {catalogue.name!r}"
        yield subject, [by_name[n] for n in toolset.tools if n in by_name]


@rule(
    id="TG953",
    severity=Severity.ERROR,
    fix="Shorten the most expensive tools, or raise budget.tokens in a reviewed change.",
    source=f"{TRADE_OFFS}; OpenAI: function definitions count against the context and are "
    "billed as input tokens",
)
def catalogue_over_token_budget(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A catalogue over its token budget.

    ## What it does
    Counts, with the o200k_base tokenizer, what the model receives for every tool on every
    turn (name, description and parameter schema, as the SDK sends them) and compares the
    total with `budget.tokens`.

    ## Why is this bad?
    The catalogue is a fixed cost of every turn of every conversation. The budget makes its
    growth a reviewed decision instead of a slow drift.

    ## Example
    ```yaml
    budget:
      tokens: 2000   # the catalogue costs 2,731
    ```

    ## Use instead
    ```yaml
    budget:
      tokens: 2000   # and descriptions trimmed to fit
    ```
    """
    budget = catalogue.budget.tokens
    total = ctx.tokens.total
    if budget is not None and total > budget:
        top = ", ".join(f"{t.name} {t.tokens:,}" for t in ctx.tokens.most_expensive(3))
        yield Finding(
            f"catalogue {catalogue.name!r} costs {total:,} tokens per turn "
            f"({tokens.ENCODING}); budget.tokens is {budget:,}",
            hint=f"Shorten the most expensive tools ({top}), or raise "
            "budget.tokens in a reviewed change.",
            span=catalogue.origin.span("budget", "tokens"),
        )


@rule(
    id="TG954",
    severity=Severity.ERROR,
    fix="Shorten the tool's descriptions and enums, or raise budget.tool_tokens in a "
    "reviewed change.",
    source=TRADE_OFFS,
)
def tool_over_token_budget(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A tool over the per-tool token budget.

    ## What it does
    Counts the tokens of one tool (name, description and parameter schema, as the SDK sends
    them) against `budget.tool_tokens` of the catalogue.

    ## Why is this bad?
    One verbose tool costs every conversation on every turn, whether it is called or not;
    a per-tool cap catches it in the pull request that adds it.

    ## Example
    ```yaml
    budget:
      tool_tokens: 400   # search_orders costs 612
    ```

    ## Use instead
    ```yaml
    budget:
      tool_tokens: 400   # search_orders trimmed to 380
    ```
    """
    budget = ctx.catalogue.budget.tool_tokens
    if budget is None:
        return
    cost = tokens.tool_tokens(tool)
    if cost > budget:
        yield Finding(
            f"tool {tool.name!r} costs {cost:,} tokens per turn ({tokens.ENCODING}); "
            f"budget.tool_tokens is {budget:,}"
        )


@rule(
    id="TG955",
    # a budget is optional (the format gives it no default): saying what one would be is
    # advice, and advice must not fail a build
    severity=Severity.INFO,
    fix="Add budget: {tokens: N} to catalogue.yaml, N a little above today's cost.",
    source=TRADE_OFFS,
)
def no_token_budget(catalogue: Catalogue, ctx: CatalogueContext) -> Iterator[Finding]:
    """A catalogue without a token budget.

    ## What it does
    Reports a catalogue.yaml without `budget.tokens`, says what the catalogue costs today
    and suggests a budget a little above it. A budget is optional: this is information, not
    a warning.

    ## Why is this bad?
    Without a budget nobody decides how much context the tools may take: each pull request
    adds a little, and the cost is noticed when the model's answers get worse.

    ## Example
    ```yaml
    name: inventory
    description: Look up customers, their orders and returns.
    ```

    ## Use instead
    ```yaml
    name: inventory
    description: Look up customers, their orders and returns.
    budget:
      tokens: 2500
    ```
    """
    if catalogue.budget.tokens is None:
        total = ctx.tokens.total
        suggested = max(100, -(-int(total * 1.2) // 100) * 100)
        yield Finding(
            f"catalogue {catalogue.name!r} has no token budget; it costs {total:,} tokens "
            f"per turn ({tokens.ENCODING})",
            hint=f"Add budget: {{tokens: {suggested}}} to catalogue.yaml.",
        )
