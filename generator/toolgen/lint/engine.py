"""The lint run: every enabled rule over every element of its kind, then suppressions.

It runs in two passes, so that a build keeps what one tool's rules found with that tool (what
each pass's rules may read is context.py's): `ToolLinter.lint(tool)` over one tool's elements
(`TOOL_KINDS`), as `Hit`s before suppressions; then `lint_catalogue(ctx, hits)` over the
catalogue, pairs of tools and each tool's references (`CATALOGUE_KINDS`), which drops every
hit a tool owning it suppresses and reports the suppressions that dropped nothing.
`lint(catalogue)` does both for a catalogue whose every tool's IR is at hand.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping

from toolgen.diagnostics import Diagnostic, Hit, Severity, Span
from toolgen.lint import config
from toolgen.lint.context import (
    CatalogueContext,
    LintContext,
    param_sites,
    return_sites,
)
from toolgen.lint.registry import (
    CATALOGUE_KINDS,
    REGISTRY,
    TOOL_KINDS,
    Category,
    ErrorSite,
    Finding,
    ParamSite,
    ReturnSite,
    Rule,
    SpecText,
    ToolPair,
    all_rules,
)
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary


def enabled_rules(catalogue: Catalogue) -> dict[str, Severity]:
    """The rules catalogue.yaml enables, with their severities."""
    return config.resolve(catalogue.lint, all_rules())


def _by_kind(
    enabled: Mapping[str, Severity], kinds: tuple[type, ...]
) -> dict[type, list[Rule]]:
    found: dict[type, list[Rule]] = defaultdict(list)
    for rule_id in sorted(enabled):
        rule_ = REGISTRY[rule_id]
        if rule_.kind in kinds and rule_.check is not None:
            found[rule_.kind].append(rule_)
    return found


def _hits(
    rules: list[Rule],
    element: object,
    ctx: LintContext,
    span: Span,
    owners: tuple[str, ...],
) -> Iterator[Hit]:
    for rule_ in rules:
        assert rule_.check is not None
        for f in rule_.check(element, ctx):
            yield Hit(rule_.id, f.message, f.hint, f.span or span, owners)


# a tool's elements of each kind of TOOL_KINDS but SpecText (ToolLinter._text_hits), each
# with the place its findings point at unless they name one: its name, or its key
_TOOL_ELEMENTS: dict[type, Callable[[Tool], Iterable[tuple[object, Span]]]] = {
    Tool: lambda tool: [(tool, tool.origin.span("name"))],
    ParamSite: lambda tool: ((s, s.param.origin.key_span) for s in param_sites(tool)),
    ReturnSite: lambda tool: ((s, s.field.origin.key_span) for s in return_sites(tool)),
    ErrorSite: lambda tool: (
        (ErrorSite(tool, e), e.origin.key_span) for e in tool.errors
    ),
}


class ToolLinter:
    """Runs the rules over one tool's elements at a time. A rule over strings depends on the
    text alone (`SpecText`), and strings repeat across a catalogue (types, enum values,
    shared wording): each distinct string is checked once per linter."""

    def __init__(self, ctx: LintContext, enabled: Mapping[str, Severity]) -> None:
        self.ctx = ctx
        self._rules = _by_kind(enabled, TOOL_KINDS)
        # what the rules found in each distinct string: (text, is_key, refused)
        self._texts: dict[tuple[str, bool, bool], list[tuple[str, Finding]]] = {}

    def lint(self, tool: Tool) -> tuple[Hit, ...]:
        """What the enabled rules find in `tool`'s elements (none in a derived tool: a
        prepare tool is made of its token contract, which is linted itself)."""
        if tool.derived:
            return ()
        owners = (tool.name,)
        found: list[Hit] = []
        for kind, rules in self._rules.items():
            if kind is SpecText:
                found.extend(self._text_hits(tool, rules))
                continue
            for element, span in _TOOL_ELEMENTS[kind](tool):
                found.extend(_hits(rules, element, self.ctx, span, owners))
        return tuple(found)

    def _text_hits(self, tool: Tool, rules: list[Rule]) -> Iterator[Hit]:
        source = tool.origin.source
        # the places in `examples` of the tool's rejected examples, whose strings are refused
        rejected = {
            e.origin.path[1] for e in tool.examples if e.rejected_on is not None
        }
        for item in tool.texts:
            path = item.path
            refused = len(path) > 1 and path[0] == "examples" and path[1] in rejected
            key = (item.text, item.is_key, refused)
            checked = self._texts.get(key)
            if checked is None:
                element = SpecText(*key)  # made only for a string not seen yet
                checked = self._texts[key] = [
                    (r.id, f)
                    for r in rules
                    if r.check
                    for f in r.check(element, self.ctx)
                ]
            if checked:
                span = source.span(item.path, key=item.is_key)
                for rule_id, f in checked:
                    yield Hit(rule_id, f.message, f.hint, f.span or span, (tool.name,))


def _catalogue_hits(
    ctx: CatalogueContext, enabled: Mapping[str, Severity]
) -> Iterator[Hit]:
    catalogue = ctx.catalogue
    for kind, group in _by_kind(enabled, (*CATALOGUE_KINDS, SpecText)).items():
        if kind is Catalogue:
            yield from _hits(group, catalogue, ctx, catalogue.origin.span("name"), ())
        elif kind is ToolSummary:
            for tool in ctx.tools():
                if not tool.derived:
                    yield from _hits(group, tool, ctx, tool.name_at, (tool.name,))
        elif kind is ToolPair:
            for pair in ctx.pairs():
                if pair.first.derived and pair.second.derived:
                    continue  # prepare tools are made of their contracts, linted themselves
                owners = (pair.first.name, pair.second.name)
                yield from _hits(group, pair, ctx, pair.second.name_at, owners)
        elif kind is SpecText:  # catalogue.yaml's strings (a tool's are linted with it)
            for item in catalogue.texts:
                element = SpecText(item.text, item.is_key)
                span = catalogue.origin.source.span(item.path, key=item.is_key)
                yield from _hits(group, element, ctx, span, ())


def lint_catalogue(
    ctx: CatalogueContext,
    tool_hits: Iterable[Hit],
    enabled: Mapping[str, Severity],
) -> tuple[Diagnostic, ...]:
    """The rules over the catalogue, then every hit (the tools' own `tool_hits` and these)
    the tools that own it do not suppress, as diagnostics, and the unused suppressions."""
    used: set[tuple[str, int]] = set()  # (tool, index of its suppression)

    def suppressed(hit: Hit) -> bool:
        if REGISTRY[hit.rule].category is Category.CONFIG:
            return False
        for owner in hit.owners:
            tool = ctx.tool(owner)
            rules = () if tool is None else tool.suppressed_rules
            if hit.rule in rules:
                used.add((owner, rules.index(hit.rule)))
                return True
        return False

    diagnostics = [
        Diagnostic(
            hit.rule,
            enabled[hit.rule],
            hit.message,
            hit.span,
            hit.hint or REGISTRY[hit.rule].fix,
        )
        for hit in (*tool_hits, *_catalogue_hits(ctx, enabled))
        if hit.rule in enabled and not suppressed(hit)
    ]
    diagnostics.extend(_unused(ctx, enabled, used))
    return tuple(sorted(diagnostics, key=lambda d: d.sort_key))


def _unused(
    ctx: CatalogueContext,
    enabled: Mapping[str, Severity],
    used: set[tuple[str, int]],
) -> Iterator[Diagnostic]:
    rule_ = config.UNUSED_SUPPRESSION
    if rule_.id not in enabled:
        return
    broken = bool(ctx.catalogue.broken_tools)
    for tool in ctx.tools():
        for index, item in enumerate(tool.suppressions):
            if broken and item.name in enabled:
                # what the rule finds may involve a tool whose file is broken (a pair, a
                # reference): that it found nothing says nothing until the file is fixed
                continue
            if item.name in REGISTRY and (tool.name, index) not in used:
                yield Diagnostic(
                    rule_.id,
                    enabled[rule_.id],
                    config.unused_message(item.name, tool.name, enabled),
                    item.at,
                    rule_.fix,
                )


def lint(catalogue: Catalogue) -> list[Diagnostic]:
    """Lint a catalogue whose every tool's IR is at hand."""
    enabled = enabled_rules(catalogue)
    ctx = CatalogueContext.of(catalogue)
    linter = ToolLinter(LintContext(catalogue, ctx.names), enabled)
    hits = [hit for tool in catalogue.tools for hit in linter.lint(tool)]
    return list(lint_catalogue(ctx, hits, enabled))
