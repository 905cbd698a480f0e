"""Which rules run and how loud: the catalogue's `lint:` section (`select`, `ignore`,
`severity`, `preview`, as docs/rules.md shows it), and its own rules.

A preview rule runs when `preview` is true, or when `select` names it by its exact id. The
rules over this section and the suppressions (TG99x) run whatever `select` says.
Tools silence one rule with `suppress: [{rule: TG205, reason: ...}]`; a suppression that
matches nothing, or names no lint rule, is itself reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from toolgen.diagnostics import Severity
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.registry import (
    REGISTRY,
    Category,
    Finding,
    Lifecycle,
    Rule,
    engine_rule,
    rule,
)
from toolgen.spec.ir import Catalogue, LintConfig, Tool

_PREFIX = re.compile(r"^TG\d{1,3}$", re.IGNORECASE)
_CATEGORIES = {c.value: c for c in Category}


def _specificity(selector: str, rule_: Rule) -> int:
    """How closely `selector` names `rule_`: 0 when it does not, then all < category < id
    prefix (longer is more specific) < exact id."""
    wanted = selector.strip()
    if wanted.lower() == "all":
        return 1
    if wanted.lower() in _CATEGORIES:
        return 2 if _CATEGORIES[wanted.lower()] is rule_.category else 0
    named = _PREFIX.fullmatch(wanted) and rule_.id.startswith(wanted.upper())
    return 2 + len(wanted) if named else 0


def matches(selector: str, rule_: Rule) -> bool:
    return _specificity(selector, rule_) > 0


def resolve(config: LintConfig, rules: Iterable[Rule]) -> dict[str, Severity]:
    """The enabled rules of a catalogue, by id, with their effective severity."""
    enabled: dict[str, Severity] = {}
    for candidate in rules:
        preview_ok = candidate.lifecycle is Lifecycle.STABLE or config.preview
        # the rules over this section run whatever it selects: a selector misspelt would
        # otherwise turn off the rule that reports it, and every other with it
        if config.select and candidate.category is not Category.CONFIG:
            chosen = [s for s in config.select if matches(s, candidate)]
            exact = any(s.strip().upper() == candidate.id for s in chosen)
            if not chosen or not (preview_ok or exact):
                continue
        elif not preview_ok:
            continue
        if any(matches(s, candidate) for s in config.ignore):
            continue
        # the most specific key that names the rule wins, else its default
        _, value = max(
            (
                (rank, value)
                for key, value in config.severity.items()
                if (rank := _specificity(key, candidate))
            ),
            default=(0, candidate.severity.value),
        )
        if value != "off":
            enabled[candidate.id] = Severity(value)
    return enabled


def _selectors(config: LintConfig) -> Iterator[tuple[str, tuple[str | int, ...], bool]]:
    """Every selector of the lint section with the path of where it is written."""
    for section, values in (("select", config.select), ("ignore", config.ignore)):
        for index, value in enumerate(values):
            yield value, ("lint", section, index), False
    for key in config.severity:
        yield key, ("lint", "severity", key), True


@rule(
    id="TG990",
    severity=Severity.ERROR,
    fix="Use a category, an id prefix such as TG3, or a rule id listed by `toolgen rules`.",
    source="ruff: unknown rule selectors are an error, so a typo never disables nothing",
)
def unknown_lint_selector(
    catalogue: Catalogue, ctx: CatalogueContext
) -> Iterator[Finding]:
    """A lint selector that names no rule.

    ## What it does
    Checks every entry of `lint.select`, `lint.ignore` and the keys of `lint.severity` in
    catalogue.yaml: each must be `all`, a category (`names`, `security`, ...), an id prefix
    (`TG3`) or a rule id.

    ## Why is this bad?
    A misspelt selector silently does nothing: the rule the reviewer meant to silence still
    runs, or the one they meant to enforce never does. This rule and the others over the
    lint section and the suppressions (TG99x) run whatever `select` says, so a misspelt
    `select` is reported too.

    ## Example
    ```yaml
    lint:
      ignore: [naming]
    ```

    ## Use instead
    ```yaml
    lint:
      ignore: [names]
    ```
    """
    for selector, path, is_key in _selectors(catalogue.lint):
        if not any(matches(selector, r) for r in REGISTRY.values()):
            known = ", ".join(sorted(_CATEGORIES))
            yield Finding(
                f"lint selector {selector!r} names no rule; expected all, a category "
                f"({known}), an id prefix such as TG3, or a rule id",
                span=catalogue.origin.span(*path, key=is_key),
            )


@rule(
    id="TG991",
    severity=Severity.ERROR,
    fix="Name a lint rule listed by `toolgen rules`; load and format errors (TG0xx, TG1xx) "
    "cannot be suppressed, fix the spec instead.",
    source="ruff RUF100 (unknown codes in noqa comments)",
)
def unknown_suppressed_rule(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A suppression that names no lint rule.

    ## What it does
    Checks that every `suppress:` entry of a tool names a registered lint rule id.

    ## Why is this bad?
    A suppression of an id that does not exist silences nothing and misleads the reviewer who
    reads its reason; a suppression of a load or format error (TG0xx, TG1xx) would hide a
    spec the compiler cannot build.

    ## Example
    ```yaml
    suppress:
      - rule: TG2O5   # letter O, not zero
        reason: The parameter is a real identifier.
    ```

    ## Use instead
    ```yaml
    suppress:
      - rule: TG205
        reason: The parameter is a real identifier.
    ```
    """
    for suppression in tool.suppressions:
        if suppression.rule not in REGISTRY:
            yield Finding(
                f"suppression names {suppression.rule!r}, which is not a lint rule; expected "
                "an id such as TG205",
                span=suppression.origin.span("rule"),
            )


UNUSED_SUPPRESSION = engine_rule(
    id="TG992",
    name="unused-suppression",
    severity=Severity.WARNING,
    fix="Remove the suppression: the rule no longer fires here (or is not enabled).",
    source="ruff RUF100 (unused noqa directives)",
    doc="""A suppression that no longer matches anything.

    ## What it does
    After every rule has run, reports each `suppress:` entry of a tool that silenced no
    finding: the rule does not fire in this tool any more, is not enabled for the catalogue,
    or the same rule is suppressed twice. While a tool file of the catalogue is broken (it
    does not load or fails the format check), only suppressions of rules that are not enabled
    are reported: what an enabled rule finds may involve the broken tool.

    ## Why is this bad?
    A stale suppression keeps a reason in the spec that is no longer true, and it will silently
    hide the next real finding of that rule in the tool.

    ## Example
    ```yaml
    params:
      quantity: {type: integer, min: 1, max: 1000, description: Pieces to order.}
    suppress:
      - rule: TG205
        reason: The parameter used to be called val.
    ```

    ## Use instead
    ```yaml
    params:
      quantity: {type: integer, min: 1, max: 1000, description: Pieces to order.}
    ```
    """,
)


def unused_message(rule_id: str, tool: str, enabled: Mapping[str, Severity]) -> str:
    if rule_id not in enabled:
        return (
            f"suppression of {rule_id} in tool {tool!r} is not needed: {rule_id} is not "
            "enabled for this catalogue"
        )
    return (
        f"suppression of {rule_id} in tool {tool!r} matches nothing; expected a finding "
        f"of {rule_id} ({REGISTRY[rule_id].name}) in this tool"
    )
