"""Every lint rule on its bad catalogue (exact file, line and column) and its good one."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_cases import CASES, Case
from lint_fixtures import check, lint_codes, spots_of

from toolgen.lint.registry import REGISTRY, all_rules


def _spec_errors(codes: set[str]) -> set[str]:
    return {c for c in codes if c not in REGISTRY}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_catalogue_reports_the_rule_exactly_where_marked(
    case: Case, tmp_path: Path
) -> None:
    diagnostics, marked = check(tmp_path, case.bad)
    assert marked, "a bad fixture must mark where the rule reports"
    assert spots_of(diagnostics, case.rule) == marked
    assert _spec_errors({d.code for d in diagnostics}) == set(case.spec_errors)
    for d in diagnostics:
        if d.code == case.rule:
            rule = REGISTRY[case.rule]
            assert d.severity is rule.severity
            assert d.message and d.hint, d.format_text()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_good_catalogue_is_clean(case: Case, tmp_path: Path) -> None:
    diagnostics, _ = check(tmp_path, case.good_files())
    unexpected = [
        d.format_text() for d in diagnostics if d.code not in case.good_allows
    ]
    assert unexpected == []
    assert lint_codes(diagnostics) <= set(case.good_allows)


def test_every_rule_has_a_bad_and_a_good_catalogue() -> None:
    assert {c.rule for c in CASES} == {r.id for r in all_rules()}
