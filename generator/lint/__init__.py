"""Catalogue lint: design rules over the model (filled in by the lint work)."""

from __future__ import annotations

from toolgen.diagnostics import Diagnostic
from toolgen.model import Catalogue


def lint(catalogue: Catalogue) -> list[Diagnostic]:
    return []
