"""The lint run: every enabled rule over every element of its kind, then suppressions.

Each rule sees the elements of one kind; its findings become diagnostics with the rule's id
and the severity the catalogue configured. A finding owned by a tool (anything in its file,
or a pair it belongs to) is dropped when that tool suppresses the rule; suppressions that drop
nothing are reported last.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from toolgen.diagnostics import Diagnostic, Severity, Span
from toolgen.ir import Catalogue, Tool
from toolgen.lint import config
from toolgen.lint.context import LintContext
from toolgen.lint.registry import (
    REGISTRY,
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
from toolgen.tokens import TokenReport


@dataclass(frozen=True, slots=True)
class LintResult:
    diagnostics: tuple[Diagnostic, ...]
    enabled: dict[str, Severity]
    tokens: TokenReport


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: Rule
    finding: Finding
    span: Span
    owners: tuple[Tool, ...]


def _elements(kind: type, ctx: LintContext) -> Iterable[object]:
    if kind is Catalogue:
        return (ctx.catalogue,)
    if kind is Tool:
        return ctx.catalogue.tools
    if kind is ParamSite:
        return ctx.param_sites()
    if kind is ReturnSite:
        return ctx.return_sites()
    if kind is ErrorSite:
        return ctx.error_sites()
    if kind is ToolPair:
        return ctx.pairs()
    if kind is SpecText:
        return ctx.texts()
    raise TypeError(f"no elements of kind {kind.__name__}")


def _owners(element: object) -> tuple[Tool, ...]:
    if isinstance(element, Tool):
        return (element,)
    if isinstance(element, ParamSite | ReturnSite | ErrorSite):
        return (element.tool,)
    if isinstance(element, ToolPair):
        return (element.first, element.second)
    if isinstance(element, SpecText) and element.tool is not None:
        return (element.tool,)
    return ()


def _default_span(element: object) -> Span:
    if isinstance(element, Catalogue):
        return element.origin.span("name")
    if isinstance(element, Tool):
        return element.origin.span("name")
    if isinstance(element, ParamSite | ReturnSite | ErrorSite | ToolPair | SpecText):
        return element.default_span
    raise TypeError(type(element).__name__)


def _hits(rules: list[Rule], ctx: LintContext) -> Iterator[_Hit]:
    by_kind: dict[type, list[Rule]] = defaultdict(list)
    for r in rules:
        if r.kind is not None and r.check is not None:
            by_kind[r.kind].append(r)
    for kind, group in by_kind.items():
        if kind is SpecText:
            yield from _text_hits(group, ctx)
            continue
        for element in _elements(kind, ctx):
            owners = _owners(element)
            if owners and all(owner.derived for owner in owners):
                # a prepare tool is made of its token contract, which is linted itself
                continue
            found = [(r, f) for r in group for f in _check(r, element, ctx)]
            if found:
                owners = _owners(element)
                span = _default_span(element)
                for r, f in found:
                    yield _Hit(r, f, f.span or span, owners)


def _check(rule_: Rule, element: object, ctx: LintContext) -> Iterable[Finding]:
    assert rule_.check is not None
    return rule_.check(element, ctx)


def _text_hits(group: list[Rule], ctx: LintContext) -> Iterator[_Hit]:
    """Text rules depend on the text only, and strings repeat across a catalogue (types,
    enum values, shared wording): each distinct string is checked once."""
    memo: dict[tuple[str, bool], list[tuple[Rule, Finding]]] = {}
    for source, tool, path, text, is_key in ctx.text_items():
        found = memo.get((text, is_key))
        if found is None:
            element = SpecText(source, path, text, is_key, tool)
            found = [(r, f) for r in group for f in _check(r, element, ctx)]
            memo[(text, is_key)] = found
        if found:
            element = SpecText(source, path, text, is_key, tool)
            for r, f in found:
                yield _Hit(r, f, element.default_span, _owners(element))


def run(catalogue: Catalogue) -> LintResult:
    ctx = LintContext(catalogue)
    enabled = config.resolve(catalogue.lint, all_rules())
    active = [REGISTRY[i] for i in sorted(enabled)]
    used: set[int] = set()
    diagnostics: list[Diagnostic] = []

    def suppressed(hit: _Hit) -> bool:
        if hit.rule.category is Category.CONFIG:
            return False
        for owner in hit.owners:
            for s in owner.suppressions:
                if s.rule == hit.rule.id:
                    used.add(id(s))
                    return True
        return False

    for hit in _hits(active, ctx):
        if suppressed(hit):
            continue
        hint = hit.finding.hint or hit.rule.fix
        diagnostics.append(
            Diagnostic(
                hit.rule.id, enabled[hit.rule.id], hit.finding.message, hit.span, hint
            )
        )
    diagnostics.extend(_unused(catalogue, enabled, used))
    diagnostics.sort(key=lambda d: d.sort_key)
    return LintResult(tuple(diagnostics), enabled, ctx.tokens)


def _unused(
    catalogue: Catalogue, enabled: dict[str, Severity], used: set[int]
) -> Iterator[Diagnostic]:
    rule_ = config.UNUSED_SUPPRESSION
    if rule_.id not in enabled:
        return
    for tool in catalogue.tools:
        for s in tool.suppressions:
            if catalogue.broken_tools and s.rule in enabled:
                # what the rule finds may involve a tool whose file is broken (a pair, a
                # reference): that it found nothing says nothing until the file is fixed
                continue
            if s.rule in REGISTRY and id(s) not in used:
                yield Diagnostic(
                    rule_.id,
                    enabled[rule_.id],
                    config.unused_message(s.rule, tool, enabled),
                    s.origin.span("rule"),
                    rule_.fix,
                )
