"""What a catalogue keeps off its lint report, for the review page: each `suppress:` entry of a
tool with its reason and the findings it silences, and the rules the catalogue's `lint:`
section turns off with the findings they would report.

The findings are what linting the catalogue once more, with no suppression and only the rules
it silences, reports and the real run does not: a reviewer reads what each reason stands for,
not only that a rule is off. Nothing is linted again when the catalogue silences nothing.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from toolgen import lint
from toolgen.diagnostics import Diagnostic, Span
from toolgen.lint import config
from toolgen.lint.registry import REGISTRY, Category, Rule, all_rules
from toolgen.spec.ir import Catalogue, LintConfig, Tool


@dataclass(frozen=True, slots=True)
class Suppression:
    """One `suppress:` entry of a tool, and the findings it keeps off the report."""

    tool: str
    rule: str
    reason: str
    span: Span
    silenced: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class TurnedOff:
    """A rule that runs by default and that the catalogue's lint section turns off."""

    rule: str
    how: str  # "ignored (TG2)", "severity off (names)", "not selected"
    silenced: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class Silenced:
    suppressions: tuple[Suppression, ...]
    turned_off: tuple[TurnedOff, ...]


def _key(d: Diagnostic) -> tuple[str, str, Span]:
    # the severity aside: the lint section may make a rule louder or quieter
    return d.code, d.message, d.span


def silenced(catalogue: Catalogue, findings: Sequence[Diagnostic]) -> Silenced:
    """What `catalogue` silences, given what checking it reported (`findings`)."""
    rules = all_rules()
    default = config.resolve(LintConfig(), rules)
    enabled = config.resolve(catalogue.lint, rules)
    off = [r for r in rules if r.id in default and r.id not in enabled]
    by_rule = {r.id for r in off}
    suppressed = {r for t in catalogue.tools for r in t.suppressed_rules}
    silencing = by_rule | (suppressed & enabled.keys())
    if not silencing and not suppressed:
        return Silenced((), ())
    kept_off: list[Diagnostic] = []
    if silencing:  # lint once more, nothing suppressed, only the rules that silence
        bare = dataclasses.replace(
            catalogue,
            lint=LintConfig(select=tuple(sorted(silencing))),
            tools=tuple(
                dataclasses.replace(t, suppressions=()) for t in catalogue.tools
            ),
        )
        reported = Counter(_key(d) for d in findings)
        for d in lint.lint(bare):
            rule_ = REGISTRY.get(d.code)
            if rule_ is None or rule_.category is Category.CONFIG:
                continue
            if reported[_key(d)]:
                reported[_key(d)] -= 1
            else:
                kept_off.append(d)
    turned_off = tuple(
        TurnedOff(
            r.id,
            _how(r, catalogue.lint),
            tuple(d for d in kept_off if d.code == r.id),
        )
        for r in off
    )
    by_entry: dict[tuple[str, int], list[Diagnostic]] = {}
    for d in kept_off:
        if d.code not in by_rule:
            entry = _entry(catalogue.tools, d)
            if entry is not None:
                by_entry.setdefault(entry, []).append(d)
    suppressions = tuple(
        Suppression(
            tool.name,
            item.rule,
            item.reason,
            item.origin.span("rule"),
            tuple(by_entry.get((tool.name, index), ())),
        )
        for tool in catalogue.tools
        for index, item in enumerate(tool.suppressions)
    )
    return Silenced(suppressions, turned_off)


def _entry(tools: Sequence[Tool], finding: Diagnostic) -> tuple[str, int] | None:
    """The suppress entry that kept `finding` off the report: of the tool whose file it is
    in, else (a finding about a pair of tools) of a tool its message names, else the first
    tool that suppresses its rule."""
    candidates = [t for t in tools if finding.code in t.suppressed_rules]
    chosen = (
        next((t for t in candidates if t.file == finding.span.file), None)
        or next((t for t in candidates if repr(t.name) in finding.message), None)
        or next(iter(candidates), None)
    )
    if chosen is None:
        return None
    return chosen.name, chosen.suppressed_rules.index(finding.code)


def _how(rule_: Rule, section: LintConfig) -> str:
    """How the lint section turns a default rule off."""
    ignored = [s for s in section.ignore if config.matches(s, rule_)]
    if ignored:
        return f"ignored ({', '.join(ignored)})"
    if section.select and not any(config.matches(s, rule_) for s in section.select):
        return "not selected"
    off = [
        k
        for k, v in section.severity.items()
        if v == "off" and config.matches(k, rule_)
    ]
    return f"severity off ({', '.join(off)})" if off else "off"
