"""The example catalogue is lint-clean, and needs every suppression it has."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from toolgen import lint
from toolgen.build import pipeline
from toolgen.lint.context import CatalogueContext
from toolgen.spec.ir import Catalogue, LintConfig

ROOT = Path(__file__).resolve().parents[2]


def _inventory() -> Catalogue:
    result = pipeline.check_catalogue(
        ROOT / "spec" / "inventory", ROOT, implementations=False
    )
    assert result.catalogue is not None
    assert [d.format_text() for d in result.diagnostics] == []
    return result.catalogue


def test_example_catalogue_is_clean_with_preview_rules_too() -> None:
    catalogue = _inventory()
    with_preview = replace(catalogue, lint=LintConfig(preview=True))
    assert [d.format_text() for d in lint.lint(with_preview)] == []


SUPPRESSIONS = [
    (tool.name, s.rule) for tool in _inventory().tools for s in tool.suppressions
]


def test_example_catalogue_suppresses_only_the_known_rename() -> None:
    assert SUPPRESSIONS == [("next_batch", "TG203")]


@pytest.mark.parametrize(("tool_name", "rule_id"), SUPPRESSIONS)
def test_each_suppression_is_needed(tool_name: str, rule_id: str) -> None:
    catalogue = _inventory()
    tools = tuple(
        replace(t, suppressions=tuple(s for s in t.suppressions if s.rule != rule_id))
        if t.name == tool_name
        else t
        for t in catalogue.tools
    )
    found = lint.lint(replace(catalogue, tools=tools))
    assert [(d.code, d.span.file) for d in found] == [
        (rule_id, f"spec/inventory/tools/{tool_name}.yaml")
    ]


def test_example_catalogue_fits_its_token_budget() -> None:
    catalogue = _inventory()
    report = CatalogueContext.of(catalogue).tokens  # what TG953 reads
    assert catalogue.budget.tokens is not None
    assert 0 < report.total <= catalogue.budget.tokens
    assert {t.name for t in report.tools} == {t.name for t in catalogue.tools}
