"""Catalogue lint: the design traps of tool contracts as rules, run by check and build.

`lint(catalogue)` runs every enabled rule and returns diagnostics; `run(catalogue)` also
returns the token report. Rules live one family per module (names, descriptions, two_tool,
parameters, identity, effects, returns, security, catalogue, config) and register themselves
in `registry.REGISTRY`; `docs.rules_markdown()` renders docs/rules.md from them.
"""

from __future__ import annotations

from toolgen.diagnostics import Diagnostic
from toolgen.ir import Catalogue
from toolgen.lint.engine import LintResult, run

__all__ = ["LintResult", "lint", "run"]


def lint(catalogue: Catalogue) -> list[Diagnostic]:
    return list(run(catalogue).diagnostics)
