"""Fixtures the test modules share."""

from __future__ import annotations

import pytest

from toolgen.spec import load


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files load parses (display paths), from the test's start: a test that
    builds first clears it before the build it looks at."""
    files: list[str] = []
    real = load._parse

    def spy(text: str, file: str) -> object:
        files.append(file)
        return real(text, file)

    monkeypatch.setattr(load, "_parse", spy)
    return files
