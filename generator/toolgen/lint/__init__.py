"""Catalogue lint: the design traps of tool contracts as rules, run by check and build.

`lint(catalogue)` runs every enabled rule and returns diagnostics; `run(catalogue)` also
returns the token report. Rules live one family per module (names, descriptions, neighbours,
two_tool, parameters, strict_limits, boundaries, identity, effects, returns, security,
catalogue, config) and register themselves in `registry.REGISTRY`; `docs.rules_markdown()`
renders docs/rules.md from them.
"""

from __future__ import annotations

from toolgen.diagnostics import Diagnostic, Hit
from toolgen.lint.engine import (
    LintResult,
    ToolLinter,
    enabled_rules,
    lint_catalogue,
    run,
)
from toolgen.spec.ir import Catalogue

__all__ = [
    "Hit",
    "LintResult",
    "ToolLinter",
    "enabled_rules",
    "lint",
    "lint_catalogue",
    "run",
]


def lint(catalogue: Catalogue) -> list[Diagnostic]:
    return list(run(catalogue).diagnostics)
