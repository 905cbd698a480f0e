"""Catalogue lint: the design traps of tool contracts as rules, run by check and build.

`lint(catalogue)` runs every enabled rule and returns diagnostics. Rules live one family per
module (`registry.all_rules` imports them all) and register themselves in `registry.REGISTRY`;
`docs.rules_markdown()` renders docs/rules.md from them.
"""

from __future__ import annotations

from toolgen.diagnostics import Hit
from toolgen.lint.engine import ToolLinter, enabled_rules, lint, lint_catalogue

__all__ = ["Hit", "ToolLinter", "enabled_rules", "lint", "lint_catalogue"]
