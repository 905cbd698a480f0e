"""What linting one parameter costs does not grow with the parameters beside it: a tool with
thousands of fields (TG510's fixtures, the bad catalogue) lints in time linear in its size."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_cases import _big_budget, _wide, files
from lint_fixtures import check

from toolgen.lint import words


@pytest.mark.parametrize("count", [100, 400])
def test_a_wide_object_costs_a_few_name_splits_a_field(
    count: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    real = words.name_words

    def counted(name: str) -> tuple[str, ...]:
        nonlocal calls
        calls += 1
        return real(name)

    monkeypatch.setattr(words, "name_words", counted)
    check(tmp_path, files(_wide(count), catalogue=_big_budget))
    # a rule that looked at every sibling of every field would split count**2 names
    assert calls < 20 * count, calls
